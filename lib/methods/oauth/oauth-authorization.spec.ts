import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as o from 'oauth4webapi';
import { InvalidRequest, OAuthSignInError } from '../../errors/auth.errors.js';
import { MemoryRateLimitStore } from '../../rate-limit/memory-rate-limit.store.js';
import { ChecksService } from '../../sign-in/checks.service.js';
import { startOidcProvider, type TestOidcProvider } from '../../../test/setup/oidc-provider.js';
import { OAuthAuthorization } from './oauth-authorization.js';
import { createStateCodec } from './oauth-checks.js';
import { OAuthDiscovery } from './oauth-discovery.js';
import { APP_ORIGIN, FIXTURE_SECRET, jar, normalized, oauthConfig, providerContext } from './fixtures/oauth.fixture.js';

const explicit = {
  authorization: 'https://op.example/authorize',
  token: 'https://op.example/token',
  jwks_endpoint: 'https://op.example/jwks',
};
let op: TestOidcProvider;

beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

/** The authorization step over a config with provider `idp`, a sign-in request with `query`, and the debug lines. */
function setup(
  provider: Record<string, unknown>,
  query: Record<string, string> = {},
  options: Record<string, unknown> = {},
) {
  const debug: Array<[string, unknown]> = [];
  const config = oauthConfig({
    providers: [
      { id: 'idp', name: 'IdP', type: 'oidc', clientId: 'c', clientSecret: 's', ...explicit, ...provider } as never,
    ],
    logger: { debug: (message: string, metadata?: unknown) => debug.push([message, metadata]) },
    ...options,
  });
  const checks = new ChecksService(config, new MemoryRateLimitStore());
  const authorization = new OAuthAuthorization(config, checks, new OAuthDiscovery(config));
  const ctx = providerContext(config, 'idp', { method: 'POST', query });
  /** Opens a check cookie this sign-in set, as the callback would. */
  const open = (kind: 'state' | 'pkceCodeVerifier' | 'nonce') =>
    checks.open(providerContext(config, 'idp', { cookies: jar(ctx.responseCookies) }), kind, 'idp');
  return { run: () => authorization.redirect(ctx, normalized(config, 'idp')), ctx, open, debug };
}

async function redirectOf(run: () => Promise<{ redirect?: string }>): Promise<URL> {
  return new URL((await run()).redirect!);
}

describe('OAuthAuthorization.redirect', () => {
  it('sends the user to the authorization endpoint with client, redirect URI, scope and a PKCE challenge', async () => {
    const { run, ctx, open, debug } = setup({});
    const url = await redirectOf(run);
    expect(url.origin + url.pathname).toBe('https://op.example/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'c',
      redirect_uri: `${APP_ORIGIN}/auth/callback/idp`,
      scope: 'openid profile email',
      code_challenge: expect.any(String),
      code_challenge_method: 'S256',
    });
    expect(ctx.responseCookies.map((c) => c.name)).toEqual(['authjs.pkce.code_verifier']);
    const verifier = await open('pkceCodeVerifier');
    expect(await o.calculatePKCECodeChallenge(verifier.value)).toBe(url.searchParams.get('code_challenge'));
    expect(debug).toContainEqual(['oauth_signin', { provider: 'idp', checks: ['pkce'] }]);
  });

  it('adds state and nonce when the provider asks for them, each sealed in its cookie', async () => {
    const { run, open } = setup({ checks: ['state', 'nonce'] });
    const url = await redirectOf(run);
    expect(url.searchParams.has('code_challenge')).toBe(false);
    expect((await open('nonce')).value).toBe(url.searchParams.get('nonce'));
    const state = url.searchParams.get('state')!;
    expect((await open('state')).value).toBe(state);
    expect(await createStateCodec([FIXTURE_SECRET]).decode(state)).toMatchObject({ random: expect.any(String) });
  });

  it("passes the caller's parameters on, after the provider's, but never the ones the library sets", async () => {
    const { run } = setup(
      { authorization: { url: explicit.authorization, params: { prompt: 'consent', access_type: 'offline' } } },
      {
        prompt: 'login',
        login_hint: 'ada@example.com',
        redirect_uri: 'https://evil.example/cb',
        client_id: 'other',
        state: 'chosen',
        callbackUrl: '/after',
      },
    );
    const params = (await redirectOf(run)).searchParams;
    expect(params.get('prompt')).toBe('login');
    expect(params.get('access_type')).toBe('offline');
    expect(params.get('login_hint')).toBe('ada@example.com');
    expect(params.get('redirect_uri')).toBe(`${APP_ORIGIN}/auth/callback/idp`);
    expect(params.get('client_id')).toBe('c');
    expect(params.has('state')).toBe(false);
    expect(params.has('callbackUrl')).toBe(false);
  });

  it('refuses too many or too long parameters, and a max_age that is not whole seconds', async () => {
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`p${i}`, 'v']));
    await expect(setup({}, many).run()).rejects.toThrow(InvalidRequest);
    await expect(setup({}, { hint: 'x'.repeat(2049) }).run()).rejects.toThrow(InvalidRequest);
    await expect(setup({}, { max_age: '1.5' }).run()).rejects.toThrow(
      new InvalidRequest('The max_age authorization parameter must be a whole number of seconds.'),
    );
  });

  it('seals max_age with the checks, for the callback to enforce auth_time', async () => {
    const { run, open } = setup({}, { max_age: '300' });
    expect((await redirectOf(run)).searchParams.get('max_age')).toBe('300');
    expect((await open('pkceCodeVerifier')).data).toEqual({ maxAge: 300 });
  });

  it("keeps a response_type the provider's URL states itself", async () => {
    const { run } = setup({
      type: 'oauth',
      authorization: 'https://as.example/authorize?response_type=Assertion',
      userinfo: 'https://as.example/me',
      jwks_endpoint: undefined,
    });
    expect((await redirectOf(run)).searchParams.getAll('response_type')).toEqual(['Assertion']);
  });

  it("on a preview deployment: the proxy's redirect URI, and the way back in the state", async () => {
    const { run, ctx } = setup({}, {}, { redirectProxyUrl: 'https://auth.example.com/auth' });
    const params = (await redirectOf(run)).searchParams;
    expect(params.get('redirect_uri')).toBe('https://auth.example.com/auth/callback/idp');
    expect(await createStateCodec([FIXTURE_SECRET]).decode(params.get('state')!)).toMatchObject({
      origin: ctx.providerCallbackUrl,
    });
  });

  it('finds the endpoint by discovery (here at a real OpenID Provider)', async () => {
    const { run } = setup({ issuer: op.issuer, authorization: undefined, token: undefined, jwks_endpoint: undefined });
    const url = await redirectOf(run);
    expect(url.origin + url.pathname).toBe(`${op.issuer}/auth`);
  });

  it('fails with OAuthSignInError when the provider cannot be reached', async () => {
    const { run } = setup({
      issuer: 'http://127.0.0.1:9',
      authorization: undefined,
      token: undefined,
      jwks_endpoint: undefined,
    });
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthSignInError);
    expect((error as Error).message).toMatch(/^Could not start sign-in with IdP: /);
  });
});
