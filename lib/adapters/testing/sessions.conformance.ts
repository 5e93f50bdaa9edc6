import { randomUUID } from 'node:crypto';
import { describe, expect } from '@jest/globals';
import type { ConformanceContext } from './conformance-context.js';
import { expectExactly, futureDate } from './conformance-fixtures.js';

/** Sessions: create, read with the user, update, delete. */
export function describeSessions(ctx: ConformanceContext): void {
  const { test, raw, db, createUser } = ctx;
  describe('sessions', () => {
    test(
      'createSession stores the session; getSessionAndUser returns it with its user, expires as Date',
      ['createUser', 'createSession', 'getSessionAndUser'],
      async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        expectExactly(await ctx.adapter.createSession(session), session);
        const found = await ctx.adapter.getSessionAndUser(session.sessionToken);
        expect(Object.keys(found ?? {}).sort()).toEqual(['session', 'user']);
        expectExactly(found?.session, session);
        expectExactly(found?.user, user);
        expect(found?.session.expires).toBeInstanceOf(Date);
        expect(found?.session.expires.getTime()).toBe(session.expires.getTime());
        expect(found?.user.emailVerified).toBeInstanceOf(Date);
        const row = await raw(db.session, session.sessionToken);
        if (row !== 'unchecked') expect(row).toMatchObject({ sessionToken: session.sessionToken, userId: user.id });
      },
    );

    test('getSessionAndUser returns null for an unknown token', ['getSessionAndUser'], async () => {
      expect(await ctx.adapter.getSessionAndUser(randomUUID())).toBeNull();
    });

    ctx.testUnique('createSession refuses a duplicate session token', ['createUser', 'createSession'], async () => {
      const user = await createUser();
      const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
      await ctx.adapter.createSession(session);
      await expect(Promise.resolve().then(() => ctx.adapter.createSession(session))).rejects.toThrow();
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
        if (updated) expectExactly(updated, { ...session, expires });
        const found = await ctx.adapter.getSessionAndUser(session.sessionToken);
        expect(found?.session.expires.getTime()).toBe(expires.getTime());
      },
    );

    test('updateSession of an unknown token creates nothing', ['updateSession', 'getSessionAndUser'], async () => {
      const sessionToken = randomUUID();
      expect((await ctx.adapter.updateSession({ sessionToken, expires: futureDate(5) })) ?? null).toBeNull();
      expect(await ctx.adapter.getSessionAndUser(sessionToken)).toBeNull();
    });

    test(
      'deleteSession removes the session; deleting an unknown token is harmless',
      ['createUser', 'createSession', 'deleteSession', 'getSessionAndUser'],
      async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        await ctx.adapter.createSession(session);
        const deleted = await ctx.adapter.deleteSession(session.sessionToken);
        if (deleted) expectExactly(deleted, session);
        expect(await ctx.adapter.getSessionAndUser(session.sessionToken)).toBeNull();
        const row = await raw(db.session, session.sessionToken);
        if (row !== 'unchecked') expect(row).toBeNull();
        await ctx.adapter.deleteSession(randomUUID());
      },
    );
  });
}
