import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect } from '@jest/globals';
import type { ConformanceContext } from './conformance-context.js';
import { expectExactly, newAuthenticator } from './conformance-fixtures.js';

/** Authenticators: create, read, list, and the counter as a compare-and-set. */
export function describeAuthenticators(ctx: ConformanceContext): void {
  const { test, raw, db, createUser, concurrency } = ctx;
  describe('authenticators', () => {
    test(
      'createAuthenticator stores it; getAuthenticator returns it',
      ['createUser', 'createAuthenticator', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const input = newAuthenticator(user.id);
        expectExactly(await ctx.adapter.createAuthenticator(input), input);
        const read = await ctx.adapter.getAuthenticator(input.credentialID);
        expectExactly(read, input);
        expect(typeof read?.counter).toBe('number');
        expect(read?.credentialBackedUp).toBe(true);
        const row = await raw(db.authenticator, input.credentialID);
        if (row !== 'unchecked') expect(row).toMatchObject({ credentialID: input.credentialID, userId: user.id });
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
        expectExactly(read, { ...input, transports: null });
      },
    );

    test(
      'createAuthenticator throws for a credential id that exists',
      ['createUser', 'createAuthenticator', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const other = await createUser();
        const input = await ctx.adapter.createAuthenticator(newAuthenticator(user.id));
        await expect(
          Promise.resolve().then(() =>
            ctx.adapter.createAuthenticator({ ...newAuthenticator(other.id), credentialID: input.credentialID }),
          ),
        ).rejects.toThrow();
        expect((await ctx.adapter.getAuthenticator(input.credentialID))?.userId).toBe(user.id);
      },
    );

    test('getAuthenticator returns null for an unknown credential', ['getAuthenticator'], async () => {
      expect(await ctx.adapter.getAuthenticator(randomBytes(16).toString('base64url'))).toBeNull();
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
        expect(list).toHaveLength(2);
        const byId = (id: string) => list.find((a) => a.credentialID === id);
        expectExactly(byId(a1.credentialID), a1);
        expectExactly(byId(a2.credentialID), a2);
        expect(await ctx.adapter.listAuthenticatorsByUserId(randomUUID())).toEqual([]);
      },
    );

    test(
      'updateAuthenticatorCounter sets the counter and returns the authenticator',
      ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const input = await ctx.adapter.createAuthenticator(newAuthenticator(user.id, { counter: 10 }));
        const updated = await ctx.adapter.updateAuthenticatorCounter(input.credentialID, 11);
        expectExactly(updated, { ...input, counter: 11 });
        expect((await ctx.adapter.getAuthenticator(input.credentialID))?.counter).toBe(11);
      },
    );

    test(
      'updateAuthenticatorCounter throws for an unknown credential',
      ['updateAuthenticatorCounter', 'getAuthenticator'],
      async () => {
        const credentialID = randomBytes(16).toString('base64url');
        await expect(
          Promise.resolve().then(() => ctx.adapter.updateAuthenticatorCounter(credentialID, 1)),
        ).rejects.toThrow();
        await expect(
          Promise.resolve().then(() => ctx.adapter.updateAuthenticatorCounter(credentialID, 1, 0)),
        ).rejects.toThrow();
        expect(await ctx.adapter.getAuthenticator(credentialID)).toBeNull();
      },
    );

    test(
      'updateAuthenticatorCounter with expectedCounter is a compare-and-set',
      ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const input = await ctx.adapter.createAuthenticator(newAuthenticator(user.id, { counter: 10 }));
        await expect(
          Promise.resolve().then(() => ctx.adapter.updateAuthenticatorCounter(input.credentialID, 12, 9)),
        ).rejects.toThrow();
        expect((await ctx.adapter.getAuthenticator(input.credentialID))?.counter).toBe(10);
        expect(await ctx.adapter.updateAuthenticatorCounter(input.credentialID, 12, 10)).toMatchObject({ counter: 12 });
        expect((await ctx.adapter.getAuthenticator(input.credentialID))?.counter).toBe(12);
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
        expect(winners).toHaveLength(1);
        expect((await ctx.adapter.getAuthenticator(input.credentialID))?.counter).toBe(winners[0]!.counter);
      },
    );
  });
}
