import { randomUUID } from 'node:crypto';
import { check } from './conformance-assert.js';
import type { VerificationToken } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate, hashedToken } from './conformance-fixtures.js';

/** Verification tokens: stored, and used once only, also under concurrent calls. */
export function describeVerificationTokens(ctx: ConformanceContext): void {
  const { test, raw, db, concurrency } = ctx;
  ctx.runner.describe('verification tokens', () => {
    const newToken = (): VerificationToken => ({
      identifier: `vt-${randomUUID()}@example.com`,
      token: hashedToken(),
      expires: futureDate(1),
    });

    test(
      'createVerificationToken stores the token, expires as Date',
      ['createVerificationToken', 'useVerificationToken'],
      async () => {
        const token = newToken();
        const created = await ctx.adapter.createVerificationToken(token);
        if (created) check.equals(created, token);
        const row = await raw(db.verificationToken, token.identifier, token.token);
        if (row !== 'unchecked') check.matches(row, { identifier: token.identifier, token: token.token });
        const used = await ctx.adapter.useVerificationToken(token);
        check.equals(used, token);
        check.instanceOf(used?.expires, Date);
      },
    );

    test(
      'useVerificationToken returns the token once and only once',
      ['createVerificationToken', 'useVerificationToken'],
      async () => {
        const token = newToken();
        await ctx.adapter.createVerificationToken(token);
        check.equals(
          await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: token.token }),
          token,
        );
        check.isNull(await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: token.token }));
        const row = await raw(db.verificationToken, token.identifier, token.token);
        if (row !== 'unchecked') check.isNull(row);
      },
    );

    test(
      'useVerificationToken needs identifier AND token to match, and a mismatch consumes nothing',
      ['createVerificationToken', 'useVerificationToken'],
      async () => {
        const token = newToken();
        const sameIdentifier = { ...newToken(), identifier: token.identifier };
        await ctx.adapter.createVerificationToken(token);
        await ctx.adapter.createVerificationToken(sameIdentifier);
        check.isNull(
          await ctx.adapter.useVerificationToken({
            identifier: `other-${randomUUID()}@example.com`,
            token: token.token,
          }),
        );
        check.isNull(await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: hashedToken() }));
        // A differently-cased token is another token (case-insensitive collations must not match it).
        check.isNull(
          await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: token.token.toUpperCase() }),
        );
        check.equals(
          await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: token.token }),
          token,
        );
        check.equals(
          await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: sameIdentifier.token }),
          sameIdentifier,
        );
      },
    );

    test(
      `useVerificationToken under ${concurrency} concurrent calls: exactly one gets the token`,
      ['createVerificationToken', 'useVerificationToken'],
      async () => {
        const token = newToken();
        await ctx.adapter.createVerificationToken(token);
        const results = await Promise.allSettled(
          Array.from({ length: concurrency }, () =>
            Promise.resolve().then(() =>
              ctx.adapter.useVerificationToken({ identifier: token.identifier, token: token.token }),
            ),
          ),
        );
        // A losing call returns null; it must not fail.
        check.equals(
          results.filter((r) => r.status === 'rejected'),
          [],
        );
        const winners = results.filter((r) => r.status === 'fulfilled' && r.value !== null);
        check.lengthOf(winners, 1);
        check.equals((winners[0] as PromiseFulfilledResult<VerificationToken>).value, token);
      },
    );
  });
}
