import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair } from 'jose';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Adapter } from '../lib/adapters/adapter.interface.js';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { AdapterService } from '../lib/core/adapter.service.js';
import { AUTH_CONFIG } from '../lib/config/auth.constants.js';
import type { ResolvedAuthConfig } from '../lib/config/resolved-config.js';
import type { Profile } from '../lib/types/common.types.js';
import { createTestApp, type TestApp } from './setup/app.js';
import {
  createDatabase,
  databaseTargets,
  dropDatabase,
  type DatabaseTarget,
  type TestDatabase,
} from './setup/databases.js';
import { location, TestClient } from './setup/http-client.js';
import { startOAuth2Server, type TestOAuth2Server } from './setup/oauth2-server.js';
import { followToApp, startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { connectRedis, redisAvailable } from './setup/redis.js';
import { RedisRateLimitStore } from '../lib/rate-limit/redis-rate-limit.store.js';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const SESSION_COOKIE = 'authjs.session-token';
let seq = 0;

let op: TestOidcProvider;
let as2: TestOAuth2Server;

beforeAll(async () => {
  op = await startOidcProvider();
  as2 = await startOAuth2Server();
});
afterAll(async () => {
  await op?.close();
  await as2?.close();
});

/** A provider of the test OP with a fresh client registered for `app`. */
async function registerOidcClient(
  app: TestApp,
  providerId: string,
  clientId: string,
  extra: Record<string, unknown> = {},
) {
  await op.addClient({
    client_id: clientId,
    client_secret: `${clientId}-secret`,
    redirect_uris: [`${app.url}/auth/callback/${providerId}`],
    ...extra,
  });
}

interface Flow {
  /** The app's answer to the sign-in POST (the redirect to the provider). */
  start: Response;
  /** Where the provider sent the browser back to (callback URL, method, form_post body). */
  back: { method: 'GET' | 'POST'; url: URL; body?: Record<string, string> };
}

/** Starts a sign-in and follows the provider's redirects until it comes back to the app. */
async function startFlow(app: TestApp, client: TestClient, providerId: string, query = ''): Promise<Flow> {
  const csrfToken = await client.csrf();
  const start = await client.post(`/auth/signin/${providerId}${query}`, { csrfToken, callbackUrl: `${app.url}/me` });
  expect(start.status).toBe(302);
  const back = await followToApp(client, start, app.url);
  return { start, back };
}

/** Delivers the provider's response to the app's callback. */
function deliver(client: TestClient, back: Flow['back']): Promise<Response> {
  return back.method === 'GET' ? client.get(back.url.href) : client.post(back.url.href, back.body);
}

async function signIn(app: TestApp, client: TestClient, providerId: string, query = ''): Promise<Response> {
  const { back } = await startFlow(app, client, providerId, query);
  return deliver(client, back);
}

async function me(
  client: TestClient,
): Promise<{ status: number; user?: { id?: string; email?: string; name?: string } }> {
  const res = await client.get('/me');
  if (res.status !== 200) return { status: res.status };
  const body = (await res.json()) as { user: { id?: string; email?: string; name?: string } };
  return { status: 200, user: body.user };
}

function expectSignedIn(res: Response, app: TestApp, client: TestClient): void {
  expect(res.status).toBe(302);
  expect(location(res).href).toBe(`${app.url}/me`);
  expect(client.cookies.has(SESSION_COOKIE)).toBe(true);
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
}

/** The response is a redirect to the error (or sign-in) page with this error type, and no session was set. */
/** The page each OAuth error type goes to: README, "OAuth" > "Errors". */
const ERROR_PAGE = {
  InvalidCheck: '/auth/error',
  OAuthCallbackError: '/auth/signin',
  OAuthAccountNotLinked: '/auth/signin',
  OAuthProfileParseError: '/auth/error',
  OAuthSignInError: '/auth/signin',
} as const;

function expectRejected(res: Response, app: TestApp, client: TestClient, type: keyof typeof ERROR_PAGE): void {
  expect(res.status).toBe(302);
  const target = location(res);
  expect(target.origin).toBe(app.url);
  expect(target.pathname).toBe(ERROR_PAGE[type]);
  expect(target.searchParams.get('error')).toBe(type);
  expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
  expect(res.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(c))).toBe(
    false,
  );
}

/** Row counts of the MemoryAdapter (users, accounts, sessions). */
function counts(adapter: MemoryAdapter): { users: number; accounts: number; sessions: number } {
  const a = adapter as unknown as {
    users: Map<string, unknown>;
    accounts: Map<string, unknown>;
    sessions: Map<string, unknown>;
  };
  return { users: a.users.size, accounts: a.accounts.size, sessions: a.sessions.size };
}

