import { describe, expect, it } from '@jest/globals';
import type { InternalOAuthProvider } from '../../providers/internal-provider.js';
import { validateOAuthProvider } from './oauth.validate.js';

function problems(config: Record<string, unknown>): string[] {
  const type = (config.type as 'oauth' | 'oidc') ?? 'oidc';
  const provider = {
    id: 'my-idp',
    name: 'IdP',
    type,
    config: { id: 'my-idp', name: 'IdP', type, ...config },
  } as InternalOAuthProvider;
  const out: string[] = [];
  validateOAuthProvider(provider, out, { hasAdapter: false });
  return out;
}

const ok = { type: 'oidc', issuer: 'https://op.example', clientId: 'c', clientSecret: 's' };

describe('validateOAuthProvider', () => {
  it('accepts a complete OIDC provider and loopback http', () => {
    expect(problems(ok)).toEqual([]);
    expect(problems({ ...ok, issuer: 'http://127.0.0.1:8080' })).toEqual([]);
    expect(problems({ ...ok, issuer: 'http://localhost:8080/realms/x' })).toEqual([]);
  });

  it('names the environment variable of a missing clientId / clientSecret', () => {
    expect(problems({ ...ok, clientId: undefined })).toEqual([expect.stringContaining('AUTH_MY_IDP_ID')]);
    expect(problems({ ...ok, clientSecret: undefined })).toEqual([expect.stringContaining('AUTH_MY_IDP_SECRET')]);
    expect(problems({ ...ok, clientSecret: undefined, client: { token_endpoint_auth_method: 'none' } })).toEqual([]);
  });

  it('refuses unparsable URLs and plain http off loopback', () => {
    expect(problems({ ...ok, issuer: 'not a url' })).toEqual([expect.stringContaining('is not an absolute URL')]);
    expect(problems({ ...ok, issuer: 'http://op.example' })).toEqual([expect.stringContaining('must use https')]);
    expect(problems({ ...ok, token: { url: 'http://op.example/token' } })).toEqual([
      expect.stringContaining('`token.url` must use https'),
    ]);
  });

  it("allows 'nonce' only for oidc and refuses unknown checks", () => {
    expect(
      problems({
        ...ok,
        type: 'oauth',
        checks: ['nonce'],
        authorization: 'https://a',
        token: 'https://t',
        userinfo: 'https://u',
      }),
    ).toEqual([expect.stringContaining("'nonce' check needs an OpenID Connect provider")]);
    expect(problems({ ...ok, checks: ['pkce', 'nonce', 'state', 'none'] })).toEqual([]);
    expect(problems({ ...ok, checks: ['csrf'] })).toEqual([expect.stringContaining('unknown check "csrf"')]);
    expect(problems({ ...ok, checks: 'pkce' })).toEqual([expect.stringContaining('must be an array')]);
  });

  it('client authentication: unknown methods and private_key_jwt without a key', () => {
    expect(problems({ ...ok, client: { token_endpoint_auth_method: 'tls_client_auth' } })).toEqual([
      expect.stringContaining('is not supported'),
    ]);
    expect(
      problems({ ...ok, clientSecret: undefined, client: { token_endpoint_auth_method: 'private_key_jwt' } }),
    ).toEqual([expect.stringContaining('needs a private key')]);
    expect(
      problems({
        ...ok,
        clientSecret: undefined,
        client: { token_endpoint_auth_method: 'private_key_jwt' },
        token: { clientPrivateKey: { kty: 'EC', d: 'x', alg: 'ES256' } },
      }),
    ).toEqual([]);
  });

  it('refuses handler shapes that cannot work and non-code response types', () => {
    expect(problems({ ...ok, token: { request: 'nope' } })).toEqual([
      expect.stringContaining('`token.request` must be a function'),
    ]);
    expect(problems({ ...ok, authorization: { params: { response_type: 'token' } } })).toEqual([
      expect.stringContaining('only the authorization code flow'),
    ]);
    expect(problems({ ...ok, profile: 'x' })).toEqual([expect.stringContaining('`profile` must be a function')]);
    expect(problems({ ...ok, authorization: 42 })).toEqual([
      expect.stringContaining('must be a URL string or an object'),
    ]);
  });

  it('an OIDC provider without discovery needs jwks_endpoint', () => {
    const explicit = { type: 'oidc', clientId: 'c', clientSecret: 's', authorization: 'https://a', token: 'https://t' };
    expect(problems(explicit)).toEqual([expect.stringContaining('jwks_endpoint')]);
    expect(problems({ ...explicit, jwks_endpoint: 'https://op/jwks' })).toEqual([]);
  });
});
