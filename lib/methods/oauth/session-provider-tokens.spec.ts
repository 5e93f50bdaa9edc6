import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AuthModuleOptions } from '../../config/auth-options.interface.js';
import { RefreshTokenError } from '../../errors/auth.errors.js';
import { applyCookies, requestContext, sessionParts } from '../../session/fixtures/session.fixture.js';
import { providerTokensOf } from '../../session/session-tokens.js';
import type { SessionLookup, SessionState } from '../../session/session.types.js';
import type { Account } from '../../types/common.types.js';
import { startServer, type TestServer } from './fixtures/oauth.fixture.js';
import { IdTokenVerifier } from './id-token.verifier.js';
import { OAuthDiscovery } from './oauth-discovery.js';
import { OAuthProviders } from './oauth-providers.js';
import { OAuthTokenExchange } from './oauth-token.js';
import { SessionProviderTokens } from './session-provider-tokens.js';
import { TokenRefresh } from './token-refresh.js';

const USER = { id: 'u1', email: 'a@b.test', name: 'A', image: null };
const past = () => Math.floor(Date.now() / 1000) - 10;

/** The provider's token endpoint: `rt-<n>` rotates to `rt-<n+1>`, `keep` answers without a refresh token,
 * `bad` is refused with invalid_grant, `down` answers 503. */
let server: TestServer;
let issued = 0;
beforeAll(async () => {
  server = await startServer(async ({ body }) => {
    const rt = new URLSearchParams(body).get('refresh_token') ?? '';
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (rt === 'bad') return { status: 400, body: { error: 'invalid_grant' } };
    if (rt === 'down') return { status: 503, body: 'down' };
    const n = ++issued;
    const rotated = rt === 'keep' ? {} : { refresh_token: `rt-${n}` };
    return { body: { access_token: `at-${n}`, token_type: 'Bearer', expires_in: 3600, ...rotated } };
  });
});
afterAll(() => server.close());

async function setup(options: Partial<AuthModuleOptions> = {}) {
  const events: unknown[] = [];
  const parts = await sessionParts({
    session: { strategy: 'jwt', tokens: true },
    providers: [
      {
        id: 'idp',
        name: 'IdP',
        type: 'oauth',
        authorization: `${server.url}/authorize`,
        token: `${server.url}/token`,
        userinfo: `${server.url}/me`,
        clientId: 'c',
        clientSecret: 's',
      } as never,
    ],
    events: { refreshTokenError: (m) => void events.push(m) },
    ...options,
  });
  const { config, issuer, reader, events: authEvents } = parts;
  const refresh = new TokenRefresh(
    config,
    new OAuthTokenExchange(new OAuthDiscovery(config), new IdTokenVerifier(config)),
  );
  const tokens = new SessionProviderTokens(issuer, new OAuthProviders(config), refresh, authEvents);
  /** A signed-in session holding these idp tokens: its lookup and state. */
  const session = async (account: Partial<Account>) => {
    const cookies = await issuer.create(requestContext(config), USER, {
      account: { provider: 'idp', type: 'oauth', providerAccountId: 'pa1', ...account } as Account,
    });
    const lookup: SessionLookup = { cookies: applyCookies({}, cookies), secure: false };
    return { lookup, state: (await reader.read(lookup)) as Extract<SessionState, { status: 'active' }> };
  };
  const claimsOf = async (lookup: SessionLookup) => {
    const state = await reader.read(lookup);
    return state.status === 'active' ? state.token! : null;
  };
  return { ...parts, tokens, session, claimsOf, events };
}

