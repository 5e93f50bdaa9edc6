import { describe, expect, it } from '@jest/globals';
import { defaultAccount, defaultProfile, DEFAULT_OIDC_SCOPE, normalizeOAuthProvider } from './oauth.normalize.js';

const base = { id: 'idp', name: 'IdP', clientId: 'c', clientSecret: 's' };

describe('normalizeOAuthProvider', () => {
  it('defaults: checks [pkce], OIDC scope, profile/account, idToken true, wellKnown from the issuer', () => {
    const p = normalizeOAuthProvider({ ...base, type: 'oidc', issuer: 'https://op.example/tenant/' });
    expect(p.checks).toEqual(['pkce']);
    expect(p.authorization?.params.scope).toBe(DEFAULT_OIDC_SCOPE);
    expect(p.authorization?.url).toBeUndefined();
    expect(p.idToken).toBe(true);
    expect(p.wellKnown).toBe('https://op.example/tenant/.well-known/openid-configuration');
    expect(p.profile).toBe(defaultProfile);
    expect(p.account).toBe(defaultAccount);
  });

  it('an explicit wellKnown wins; OAuth 2.0 providers get no openid scope', () => {
    const p = normalizeOAuthProvider({
      ...base,
      type: 'oauth',
      wellKnown: 'https://as.example/meta',
      authorization: 'https://as.example/authorize?x=1',
    });
    expect(p.wellKnown).toBe('https://as.example/meta');
    expect(p.authorization?.url?.href).toBe('https://as.example/authorize?x=1');
    expect(p.authorization?.params.scope).toBeUndefined();
    expect(p.idToken).toBe(false);
  });

  it('handler objects keep url, params (claims as JSON), request and conform', () => {
    const request = async () => ({ tokens: { access_token: 'a' } });
    const conform = async (r: Response) => r;
    const p = normalizeOAuthProvider({
      ...base,
      type: 'oidc',
      issuer: 'https://op.example',
      authorization: { params: { scope: 'openid', claims: { id_token: { email: null } }, max_age: 60 } },
      token: { url: 'https://op.example/token', request, conform, params: { audience: 'api' } },
      userinfo: { url: 'https://op.example/me', request },
    });
    expect(p.authorization?.params).toEqual({ scope: 'openid', claims: '{"id_token":{"email":null}}', max_age: '60' });
    expect(p.token?.url?.href).toBe('https://op.example/token');
    expect(p.token?.request).toBe(request);
    expect(p.token?.conform).toBe(conform);
    expect(p.token?.params).toEqual({ audience: 'api' });
    expect(p.userinfo?.request).toBe(request);
  });

  it("checks: 'none' removes all, nonce only for oidc, duplicates collapse", () => {
    expect(normalizeOAuthProvider({ ...base, type: 'oidc', issuer: 'https://x', checks: ['none'] }).checks).toEqual([]);
    expect(normalizeOAuthProvider({ ...base, type: 'oauth', checks: ['nonce', 'state', 'state'] }).checks).toEqual([
      'state',
    ]);
    expect(
      normalizeOAuthProvider({ ...base, type: 'oidc', issuer: 'https://x', checks: ['pkce', 'nonce'] }).checks,
    ).toEqual(['pkce', 'nonce']);
  });

  it("adds 'state' with a redirect proxy (provider or top level), except with form_post", () => {
    expect(
      normalizeOAuthProvider({ ...base, type: 'oauth', redirectProxyUrl: 'https://proxy.example/auth/' }).checks,
    ).toEqual(['pkce', 'state']);
    const top = normalizeOAuthProvider({ ...base, type: 'oauth' }, 'https://proxy.example/auth');
    expect(top.checks).toEqual(['pkce', 'state']);
    expect(top.redirectProxyUrl).toBe('https://proxy.example/auth');
    const formPost = normalizeOAuthProvider(
      { ...base, type: 'oidc', issuer: 'https://x', authorization: { params: { response_mode: 'form_post' } } },
      'https://proxy.example/auth',
    );
    expect(formPost.formPost).toBe(true);
    expect(formPost.redirectProxyUrl).toBeUndefined();
    expect(formPost.checks).toEqual(['pkce']);
  });

  it('takes the private_key_jwt key from token.clientPrivateKey and keeps it out of the client metadata', () => {
    const key = { kty: 'EC', d: 'x', alg: 'ES256' };
    const p = normalizeOAuthProvider({
      ...base,
      type: 'oidc',
      issuer: 'https://x',
      client: { token_endpoint_auth_method: 'private_key_jwt', clientPrivateKey: key },
    });
    expect(p.clientPrivateKey).toBe(key);
    expect(p.client).toEqual({ token_endpoint_auth_method: 'private_key_jwt' });
  });
});

describe('default callbacks', () => {
  it('profile(): id from sub, else id, as a string; image from picture', () => {
    expect(defaultProfile({ sub: 'abc', name: 'A', email: 'a@x', picture: 'https://p' })).toEqual({
      id: 'abc',
      name: 'A',
      email: 'a@x',
      image: 'https://p',
    });
    expect(defaultProfile({ id: 42, preferred_username: 'neo' })).toEqual({ id: '42', name: 'neo' });
  });

  it('account(): the stored token subset, token_type lower-cased', () => {
    expect(
      defaultAccount({
        access_token: 'a',
        token_type: 'Bearer' as Lowercase<string>,
        expires_in: 10,
        expires_at: 99,
        extra: 'x',
        session_state: 'ss',
      }),
    ).toEqual({
      access_token: 'a',
      token_type: 'bearer',
      expires_at: 99,
      session_state: 'ss',
    });
  });
});
