import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { MemoryAdapter } from '../../adapters/memory.adapter.js';
import { AuthModule } from '../../auth.module.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../../config/auth-options.interface.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { ProviderContext } from '../../core/request-context.js';
import { InvalidCheck, InvalidRequest, OAuthCallbackError } from '../../errors/auth.errors.js';
import type { AuthRequest } from '../../types/http.types.js';
import { TestClient } from '../../../test/setup/http-client.js';
import { followToApp, startOidcProvider, type TestOidcProvider } from '../../../test/setup/oidc-provider.js';
import { callbackParams, OAuthCallback } from './oauth-callback.js';
import { createStateCodec } from './oauth-checks.js';
import { OAuthService } from './oauth.service.js';
import { APP_ORIGIN, FIXTURE_SECRET, jar, normalized, providerContext } from './fixtures/oauth.fixture.js';

const REDIRECT = `${APP_ORIGIN}/auth/callback/idp`;
let op: TestOidcProvider;
let seq = 0;

beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

/** AuthModule with the provider `idp` at the test OP (a fresh client) and a MemoryAdapter, as Nest wires it. */
async function app(provider: Record<string, unknown> = {}, options: Partial<AuthModuleOptions> = {}) {
  const clientId = `cb-${++seq}`;
  await op.addClient({ client_id: clientId, client_secret: `${clientId}-secret`, redirect_uris: [REDIRECT] });
  const adapter = new MemoryAdapter();
  const module: TestingModule = await Test.createTestingModule({
    imports: [
      AuthModule.forRoot({
        secret: FIXTURE_SECRET,
        providers: [
          {
            id: 'idp',
            name: 'IdP',
            type: 'oidc',
            issuer: op.issuer,
            clientId,
            clientSecret: `${clientId}-secret`,
            ...provider,
          },
        ],
        adapter,
        ...options,
      } as AuthModuleOptions & AuthModuleExtras),
    ],
  }).compile();
  const config = module.get<ResolvedAuthConfig>(AUTH_CONFIG);
  const callback = module.get(OAuthCallback);
  const complete = (ctx: ProviderContext) => callback.complete(ctx, normalized(config, 'idp'));
  return { module, config, adapter, complete };
}

type App = Awaited<ReturnType<typeof app>>;

/** Starts a sign-in, lets the OP log the user in, and returns the callback request (with the check cookies). */
async function authorizationResponse({
  module,
  config,
}: App): Promise<{ request: Partial<AuthRequest>; signIn: ProviderContext }> {
  const signIn = providerContext(config, 'idp', { method: 'POST' });
  const { redirect } = await module.get(OAuthService).signIn(signIn);
  const browser = new TestClient(op.issuer);
  const back = await followToApp(browser, await browser.get(redirect!), APP_ORIGIN);
  const request = {
    method: back.method,
    query: Object.fromEntries(back.url.searchParams),
    body: back.body ?? {},
    cookies: jar(signIn.responseCookies),
  };
  return { request, signIn };
}