describe('OpenID Connect against a real OpenID Provider', () => {
  let app: TestApp;
  const hookedFetches: string[] = [];
  const clients: Record<string, string> = {};

  beforeAll(async () => {
    for (const id of ['idp', 'checks', 'userinfo', 'formpost', 'post', 'pkjwt', 'rotate', 'wk', 'hooks'])
      clients[id] = `c${++seq}-${id}`;
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = { ...(await exportJWK(privateKey)), kid: 'client-key-1', alg: 'ES256' };
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'client-key-1', alg: 'ES256', use: 'sig' };
    const common = (id: string) => ({
      id,
      name: id,
      type: 'oidc' as const,
      issuer: op.issuer,
      clientId: clients[id],
      clientSecret: `${clients[id]}-secret`,
    });
    app = await createTestApp({
      auth: {
        providers: [
          // The "Done when" configuration, as is.
          {
            id: 'idp',
            name: 'IdP',
            type: 'oidc',
            issuer: op.issuer,
            clientId: clients.idp,
            clientSecret: `${clients.idp}-secret`,
          },
          { ...common('checks'), checks: ['pkce', 'state', 'nonce'] },
          { ...common('userinfo'), idToken: false },
          {
            ...common('formpost'),
            checks: ['pkce', 'state', 'nonce'],
            authorization: { params: { response_mode: 'form_post' } },
          },
          { ...common('post'), client: { token_endpoint_auth_method: 'client_secret_post' } },
          {
            ...common('pkjwt'),
            clientSecret: undefined,
            client: { token_endpoint_auth_method: 'private_key_jwt' },
            token: { clientPrivateKey: privateJwk },
          } as never,
          common('rotate'),
          // Only `wellKnown` (Auth.js never reads it): discovery uses it and takes the issuer from it.
          {
            id: 'wk',
            name: 'wk',
            type: 'oidc',
            wellKnown: `${op.issuer}/.well-known/openid-configuration`,
            clientId: clients.wk,
            clientSecret: `${clients.wk}-secret`,
          },
          {
            ...common('hooks'),
            customFetch: (url: string, init: RequestInit) => {
              hookedFetches.push(new URL(url).pathname);
              return fetch(url, init);
            },
            conformProfile: (profile: Profile, { params }: { params: Record<string, string | undefined> }) => ({
              ...profile,
              name: `${String(profile.name)} (${params.iss ? 'with iss' : 'no iss'})`,
            }),
          } as never,
          // Nothing listens there.
          { id: 'down', name: 'Down', type: 'oidc', issuer: 'http://127.0.0.1:1', clientId: 'x', clientSecret: 'y' },
        ],
      },
    });
    for (const id of ['idp', 'checks', 'userinfo', 'formpost', 'rotate', 'wk', 'hooks'])
      await registerOidcClient(app, id, clients[id]);
    await registerOidcClient(app, 'post', clients.post, { token_endpoint_auth_method: 'client_secret_post' });
    await registerOidcClient(app, 'pkjwt', clients.pkjwt, {
      client_secret: undefined,
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [publicJwk] },
    });
  });
  afterAll(() => app?.close());

  it('signs a user in with { id, type: oidc, issuer, clientId, clientSecret } and the guarded route returns that user', async () => {
    op.signInAs({ sub: 'ada', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' });
    const client = new TestClient(app.url);
    expect((await me(client)).status).toBe(401);
    const res = await signIn(app, client, 'idp');
    expectSignedIn(res, app, client);
    const current = await me(client);
    expect(current.status).toBe(200);
    expect(current.user).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace' });
  });

  it('discovers the provider once and sends PKCE (S256) + state + nonce, the OIDC scope and extra parameters', async () => {
    const discoveries = () => op.requests.filter((r) => r.endsWith('/.well-known/openid-configuration')).length;
    const before = discoveries();
    const client = new TestClient(app.url);
    const csrfToken = await client.csrf();
    const start = await client.post(
      '/auth/signin/checks?prompt=login&login_hint=ada%40example.com&state=forged&redirect_uri=https%3A%2F%2Fevil.example',
      { csrfToken, callbackUrl: `${app.url}/me` },
    );
    const url = location(start);
    expect(url.origin + url.pathname).toBe(`${op.issuer}/auth`);
    const q = url.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe(clients.checks);
    expect(q.get('redirect_uri')).toBe(`${app.url}/auth/callback/checks`);
    expect(q.get('scope')).toBe('openid profile email');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(q.get('state')).not.toBe('forged');
    expect(q.get('prompt')).toBe('login');
    expect(q.get('login_hint')).toBe('ada@example.com');
    // Check values live in cookies, never readable by scripts.
    const setCookies = start.headers.getSetCookie();
    for (const name of ['authjs.pkce.code_verifier', 'authjs.state', 'authjs.nonce']) {
      expect(setCookies.find((c) => c.startsWith(`${name}=`))).toMatch(/HttpOnly/i);
    }
    const back = await followToApp(client, start, app.url);
    expect(back.url.searchParams.get('iss')).toBe(op.issuer);
    expectSignedIn(await deliver(client, back), app, client);
    // A second sign-in reuses the discovery document.
    await signIn(app, new TestClient(app.url), 'checks');
    expect(discoveries() - before).toBeLessThanOrEqual(1);
  });

  // promise: oauth.userinfo-profile
  it('idToken: false reads the profile from userinfo', async () => {
    const before = op.requests.filter((r) => r === 'GET /me').length;
    op.signInAs({ sub: 'ui-user', email: 'UI@Example.com', name: 'From Userinfo' });
    const client = new TestClient(app.url);
    expectSignedIn(await signIn(app, client, 'userinfo'), app, client);
    expect(op.requests.filter((r) => r === 'GET /me').length).toBe(before + 1);
    expect((await me(client)).user).toMatchObject({ email: 'ui@example.com', name: 'From Userinfo' });
  });

  // promise: oauth.form-post
  it('response_mode=form_post: the callback arrives as a POST', async () => {
    op.signInAs({ sub: 'fp-user', email: 'fp@example.com', name: 'Form Post' });
    const client = new TestClient(app.url);
    const { start, back } = await startFlow(app, client, 'formpost');
    // form_post responses are cross-site POSTs: the check cookies must be SameSite=None; Secure.
    for (const c of start.headers.getSetCookie().filter((c) => /^authjs\.(state|nonce|pkce)/.test(c)))
      expect(c).toMatch(/SameSite=None/i);
    expect(back.method).toBe('POST');
    expect(back.body).toHaveProperty('code');
    expectSignedIn(await deliver(client, back), app, client);
    expect((await me(client)).user).toMatchObject({ email: 'fp@example.com' });
  });

  it.each([
    ['client_secret_post', 'post'],
    ['private_key_jwt', 'pkjwt'],
  ])('client authentication %s', async (_method, providerId) => {
    op.signInAs({ sub: `auth-${providerId}`, email: `${providerId}@example.com`, name: providerId });
    const client = new TestClient(app.url);
    expectSignedIn(await signIn(app, client, providerId), app, client);
    expect((await me(client)).user).toMatchObject({ email: `${providerId}@example.com` });
  });

  // promise: oauth.provider-hooks
  it('customFetch carries every request to the provider; conformProfile sees the callback parameters', async () => {
    op.signInAs({ sub: 'hooked', email: 'hooked@example.com', name: 'Hooked' });
    const client = new TestClient(app.url);
    expectSignedIn(await signIn(app, client, 'hooks'), app, client);
    expect(hookedFetches).toEqual(['/.well-known/openid-configuration', '/token', '/jwks']);
    expect((await me(client)).user).toMatchObject({ name: 'Hooked (with iss)' });
  });

  it('discovers through `wellKnown` alone', async () => {
    op.signInAs({ sub: 'wk-user', email: 'wk@example.com', name: 'Well Known' });
    const client = new TestClient(app.url);
    expectSignedIn(await signIn(app, client, 'wk'), app, client);
    expect((await me(client)).user).toMatchObject({ email: 'wk@example.com' });
  });

  it('an unreachable provider ends as OAuthSignInError on the sign-in page, without a 500', async () => {
    const client = new TestClient(app.url);
    const csrfToken = await client.csrf();
    const res = await client.post('/auth/signin/down', { csrfToken, callbackUrl: `${app.url}/me` });
    expect(res.status).toBe(302);
    expect(location(res).pathname).toBe('/auth/signin');
    expect(location(res).searchParams.get('error')).toBe('OAuthSignInError');
  });

  it('accepts ID tokens signed with a rotated key (the JWKS is fetched again once)', async () => {
    const jwksFetches = () => op.requests.filter((r) => r.endsWith('/jwks')).length;
    op.signInAs({ sub: 'rot', email: 'rot@example.com', name: 'Rot' });
    const first = new TestClient(app.url);
    expectSignedIn(await signIn(app, first, 'rotate'), app, first);
    const before = jwksFetches();
    const oldKid = op.currentKid;
    await op.rotateKeys();
    expect(op.currentKid).not.toBe(oldKid);
    const client = new TestClient(app.url);
    expectSignedIn(await signIn(app, client, 'rotate'), app, client);
    expect(jwksFetches() - before).toBe(1);
  });
  it('ID tokens with the same unknown kid do not flood the JWKS endpoint (one refetch, then the negative cache)', async () => {
    // Ever-new bogus kids make one refetch each, up to a cap per minute: see lib/flows/oauth/jwks-cache.spec.ts.
    const jwksFetches = () => op.requests.filter((r) => r.endsWith('/jwks')).length;
    op.signInAs({ sub: 'rot', email: 'rot@example.com', name: 'Rot' });
    const before = jwksFetches();
    for (let i = 0; i < 5; i++) {
      const client = new TestClient(app.url);
      const flow = await startFlow(app, client, 'rotate');
      op.mutateIdToken(() => ({ header: { kid: 'unknown-kid' } }));
      try {
        expectRejected(await deliver(client, flow.back), app, client, 'OAuthCallbackError');
      } finally {
        op.mutateIdToken(undefined);
      }
    }
    expect(jwksFetches() - before).toBe(1);
  });
});

