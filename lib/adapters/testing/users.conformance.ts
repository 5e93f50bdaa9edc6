import { randomUUID } from 'node:crypto';
import { describe, expect } from '@jest/globals';
import type { AdapterUser } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { expectExactly, futureDate, newUser, newAccount, newAuthenticator } from './conformance-fixtures.js';

/** Users: create, read by id, email and account, update, delete with its cascade. */
export function describeUsers(ctx: ConformanceContext): void {
  const { test, raw, db, createUser, linked } = ctx;
  describe('users', () => {
    test(
      'createUser stores the user and returns it, dates as Date with milliseconds',
      ['createUser', 'getUser'],
      async () => {
        const given = newUser();
        const created = await ctx.adapter.createUser(given);
        // The id is the one given, or one the store made (SERIAL, cuid): a non-empty string either way.
        expect(typeof created.id).toBe('string');
        expect(created.id).not.toBe('');
        const input = { ...given, id: created.id };
        expectExactly(created, input);
        expect(created.emailVerified).toBeInstanceOf(Date);
        const read = await ctx.adapter.getUser(input.id);
        expectExactly(read, input);
        expect(read?.emailVerified).toBeInstanceOf(Date);
        expect(read?.emailVerified?.getTime()).toBe(input.emailVerified?.getTime());
        const row = await raw(db.user, input.id);
        if (row !== 'unchecked') expect(row).toMatchObject({ email: input.email });
      },
    );

    test(
      'createUser keeps emailVerified null and optional fields absent or null',
      ['createUser', 'getUser'],
      async () => {
        const given: AdapterUser = { id: randomUUID(), email: `bare-${randomUUID()}@example.com`, emailVerified: null };
        const created = await ctx.adapter.createUser(given);
        const input = { ...given, id: created.id };
        const read = await ctx.adapter.getUser(input.id);
        // name and image are `string | null` (SPEC 2.8): absent or null, and nothing else.
        for (const user of [created, read]) {
          expect(user?.emailVerified).toBeNull();
          expectExactly(user, { ...input, ...nullsOf(user, ['name', 'image']) });
        }
      },
    );

    ctx.testUnique(
      'createUser refuses a second user with the same email',
      ['createUser', 'getUserByEmail'],
      async () => {
        const first = await createUser();
        await expect(
          Promise.resolve().then(() => ctx.adapter.createUser(newUser({ email: first.email }))),
        ).rejects.toThrow();
        expect((await ctx.adapter.getUserByEmail(first.email))?.id).toBe(first.id);
      },
    );

    test('getUser returns null (not undefined) for an unknown id', ['getUser'], async () => {
      expect(await ctx.adapter.getUser(randomUUID())).toBeNull();
    });

    test(
      'getUserByEmail finds the user, and returns null for an unknown email',
      ['createUser', 'getUserByEmail'],
      async () => {
        const user = await createUser();
        expectExactly(await ctx.adapter.getUserByEmail(user.email), user);
        expect(await ctx.adapter.getUserByEmail(`nobody-${randomUUID()}@example.com`)).toBeNull();
      },
    );

    test(
      'getUserByAccount finds the user by (provider, providerAccountId), null otherwise',
      ['createUser', 'linkAccount', 'getUserByAccount'],
      async () => {
        const user = await createUser();
        const account = newAccount(user.id);
        await ctx.adapter.linkAccount(account);
        expectExactly(
          await ctx.adapter.getUserByAccount({
            provider: account.provider,
            providerAccountId: account.providerAccountId,
          }),
          user,
        );
        expect(
          await ctx.adapter.getUserByAccount({
            provider: 'other-provider',
            providerAccountId: account.providerAccountId,
          }),
        ).toBeNull();
        expect(
          await ctx.adapter.getUserByAccount({ provider: account.provider, providerAccountId: randomUUID() }),
        ).toBeNull();
      },
    );

    test(
      'updateUser changes the given fields only and returns the whole user',
      ['createUser', 'updateUser', 'getUser'],
      async () => {
        const user = await createUser({ emailVerified: null });
        const verifiedAt = futureDate(-1);
        const updated = await ctx.adapter.updateUser({ id: user.id, name: 'Grace Hopper', emailVerified: verifiedAt });
        expectExactly(updated, { ...user, name: 'Grace Hopper', emailVerified: verifiedAt });
        const read = await ctx.adapter.getUser(user.id);
        expectExactly(read, { ...user, name: 'Grace Hopper', emailVerified: verifiedAt });
        expect(read?.emailVerified).toBeInstanceOf(Date);
        expect(read?.emailVerified?.getTime()).toBe(verifiedAt.getTime());
      },
    );

    test('results are copies: mutating one does not change the store', ['createUser', 'getUser'], async () => {
      const user = await createUser();
      const read = await ctx.adapter.getUser(user.id);
      if (!read) throw new Error('user not found');
      read.name = 'mutated';
      read.emailVerified?.setTime(0);
      const again = await ctx.adapter.getUser(user.id);
      expect(again?.name).toBe(user.name);
      expect(again?.emailVerified?.getTime()).toBe(user.emailVerified?.getTime());
    });

    test(
      'deleteUser removes the user and cascades to sessions, accounts and authenticators',
      [
        'createUser',
        'deleteUser',
        'getUser',
        'linkAccount',
        'getAccount',
        'getUserByAccount',
        'createSession',
        'getSessionAndUser',
        'createAuthenticator',
        'getAuthenticator',
        'listAuthenticatorsByUserId',
      ],
      async () => {
        const user = await createUser();
        const other = await createUser();
        const account = await linked(user.id);
        const otherAccount = await linked(other.id);
        const sessionToken = randomUUID();
        await ctx.adapter.createSession({ sessionToken, userId: user.id, expires: futureDate(30) });
        const otherSession = randomUUID();
        await ctx.adapter.createSession({ sessionToken: otherSession, userId: other.id, expires: futureDate(30) });
        const authenticator = await ctx.adapter.createAuthenticator(newAuthenticator(user.id));

        const deleted = await ctx.adapter.deleteUser(user.id);
        if (deleted) expectExactly(deleted, user);

        expect(await ctx.adapter.getUser(user.id)).toBeNull();
        expect(await ctx.adapter.getSessionAndUser(sessionToken)).toBeNull();
        expect(await ctx.adapter.getAccount(account.providerAccountId, account.provider)).toBeNull();
        expect(await ctx.adapter.getUserByAccount(account)).toBeNull();
        expect(await ctx.adapter.getAuthenticator(authenticator.credentialID)).toBeNull();
        expect(await ctx.adapter.listAuthenticatorsByUserId(user.id)).toEqual([]);
        for (const row of [
          await raw(db.user, user.id),
          await raw(db.session, sessionToken),
          await raw(db.account, account.provider, account.providerAccountId),
          await raw(db.authenticator, authenticator.credentialID),
        ])
          if (row !== 'unchecked') expect(row).toBeNull();
        // Nobody else's data goes with it.
        expect(await ctx.adapter.getUser(other.id)).not.toBeNull();
        expect(await ctx.adapter.getSessionAndUser(otherSession)).not.toBeNull();
        expect(await ctx.adapter.getAccount(otherAccount.providerAccountId, otherAccount.provider)).not.toBeNull();
      },
    );
  });
}

/** The given fields of `value` that are present and null (absent ones stay absent). */
function nullsOf(value: object | null | undefined, fields: string[]): Record<string, null> {
  return Object.fromEntries(fields.filter((f) => value && f in value).map((f) => [f, null]));
}
