import { randomUUID } from 'node:crypto';
import { describe, expect } from '@jest/globals';
import type { AdapterUser } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate, newUser, newAccount, newAuthenticator, defined } from './conformance-fixtures.js';

/** Users: create, read by id, email and account, update, delete with its cascade. */
export function describeUsers(ctx: ConformanceContext): void {
  const { test, raw, db, createUser, linked } = ctx;
  describe('users', () => {
    test(
      'createUser stores the user and returns it, dates as Date with milliseconds',
      ['createUser', 'getUser'],
      async () => {
        const input = newUser();
        const created = await ctx.adapter.createUser(input);
        expect(created).toMatchObject(input);
        expect(created.emailVerified).toBeInstanceOf(Date);
        const read = await ctx.adapter.getUser(input.id);
        expect(read).toMatchObject(input);
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
        const input: AdapterUser = { id: randomUUID(), email: `bare-${randomUUID()}@example.com`, emailVerified: null };
        await ctx.adapter.createUser(input);
        const read = await ctx.adapter.getUser(input.id);
        expect(read).toMatchObject(input);
        expect(read?.emailVerified).toBeNull();
        expect(read?.name ?? null).toBeNull();
        expect(read?.image ?? null).toBeNull();
      },
    );

    test('createUser refuses a second user with the same email', ['createUser', 'getUserByEmail'], async () => {
      const first = await createUser();
      await expect(
        Promise.resolve().then(() => ctx.adapter.createUser(newUser({ email: first.email }))),
      ).rejects.toThrow();
      expect((await ctx.adapter.getUserByEmail(first.email))?.id).toBe(first.id);
    });

    test('getUser returns null (not undefined) for an unknown id', ['getUser'], async () => {
      expect(await ctx.adapter.getUser(randomUUID())).toBeNull();
    });

    test(
      'getUserByEmail finds the user, and returns null for an unknown email',
      ['createUser', 'getUserByEmail'],
      async () => {
        const user = await createUser();
        expect(await ctx.adapter.getUserByEmail(user.email)).toMatchObject(defined(user));
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
        expect(
          await ctx.adapter.getUserByAccount({
            provider: account.provider,
            providerAccountId: account.providerAccountId,
          }),
        ).toMatchObject(defined(user));
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
        expect(updated).toMatchObject({ ...defined(user), name: 'Grace Hopper', emailVerified: verifiedAt });
        const read = await ctx.adapter.getUser(user.id);
        expect(read).toMatchObject({ ...defined(user), name: 'Grace Hopper', emailVerified: verifiedAt });
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

        await ctx.adapter.deleteUser(user.id);

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
