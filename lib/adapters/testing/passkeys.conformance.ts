import { check } from './conformance-assert.js';
import type { AdapterAuthenticator, PasskeyNamesAdapter } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { newAuthenticator } from './conformance-fixtures.js';

/** Passkey management beyond the contract (`PasskeyNamesAdapter`: names, last use, deletion). */
export function describePasskeyNames(ctx: ConformanceContext): void {
  const { createUser } = ctx;
  const extended = () => ctx.adapter as unknown as PasskeyNamesAdapter;
  const stored = async (userId: string, overrides: Partial<AdapterAuthenticator> = {}) =>
    ctx.adapter.createAuthenticator(newAuthenticator(userId, overrides));

  ctx.runner.describe('passkey names, last use and deletion (beyond the contract)', () => {
    ctx.testExtension(
      'updateAuthenticatorName sets and clears the name of that authenticator only; null for an unknown one',
      'updateAuthenticatorName',
      ['createUser', 'createAuthenticator', 'getAuthenticator'],
      async () => {
        const user = await createUser();
        const [a, b] = [await stored(user.id), await stored(user.id)];
        check.isNull((await ctx.adapter.getAuthenticator(a.credentialID))?.name ?? null);
        check.matches(await extended().updateAuthenticatorName(a.credentialID, 'Work laptop ✓'), {
          credentialID: a.credentialID,
          name: 'Work laptop ✓',
        });
        check.is((await ctx.adapter.getAuthenticator(a.credentialID))?.name, 'Work laptop ✓');
        check.isNull((await ctx.adapter.getAuthenticator(b.credentialID))?.name ?? null);
        await extended().updateAuthenticatorName(a.credentialID, null);
        check.isNull((await ctx.adapter.getAuthenticator(a.credentialID))?.name ?? null);
        check.isNull(await extended().updateAuthenticatorName(`${a.credentialID}x`, 'nobody'));
      },
    );

    ctx.testExtension(
      'updateAuthenticatorCounter records when the passkey was used (lastUsedAt), a failed compare-and-set does not',
      'updateAuthenticatorName',
      ['createUser', 'createAuthenticator', 'getAuthenticator', 'updateAuthenticatorCounter'],
      async () => {
        const user = await createUser();
        const a = await stored(user.id, { counter: 3 });
        check.isNull((await ctx.adapter.getAuthenticator(a.credentialID))?.lastUsedAt ?? null);
        const before = Date.now() - 1000;
        await ctx.adapter.updateAuthenticatorCounter(a.credentialID, 4, 3);
        const used = (await ctx.adapter.getAuthenticator(a.credentialID))?.lastUsedAt;
        check.is(used instanceof Date, true);
        check.is(used!.getTime() >= before && used!.getTime() <= Date.now() + 1000, true);
        const stale = await Promise.resolve(ctx.adapter.updateAuthenticatorCounter(a.credentialID, 9, 3)).then(
          () => 'written',
          () => 'refused',
        );
        check.is(stale, 'refused', 'a stale expected counter must throw');
        check.is((await ctx.adapter.getAuthenticator(a.credentialID))?.counter, 4);
      },
    );

    ctx.testExtension(
      'deleteAuthenticator deletes that authenticator only, and says whether one went',
      'deleteAuthenticator',
      ['createUser', 'createAuthenticator', 'getAuthenticator', 'listAuthenticatorsByUserId'],
      async () => {
        const user = await createUser();
        const [a, b] = [await stored(user.id), await stored(user.id)];
        check.is(await extended().deleteAuthenticator(a.credentialID), true);
        check.isNull(await ctx.adapter.getAuthenticator(a.credentialID));
        check.notNull(await ctx.adapter.getAuthenticator(b.credentialID));
        const raw = await ctx.raw(ctx.db.authenticator, a.credentialID);
        if (raw !== 'unchecked') check.is(raw ?? null, null);
        check.is(await extended().deleteAuthenticator(a.credentialID), false);
        check.equals(
          (await ctx.adapter.listAuthenticatorsByUserId(user.id)).map((x) => x.credentialID),
          [b.credentialID],
        );
      },
    );
  });
}
