import { randomBytes, randomUUID } from 'node:crypto';
import { check } from './conformance-assert.js';
import type { ConformanceContext } from './conformance-context.js';
import { newAuthenticator } from './conformance-fixtures.js';

/** Authenticators: create, read, list, and the counter as a compare-and-set. */
export function describeAuthenticators(ctx: ConformanceContext): void {
  const { test, raw, db, createUser, concurrency } = ctx;
  ctx.runner.describe('authenticators', () => {
    test(
      'createAuthenticator stores it; getAuthenticator returns it',
      ['createUser', 'createAuthenticator', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const input = newAuthenticator(user.id);
        check.equals(specOf(await ctx.adapter.createAuthenticator(input)), input);
        const read = await ctx.adapter.getAuthenticator(input.credentialID);
        check.equals(specOf(read), input);
        check.is(typeof read?.counter, 'number');
        check.is(read?.credentialBackedUp, true);
        const row = await raw(db.authenticator, input.credentialID);
        if (row !== 'unchecked') check.matches(row, { credentialID: input.credentialID, userId: user.id });
      },
    );

    test(
      'createAuthenticator keeps transports null and credentialBackedUp false',
      ['createUser', 'createAuthenticator', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const input = newAuthenticator(user.id, {
          transports: null,
          credentialBackedUp: false,
          counter: 0,
          credentialDeviceType: 'singleDevice',
        });
        await ctx.adapter.createAuthenticator(input);
        const read = await ctx.adapter.getAuthenticator(input.credentialID);
        check.equals(specOf(read), { ...input, transports: null });
      },
    );

    test(
      'createAuthenticator throws for a credential id that exists',
      ['createUser', 'createAuthenticator', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const other = await createUser();
        const input = await ctx.adapter.createAuthenticator(newAuthenticator(user.id));
        await check.rejects(
          Promise.resolve().then(() =>
            ctx.adapter.createAuthenticator({ ...newAuthenticator(other.id), credentialID: input.credentialID }),
          ),
        );
        check.is((await ctx.adapter.getAuthenticator(input.credentialID))?.userId, user.id);
      },
    );

    test('getAuthenticator returns null for an unknown credential', ['getAuthenticator'], async () => {
      check.isNull(await ctx.adapter.getAuthenticator(randomBytes(16).toString('base64url')));
    });

    test(
      "listAuthenticatorsByUserId lists the user's authenticators, [] for an unknown user",
      ['createUser', 'createAuthenticator', 'listAuthenticatorsByUserId'],
      async () => {
        const user = await createUser();
        const other = await createUser();
        const a1 = await ctx.adapter.createAuthenticator(newAuthenticator(user.id));
        const a2 = await ctx.adapter.createAuthenticator(newAuthenticator(user.id, { transports: 'usb,nfc' }));
        await ctx.adapter.createAuthenticator(newAuthenticator(other.id));
        const list = await ctx.adapter.listAuthenticatorsByUserId(user.id);
        check.lengthOf(list, 2);
        const byId = (a: { credentialID?: string }, b: { credentialID?: string }) =>
          (a.credentialID ?? '').localeCompare(b.credentialID ?? '');
        check.equals([...list].map((a) => specOf(a)).sort(byId), [a1, a2].map((a) => specOf(a)).sort(byId));
        check.equals(await ctx.adapter.listAuthenticatorsByUserId(randomUUID()), []);
      },
    );

    test(
      'updateAuthenticatorCounter sets the counter and returns the authenticator',
      ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const input = await ctx.adapter.createAuthenticator(newAuthenticator(user.id, { counter: 10 }));
        const updated = await ctx.adapter.updateAuthenticatorCounter(input.credentialID, 11);
        check.equals(specOf(updated, 'lastUsedAt'), specOf({ ...input, counter: 11 }));
        check.is((await ctx.adapter.getAuthenticator(input.credentialID))?.counter, 11);
      },
    );

    test(
      'updateAuthenticatorCounter throws for an unknown credential',
      ['updateAuthenticatorCounter', 'getAuthenticator'],
      async () => {
        const credentialID = randomBytes(16).toString('base64url');
        await check.rejects(Promise.resolve().then(() => ctx.adapter.updateAuthenticatorCounter(credentialID, 1)));
        await check.rejects(Promise.resolve().then(() => ctx.adapter.updateAuthenticatorCounter(credentialID, 1, 0)));
        check.isNull(await ctx.adapter.getAuthenticator(credentialID));
      },
    );

    test(
      'updateAuthenticatorCounter with expectedCounter is a compare-and-set',
      ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const input = await ctx.adapter.createAuthenticator(newAuthenticator(user.id, { counter: 10 }));
        await check.rejects(
          Promise.resolve().then(() => ctx.adapter.updateAuthenticatorCounter(input.credentialID, 12, 9)),
        );
        check.is((await ctx.adapter.getAuthenticator(input.credentialID))?.counter, 10);
        check.matches(await ctx.adapter.updateAuthenticatorCounter(input.credentialID, 12, 10), { counter: 12 });
        check.is((await ctx.adapter.getAuthenticator(input.credentialID))?.counter, 12);
      },
    );

    test(
      'concurrent compare-and-set counter updates from the same value: exactly one wins',
      ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const input = await ctx.adapter.createAuthenticator(newAuthenticator(user.id, { counter: 20 }));
        const results = await Promise.allSettled(
          Array.from({ length: Math.min(concurrency, 20) }, (_, i) =>
            Promise.resolve().then(() => ctx.adapter.updateAuthenticatorCounter(input.credentialID, 21 + i, 20)),
          ),
        );
        const winners = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        check.lengthOf(winners, 1);
        check.is((await ctx.adapter.getAuthenticator(input.credentialID))?.counter, winners[0]!.counter);
      },
    );
  });
}

/**
 * The SPEC fields of an authenticator: the beyond-SPEC `name` and `lastUsedAt` are left out when
 * empty (adapters with the columns return them as `null`), or always when listed in `drop`.
 */
function specOf<T extends object | null | undefined>(a: T, ...drop: string[]): T {
  if (!a) return a;
  const out = { ...a } as Record<string, unknown>;
  for (const key of ['name', 'lastUsedAt'])
    if (drop.includes(key) || out[key] === null || out[key] === undefined) delete out[key];
  return out as T;
}
