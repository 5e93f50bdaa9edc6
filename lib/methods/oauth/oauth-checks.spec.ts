import { describe, expect, it } from '@jest/globals';
import type * as o from 'oauth4webapi';
import { InvalidRequest } from '../../errors/auth.errors.js';
import { CHECK_MAX_AGE, createStateCodec, effectiveChecks, parseMaxAge } from './oauth-checks.js';
import { FIXTURE_SECRET, normalized, oauthConfig } from './fixtures/oauth.fixture.js';

const endpoints = {
  authorization: 'https://as.example/a',
  token: 'https://as.example/t',
  userinfo: 'https://as.example/u',
  clientId: 'c',
  clientSecret: 's',
};

function provider(type: 'oauth' | 'oidc', checks?: string[]) {
  const config = oauthConfig({
    providers: [
      {
        id: 'idp',
        name: 'IdP',
        type,
        ...endpoints,
        jwks_endpoint: 'https://as.example/jwks',
        ...(checks ? { checks } : {}),
      } as never,
    ],
  });
  return normalized(config, 'idp');
}

const server = (methods?: unknown): o.AuthorizationServer => ({
  issuer: 'https://as.example',
  ...(methods !== undefined ? { code_challenge_methods_supported: methods as string[] } : {}),
});

describe('effectiveChecks', () => {
  it("keeps the provider's checks when the metadata says nothing against S256", () => {
    expect([...effectiveChecks(provider('oidc'), server())]).toEqual(['pkce']);
    expect([...effectiveChecks(provider('oidc', ['pkce', 'nonce']), server(['S256', 'plain']))]).toEqual([
      'pkce',
      'nonce',
    ]);
    expect([...effectiveChecks(provider('oauth', ['state']), server(['plain']))]).toEqual(['state']);
  });

  it('replaces PKCE by nonce (OIDC) or state (OAuth 2.0) when the provider lists no S256', () => {
    expect([...effectiveChecks(provider('oidc'), server(['plain']))]).toEqual(['nonce']);
    expect([...effectiveChecks(provider('oauth'), server([]))]).toEqual(['state']);
    expect([...effectiveChecks(provider('oidc', ['pkce', 'nonce']), server(['plain']))]).toEqual(['nonce']);
  });

  it("leaves the provider's own list untouched", () => {
    const p = provider('oidc');
    effectiveChecks(p, server(['plain']));
    expect(p.checks).toEqual(['pkce']);
  });
});

describe('parseMaxAge', () => {
  it('reads whole seconds and treats absence as no max_age', () => {
    expect(parseMaxAge('0')).toBe(0);
    expect(parseMaxAge('3600')).toBe(3600);
    expect(parseMaxAge(null)).toBeUndefined();
    expect(parseMaxAge(undefined)).toBeUndefined();
  });

  it('refuses anything else with InvalidRequest', () => {
    for (const bad of ['', '-1', '1.5', '1e3', ' 60', '1234567890', 'abc']) {
      expect(() => parseMaxAge(bad)).toThrow(InvalidRequest);
    }
  });
});

describe('createStateCodec', () => {
  it('round-trips the state payload with the same secrets, and refuses it with others', async () => {
    const state = await createStateCodec([FIXTURE_SECRET]).encode({
      origin: 'https://preview.example/auth/callback/idp',
      random: 'r',
    });
    expect(await createStateCodec([FIXTURE_SECRET]).decode(state)).toMatchObject({
      origin: 'https://preview.example/auth/callback/idp',
      random: 'r',
    });
    expect(await createStateCodec(['another-secret-that-is-long-enough-11111']).decode(state)).toBeNull();
  });

  it('lives as long as the check cookies', async () => {
    const state = await createStateCodec([FIXTURE_SECRET]).encode({ random: 'r' });
    const payload = (await createStateCodec([FIXTURE_SECRET]).decode(state)) as { iat: number; exp: number };
    expect(payload.exp - payload.iat).toBe(CHECK_MAX_AGE);
  });
});
