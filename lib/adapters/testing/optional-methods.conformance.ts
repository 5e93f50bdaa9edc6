import { randomUUID } from 'node:crypto';
import { check } from './conformance-assert.js';
import type {
  AdapterMethod,
  SessionsByUserAdapter,
  VerificationTokensByIdentifierAdapter,
} from '../adapter.interface.js';
import type { ConformanceContext, ConformanceExtension } from './conformance-context.js';
import { futureDate } from './conformance-fixtures.js';

/** Optional methods beyond the contract (`SessionsByUserAdapter`, `VerificationTokensByIdentifierAdapter`). */
export function describeOptionalMethods(ctx: ConformanceContext): void {
  const { createUser, supported, extensions } = ctx;
  ctx.runner.describe('optional methods beyond the contract', () => {
    const extended = () =>
      ctx.adapter as unknown as Required<SessionsByUserAdapter & VerificationTokensByIdentifierAdapter>;
    const optional = (
      name: string,
      extension: ConformanceExtension,
      needs: AdapterMethod[],
      fn: () => Promise<void>,
    ): void => {
      (extensions.has(extension) && needs.every((m) => supported.has(m)) ? ctx.runner.it : ctx.runner.it.skip)(
        name,
        fn,
      );
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
  });
}
