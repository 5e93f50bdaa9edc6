import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type {
  AccountTokensAdapter,
  AdapterMethod,
  SessionsByUserAdapter,
  VerificationTokensByIdentifierAdapter,
} from '../adapter.interface.js';
import type { ConformanceContext, ConformanceExtension } from './conformance-context.js';
import { futureDate } from './conformance-fixtures.js';

/** Optional methods beyond the contract (`SessionsByUserAdapter`, `VerificationTokensByIdentifierAdapter`). */
export function describeOptionalMethods(ctx: ConformanceContext): void {
  const { createUser, linked, supported, extensions, concurrency } = ctx;
  describe('optional methods beyond the contract', () => {
    const extended = () =>
      ctx.adapter as unknown as Required<
        SessionsByUserAdapter & VerificationTokensByIdentifierAdapter & AccountTokensAdapter
      >;
    const optional = (
      name: string,
      extension: ConformanceExtension,
      needs: AdapterMethod[],
      fn: () => Promise<void>,
    ): void => {
      (extensions.has(extension) && needs.every((m) => supported.has(m)) ? it : it.skip)(name, fn);
    };

    optional(
      "deleteSessionsByUserId deletes that user's sessions, no one else's, and says how many",
      'deleteSessionsByUserId',
      ['createUser', 'createSession', 'getSessionAndUser'],
      async () => {
        const [mine, theirs] = [await createUser(), await createUser()];
        const tokens = [randomUUID(), randomUUID(), randomUUID()];
        await ctx.adapter.createSession({ sessionToken: tokens[0]!, userId: mine.id, expires: futureDate(30) });
        await ctx.adapter.createSession({ sessionToken: tokens[1]!, userId: mine.id, expires: futureDate(30) });
        await ctx.adapter.createSession({ sessionToken: tokens[2]!, userId: theirs.id, expires: futureDate(30) });
        expect(await extended().deleteSessionsByUserId(mine.id)).toBe(2);
        expect(await ctx.adapter.getSessionAndUser(tokens[0]!)).toBeNull();
        expect(await ctx.adapter.getSessionAndUser(tokens[1]!)).toBeNull();
        expect(await ctx.adapter.getSessionAndUser(tokens[2]!)).not.toBeNull();
        expect(await extended().deleteSessionsByUserId(mine.id)).toBe(0);
      },
    );

    optional(
      "deleteVerificationTokensByIdentifier deletes that exact identifier's tokens only",
      'deleteVerificationTokensByIdentifier',
      ['createVerificationToken', 'useVerificationToken'],
      async () => {
        const tag = randomUUID().slice(0, 8);
        const mine = `mine-${tag}@example.com`;
        const other = `other-${tag}@example.com`;
        const expires = futureDate(1);
        for (const [identifier, token] of [
          [mine, `a-${tag}`],
          [mine, `b-${tag}`],
          [mine.toUpperCase(), `c-${tag}`],
          [other, `d-${tag}`],
        ] as const) {
          await ctx.adapter.createVerificationToken({ identifier, token, expires });
        }
        expect(await extended().deleteVerificationTokensByIdentifier(mine)).toBe(2);
        expect(await ctx.adapter.useVerificationToken({ identifier: mine, token: `a-${tag}` })).toBeNull();
        // Identifiers compare exactly, as tokens do (no case folding).
        expect(
          await ctx.adapter.useVerificationToken({ identifier: mine.toUpperCase(), token: `c-${tag}` }),
        ).not.toBeNull();
        expect(await ctx.adapter.useVerificationToken({ identifier: other, token: `d-${tag}` })).not.toBeNull();
      },
    );
    optional(
      "listAccountsByUserId lists that user's accounts, no one else's",
      'listAccountsByUserId',
      ['createUser', 'linkAccount'],
      async () => {
        const [mine, theirs, nobody] = [await createUser(), await createUser(), await createUser()];
        const a = await linked(mine.id);
        const b = await linked(mine.id);
        await linked(theirs.id);
        const listed = await extended().listAccountsByUserId(mine.id);
        expect(listed.map((x) => `${x.provider}/${x.providerAccountId}`).sort()).toEqual(
          [a, b].map((x) => `${x.provider}/${x.providerAccountId}`).sort(),
        );
        expect(listed.every((x) => x.userId === mine.id)).toBe(true);
        expect(await extended().listAccountsByUserId(nobody.id)).toEqual([]);
      },
    );

    optional(
      'updateAccountTokens writes only when refresh_token and expires_at still match, clearing nulls',
      'updateAccountTokens',
      ['createUser', 'linkAccount', 'getAccount'],
      async () => {
        const user = await createUser();
        const account = await linked(user.id, { access_token: 'at-1', refresh_token: 'rt-1', expires_at: 1000 });
        const key = { provider: account.provider, providerAccountId: account.providerAccountId };
        // Stale values: nothing is written.
        expect(
          await extended().updateAccountTokens(
            { ...key, refresh_token: 'rt-0', expires_at: 1000 },
            { access_token: 'x' },
          ),
        ).toBeNull();
        expect(
          await extended().updateAccountTokens(
            { ...key, refresh_token: 'rt-1', expires_at: 999 },
            { access_token: 'x' },
          ),
        ).toBeNull();
        // Tokens compare exactly (no case folding).
        expect(
          await extended().updateAccountTokens(
            { ...key, refresh_token: 'RT-1', expires_at: 1000 },
            { access_token: 'x' },
          ),
        ).toBeNull();
        expect((await ctx.adapter.getAccount(key.providerAccountId, key.provider))?.access_token).toBe('at-1');
        const updated = await extended().updateAccountTokens(
          { ...key, refresh_token: 'rt-1', expires_at: 1000 },
          { access_token: 'at-2', refresh_token: 'rt-2', expires_at: 2000, id_token: null },
        );
        expect(updated).toMatchObject({
          ...key,
          userId: user.id,
          access_token: 'at-2',
          refresh_token: 'rt-2',
          expires_at: 2000,
        });
        const stored = await ctx.adapter.getAccount(key.providerAccountId, key.provider);
        expect(stored).toMatchObject({ access_token: 'at-2', refresh_token: 'rt-2', expires_at: 2000 });
        expect(stored?.id_token ?? null).toBeNull();
        // Clearing both, then matching the empty columns with null.
        expect(
          await extended().updateAccountTokens(
            { ...key, refresh_token: 'rt-2', expires_at: 2000 },
            { refresh_token: null, expires_at: null },
          ),
        ).not.toBeNull();
        expect(
          await extended().updateAccountTokens(
            { ...key, refresh_token: null, expires_at: null },
            { access_token: 'at-3' },
          ),
        ).toMatchObject({ access_token: 'at-3' });
        // An unknown account: null.
        expect(
          await extended().updateAccountTokens(
            {
              provider: key.provider,
              providerAccountId: `gone-${randomUUID()}`,
              refresh_token: null,
              expires_at: null,
            },
            { access_token: 'x' },
          ),
        ).toBeNull();
      },
    );

    optional(
      'updateAccountTokens: of concurrent swaps from the same values exactly one wins',
      'updateAccountTokens',
      ['createUser', 'linkAccount', 'getAccount'],
      async () => {
        const user = await createUser();
        const account = await linked(user.id, { refresh_token: 'rt-race', expires_at: 500 });
        const key = { provider: account.provider, providerAccountId: account.providerAccountId };
        const results = await Promise.all(
          Array.from({ length: Math.min(concurrency, 20) }, async (_, i) =>
            extended().updateAccountTokens(
              { ...key, refresh_token: 'rt-race', expires_at: 500 },
              { refresh_token: `rt-next-${i}`, expires_at: 600 },
            ),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        const stored = await ctx.adapter.getAccount(key.providerAccountId, key.provider);
        expect(stored?.refresh_token).toBe(winners[0]!.refresh_token);
      },
    );
  });
}
