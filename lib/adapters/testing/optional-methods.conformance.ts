import { randomUUID } from 'node:crypto';
import { check } from './conformance-assert.js';
import type {
  AccountTokensAdapter,
  SessionsByProviderSidAdapter,
  SessionsByUserAdapter,
  VerificationTokensByIdentifierAdapter,
} from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate } from './conformance-fixtures.js';

/** Optional methods beyond the contract (`SessionsByUserAdapter`, `VerificationTokensByIdentifierAdapter`). */
export function describeOptionalMethods(ctx: ConformanceContext): void {
  const { createUser, linked, concurrency } = ctx;
  ctx.runner.describe('optional methods beyond the contract', () => {
    const extended = () =>
      ctx.adapter as unknown as Required<
        SessionsByUserAdapter & VerificationTokensByIdentifierAdapter & AccountTokensAdapter
      >;
    const optional = ctx.testExtension;

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
        check.is(await extended().deleteSessionsByUserId(mine.id), 2);
        check.isNull(await ctx.adapter.getSessionAndUser(tokens[0]!));
        check.isNull(await ctx.adapter.getSessionAndUser(tokens[1]!));
        check.notNull(await ctx.adapter.getSessionAndUser(tokens[2]!));
        check.is(await extended().deleteSessionsByUserId(mine.id), 0);
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
        check.is(await extended().deleteVerificationTokensByIdentifier(mine), 2);
        check.isNull(await ctx.adapter.useVerificationToken({ identifier: mine, token: `a-${tag}` }));
        // Identifiers compare exactly, as tokens do (no case folding).
        check.notNull(await ctx.adapter.useVerificationToken({ identifier: mine.toUpperCase(), token: `c-${tag}` }));
        check.notNull(await ctx.adapter.useVerificationToken({ identifier: other, token: `d-${tag}` }));
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
        check.equals(
          listed.map((x) => `${x.provider}/${x.providerAccountId}`).sort(),
          [a, b].map((x) => `${x.provider}/${x.providerAccountId}`).sort(),
        );
        check.is(
          listed.every((x) => x.userId === mine.id),
          true,
        );
        check.equals(await extended().listAccountsByUserId(nobody.id), []);
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
        check.isNull(
          await extended().updateAccountTokens(
            { ...key, refresh_token: 'rt-0', expires_at: 1000 },
            { access_token: 'x' },
          ),
        );
        check.isNull(
          await extended().updateAccountTokens(
            { ...key, refresh_token: 'rt-1', expires_at: 999 },
            { access_token: 'x' },
          ),
        );
        // Tokens compare exactly (no case folding).
        check.isNull(
          await extended().updateAccountTokens(
            { ...key, refresh_token: 'RT-1', expires_at: 1000 },
            { access_token: 'x' },
          ),
        );
        check.is((await ctx.adapter.getAccount(key.providerAccountId, key.provider))?.access_token, 'at-1');
        const updated = await extended().updateAccountTokens(
          { ...key, refresh_token: 'rt-1', expires_at: 1000 },
          { access_token: 'at-2', refresh_token: 'rt-2', expires_at: 2000, id_token: null },
        );
        check.matches(updated, {
          ...key,
          userId: user.id,
          access_token: 'at-2',
          refresh_token: 'rt-2',
          expires_at: 2000,
        });
        const stored = await ctx.adapter.getAccount(key.providerAccountId, key.provider);
        check.matches(stored, { access_token: 'at-2', refresh_token: 'rt-2', expires_at: 2000 });
        check.isNull(stored?.id_token ?? null);
        // Clearing both, then matching the empty columns with null.
        check.notNull(
          await extended().updateAccountTokens(
            { ...key, refresh_token: 'rt-2', expires_at: 2000 },
            { refresh_token: null, expires_at: null },
          ),
        );
        check.matches(
          await extended().updateAccountTokens(
            { ...key, refresh_token: null, expires_at: null },
            { access_token: 'at-3' },
          ),
          { access_token: 'at-3' },
        );
        // An unknown account: null.
        check.isNull(
          await extended().updateAccountTokens(
            {
              provider: key.provider,
              providerAccountId: `gone-${randomUUID()}`,
              refresh_token: null,
              expires_at: null,
            },
            { access_token: 'x' },
          ),
        );
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
        check.lengthOf(winners, 1);
        const stored = await ctx.adapter.getAccount(key.providerAccountId, key.provider);
        check.is(stored?.refresh_token, winners[0]!.refresh_token);
      },
    );

    optional(
      'listSessionsByProviderSid lists the sessions of that OP session only, with their providerSid',
      'listSessionsByProviderSid',
      ['createUser', 'createSession'],
      async () => {
        const [mine, theirs] = [await createUser(), await createUser()];
        const [sid, other] = [`sid-${randomUUID()}`, `sid-${randomUUID()}`];
        const tokens = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
        const create = (sessionToken: string, userId: string, providerSid?: string) =>
          ctx.adapter.createSession({ sessionToken, userId, expires: futureDate(30), providerSid } as never);
        await create(tokens[0]!, mine.id, sid);
        await create(tokens[1]!, theirs.id, sid);
        await create(tokens[2]!, mine.id, other);
        await create(tokens[3]!, mine.id);
        const found = await (
          ctx.adapter as unknown as Required<SessionsByProviderSidAdapter>
        ).listSessionsByProviderSid(sid);
        check.equals(found.map((s) => s.sessionToken).sort(), [tokens[0]!, tokens[1]!].sort());
        for (const session of found) check.is(session.providerSid, sid);
        check.lengthOf(
          await (ctx.adapter as unknown as Required<SessionsByProviderSidAdapter>).listSessionsByProviderSid(
            `sid-${randomUUID()}`,
          ),
          0,
        );
      },
    );
  });
}
