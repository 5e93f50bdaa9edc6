import { describe, expect, it } from '@jest/globals';
import { handlerProvider, onProxy, proxying, redirectUri } from './oauth-redirect.js';
import { APP_ORIGIN, normalized, oauthConfig, providerContext } from './fixtures/oauth.fixture.js';

const PROXY = 'https://auth.example.com';
const base = { id: 'idp', name: 'IdP', type: 'oidc', issuer: 'https://op.example', clientId: 'c', clientSecret: 's' };

/** What the flow decides for provider `provider` on a deployment at `origin`. */
function decisions(provider: Record<string, unknown>, redirectProxyUrl?: string, origin?: string) {
  const config = oauthConfig({ providers: [provider as never], ...(redirectProxyUrl ? { redirectProxyUrl } : {}) });
  const ctx = providerContext(config, 'idp', {}, origin);
  const p = normalized(config, 'idp');
  return { proxying: proxying(ctx, p), onProxy: onProxy(ctx, p), redirectUri: redirectUri(ctx, p) };
}

describe('redirect URI and the redirect proxy', () => {
  it('without a proxy: our own callback URL', () => {
    expect(decisions(base)).toEqual({
      proxying: false,
      onProxy: false,
      redirectUri: `${APP_ORIGIN}/auth/callback/idp`,
    });
  });

  it("on a preview deployment: the proxy's callback URL", () => {
    expect(decisions(base, `${PROXY}/auth/`)).toEqual({
      proxying: true,
      onProxy: false,
      redirectUri: `${PROXY}/auth/callback/idp`,
    });
  });

  it('on the proxy itself: its own callback URL, and it knows it is the proxy', () => {
    expect(decisions(base, `${PROXY}/auth`, PROXY)).toEqual({
      proxying: false,
      onProxy: true,
      redirectUri: `${PROXY}/auth/callback/idp`,
    });
  });

  it('a form_post provider never goes through the proxy', () => {
    const formPost = { ...base, authorization: { params: { response_mode: 'form_post' } } };
    expect(decisions(formPost, `${PROXY}/auth`)).toEqual({
      proxying: false,
      onProxy: false,
      redirectUri: `${APP_ORIGIN}/auth/callback/idp`,
    });
  });
});

describe('handlerProvider', () => {
  it('gives custom handlers the provider with our URLs and the endpoints discovery found', () => {
    const custom = {
      ...base,
      token: { request: async () => ({ tokens: {} }) },
      userinfo: { params: { fields: 'id' } },
    };
    const config = oauthConfig({ providers: [custom as never] });
    const ctx = providerContext(config, 'idp');
    const seen = handlerProvider(ctx, normalized(config, 'idp'), {
      issuer: 'https://op.example',
      token_endpoint: 'https://op.example/token',
      userinfo_endpoint: 'https://op.example/me',
    });
    expect(seen.signinUrl).toBe(`${APP_ORIGIN}/auth/signin/idp`);
    expect(seen.callbackUrl).toBe(`${APP_ORIGIN}/auth/callback/idp`);
    expect(seen.token?.url?.href).toBe('https://op.example/token');
    expect(typeof seen.token?.request).toBe('function');
    expect(seen.userinfo?.url?.href).toBe('https://op.example/me');
    expect(seen.userinfo?.params).toEqual({ fields: 'id' });
  });

  it('keeps explicit endpoint URLs over discovered ones, and adds none that discovery lacks', () => {
    const explicit = { ...base, token: 'https://op.example/own-token' };
    const config = oauthConfig({ providers: [explicit as never] });
    const seen = handlerProvider(providerContext(config, 'idp'), normalized(config, 'idp'), {
      issuer: 'https://op.example',
      token_endpoint: 'https://op.example/token',
    });
    expect(seen.token?.url?.href).toBe('https://op.example/own-token');
    expect(seen.userinfo).toBeUndefined();
  });
});
