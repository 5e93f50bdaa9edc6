import { check } from './conformance-assert.js';
import type { AdapterAccount } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { newAccount } from './conformance-fixtures.js';

/** Accounts: link (one winner under concurrency), read, unlink. */
export function describeAccounts(ctx: ConformanceContext): void {
  const { test, raw, db, createUser, linked, concurrency } = ctx;
  ctx.runner.describe('accounts', () => {
    test(
      'linkAccount stores every token field (a long id_token too) and getAccount returns them',
      ['createUser', 'linkAccount', 'getAccount'],
      async () => {
        const user = await createUser();
        const account = newAccount(user.id);
        const linkedAccount = await ctx.adapter.linkAccount(account);
        if (linkedAccount) check.equals(linkedAccount, account);
        const read = await ctx.adapter.getAccount(account.providerAccountId, account.provider);
        check.equals(read, account);
        check.is(typeof read?.expires_at, 'number');
        const row = await raw(db.account, account.provider, account.providerAccountId);
        if (row !== 'unchecked')
          check.matches(row, {
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
        if (linkedAccount) check.equals(linkedAccount, account);
        // No token field comes back, not even as null.
        check.equals(await ctx.adapter.getAccount(user.email, 'email'), account);
      },
    );

    ctx.testUnique(
      'linkAccount refuses a second account with the same (provider, providerAccountId)',
      ['createUser', 'linkAccount', 'getUserByAccount'],
      async () => {
        const user = await createUser();
        const other = await createUser();
        const account = await linked(user.id);
        await check.rejects(Promise.resolve().then(() => ctx.adapter.linkAccount({ ...account, userId: other.id })));
        await check.rejects(Promise.resolve().then(() => ctx.adapter.linkAccount({ ...account })));
        check.is((await ctx.adapter.getUserByAccount(account))?.id, user.id);
      },
    );

    test(
      'the same providerAccountId at two providers is two accounts',
      ['createUser', 'linkAccount', 'getAccount'],
      async () => {
        const user = await createUser();
        const account = await linked(user.id);
        await ctx.adapter.linkAccount({ ...account, provider: 'another-provider' });
        check.notNull(await ctx.adapter.getAccount(account.providerAccountId, 'another-provider'));
        check.notNull(await ctx.adapter.getAccount(account.providerAccountId, account.provider));
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
        check.lengthOf(
          results.filter((r) => r.status === 'fulfilled'),
          1,
        );
        const winner = results.findIndex((r) => r.status === 'fulfilled');
        check.is((await ctx.adapter.getUserByAccount(account))?.id, users[winner % users.length]!.id);
      },
    );

    test(
      'getAccount returns null when provider or providerAccountId does not match',
      ['createUser', 'linkAccount', 'getAccount'],
      async () => {
        const user = await createUser();
        const account = await linked(user.id);
        check.isNull(await ctx.adapter.getAccount('unknown-account-id', 'unknown-provider'));
        check.isNull(await ctx.adapter.getAccount(account.providerAccountId, 'unknown-provider'));
        check.isNull(await ctx.adapter.getAccount('unknown-account-id', account.provider));
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
        if (unlinked) check.equals(unlinked, account);
        check.isNull(await ctx.adapter.getAccount(account.providerAccountId, account.provider));
        const row = await raw(db.account, account.provider, account.providerAccountId);
        if (row !== 'unchecked') check.isNull(row);
        check.notNull(await ctx.adapter.getAccount(kept.providerAccountId, kept.provider));
        check.notNull(await ctx.adapter.getUser(user.id));
        // Unlinking again is harmless.
        await ctx.adapter.unlinkAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
      },
    );
  });
}
