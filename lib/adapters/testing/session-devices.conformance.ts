import { randomUUID } from 'node:crypto';
import type { AdapterSessionInfo, SessionListingAdapter } from '../adapter.interface.js';
import { check } from './conformance-assert.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate } from './conformance-fixtures.js';

/** Sessions as devices beyond the contract (`SessionListingAdapter` and the optional session columns). */
export function describeSessionDevices(ctx: ConformanceContext): void {
  const { createUser } = ctx;
  const listing = () => ctx.adapter as unknown as SessionListingAdapter;
  const at = (ms: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - ms);
  const details = () => ({
    createdAt: at(60_000),
    lastSeenAt: at(30_000),
    userAgent: 'Firefox on Linux',
    ip: '203.0.113.0/24',
    providerSid: `sid-${randomUUID()}`,
  });
  const byToken = async (userId: string, token: string): Promise<AdapterSessionInfo | undefined> =>
    (await listing().listSessionsByUserId(userId)).find((s) => s.sessionToken === token);

  ctx.runner.describe('sessions as devices (beyond the contract)', () => {
    ctx.testExtension(
      'createSession stores the details it is given; getSessionAndUser still returns exactly the contract fields',
      'listSessionsByUserId',
      ['createUser', 'createSession', 'getSessionAndUser'],
      async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        const more = details();
        check.equals(await ctx.adapter.createSession({ ...session, ...more } as never), session);
        check.equals(await ctx.adapter.getSessionAndUser(session.sessionToken), { session, user });
        const listed = await byToken(user.id, session.sessionToken);
        check.matches(listed, { ...session, ...more });
        check.instanceOf(listed?.createdAt, Date);
        check.is(listed?.lastSeenAt?.getTime(), more.lastSeenAt.getTime());
      },
    );

    ctx.testExtension(
      "listSessionsByUserId lists that user's sessions only, details null where none were given; [] for an unknown user",
      'listSessionsByUserId',
      ['createUser', 'createSession'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const plain = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        const rich = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(60), ...details() };
        await ctx.adapter.createSession(plain);
        await ctx.adapter.createSession(rich as never);
        await ctx.adapter.createSession({ sessionToken: randomUUID(), userId: other.id, expires: futureDate(30) });
        const listed = await listing().listSessionsByUserId(user.id);
        check.equals(listed.map((s) => s.sessionToken).sort(), [plain.sessionToken, rich.sessionToken].sort());
        const bare = listed.find((s) => s.sessionToken === plain.sessionToken)!;
        check.equals(
          [bare.createdAt, bare.lastSeenAt, bare.userAgent, bare.ip, bare.providerSid].map((v) => v ?? null),
          [null, null, null, null, null],
        );
        check.instanceOf(bare.expires, Date);
        check.equals(await listing().listSessionsByUserId(randomUUID()), []);
      },
    );

    ctx.testExtension(
      'updateSession writes lastSeenAt with the expiry, keeps the other details, returns the contract fields',
      'listSessionsByUserId',
      ['createUser', 'createSession', 'updateSession'],
      async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(1) };
        const more = details();
        await ctx.adapter.createSession({ ...session, ...more } as never);
        const expires = futureDate(90);
        const lastSeenAt = at(0);
        const updated = await ctx.adapter.updateSession({ ...session, expires, lastSeenAt } as never);
        if (updated) check.equals(updated, { ...session, expires });
        check.matches(await byToken(user.id, session.sessionToken), { ...more, expires, lastSeenAt });
      },
    );

    ctx.testExtension(
      'createSession stores amr (how the user signed in), listSessionsByUserId returns it; getSessionAndUser does not',
      ['listSessionsByUserId', 'twoFactor'],
      ['createUser', 'createSession', 'getSessionAndUser'],
      async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        const plain = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        await ctx.adapter.createSession({ ...session, ...details(), amr: 'pwd otp mfa' } as never);
        await ctx.adapter.createSession(plain);
        check.is((await byToken(user.id, session.sessionToken))?.amr, 'pwd otp mfa');
        check.is((await byToken(user.id, plain.sessionToken))?.amr ?? null, null);
        check.equals(await ctx.adapter.getSessionAndUser(session.sessionToken), { session, user });
      },
    );

    ctx.testExtension(
      'deleteSession and deleteUser take the session out of the list',
      'listSessionsByUserId',
      ['createUser', 'createSession', 'deleteSession', 'deleteUser'],
      async () => {
        const user = await createUser();
        const [a, b] = [randomUUID(), randomUUID()];
        for (const sessionToken of [a, b])
          await ctx.adapter.createSession({
            sessionToken,
            userId: user.id,
            expires: futureDate(5),
            ...details(),
          } as never);
        await ctx.adapter.deleteSession(a);
        check.equals(
          (await listing().listSessionsByUserId(user.id)).map((s) => s.sessionToken),
          [b],
        );
        await ctx.adapter.deleteUser(user.id);
        check.equals(await listing().listSessionsByUserId(user.id), []);
      },
    );
  });
}