// promise: oauth.userinfo-fallback
describe("an OP with oidc-provider's defaults: email and name only from userinfo, the ID token carries sub", () => {
  let opDefaults: TestOidcProvider;
  let app: TestApp;
  let memory: MemoryAdapter;
  const warnings: string[] = [];
  const idTokens: string[] = [];
  const ids = { quick: `c${++seq}-quick`, broken: `c${++seq}-broken` };

  beforeAll(async () => {
    opDefaults = await startOidcProvider({ conformIdTokenClaims: true });
    memory = new MemoryAdapter();
    const provider = (id: keyof typeof ids, extra: Record<string, unknown> = {}) => ({
      id,
      name: id,
      type: 'oidc' as const,
      issuer: opDefaults.issuer,
      clientId: ids[id],
      clientSecret: `${ids[id]}-secret`,
      ...extra,
    });
    app = await createTestApp({
      auth: {
        adapter: memory,
        providers: [
          // The README's quick start: the issuer, the client, nothing else.
          provider('quick'),
          // A userinfo endpoint that fails: the sign-in goes on with the ID token's claims, and says so.
          provider('broken', {
            customFetch: (url: string, init: RequestInit) =>
              new URL(url).pathname === '/me'
                ? Promise.resolve(new Response('down', { status: 503 }))
                : fetch(url, init),
          }),
        ] as never,
        callbacks: {
          signIn: ({ account }) => {
            if (typeof account?.id_token === 'string') idTokens.push(account.id_token);
            return true;
          },
        },
        logger: { warn: (line: string) => void warnings.push(line), error: () => undefined, debug: () => undefined },
      },
    });
    for (const id of Object.keys(ids) as Array<keyof typeof ids>)
      await opDefaults.addClient({
        client_id: ids[id],
        client_secret: `${ids[id]}-secret`,
        redirect_uris: [`${app.url}/auth/callback/${id}`],
      });
  });
  afterAll(async () => {
    await app?.close();
    await opDefaults?.close();
  });

  it('the quick start stores the email and name from userinfo (the ID token has neither), without a warning', async () => {
    opDefaults.signInAs({ sub: 'defaults-1', email: 'Grace@Example.com', email_verified: true, name: 'Grace Hopper' });
    const before = opDefaults.requests.filter((r) => r === 'GET /me').length;
    const client = new TestClient(app.url);
    const csrfToken = await client.csrf();
    const start = await client.post('/auth/signin/quick', { csrfToken, callbackUrl: `${app.url}/me` });
    const back = await followToApp(client, start, app.url);
    expectSignedIn(await deliver(client, back), app, client);
    // The OP really kept them out of the ID token.
    const claims = JSON.parse(Buffer.from(idTokens.at(-1)!.split('.')[1]!, 'base64url').toString()) as Profile;
    expect(claims.sub).toBe('defaults-1');
    expect(claims).not.toHaveProperty('email');
    expect(claims).not.toHaveProperty('name');
    expect(opDefaults.requests.filter((r) => r === 'GET /me').length).toBe(before + 1);
    expect((await me(client)).user).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper' });
    const stored = await memory.getUserByAccount({ provider: 'quick', providerAccountId: 'defaults-1' });
    expect(stored).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper' });
    expect(warnings.filter((w) => w.includes('"quick"'))).toEqual([]);
  });

  it('when userinfo cannot fill them: the sign-in goes on, and one warning per provider says what is missing and why', async () => {
    for (const sub of ['defaults-2', 'defaults-3']) {
      opDefaults.signInAs({ sub, email: `${sub}@example.com`, name: sub });
      const client = new TestClient(app.url);
      const csrfToken = await client.csrf();
      const start = await client.post('/auth/signin/broken', { csrfToken, callbackUrl: `${app.url}/me` });
      expectSignedIn(await deliver(client, await followToApp(client, start, app.url)), app, client);
      expect(await memory.getUserByAccount({ provider: 'broken', providerAccountId: sub })).toMatchObject({
        email: null,
      });
    }
    const said = warnings.filter((w) => w.includes('"broken"'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/ID token has no `email` and `name` claim/);
    expect(said[0]).toMatch(/userinfo endpoint could not be read/);
    expect(said[0]).toMatch(/idToken: false/);
  });
});

describe('OAuth 2.0 (type oauth) against a plain authorization server', () => {
  let app: TestApp;
  let tokenRequestCalls = 0;

  beforeAll(async () => {
    const endpoints = {
      authorization: { url: as2.authorizationUrl, params: { scope: 'read:user' } },
      token: as2.tokenUrl,
      userinfo: as2.userinfoUrl,
    };
    app = await createTestApp({
      auth: {
        providers: [
          {
            id: 'plain',
            name: 'Plain',
            type: 'oauth',
            clientId: 'plain-client',
            clientSecret: 'se:cr%et+',
            ...endpoints,
          },
          {
            id: 'custom',
            name: 'Custom',
            type: 'oauth',
            clientId: 'plain-client',
            clientSecret: 'se:cr%et+',
            ...endpoints,
            // A custom token request: Auth.js ignores it; here it replaces the library's call.
            token: {
              url: as2.tokenUrl,
              async request({
                params,
                checks,
                provider,
              }: {
                params: Record<string, string | undefined>;
                checks: { code_verifier?: string };
                provider: { callbackUrl?: string; id: string };
              }) {
                tokenRequestCalls++;
                const res = await fetch(as2.tokenUrl, {
                  method: 'POST',
                  headers: { 'content-type': 'application/x-www-form-urlencoded' },
                  body: new URLSearchParams({
                    grant_type: 'authorization_code',
                    code: params.code ?? '',
                    redirect_uri: `${app.url}/auth/callback/${provider.id}`,
                    code_verifier: checks.code_verifier ?? '',
                    client_id: 'plain-client',
                    client_secret: 'se:cr%et+',
                  }),
                });
                return { tokens: await res.json() };
              },
            },
            profile: (p: Profile) => ({
              id: String(p.id),
              name: `custom ${String(p.login)}`,
              email: p.email as string,
            }),
          },
        ] as never,
      },
    });
    as2.clients = [
      {
        client_id: 'plain-client',
        client_secret: 'se:cr%et+',
        redirect_uris: [`${app.url}/auth/callback/plain`, `${app.url}/auth/callback/custom`],
      },
    ];
  });
  afterAll(() => app?.close());

  it('signs in with the JSON userinfo profile (numeric id as a string), client_secret_basic form-encoded', async () => {
    as2.user = { id: 4242, login: 'grace', name: 'Grace Hopper', email: 'Grace@Example.com' };
    const client = new TestClient(app.url);
    const res = await signIn(app, client, 'plain');
    expectSignedIn(res, app, client);
    expect((await me(client)).user).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper' });
    const last = as2.tokenRequests.at(-1)!;
    // RFC 6749 2.3.1: id and secret are form-encoded before base64, so the ':' of the secret survives.
    const [id, secret] = Buffer.from(last.authorization!.replace(/^Basic /, ''), 'base64')
      .toString('utf8')
      .split(':');
    expect([decodeURIComponent(id), decodeURIComponent(secret)]).toEqual(['plain-client', 'se:cr%et+']);
    expect(last.body.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('honours a custom token.request', async () => {
    const client = new TestClient(app.url);
    const before = tokenRequestCalls;
    expectSignedIn(await signIn(app, client, 'custom'), app, client);
    expect(tokenRequestCalls).toBe(before + 1);
    expect((await me(client)).user).toMatchObject({ name: 'custom grace' });
  });

  it('an error from the provider (access_denied) ends as OAuthCallbackError', async () => {
    as2.denyNext('access_denied');
    const client = new TestClient(app.url);
    expectRejected(await signIn(app, client, 'plain'), app, client, 'OAuthCallbackError');
  });
});

const targets = await databaseTargets(['sqlite', 'postgres']);
const storages: Array<{ label: string; target?: DatabaseTarget }> = [
  ...targets.map((target) => ({ label: `TypeORM on ${target.name}`, target })),
  { label: 'MemoryAdapter' },
];

describe.each(storages)('account linking (reference 9.4) and rejections ($label)', ({ target }) => {
  const run = target ? target.describe : describe;
  run('', () => {
    let app: TestApp;
    let db: TestDatabase | undefined;
    let adapter: Adapter;
    let rows: () => Promise<{ users: number; accounts: number; sessions: number }>;
    let profileThrows = false;
    const ids = { a: `c${++seq}-link-a`, b: `c${++seq}-link-b`, trusting: `c${++seq}-link-t` };
    const seen: { signIn: Record<string, unknown>[]; linkAccount: Record<string, unknown>[] } = {
      signIn: [],
      linkAccount: [],
    };

    beforeAll(async () => {
      const memory = target ? undefined : new MemoryAdapter();
      if (target) db = await createDatabase(target, 'oauth_linking');
      const p = (id: string, clientId: string, extra: Record<string, unknown> = {}) => ({
        id,
        name: id,
        type: 'oidc' as const,
        issuer: op.issuer,
        clientId,
        clientSecret: `${clientId}-secret`,
        checks: ['pkce', 'state', 'nonce'],
        ...extra,
      });
      app = await createTestApp({
        imports: db ? [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })] : [],
        auth: {
          ...(memory ? { adapter: memory } : {}),
          providers: [
            p('a', ids.a, {
              profile: (profile: Profile) => {
                if (profileThrows) throw new Error('cannot parse');
                return { id: profile.sub as string, email: profile.email as string, name: profile.name as string };
              },
            }),
            p('b', ids.b),
            p('trusting', ids.trusting, { allowDangerousEmailAccountLinking: true }),
          ] as never,
          callbacks: {
            signIn: ({ account }) => {
              seen.signIn.push({ ...account });
              return true;
            },
          },
          events: { linkAccount: ({ account }) => void seen.linkAccount.push({ ...account }) },
        },
      });
      adapter = app.app.get(Adapter);
      if (memory) {
        rows = async () => counts(memory);
      } else {
        const dataSource = app.app.get(DataSource);
        const count = async (table: string) =>
          Number(((await dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`)) as Array<{ n: unknown }>)[0].n);
        rows = async () => ({
          users: await count('users'),
          accounts: await count('accounts'),
          sessions: await count('sessions'),
        });
      }
      await registerOidcClient(app, 'a', ids.a);
      await registerOidcClient(app, 'b', ids.b);
      await registerOidcClient(app, 'trusting', ids.trusting);
    });
    afterAll(async () => {
      await app?.close();
      await dropDatabase(db);
    });

    it('creates a user and its account on the first sign-in, and signs the same user in again (rows unchanged)', async () => {
      op.signInAs({ sub: 'link-1', email: 'link1@example.com', name: 'Link One' });
      const first = new TestClient(app.url);
      expectSignedIn(await signIn(app, first, 'a'), app, first);
      const created = await rows();
      expect(created).toMatchObject({ users: 1, accounts: 1 });
      const userId = (await me(first)).user?.id;
      const again = new TestClient(app.url);
      expectSignedIn(await signIn(app, again, 'a'), app, again);
      expect((await me(again)).user?.id).toBe(userId);
      expect(await rows()).toMatchObject({ users: 1, accounts: 1 });
      // Signed in as that user, the same account again: nothing changes.
      expectSignedIn(await signIn(app, again, 'a'), app, again);
      expect((await me(again)).user?.id).toBe(userId);
      expect(await rows()).toMatchObject({ users: 1, accounts: 1 });
    });

    // promise: oauth.token-response-to-callbacks
    it('the signIn callback gets the whole token response; the stored account keeps what account() keeps', async () => {
      op.signInAs({ sub: 'link-tokens', email: 'tokens@example.com', name: 'Tokens' });
      seen.signIn.length = 0;
      seen.linkAccount.length = 0;
      const client = new TestClient(app.url);
      expectSignedIn(await signIn(app, client, 'a'), app, client);
      const [account] = seen.signIn;
      // As Auth.js passes it: every field of the token response, expires_in included, plus the keys.
      expect(account).toMatchObject({
        provider: 'a',
        type: 'oidc',
        providerAccountId: 'link-tokens',
        access_token: expect.any(String),
        id_token: expect.any(String),
        token_type: 'bearer',
        expires_in: expect.any(Number),
        expires_at: expect.any(Number),
        scope: expect.stringContaining('openid'),
      });
      const raw = await adapter.getAccount!('link-tokens', 'a');
      // promise: storage.tokens-encrypted-by-default: TypeOrmAdapter's own tables hold ciphertext,
      // MemoryAdapter (nothing at rest) the plain tokens; the module reads them opened either way.
      for (const column of ['access_token', 'id_token'] as const)
        expect(raw![column]).toEqual(target ? expect.stringMatching(/^enc\.v1\./) : account![column]);
      const stored = app.app.get(AdapterService).openAccount(raw);
      expect(stored).toMatchObject({
        access_token: account!.access_token,
        id_token: account!.id_token,
        expires_at: account!.expires_at,
      });
      expect(stored).not.toHaveProperty('expires_in');
      expect(seen.linkAccount[0]).not.toHaveProperty('expires_in');
      expect(seen.linkAccount[0]).toMatchObject({
        provider: 'a',
        providerAccountId: 'link-tokens',
        access_token: account!.access_token,
      });
    });

    it('links a new account to the signed-in user', async () => {
      op.signInAs({ sub: 'link-2', email: 'link2@example.com', name: 'Link Two' });
      const client = new TestClient(app.url);
      expectSignedIn(await signIn(app, client, 'a'), app, client);
      const userId = (await me(client)).user?.id;
      const before = await rows();
      // Another provider account (other sub, other email) while signed in: linked, no new user.
      op.signInAs({ sub: 'link-2-at-b', email: 'other2@example.com', name: 'Link Two at B' });
      expectSignedIn(await signIn(app, client, 'b'), app, client);
      expect((await me(client)).user?.id).toBe(userId);
      expect(await rows()).toMatchObject({ users: before.users, accounts: before.accounts + 1 });
    });

    // promise: oauth.no-email-linking
    it('refuses an account already linked to another user while signed in (OAuthAccountNotLinked)', async () => {
      op.signInAs({ sub: 'link-3', email: 'link3@example.com', name: 'Link Three' });
      const client = new TestClient(app.url);
      expectSignedIn(await signIn(app, client, 'a'), app, client);
      const userId = (await me(client)).user?.id;
      const before = await rows();
      // link-1's account belongs to another user.
      op.signInAs({ sub: 'link-1', email: 'link1@example.com', name: 'Link One' });
      const res = await signIn(app, client, 'a');
      expect(location(res).searchParams.get('error')).toBe('OAuthAccountNotLinked');
      expect((await me(client)).user?.id).toBe(userId);
      expect(await rows()).toEqual(before);
    });

    // promise: oauth.no-email-linking
    it('refuses a new account whose email belongs to another user, unless the provider allows dangerous linking and the address was proven', async () => {
      const before = await rows();
      op.signInAs({ sub: 'link-1-at-b', email: 'link1@example.com', name: 'Same email' });
      const client = new TestClient(app.url);
      expectRejected(await signIn(app, client, 'b'), app, client, 'OAuthAccountNotLinked');
      expect(await rows()).toEqual(before);

      // Dangerous linking joins only a user whose address was proven (a magic link, or an IdP that
      // vouched for it): the holder's address came from an IdP that did not say email_verified.
      op.signInAs({ sub: 'link-1-at-trusting', email: 'link1@example.com', name: 'Same email' });
      const unproven = new TestClient(app.url);
      expectRejected(await signIn(app, unproven, 'trusting'), app, unproven, 'OAuthAccountNotLinked');
      expect(await rows()).toEqual(before);
      const holder = await adapter.getUserByEmail!('link1@example.com');
      await adapter.updateUser!({ id: holder!.id, emailVerified: new Date() });

      const trusted = new TestClient(app.url);
      expectSignedIn(await signIn(app, trusted, 'trusting'), app, trusted);
      const owner = await adapter.getUserByEmail!('link1@example.com');
      expect((await me(trusted)).user?.id).toBe(owner?.id);
      expect(await rows()).toMatchObject({ users: before.users, accounts: before.accounts + 1 });
    });

    it('two concurrent first sign-ins of the same provider account create one user', async () => {
      op.signInAs({ sub: 'race', email: 'race@example.com', name: 'Race' });
      const before = await rows();
      const c1 = new TestClient(app.url);
      const c2 = new TestClient(app.url);
      const [f1, f2] = await Promise.all([startFlow(app, c1, 'a'), startFlow(app, c2, 'a')]);
      const [r1, r2] = await Promise.all([deliver(c1, f1.back), deliver(c2, f2.back)]);
      expectSignedIn(r1, app, c1);
      expectSignedIn(r2, app, c2);
      expect(await rows()).toMatchObject({ users: before.users + 1, accounts: before.accounts + 1 });
      expect((await me(c1)).user?.id).toBe((await me(c2)).user?.id);
    });

    describe('rejections: each ends on the error page with its type, sets no session and writes nothing', () => {
      const cases: Array<[string, keyof typeof ERROR_PAGE, (flow: Flow, client: TestClient) => Promise<Response>]> = [
        [
          'missing state',
          'InvalidCheck',
          (f, c) => {
            f.back.url.searchParams.delete('state');
            return deliver(c, f.back);
          },
        ],
        [
          'tampered state',
          'InvalidCheck',
          (f, c) => {
            const s = f.back.url.searchParams.get('state')!;
            f.back.url.searchParams.set('state', s.slice(0, -2) + (s.endsWith('AA') ? 'BB' : 'AA'));
            return deliver(c, f.back);
          },
        ],
        [
          'missing PKCE cookie',
          'InvalidCheck',
          (f, c) => {
            c.cookies.delete('authjs.pkce.code_verifier');
            return deliver(c, f.back);
          },
        ],
        [
          'missing state cookie',
          'InvalidCheck',
          (f, c) => {
            c.cookies.delete('authjs.state');
            return deliver(c, f.back);
          },
        ],
        [
          'check cookies minted for another provider',
          'InvalidCheck',
          (f, c) => c.get(f.back.url.href.replace('/auth/callback/a', '/auth/callback/b')),
        ],
        [
          'an iss response parameter of another issuer',
          'OAuthCallbackError',
          (f, c) => {
            f.back.url.searchParams.set('iss', 'https://attacker.example');
            return deliver(c, f.back);
          },
        ],
      ];
      it.each(cases)('%s', async (_name, type, tamper) => {
        op.signInAs({ sub: 'victim', email: 'victim@example.com', name: 'Victim' });
        const before = await rows();
        const client = new TestClient(app.url);
        const flow = await startFlow(app, client, 'a');
        expectRejected(await tamper(flow, client), app, client, type);
        expect(await rows()).toEqual(before);
      });

      const idTokenCases: Array<[string, keyof typeof ERROR_PAGE, Parameters<TestOidcProvider['mutateIdToken']>[0]]> = [
        ['wrong nonce', 'InvalidCheck', () => ({ claims: { nonce: 'not-the-nonce' } })],
        ['bad signature', 'OAuthCallbackError', () => ({ claims: { sub: 'someone-else' }, resign: false })],
        ['wrong issuer', 'OAuthCallbackError', () => ({ claims: { iss: 'https://attacker.example' } })],
        ['wrong audience', 'OAuthCallbackError', () => ({ claims: { aud: 'another-client' } })],
        [
          'several audiences without azp',
          'OAuthCallbackError',
          ({ claims }) => ({ claims: { aud: [claims.aud as string, 'another-client'] } }),
        ],
        [
          'expired ID token',
          'OAuthCallbackError',
          () => ({ claims: { exp: Math.floor(Date.now() / 1000) - 600, iat: Math.floor(Date.now() / 1000) - 1200 } }),
        ],
        ['alg none', 'OAuthCallbackError', ({ claims }) => ({ header: { alg: 'none' }, claims, resign: false })],
      ];
      it.each(idTokenCases)('ID token: %s', async (_name, type, mutation) => {
        op.signInAs({ sub: 'victim', email: 'victim@example.com', name: 'Victim' });
        const before = await rows();
        const client = new TestClient(app.url);
        const flow = await startFlow(app, client, 'a');
        op.mutateIdToken(mutation);
        try {
          expectRejected(await deliver(client, flow.back), app, client, type);
        } finally {
          op.mutateIdToken(undefined);
        }
        expect(await rows()).toEqual(before);
      });

      it('a callback replayed after success (with or without the original cookies)', async () => {
        op.signInAs({ sub: 'replay', email: 'replay@example.com', name: 'Replay' });
        const client = new TestClient(app.url);
        const flow = await startFlow(app, client, 'a');
        const checkCookies = new Map(client.cookies);
        expectSignedIn(await deliver(client, flow.back), app, client);
        const after = await rows();
        // The same browser: its check cookies were cleared by the first callback.
        const replay = new TestClient(app.url);
        for (const [k, v] of checkCookies)
          if (k.startsWith('authjs.') && k !== SESSION_COOKIE) replay.cookies.set(k, v);
        replay.cookies.delete('authjs.state');
        expectRejected(await deliver(replay, flow.back), app, replay, 'InvalidCheck');
        // An attacker who kept every cookie: the state was already used.
        const thief = new TestClient(app.url);
        for (const [k, v] of checkCookies) thief.cookies.set(k, v);
        thief.cookies.delete(SESSION_COOKIE);
        expectRejected(await deliver(thief, flow.back), app, thief, 'InvalidCheck');
        expect(await rows()).toEqual(after);
      });

      it('profile() throwing ends as OAuthProfileParseError with a well-formed error URL', async () => {
        op.signInAs({ sub: 'bad-profile', email: 'bad@example.com', name: 'Bad' });
        const before = await rows();
        const client = new TestClient(app.url);
        const flow = await startFlow(app, client, 'a');
        profileThrows = true;
        try {
          const res = await deliver(client, flow.back);
          expectRejected(res, app, client, 'OAuthProfileParseError');
          expect(location(res).href).toBe(`${app.url}/auth/error?error=OAuthProfileParseError`);
        } finally {
          profileThrows = false;
        }
        expect(await rows()).toEqual(before);
      });
    });
  });
});

describe('max_age: the ID token must prove a recent enough sign-in (OIDC Core 3.1.2.1)', () => {
  // Every success path runs against the real OP (oidc-provider), whose auth_time is the real login's.
  // A refusal needs an ID token a real OP would not send (no auth_time, or an old one): the same OP
  // signs it, with only auth_time changed (mutateIdToken), so nothing else about it is hand-made.
  let app: TestApp;
  const clientIds = { op: `c${++seq}-maxage`, strict: `c${++seq}-maxage-strict` };

  beforeAll(async () => {
    app = await createTestApp({
      auth: {
        providers: [
          {
            id: 'op',
            name: 'OP',
            type: 'oidc',
            issuer: op.issuer,
            clientId: clientIds.op,
            clientSecret: `${clientIds.op}-secret`,
          },
          // max_age in the provider's own parameters, and no check cookie to carry anything.
          {
            id: 'strict',
            name: 'Strict',
            type: 'oidc',
            issuer: op.issuer,
            clientId: clientIds.strict,
            clientSecret: `${clientIds.strict}-secret`,
            authorization: { params: { max_age: '60' } },
            checks: ['none'],
          },
        ] as never,
      },
    });
    await registerOidcClient(app, 'op', clientIds.op);
    await registerOidcClient(app, 'strict', clientIds.strict);
  });
  afterAll(async () => {
    op.mutateIdToken(undefined);
    await app?.close();
  });

  /** Signs in with the OP's ID token changed by `authTime` (`'real'`: unchanged). */
  async function signInWithAuthTime(providerId: string, authTime: 'real' | number | undefined, query = '') {
    op.signInAs({ sub: 'max-age-user', email: 'maxage@example.com', name: 'Max Age' });
    const client = new TestClient(app.url);
    op.mutateIdToken(authTime === 'real' ? undefined : () => ({ claims: { auth_time: authTime } }));
    try {
      return { client, res: await signIn(app, client, providerId, query) };
    } finally {
      op.mutateIdToken(undefined);
    }
  }

  it('a real OP: max_age from the sign-in request reaches it, and its ID token passes the auth_time check', async () => {
    op.signInAs({ sub: 'max-age-user', email: 'maxage@example.com', name: 'Max Age' });
    const client = new TestClient(app.url);
    const { start, back } = await startFlow(app, client, 'op', '?max_age=300');
    expect(location(start).searchParams.get('max_age')).toBe('300');
    expectSignedIn(await deliver(client, back), app, client);
  });

  // promise: oauth.max-age
  it('an ID token without auth_time, or with one older than max_age, is refused; the real one is accepted', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const [authTime, accepted] of [
      [undefined, false],
      [now - 3600, false],
      ['real', true],
    ] as const) {
      const { client, res } = await signInWithAuthTime('op', authTime, '?max_age=60');
      if (accepted) expectSignedIn(res, app, client);
      else expectRejected(res, app, client, 'OAuthCallbackError');
    }
    // Without max_age, auth_time is not required.
    const { client, res } = await signInWithAuthTime('op', undefined);
    expectSignedIn(res, app, client);
  });

  it("max_age set in the provider's params is enforced even without check cookies", async () => {
    const stale = await signInWithAuthTime('strict', Math.floor(Date.now() / 1000) - 3600);
    expectRejected(stale.res, app, stale.client, 'OAuthCallbackError');
    const real = await signInWithAuthTime('strict', 'real');
    expectSignedIn(real.res, app, real.client);
  });

  // promise: oauth.max-age
  it('a max_age that is not a whole number of seconds is refused before the provider is asked', async () => {
    const client = new TestClient(app.url);
    const csrfToken = await client.csrf();
    const authorizations = () => op.requests.filter((r) => r === 'GET /auth').length;
    // The sign-ins above went through the OP's authorization endpoint: the count is live.
    const before = authorizations();
    expect(before).toBeGreaterThan(0);
    const res = await client.post('/auth/signin/op?max_age=soon', { csrfToken, callbackUrl: `${app.url}/me` });
    expect(res.status).toBe(302);
    expect(location(res).pathname).toBe('/auth/error');
    expect(location(res).searchParams.get('error')).toBe('InvalidRequest');
    expect(res.headers.getSetCookie().some((c) => /authjs\.(pkce|state|nonce)/.test(c) && !/max-age=0/i.test(c))).toBe(
      false,
    );
    expect(authorizations()).toBe(before);
  });
});

const withRedis = await redisAvailable('OAuth replay across instances');

(withRedis ? describe : describe.skip)(
  'two instances sharing a Redis rate-limit store: a callback replayed to the other is refused',
  () => {
    const apps: TestApp[] = [];
    const clients: Redis[] = [];
    const prefix = `nestjs-auth-test:${randomUUID()}:`;
    const clientId = `c${++seq}-cluster`;

    beforeAll(async () => {
      for (let i = 0; i < 2; i++) {
        const connection = (await connectRedis())!;
        clients.push(connection);
        apps.push(
          await createTestApp({
            auth: {
              providers: [
                {
                  id: 'idp',
                  name: 'IdP',
                  type: 'oidc',
                  issuer: op.issuer,
                  clientId,
                  clientSecret: `${clientId}-secret`,
                  checks: ['pkce', 'state', 'nonce'],
                },
              ],
              rateLimitStore: new RedisRateLimitStore(connection, { prefix }),
            },
          }),
        );
      }
      await op.addClient({
        client_id: clientId,
        client_secret: `${clientId}-secret`,
        redirect_uris: apps.map((a) => `${a.url}/auth/callback/idp`),
      });
    });
    afterAll(async () => {
      await Promise.all(apps.map((a) => a.close()));
      const keys = await clients[0]!.keys(`${prefix}*`);
      if (keys.length) await clients[0]!.del(...keys);
      await Promise.all(clients.map((c) => c.quit()));
    });

    // promise: oauth.shared-replay-store
    it('the check cookies used on instance A are refused on instance B before any token request', async () => {
      const [a, b] = apps as [TestApp, TestApp];
      op.signInAs({ sub: 'cluster-user', email: 'cluster@example.com', name: 'Cluster' });
      const client = new TestClient(a.url);
      const flow = await startFlow(a, client, 'idp');
      const checkCookies = new Map(client.cookies);
      expectSignedIn(await deliver(client, flow.back), a, client);

      // A thief with every cookie and the callback URL tries the other instance.
      const thief = new TestClient(b.url);
      for (const [k, v] of checkCookies) if (k !== SESSION_COOKIE) thief.cookies.set(k, v);
      const tokenRequests = () => op.requests.filter((r) => r.includes('/token')).length;
      const before = tokenRequests();
      const replayed = new URL(flow.back.url.pathname + flow.back.url.search, b.url);
      expectRejected(await deliver(thief, { ...flow.back, url: replayed }), b, thief, 'InvalidCheck');
      expect(tokenRequests()).toBe(before);
    });
  },
);

describe('redirect proxy: one registered redirect URI serving another deployment', () => {
  let proxy: TestApp;
  let preview: TestApp;
  const clientId = `c${++seq}-proxy`;
  const provider = () => ({
    id: 'idp',
    name: 'IdP',
    type: 'oidc' as const,
    issuer: op.issuer,
    clientId,
    clientSecret: `${clientId}-secret`,
  });

  beforeAll(async () => {
    proxy = await createTestApp({ auth: { providers: [provider()] } });
    // The proxy's own URL is only known once it listens; providers are normalised on first use.
    const config = proxy.app.get<ResolvedAuthConfig>(AUTH_CONFIG);
    config.providerById.get('idp')!.config.redirectProxyUrl = `${proxy.url}/auth`;
    preview = await createTestApp({ auth: { providers: [{ ...provider(), redirectProxyUrl: `${proxy.url}/auth` }] } });
    // Only the proxy's callback is registered at the provider.
    await op.addClient({
      client_id: clientId,
      client_secret: `${clientId}-secret`,
      redirect_uris: [`${proxy.url}/auth/callback/idp`],
    });
  });
  afterAll(async () => {
    await preview?.close();
    await proxy?.close();
  });

  // promise: oauth.redirect-proxy
  it('the proxy bounces the response to the deployment that started the flow, which signs the user in', async () => {
    op.signInAs({ sub: 'proxied', email: 'proxied@example.com', name: 'Proxied' });
    const client = new TestClient(preview.url);
    const csrfToken = await client.csrf();
    const start = await client.post('/auth/signin/idp', { csrfToken, callbackUrl: `${preview.url}/me` });
    const authorization = location(start);
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${proxy.url}/auth/callback/idp`);
    expect(authorization.searchParams.get('state')).toBeTruthy();
    const atProxy = await followToApp(client, start, proxy.url);
    expect(atProxy.url.href.startsWith(`${proxy.url}/auth/callback/idp?`)).toBe(true);
    const bounced = await client.get(atProxy.url.href);
    expect(bounced.status).toBe(302);
    expect(bounced.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    const back = location(bounced);
    expect(back.origin + back.pathname).toBe(`${preview.url}/auth/callback/idp`);
    expect(back.searchParams.get('code')).toBe(atProxy.url.searchParams.get('code'));
    const done = await client.get(back.href);
    expectSignedIn(done, preview, client);
    expect((await me(client)).user).toMatchObject({ email: 'proxied@example.com' });
  });

  // promise: oauth.redirect-proxy
  it('the proxy refuses a state it cannot decode', async () => {
    const client = new TestClient(proxy.url);
    expectRejected(await client.get(`/auth/callback/idp?code=x&state=not-a-jwe`), proxy, client, 'InvalidCheck');
  });
});