describe('SessionProviderTokens', () => {
  it('keeps the sign-in tokens in the session and hands a valid one out without a request or a cookie', async () => {
    const { tokens, session } = await setup();
    const { lookup, state } = await session({ access_token: 'at-0', refresh_token: 'rt-0', expires_at: past() + 3600 });
    expect(providerTokensOf(state.token!, 'idp')).toEqual({
      access_token: 'at-0',
      refresh_token: 'rt-0',
      expires_at: expect.any(Number),
      providerAccountId: 'pa1',
    });
    const before = server.received.length;
    expect(await tokens.access(state, lookup, 'idp')).toEqual({ accessToken: 'at-0', cookies: [] });
    expect(server.received.length).toBe(before);
  });

  it('refreshes an expired token once for concurrent callers and encodes one cookie per old cookie', async () => {
    const { tokens, session, claimsOf } = await setup();
    const { lookup, state } = await session({ access_token: 'at-0', refresh_token: 'rt-0', expires_at: past() });
    const before = server.received.length;
    const results = await Promise.all(Array.from({ length: 20 }, () => tokens.access(state, lookup, 'idp')));
    expect(server.received.length - before).toBe(1);
    const [first] = results;
    expect(first!.accessToken).toMatch(/^at-\d+$/);
    for (const r of results) expect(r).toEqual(first);
    const next = await claimsOf(applyLookup(lookup, first!.cookies));
    const entry = providerTokensOf(next!, 'idp')!;
    expect(entry).toMatchObject({ access_token: first!.accessToken, refresh_token: expect.stringMatching(/^rt-\d+$/) });
    expect(entry.expires_at).toBeGreaterThan(Date.now() / 1000 + 3000);
    // The old cookie, later: the remembered refresh, no second request with the rotated refresh token.
    expect(await tokens.access(state, lookup, 'idp')).toEqual(first);
    expect(server.received.length - before).toBe(1);
  });

  it('keeps the refresh token when the provider does not rotate it', async () => {
    const { tokens, session, claimsOf } = await setup();
    const { lookup, state } = await session({ access_token: 'at-0', refresh_token: 'keep', expires_at: past() });
    const result = await tokens.access(state, lookup, 'idp');
    expect(providerTokensOf((await claimsOf(applyLookup(lookup, result.cookies)))!, 'idp')!.refresh_token).toBe('keep');
  });

  it('invalid_grant: the tokens leave the session, the event fires once, InvalidGrant comes back', async () => {
    const { tokens, session, claimsOf, events } = await setup();
    const { lookup, state } = await session({ access_token: 'at-0', refresh_token: 'bad', expires_at: past() });
    const results = await Promise.all([1, 2, 3].map(() => tokens.access(state, lookup, 'idp')));
    for (const r of results) {
      expect(r.error).toBeInstanceOf(RefreshTokenError);
      expect(r.error!.reason).toBe('InvalidGrant');
      expect(r.accessToken).toBeUndefined();
    }
    const next = await claimsOf(applyLookup(lookup, results[0]!.cookies));
    expect(next).toMatchObject({ sub: 'u1' });
    expect(next!.providerTokens).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([{ userId: 'u1', provider: 'idp', providerAccountId: 'pa1', error: 'invalid_grant' }]);
  });

  it('an unreachable provider: ProviderUnavailable after the retries, nothing remembered, no cookie', async () => {
    const { tokens, session } = await setup();
    const { lookup, state } = await session({ access_token: 'at-0', refresh_token: 'down', expires_at: past() });
    const before = server.received.length;
    await expect(tokens.access(state, lookup, 'idp')).rejects.toMatchObject({ reason: 'ProviderUnavailable' });
    expect(server.received.length - before).toBe(3);
    // Not remembered: the next call asks again.
    await expect(tokens.access(state, lookup, 'idp')).rejects.toMatchObject({ reason: 'ProviderUnavailable' });
    expect(server.received.length - before).toBe(6);
  }, 15_000);

  it('NoAccount without tokens of that provider, NoRefreshToken when expired without one; bearer sessions get no cookie', async () => {
    const { tokens, session } = await setup();
    const none = await session({ access_token: undefined });
    await expect(tokens.access(none.state, none.lookup, 'idp')).rejects.toMatchObject({ reason: 'NoAccount' });
    const noRefresh = await session({ access_token: 'at-0', expires_at: past() });
    await expect(tokens.access(noRefresh.state, noRefresh.lookup, 'idp')).rejects.toMatchObject({
      reason: 'NoRefreshToken',
    });
    await expect(tokens.access(none.state, none.lookup, 'nope')).rejects.toMatchObject({ type: 'InvalidProvider' });
    const bearer = await session({ access_token: 'at-0', refresh_token: 'keep', expires_at: past() });
    const result = await tokens.access({ ...bearer.state, bearer: true }, bearer.lookup, 'idp');
    expect(result.accessToken).toMatch(/^at-\d+$/);
    expect(result.cookies).toEqual([]);
  });

  it('without session.tokens the session holds no provider tokens', async () => {
    const { session } = await setup({ session: { strategy: 'jwt' } });
    const { state } = await session({ access_token: 'at-0', refresh_token: 'rt-0' });
    expect(state.token!.providerTokens).toBeUndefined();
  });
});

function applyLookup(lookup: SessionLookup, cookies: Parameters<typeof applyCookies>[1]): SessionLookup {
  expect(cookies.length).toBeGreaterThan(0);
  return { ...lookup, cookies: applyCookies(lookup.cookies, cookies) };
}