/** The error `promise` rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('OAuthCallback.complete', () => {
  let a: App;
  beforeAll(async () => {
    a = await app({ checks: ['pkce', 'state', 'nonce'] });
  });
  afterAll(() => a.module.close());

  it('exchanges the code, links the account and signs the user in', async () => {
    const { request } = await authorizationResponse(a);
    const ctx = providerContext(a.config, 'idp', request);
    const response = await a.complete(ctx);
    expect(response.redirect).toBe(ctx.callbackUrl);
    expect(response.headers).toMatchObject({ 'Referrer-Policy': 'no-referrer' });
    expect(response.cookies?.some((c) => c.name === 'authjs.session-token' && c.value !== '')).toBe(true);
    const user = await a.adapter.getUserByAccount({ provider: 'idp', providerAccountId: 'user-1' });
    expect(user).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace' });
    // Every check cookie is cleared.
    expect(
      ctx.responseCookies
        .filter((c) => c.name.includes('pkce') || c.name.includes('state') || c.name.includes('nonce'))
        .map((c) => c.options.maxAge),
    ).toEqual([0, 0, 0]);
  });

  it('refuses the same response a second time', async () => {
    const { request } = await authorizationResponse(a);
    await a.complete(providerContext(a.config, 'idp', request));
    expect(await failure(a.complete(providerContext(a.config, 'idp', request)))).toBeInstanceOf(InvalidCheck);
  });

  it('refuses a state that is not the one sealed, before any token request', async () => {
    const { request } = await authorizationResponse(a);
    const tokenRequests = op.requests.filter((r) => r === 'POST /token').length;
    const error = await failure(
      a.complete(providerContext(a.config, 'idp', { ...request, query: { ...request.query, state: 'forged' } })),
    );
    expect(error).toEqual(new InvalidCheck('The state parameter does not match the state cookie.'));
    expect(op.requests.filter((r) => r === 'POST /token').length).toBe(tokenRequests);
  });

  it('refuses a response from another issuer (RFC 9207)', async () => {
    const { request } = await authorizationResponse(a);
    const error = await failure(
      a.complete(
        providerContext(a.config, 'idp', { ...request, query: { ...request.query, iss: 'https://evil.example' } }),
      ),
    );
    expect(error).toEqual(new OAuthCallbackError("The response came from another issuer than IdP's (iss mismatch)."));
  });

  it('refuses a callback without its check cookies', async () => {
    const { request } = await authorizationResponse(a);
    expect(await failure(a.complete(providerContext(a.config, 'idp', { ...request, cookies: {} })))).toBeInstanceOf(
      InvalidCheck,
    );
  });

  it("reports the provider's error, and a response without a code", async () => {
    const { request } = await authorizationResponse(a);
    const state = request.query!.state;
    const denied = await failure(
      a.complete(
        providerContext(a.config, 'idp', { ...request, query: { error: 'access_denied', state, iss: op.issuer } }),
      ),
    );
    expect(denied).toEqual(new OAuthCallbackError('IdP returned an error: access_denied.'));
    expect((denied as OAuthCallbackError).cause).toEqual({ provider: 'idp', error: 'access_denied' });
    const again = await authorizationResponse(a);
    const noCode = await failure(
      a.complete(
        providerContext(a.config, 'idp', {
          ...again.request,
          query: { state: again.request.query!.state, iss: op.issuer },
        }),
      ),
    );
    expect(noCode).toEqual(new OAuthCallbackError('IdP returned no authorization code.'));
  });
});

describe('OAuthCallback.complete on the redirect proxy', () => {
  it('bounces the response to the deployment that started the sign-in', async () => {
    const proxy = await app({}, { redirectProxyUrl: `${APP_ORIGIN}/auth` });
    try {
      const origin = 'https://preview.example/auth/callback/idp';
      const state = await createStateCodec([FIXTURE_SECRET]).encode({ origin, random: 'r' });
      const response = await proxy.complete(
        providerContext(proxy.config, 'idp', { query: { code: 'the-code', state } }),
      );
      const target = new URL(response.redirect!);
      expect(target.origin + target.pathname).toBe(origin);
      expect(Object.fromEntries(target.searchParams)).toEqual({ code: 'the-code', state });
      expect(response.headers).toEqual({ 'Referrer-Policy': 'no-referrer' });
      const undecodable = await failure(
        proxy.complete(providerContext(proxy.config, 'idp', { query: { code: 'c', state: 'not-a-jwe' } })),
      );
      expect(undecodable).toEqual(new InvalidCheck('The state parameter could not be decoded.'));
    } finally {
      await proxy.module.close();
    }
  });
});

describe('callbackParams', () => {
  const ctx = (request: Partial<AuthRequest>) =>
    providerContext({ basePath: '/auth', providerById: new Map() } as unknown as ResolvedAuthConfig, 'idp', request);

  it('reads the query of a GET and the form of a POST (form_post)', () => {
    expect(Object.fromEntries(callbackParams(ctx({ query: { code: 'q' }, body: { code: 'b' } })))).toEqual({
      code: 'q',
    });
    expect(
      Object.fromEntries(callbackParams(ctx({ method: 'POST', query: { code: 'q' }, body: { code: 'b' } }))),
    ).toEqual({ code: 'b' });
  });

  it('refuses repeated or oversized parameters with InvalidRequest', () => {
    expect(() => callbackParams(ctx({ method: 'POST', body: { code: ['a', 'b'] } }))).toThrow(
      new InvalidRequest('The callback parameter "code" must be a single string.'),
    );
    expect(() => callbackParams(ctx({ query: { state: 'x'.repeat(16_385) } }))).toThrow(
      new InvalidRequest('A callback parameter is too long.'),
    );
  });
});
