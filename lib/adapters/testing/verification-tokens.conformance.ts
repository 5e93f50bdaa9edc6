import { randomUUID } from 'node:crypto';
import { describe, expect } from '@jest/globals';
import type { VerificationToken } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate, hashedToken } from './conformance-fixtures.js';

/** Verification tokens: stored, and used once only, also under concurrent calls. */
export function describeVerificationTokens(ctx: ConformanceContext): void {
  const { test, raw, db, concurrency } = ctx;
  describe('verification tokens', () => {
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
        if (created) expect(created).toEqual(token);
        const row = await raw(db.verificationToken, token.identifier, token.token);
        if (row !== 'unchecked') expect(row).toMatchObject({ identifier: token.identifier, token: token.token });
        const used = await ctx.adapter.useVerificationToken(token);
        expect(used).toEqual(token);
        expect(used?.expires).toBeInstanceOf(Date);
      },
    );

    test(
      'useVerificationToken returns the token once and only once',
      ['createVerificationToken', 'useVerificationToken'],
      async () => {
        const token = newToken();
        await ctx.adapter.createVerificationToken(token);
        expect(await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: token.token })).toEqual(
          token,
        );
        expect(await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: token.token })).toBeNull();
        const row = await raw(db.verificationToken, token.identifier, token.token);
        if (row !== 'unchecked') expect(row).toBeNull();
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
        expect(
          await ctx.adapter.useVerificationToken({
            identifier: `other-${randomUUID()}@example.com`,
            token: token.token,
          }),
        ).toBeNull();
        expect(
          await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: hashedToken() }),
        ).toBeNull();
        // A differently-cased token is another token (case-insensitive collations must not match it).
        expect(
          await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: token.token.toUpperCase() }),
        ).toBeNull();
        expect(await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: token.token })).toEqual(
          token,
        );
        expect(
          await ctx.adapter.useVerificationToken({ identifier: token.identifier, token: sameIdentifier.token }),
        ).toEqual(sameIdentifier);
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
        expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
        const winners = results.filter((r) => r.status === 'fulfilled' && r.value !== null);
        expect(winners).toHaveLength(1);
        expect((winners[0] as PromiseFulfilledResult<VerificationToken>).value).toEqual(token);
      },
    );
  });
}
