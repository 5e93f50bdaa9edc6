import { randomUUID } from 'node:crypto';
import { check } from './conformance-assert.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate } from './conformance-fixtures.js';

/** Sessions: create, read with the user, update, delete. */
export function describeSessions(ctx: ConformanceContext): void {
  const { test, raw, db, createUser } = ctx;
  ctx.runner.describe('sessions', () => {
    test(
      'createSession stores the session; getSessionAndUser returns it with its user, expires as Date',
      ['createUser', 'createSession', 'getSessionAndUser'],
      async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        check.equals(await ctx.adapter.createSession(session), session);
        const found = await ctx.adapter.getSessionAndUser(session.sessionToken);
        check.equals(found, { session, user });
        check.instanceOf(found?.session.expires, Date);
        check.is(found?.session.expires.getTime(), session.expires.getTime());
        check.instanceOf(found?.user.emailVerified, Date);
        const row = await raw(db.session, session.sessionToken);
        if (row !== 'unchecked') check.matches(row, { sessionToken: session.sessionToken, userId: user.id });
      },
    );

    test('getSessionAndUser returns null for an unknown token', ['getSessionAndUser'], async () => {
      check.isNull(await ctx.adapter.getSessionAndUser(randomUUID()));
    });

    ctx.testUnique('createSession refuses a duplicate session token', ['createUser', 'createSession'], async () => {
      const user = await createUser();
      const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
      await ctx.adapter.createSession(session);
      await check.rejects(Promise.resolve().then(() => ctx.adapter.createSession(session)));
    });

    test(
      'updateSession changes the expiry',
      ['createUser', 'createSession', 'updateSession', 'getSessionAndUser'],
      async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(1) };
        await ctx.adapter.createSession(session);
        const expires = futureDate(60);
        const updated = await ctx.adapter.updateSession({ sessionToken: session.sessionToken, expires });
        if (updated) check.equals(updated, { ...session, expires });
        const found = await ctx.adapter.getSessionAndUser(session.sessionToken);
        check.is(found?.session.expires.getTime(), expires.getTime());
      },
    );

    test('updateSession of an unknown token creates nothing', ['updateSession', 'getSessionAndUser'], async () => {
      const sessionToken = randomUUID();
      check.isNull((await ctx.adapter.updateSession({ sessionToken, expires: futureDate(5) })) ?? null);
      check.isNull(await ctx.adapter.getSessionAndUser(sessionToken));
    });

    test(
      'deleteSession removes the session; deleting an unknown token is harmless',
      ['createUser', 'createSession', 'deleteSession', 'getSessionAndUser'],
      async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        await ctx.adapter.createSession(session);
        const deleted = await ctx.adapter.deleteSession(session.sessionToken);
        if (deleted) check.equals(deleted, session);
        check.isNull(await ctx.adapter.getSessionAndUser(session.sessionToken));
        const row = await raw(db.session, session.sessionToken);
        if (row !== 'unchecked') check.isNull(row);
        await ctx.adapter.deleteSession(randomUUID());
      },
    );
  });
}
