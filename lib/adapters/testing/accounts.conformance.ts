import { describe, expect } from '@jest/globals';
import type { AdapterAccount } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { expectExactly, newAccount } from './conformance-fixtures.js';

/** Accounts: link (one winner under concurrency), read, unlink. */
export function describeAccounts(ctx: ConformanceContext): void {
  const { test, raw, db, createUser, linked, concurrency } = ctx;
  describe('accounts', () => {
    test(
      'linkAccount stores every token field (a long id_token too) and getAccount returns them',
      ['createUser', 'linkAccount', 'getAccount'],
      async () => {
        const user = await createUser();
        const account = newAccount(user.id);
        const linkedAccount = await ctx.adapter.linkAccount(account);
        if (linkedAccount) expectExactly(linkedAccount, account);
        const read = await ctx.adapter.getAccount(account.providerAccountId, account.provider);
        expectExactly(read, account);
        expect(typeof read?.expires_at).toBe('number');
        const row = await raw(db.account, account.provider, account.providerAccountId);
        if (row !== 'unchecked')
          expect(row).toMatchObject({
            provider: account.provider,
            providerAccountId: account.providerAccountId,
            id_token: account.id_token,
          });
      },
    );

    test(
      'linkAccount accepts an account with no tokens (email, webauthn)',
      ['createUser', 'linkAccount', 'getAccount'],
      async () => {
        const user = await createUser();
        const account: AdapterAccount = {
          userId: user.id,
          type: 'email',
          provider: 'email',
          providerAccountId: user.email,
        };
        const linkedAccount = await ctx.adapter.linkAccount(account);
        if (linkedAccount) expectExactly(linkedAccount, account);
        // No token field comes back, not even as null.
        expectExactly(await ctx.adapter.getAccount(user.email, 'email'), account);
      },
    );

    ctx.testUnique(
      'linkAccount refuses a second account with the same (provider, providerAccountId)',
      ['createUser', 'linkAccount', 'getUserByAccount'],
      async () => {
        const user = await createUser();
        const other = await createUser();
        const account = await linked(user.id);
        await expect(
          Promise.resolve().then(() => ctx.adapter.linkAccount({ ...account, userId: other.id })),
        ).rejects.toThrow();
        await expect(Promise.resolve().then(() => ctx.adapter.linkAccount({ ...account }))).rejects.toThrow();
        expect((await ctx.adapter.getUserByAccount(account))?.id).toBe(user.id);
      },
    );

    test(
      'the same providerAccountId at two providers is two accounts',
      ['createUser', 'linkAccount', 'getAccount'],
      async () => {
        const user = await createUser();
        const account = await linked(user.id);
        await ctx.adapter.linkAccount({ ...account, provider: 'another-provider' });
        expect(await ctx.adapter.getAccount(account.providerAccountId, 'another-provider')).not.toBeNull();
        expect(await ctx.adapter.getAccount(account.providerAccountId, account.provider)).not.toBeNull();
      },
    );

    ctx.testUnique(
      `concurrent linkAccount calls for one provider account: exactly one wins`,
      ['createUser', 'linkAccount', 'getUserByAccount'],
      async () => {
        const users = await Promise.all(Array.from({ length: 5 }, () => createUser()));
        const account = newAccount(users[0]!.id);
        const results = await Promise.allSettled(
          Array.from({ length: Math.min(concurrency, 20) }, (_, i) =>
            Promise.resolve().then(() => ctx.adapter.linkAccount({ ...account, userId: users[i % users.length]!.id })),
          ),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const winner = results.findIndex((r) => r.status === 'fulfilled');
        expect((await ctx.adapter.getUserByAccount(account))?.id).toBe(users[winner % users.length]!.id);
      },
    );

    test(
      'getAccount returns null when provider or providerAccountId does not match',
      ['createUser', 'linkAccount', 'getAccount'],
      async () => {
        const user = await createUser();
        const account = await linked(user.id);
        expect(await ctx.adapter.getAccount('unknown-account-id', 'unknown-provider')).toBeNull();
        expect(await ctx.adapter.getAccount(account.providerAccountId, 'unknown-provider')).toBeNull();
        expect(await ctx.adapter.getAccount('unknown-account-id', account.provider)).toBeNull();
      },
    );

    test(
      'unlinkAccount removes that (provider, providerAccountId) only',
      ['createUser', 'linkAccount', 'unlinkAccount', 'getAccount', 'getUser'],
      async () => {
        const user = await createUser();
        const account = await linked(user.id);
        const kept = await linked(user.id, { provider: 'kept-provider' });
        const unlinked = await ctx.adapter.unlinkAccount({
          provider: account.provider,
          providerAccountId: account.providerAccountId,
        });
        if (unlinked) expectExactly(unlinked, account);
        expect(await ctx.adapter.getAccount(account.providerAccountId, account.provider)).toBeNull();
        const row = await raw(db.account, account.provider, account.providerAccountId);
        if (row !== 'unchecked') expect(row).toBeNull();
        expect(await ctx.adapter.getAccount(kept.providerAccountId, kept.provider)).not.toBeNull();
        expect(await ctx.adapter.getUser(user.id)).not.toBeNull();
        // Unlinking again is harmless.
        await ctx.adapter.unlinkAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
      },
    );
  });
}
