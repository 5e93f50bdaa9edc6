import { describe, expect, it } from '@jest/globals';
import type { Account } from '../types/common.types.js';
import { PROVIDER_TOKENS_CLAIM, providerTokensOf, sessionTokensOf, withProviderTokens } from './session-tokens.js';

const account = (extra: Partial<Account>): Account =>
  ({ provider: 'idp', type: 'oidc', providerAccountId: 'pa', ...extra }) as Account;

describe('session provider tokens (the providerTokens claim)', () => {
  it('takes the access token, refresh token, expiry and account id of an OAuth/OIDC sign-in, never the ID token', () => {
    expect(
      sessionTokensOf(account({ access_token: 'a', refresh_token: 'r', expires_at: 5, id_token: 'i', scope: 's' })),
    ).toEqual({ access_token: 'a', refresh_token: 'r', expires_at: 5, providerAccountId: 'pa' });
    expect(sessionTokensOf(account({ access_token: 'a' }))).toEqual({ access_token: 'a', providerAccountId: 'pa' });
  });

  it('takes nothing from a sign-in without an access token, or not through OAuth', () => {
    expect(sessionTokensOf(account({}))).toBeUndefined();
    expect(sessionTokensOf(account({ type: 'email', access_token: 'a' } as never))).toBeUndefined();
    expect(sessionTokensOf(null)).toBeUndefined();
  });

  it('reads a malformed claim as absent (fails closed), never as a token', () => {
    for (const claim of [null, 'x', ['a'], { idp: 'a' }, { idp: { access_token: 3 } }, { idp: { access_token: '' } }])
      expect(providerTokensOf({ [PROVIDER_TOKENS_CLAIM]: claim }, 'idp')).toBeUndefined();
    // Inherited names are not providers.
    expect(providerTokensOf({ [PROVIDER_TOKENS_CLAIM]: {} }, 'constructor')).toBeUndefined();
    // Wrong-typed members are dropped, the rest kept.
    expect(
      providerTokensOf(
        { [PROVIDER_TOKENS_CLAIM]: { idp: { access_token: 'a', refresh_token: 7, expires_at: 'soon' } } },
        'idp',
      ),
    ).toEqual({ access_token: 'a' });
  });

  it('replaces or removes one provider, keeping the other claims and providers', () => {
    const token = { sub: 'u', [PROVIDER_TOKENS_CLAIM]: { idp: { access_token: 'a' }, gh: { access_token: 'g' } } };
    expect(withProviderTokens(token, 'idp', { access_token: 'b' })).toEqual({
      sub: 'u',
      [PROVIDER_TOKENS_CLAIM]: { idp: { access_token: 'b' }, gh: { access_token: 'g' } },
    });
    const dropped = withProviderTokens(withProviderTokens(token, 'idp', null), 'gh', null);
    expect(dropped).toEqual({ sub: 'u' });
    // The original is untouched.
    expect(token[PROVIDER_TOKENS_CLAIM].idp).toEqual({ access_token: 'a' });
  });
});
