import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get } from '@nestjs/common';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Public } from '../lib/core/public.decorator.js';
import { CurrentUser } from '../lib/guard/current-user.decorator.js';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { decode, encode } from '../lib/session/jwt.js';
import { RedisRateLimitStore } from '../lib/rate-limit/redis-rate-limit.store.js';
import { connectRedis, redisAvailable } from './setup/redis.js';
import { Redis } from 'ioredis';
import { createHash, randomUUID } from 'node:crypto';
import { AuthService } from '../lib/guard/auth.service.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { createTestApp, TEST_SECRET, type TestApp, type TestAppOptions } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { TestClient, location } from './setup/http-client.js';

const USERS: Record<string, { id: string; email: string; name: string; password: string }> = {
  alice: { id: 'user-alice', email: 'alice@example.test', name: 'Alice', password: 'correct horse' },
};

/** A credentials provider: the first real sign-in path, used here to test the session layer. */
function credentialsProvider() {
  return {
    id: 'credentials',
    name: 'Password',
    type: 'credentials' as const,
    credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c: Partial<Record<string, unknown>>) => {
      const user = USERS[String(c.username)];
      return user && user.password === c.password ? { id: user.id, email: user.email, name: user.name } : null;
    },
  };
}

async function signIn(client: TestClient, username = 'alice', password = 'correct horse') {
  const csrfToken = await client.csrf();
  return client.post('/auth/callback/credentials', { csrfToken, username, password, callbackUrl: '/public' });
}

type Setup = () => Promise<{
  options: Partial<TestAppOptions> & { auth: Partial<AuthModuleOptions> & AuthModuleExtras };
  db?: TestDatabase;
}>;

const targets = await databaseTargets(['sqlite', 'postgres']);
const strategies: Array<[string, 'jwt' | 'database', Setup, string | undefined]> = [
  ['jwt', 'jwt', async () => ({ options: { auth: { session: { strategy: 'jwt' } } } }), undefined],
  [
    'database on MemoryAdapter',
    'database',
    async () => ({ options: { auth: { session: { strategy: 'database' }, adapter: new MemoryAdapter() } } }),
    undefined,
  ],
  [
    'database with cache',
    'database',
    async () => ({
      options: { auth: { session: { strategy: 'database', cacheTtl: 5 }, adapter: new MemoryAdapter() } },
    }),
    undefined,
  ],
  [
    'database with hashed tokens',
    'database',
    async () => ({
      options: { auth: { session: { strategy: 'database', hashTokens: true }, adapter: new MemoryAdapter() } },
    }),
    undefined,
  ],
  // The default adapter: TypeORM in the app, no adapter code written.
  ...targets.map((target): [string, 'jwt' | 'database', Setup, string | undefined] => [
    `database on TypeORM ${target.name}`,
    'database',
    async () => {
      const db = await createDatabase(target, 'sessions');
      return {
        db,
        options: {
          auth: {},
          imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })],
        },
      };
    },
    target.available ? undefined : (target.reason ?? 'unavailable'),
  ]),
];

describe.each(strategies)('sessions (%s)', (name, strategy, setup, unavailable) => {
  let t: TestApp;
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    if (unavailable) return;
    const made = await setup();
    db = made.db;
    t = await createTestApp({ ...made.options, auth: { ...made.options.auth, providers: [credentialsProvider()] } });
  });
  afterAll(async () => {
    await t?.close();
    await dropDatabase(db);
  });
  if (unavailable) {
    process.stderr.write(`[skipped] sessions (${name}): ${unavailable}\n`);
    it.skip(`${name}: ${unavailable}`, () => undefined);
    return;
  }

  // promise: sessions.database
  it('signs in, reads the session, reaches the guarded route, updates, signs out; the old cookie is refused', async () => {
    const client = new TestClient(t.url);
    const signedInAt = Date.now();
    const res = await signIn(client);
    expect(res.status).toBe(302);
    expect(location(res).href).toBe(`${t.url}/public`);
    const sessionCookie = client.cookies.get('authjs.session-token');
    expect(sessionCookie).toBeTruthy();

    const session = await (await client.get('/auth/session')).json();
    const told = Date.now();
    expect(session).toMatchObject({ user: { id: 'user-alice', email: 'alice@example.test', name: 'Alice' } });
    // 30 days (the default maxAge) from the sign-in or, database sessions, from this read's
    // extension: never later than 30 days after the answer, never sooner than 30 days after the
    // sign-in (whole seconds in a JWT).
    const expires = new Date((session as { expires: string }).expires).getTime();
    expect(expires).toBeLessThanOrEqual(told + 30 * 86400_000);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(signedInAt / 1000) * 1000 + 30 * 86400_000);

    const me = await client.get('/me');
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { id: string } }).user.id).toBe('user-alice');

    const csrfToken = await client.csrf();
    const updated = await client.post('/auth/session', { csrfToken, data: { theme: 'dark' } }, { json: true });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ user: { id: 'user-alice' } });

    const out = await client.post('/auth/signout', { csrfToken, callbackUrl: '/public' });
    expect(out.status).toBe(302);
    expect(location(out).href).toBe(`${t.url}/public`);
    expect(client.cookies.has('authjs.session-token')).toBe(false);
    expect((await client.get('/me')).status).toBe(401);

    // Replaying the old cookie: a database session was deleted, so it is refused at once.
    const replay = await fetch(`${t.url}/me`, { headers: { cookie: `authjs.session-token=${sessionCookie}` } });
    if (strategy === 'jwt') {
      // A JWT cannot be revoked server-side (documented): it stays valid until it expires, which is
      // maxAge (30 days by default) after it was issued...
      expect(replay.status).toBe(200);
      const salt = 'authjs.session-token';
      const claims = (await decode({ token: sessionCookie!, secret: TEST_SECRET, salt }))!;
      expect(claims.exp! - claims.iat!).toBe(30 * 86400);
      // ...and then it is refused: the same claims, issued long enough ago that exp has passed
      // (beyond the 15 s clock tolerance), no longer sign anybody in.
      const expired = await encode({
        token: { ...claims, iat: undefined, exp: undefined },
        secret: TEST_SECRET,
        salt,
        maxAge: -60,
      });
      const late = await fetch(`${t.url}/me`, { headers: { cookie: `authjs.session-token=${expired}` } });
      expect(late.status).toBe(401);
      // The same token minted with time left is accepted: the expiry, not the minting, refused it.
      const fresh = await encode({
        token: { ...claims, iat: undefined, exp: undefined },
        secret: TEST_SECRET,
        salt,
        maxAge: 60,
      });
      expect((await fetch(`${t.url}/me`, { headers: { cookie: `authjs.session-token=${fresh}` } })).status).toBe(200);
    } else {
      expect(replay.status).toBe(401);
      expect(await replay.json()).toMatchObject({ error: 'InvalidSession' });
    }
  });

  it('gives each request its own user and session: what a handler changes does not reach the next one', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    for (let i = 0; i < 3; i++) {
      const me = (await (await client.get('/me')).json()) as {
        user: Record<string, unknown>;
        session: { user: Record<string, unknown>; expires: string };
      };
      expect(me.user).toEqual({ id: 'user-alice', email: 'alice@example.test', name: 'Alice', image: null });
      expect(me.session.user).toMatchObject({ id: 'user-alice', name: 'Alice' });
      expect(new Date(me.session.expires).getTime()).toBeGreaterThan(Date.now());
      expect((await client.get('/me/scribble')).status).toBe(200);
    }
  });

  // promise: sessions.new-token-per-sign-in
  it('gives a new session token on every sign-in', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const first = client.cookies.get('authjs.session-token');
    await signIn(client);
    const second = client.cookies.get('authjs.session-token');
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    if (strategy !== 'jwt') {
      const stale = await fetch(`${t.url}/me`, { headers: { cookie: `authjs.session-token=${first}` } });
      expect(stale.status).toBe(401);
    }
  });

  it('accepts the session token as a Bearer header', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const token = client.cookies.get('authjs.session-token')!;
    // Never from the URL (it would land in logs and Referer headers).
    expect(
      (await fetch(`${t.url}/me?session_token=${encodeURIComponent(token)}&sessionToken=${encodeURIComponent(token)}`))
        .status,
    ).toBe(401);
    const res = await fetch(`${t.url}/me`, { headers: { authorization: `Bearer ${encodeURIComponent(token)}` } });
    expect(res.status).toBe(200);
    const bad = await fetch(`${t.url}/me`, { headers: { authorization: 'Bearer %E0%A4%A' } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'InvalidSession' });
  });

  // promise: guard.unauthenticated
  it('answers 401 SessionRequired without a session', async () => {
    const res = await fetch(`${t.url}/me`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      statusCode: 401,
      error: 'SessionRequired',
      message: 'Sign in to access this resource.',
    });
  });

  // promise: guard.unauthenticated
  it('reads bad cookies and headers as "no session", clears them, never a 500', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const good = client.cookies.get('authjs.session-token')!;
    const csrfCookie = client.cookies.get('authjs.csrf-token')!;
    const junk = [
      good.slice(0, -5),
      good.slice(0, 20) + 'A' + good.slice(21),
      'x'.repeat(10_000),
      '%E0%A4%A',
      'eyJhbGciOiJub25lIn0.e30.',
      'a.b.c.d.e',
      csrfCookie,
    ];
    for (const value of junk) {
      const res = await fetch(`${t.url}/me`, { headers: { cookie: `authjs.session-token=${value}` } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        statusCode: 401,
        error: 'InvalidSession',
        message: 'The session is invalid or was revoked. Sign in again.',
      });
      expect(res.headers.getSetCookie().join()).toMatch(/authjs\.session-token=;/);
      const session = await fetch(`${t.url}/auth/session`, { headers: { cookie: `authjs.session-token=${value}` } });
      expect(session.status).toBe(200);
      expect(await session.json()).toBeNull();
    }
    const hugeHeader = await fetch(`${t.url}/auth/session`, {
      headers: { cookie: `a=${'%'.repeat(10_000)}`, 'x-junk': 'y'.repeat(10_000) },
    });
    // 20 KB of headers: over Node's 16 KiB limit, refused by Node's HTTP parser before any framework.
    expect(hugeHeader.status).toBe(431);
  });

  it('refuses state-changing POSTs without the CSRF token', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const out = await client.post('/auth/signout', { csrfToken: 'forged' });
    expect(location(out).searchParams.get('error')).toBe('MissingCSRF');
    expect((await client.get('/me')).status).toBe(200);
    const update = await client.post('/auth/session', { data: { x: 1 } }, { json: true });
    expect(update.status).toBe(400);
    expect(await update.json()).toEqual({
      error: 'MissingCSRF',
      message: 'The CSRF token was missing or wrong: send `csrfToken` from GET /csrf in the body.',
    });
    const signin = await client.post('/auth/callback/credentials', { username: 'alice', password: 'correct horse' });
    expect(location(signin).searchParams.get('error')).toBe('MissingCSRF');
  });
});

describe('routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: { providers: [credentialsProvider()] } });
  });
  afterAll(() => t.close());

  // promise: sessions.no-cors
  it('sends no CORS headers: another origin cannot read the CSRF token or the session', async () => {
    for (const path of ['/auth/csrf', '/auth/session']) {
      const res = await fetch(`${t.url}${path}`, { headers: { origin: 'https://evil.test' } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      const preflight = await fetch(`${t.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.test', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('serves the sign-in page unframeable (clickjacking)', async () => {
    const res = await fetch(`${t.url}/auth/signin`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('lists providers with their URLs', async () => {
    const res = await fetch(`${t.url}/auth/providers`);
    expect(await res.json()).toEqual({
      credentials: {
        id: 'credentials',
        name: 'Password',
        type: 'credentials',
        signinUrl: `${t.url}/auth/signin/credentials`,
        callbackUrl: `${t.url}/auth/callback/credentials`,
      },
    });
  });

  it('issues a CSRF token with no-store headers and keeps it while the cookie is valid', async () => {
    const client = new TestClient(t.url);
    const res = await client.get('/auth/csrf');
    expect(res.headers.get('cache-control')).toBe('private, no-cache, no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const session = await client.get('/auth/session');
    expect(session.headers.get('cache-control')).toBe('private, no-cache, no-store');
    expect(session.headers.get('x-content-type-options')).toBe('nosniff');
    const { csrfToken } = (await res.json()) as { csrfToken: string };
    expect(await client.csrf()).toBe(csrfToken);
    expect(client.cookies.get('authjs.csrf-token')).toMatch(new RegExp(`^${csrfToken}(%7C|\\|)[0-9a-f]{64}$`));
  });

  it('answers unknown actions, methods and providers with a 400 or an error page, never a 500', async () => {
    const nope = await fetch(`${t.url}/auth/nope`);
    expect(nope.status).toBe(400);
    expect(await nope.json()).toEqual({ error: 'UnknownAction', message: '"GET" "/auth/nope" is not an auth route.' });
    const postProviders = await fetch(`${t.url}/auth/providers`, { method: 'POST' });
    expect(postProviders.status).toBe(400);
    expect(await postProviders.json()).toEqual({
      error: 'UnknownAction',
      message: '"POST" "/auth/providers" is not an auth route.',
    });
    expect((await fetch(`${t.url}/auth/callback/unknown`, { redirect: 'manual' })).headers.get('location')).toMatch(
      /\/auth\/error\?error=InvalidProvider$/,
    );
    const client = new TestClient(t.url);
    const csrfToken = await client.csrf();
    const res = await client.post('/auth/signin/unknown', { csrfToken });
    expect(location(res).searchParams.get('error')).toBe('InvalidProvider');
    const malformed = await fetch(`${t.url}/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"oops',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: 'InvalidRequest', message: 'The request body is malformed.' });
  });

  // promise: routes.return-redirect
  it('turns a redirect into 200 {url} with X-Auth-Return-Redirect', async () => {
    const client = new TestClient(t.url);
    const csrfToken = await client.csrf();
    const res = await client.post(
      '/auth/signout',
      { csrfToken, callbackUrl: '/public' },
      { headers: { 'X-Auth-Return-Redirect': '1' } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-cache, no-store');
    expect(await res.json()).toEqual({ url: `${t.url}/public` });
  });

  it('never redirects off-origin', async () => {
    const hostile = [
      'https://evil.test/',
      '//evil.test',
      '/\\evil.test',
      'javascript:alert(1)',
      '%zz',
      'https:evil.test',
      'https:/evil.test',
      `${t.url}@evil.test`,
      `http://127.0.0.1@evil.test/`,
      '/\t/evil.test',
      '/\n/evil.test',
      ' //evil.test',
      'http://[::1',
      '\\\\evil.test',
      'data:text/html,<script>alert(1)</script>',
      'HTTPS://EVIL.TEST',
    ];
    /** Every answer that redirects: a 302 whose Location is on the app's origin. */
    const expectOnOrigin = (res: Response, route: string, callbackUrl: string) => {
      expect({ route, callbackUrl, status: res.status }).toEqual({ route, callbackUrl, status: 302 });
      expect({ route, callbackUrl, origin: location(res).origin }).toEqual({ route, callbackUrl, origin: t.url });
    };
    for (const callbackUrl of hostile) {
      const client = new TestClient(t.url);
      // POST /callback/credentials: a successful sign-in, then a failed one.
      let csrfToken = await client.csrf();
      const good = { csrfToken, username: 'alice', password: 'correct horse', callbackUrl };
      expectOnOrigin(await client.post('/auth/callback/credentials', good), 'callback (success)', callbackUrl);
      const wrong = { ...good, password: 'wrong' };
      expectOnOrigin(await client.post('/auth/callback/credentials', wrong), 'callback (failure)', callbackUrl);
      // POST /signin/:provider, for an unknown provider (an error redirect) and without CSRF.
      csrfToken = await client.csrf();
      expectOnOrigin(await client.post('/auth/signin/nope', { csrfToken, callbackUrl }), 'signin/nope', callbackUrl);
      expectOnOrigin(
        await client.post('/auth/signin/credentials', { callbackUrl }),
        'signin without CSRF',
        callbackUrl,
      );
      // GET /callback/:provider with the hostile value in the query, and in the callback-url cookie.
      const query = `/auth/callback/nope?callbackUrl=${encodeURIComponent(callbackUrl)}`;
      expectOnOrigin(await client.get(query), 'GET callback', callbackUrl);
      const withCookie = await fetch(`${t.url}/auth/callback/credentials`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `${client.cookieHeader()}; authjs.callback-url=${encodeURIComponent(callbackUrl)}`,
        },
        body: new URLSearchParams({ csrfToken: await client.csrf(), username: 'alice', password: 'correct horse' }),
      });
      expectOnOrigin(withCookie, 'callback-url cookie', callbackUrl);
      // POST /signout, as a redirect and as JSON (X-Auth-Return-Redirect).
      csrfToken = await client.csrf();
      expectOnOrigin(await client.post('/auth/signout', { csrfToken, callbackUrl }), 'signout', callbackUrl);
      const json = await client.post(
        '/auth/signout',
        { csrfToken: await client.csrf(), callbackUrl },
        { headers: { 'X-Auth-Return-Redirect': '1' } },
      );
      expect(json.status).toBe(200);
      expect(new URL(((await json.json()) as { url: string }).url).origin).toBe(t.url);
    }
  });
});

describe('secure cookie names behind a TLS-terminating proxy', () => {
  // Over https the session cookie is `__Secure-authjs.session-token`; behind a proxy the guard
  // learns the scheme from X-Forwarded-Proto, but only from a proxy it trusts (`trustHost`).
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close())));
  const start = async (trustHost: boolean) => {
    const t = await createTestApp({ auth: { session: { strategy: 'jwt' }, trustHost } });
    apps.push(t);
    return t;
  };
  const mint = (salt: string) =>
    encode({ token: { sub: 'user-proxy', name: 'Proxied', email: 'p@example.test' }, secret: TEST_SECRET, salt });

  it('trusted: https in X-Forwarded-Proto selects the __Secure- cookie, http or none the plain one', async () => {
    const t = await start(true);
    const secure = `__Secure-authjs.session-token=${await mint('__Secure-authjs.session-token')}`;
    const plain = `authjs.session-token=${await mint('authjs.session-token')}`;
    const me = (cookie: string, proto?: string) =>
      fetch(`${t.url}/me`, { headers: { cookie, ...(proto ? { 'x-forwarded-proto': proto } : {}) } });
    expect((await me(secure, 'https')).status).toBe(200);
    expect((await me(secure, 'https, http')).status).toBe(200);
    expect((await me(plain, 'https')).status).toBe(401);
    expect((await me(secure, 'http')).status).toBe(401);
    expect((await me(secure)).status).toBe(401);
    expect((await me(plain)).status).toBe(200);
    expect((await me(plain, 'http')).status).toBe(200);
  });

  it('untrusted: X-Forwarded-Proto is ignored', async () => {
    const t = await start(false);
    const secure = `__Secure-authjs.session-token=${await mint('__Secure-authjs.session-token')}`;
    const plain = `authjs.session-token=${await mint('authjs.session-token')}`;
    expect((await fetch(`${t.url}/me`, { headers: { cookie: secure, 'x-forwarded-proto': 'https' } })).status).toBe(
      401,
    );
    expect((await fetch(`${t.url}/me`, { headers: { cookie: plain, 'x-forwarded-proto': 'https' } })).status).toBe(200);
  });
});

describe('chunked session cookie', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: {
        providers: [credentialsProvider()],
        callbacks: {
          jwt: ({ token, trigger, session }) =>
            trigger === 'update'
              ? { ...token, blob: (session as { blob?: string })?.blob }
              : { ...token, blob: 'x'.repeat(6000) },
        },
      },
    });
  });
  afterAll(() => t.close());

  // promise: cookies.chunking
  it('splits a large JWT across cookies and cleans the chunks when it shrinks', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    // A 6000-character claim encrypts to more than one cookie can hold: the token is cut into
    // 3936-character chunks (Auth.js: 4096 bytes less 160 estimated for the cookie's attributes),
    // named .0, .1, ... in order, no unchunked cookie next to them, and they join into the token.
    const names = [...client.cookies.keys()].filter((name) => name.startsWith('authjs.session-token'));
    const joined = names.map((name) => client.cookies.get(name)!).join('');
    const count = Math.ceil(joined.length / 3936);
    expect(count).toBeGreaterThanOrEqual(2);
    expect(names).toEqual(Array.from({ length: count }, (_, i) => `authjs.session-token.${i}`));
    names.slice(0, -1).forEach((name) => expect(client.cookies.get(name)).toHaveLength(3936));
    const claims = await decode({ token: joined, secret: TEST_SECRET, salt: 'authjs.session-token' });
    expect(claims?.blob).toBe('x'.repeat(6000));
    expect((await client.get('/me')).status).toBe(200);
    const csrfToken = await client.csrf();
    await client.post('/auth/session', { csrfToken, data: { blob: '' } }, { json: true });
    expect([...client.cookies.keys()].filter((name) => name.startsWith('authjs.session-token'))).toEqual([
      'authjs.session-token',
    ]);
    expect((await client.get('/me')).status).toBe(200);
  });
});

describe('global guard', () => {
  @Controller('open')
  @Public()
  class OpenController {
    @Get() open() {
      return { ok: true };
    }
    @Get('closed') @Public(false) closed(@CurrentUser('email') email: string) {
      return { email };
    }
  }
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: { providers: [credentialsProvider()], globalGuard: true },
      controllers: [OpenController],
    });
  });
  afterAll(() => t.close());

  it('protects every route except @Public ones; @Public(false) on a handler undoes its controller', async () => {
    expect((await fetch(`${t.url}/public`)).status).toBe(401);
    expect((await fetch(`${t.url}/open`)).status).toBe(200);
    expect((await fetch(`${t.url}/open/closed`)).status).toBe(401);
    expect((await fetch(`${t.url}/auth/csrf`)).status).toBe(200);
    const client = new TestClient(t.url);
    await signIn(client);
    expect(await (await client.get('/open/closed')).json()).toEqual({ email: 'alice@example.test' });
  });
});

describe('database session lifetime (SPEC section 3)', () => {
  const adapter = new MemoryAdapter();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: {
        providers: [credentialsProvider()],
        adapter,
        session: { strategy: 'database', maxAge: 100, updateAge: 10 },
      },
    });
  });
  afterAll(() => t.close());

  async function signedIn() {
    const client = new TestClient(t.url);
    await signIn(client);
    return { client, token: client.cookies.get('authjs.session-token')! };
  }
  const expiresOf = async (token: string) => (await adapter.getSessionAndUser(token))?.session.expires.getTime();

  // promise: sessions.database
  it('extends the expiry at most once per updateAge', async () => {
    const { client, token } = await signedIn();
    // Last extended 15 s ago (> updateAge): the next access extends it to now + maxAge.
    await adapter.updateSession({ sessionToken: token, expires: new Date(Date.now() + 85_000) });
    expect((await client.get('/me')).status).toBe(200);
    expect((await expiresOf(token))!).toBeGreaterThan(Date.now() + 98_000);
    // Last extended 5 s ago (< updateAge): left alone.
    const recent = new Date(Date.now() + 95_000);
    await adapter.updateSession({ sessionToken: token, expires: recent });
    expect((await client.get('/me')).status).toBe(200);
    expect(await expiresOf(token)).toBe(recent.getTime());
  });

  it('deletes an expired session on access and answers SessionExpired', async () => {
    const { client, token } = await signedIn();
    await adapter.updateSession({ sessionToken: token, expires: new Date(Date.now() - 1000) });
    const res = await client.get('/me');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'SessionExpired' });
    expect(await adapter.getSessionAndUser(token)).toBeNull();
  });
});

describe('custom callbacks on cached sessions', () => {
  // A decoded JWT and a database session within cacheTtl are served from memory; a custom `jwt` or
  // `session` callback must still run on every request (it may read a live permission, say).
  describe.each<[string, Partial<AuthModuleOptions> & AuthModuleExtras]>([
    ['jwt', { session: { strategy: 'jwt' } }],
    ['database with cache', { session: { strategy: 'database', cacheTtl: 60 }, adapter: new MemoryAdapter() }],
  ])('%s', (_name, auth) => {
    let t: TestApp;
    let calls = 0;
    let role = 'reader';
    beforeAll(async () => {
      t = await createTestApp({
        auth: {
          ...auth,
          providers: [credentialsProvider()],
          callbacks: {
            session: ({ session }) => {
              calls++;
              return { ...session, user: { ...session.user, role } } as never;
            },
          },
        },
      });
    });
    afterAll(() => t?.close());

    it('runs the session callback on every guarded request, with what it returns', async () => {
      const client = new TestClient(t.url);
      await signIn(client);
      calls = 0;
      for (const expected of ['reader', 'reader', 'admin']) {
        if (expected === 'admin') role = 'admin';
        const me = (await (await client.get('/me')).json()) as { user: { id: string; role: string } };
        expect(me.user).toMatchObject({ id: 'user-alice', role: expected });
      }
      expect(calls).toBe(3);
    });
  });
});

describe('session cache staleness (cacheTtl) and @SkipSessionCache()', () => {
  const adapter = new MemoryAdapter();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: { providers: [credentialsProvider()], adapter, session: { strategy: 'database', cacheTtl: 60 } },
    });
  });
  afterAll(() => t?.close());

  // promise: sessions.cache-ttl
  it('a session revoked behind the cache is served from it until cacheTtl, but refused at once on @SkipSessionCache() routes', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const token = client.cookies.get('authjs.session-token')!;
    expect((await client.get('/me')).status).toBe(200);
    // Revoked elsewhere (another instance, an admin): straight in the store, not through this app.
    await adapter.deleteSession(token);
    // The documented staleness bound: the cached lookup still answers...
    expect((await client.get('/me')).status).toBe(200);
    // ...except where the route asks the database every time.
    const fresh = await client.get('/me/fresh');
    expect(fresh.status).toBe(401);
    expect(await fresh.json()).toMatchObject({ error: 'InvalidSession' });
    // The fresh answer also dropped the stale entry: every route refuses now.
    expect((await client.get('/me')).status).toBe(401);
  });

  // promise: sessions.cache-ttl
  it('AuthService.getSession({ fresh: true }) asks the database too', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const token = client.cookies.get('authjs.session-token')!;
    const auth = t.app.get(AuthService);
    const request = { headers: { cookie: `authjs.session-token=${token}` }, socket: {} } as never;
    expect(await auth.getSession(request)).toMatchObject({ user: { id: 'user-alice' } });
    await adapter.deleteSession(token);
    expect(await auth.getSession(request)).toMatchObject({ user: { id: 'user-alice' } });
    expect(await auth.getSession(request, { fresh: true })).toBeNull();
  });
});

describe('JWT revocation (session.jwtRevocation)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: { providers: [credentialsProvider()], session: { strategy: 'jwt', jwtRevocation: true } },
    });
  });
  afterAll(() => t?.close());

  const meWith = (cookie: string) => fetch(`${t.url}/me`, { headers: { cookie: `authjs.session-token=${cookie}` } });

  // promise: sessions.jwt-revocation
  it('sign-out revokes the session: the old cookie, a re-issued copy and the bearer form are all refused', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const first = client.cookies.get('authjs.session-token')!;
    const decoded = await decode({ token: first, secret: TEST_SECRET, salt: 'authjs.session-token' });
    expect(decoded?.sid).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    expect((await meWith(first)).status).toBe(200);
    // GET /session re-issues the cookie (a new JWE, same session id).
    await client.get('/auth/session');
    const reissued = client.cookies.get('authjs.session-token')!;
    expect(reissued).not.toBe(first);
    expect((await meWith(reissued)).status).toBe(200);

    const csrfToken = await client.csrf();
    expect((await client.post('/auth/signout', { csrfToken, callbackUrl: '/public' })).status).toBe(302);
    for (const copy of [first, reissued]) {
      const res = await meWith(copy);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'InvalidSession' });
    }
    expect((await fetch(`${t.url}/me`, { headers: { authorization: `Bearer ${reissued}` } })).status).toBe(401);
    expect(
      await (await fetch(`${t.url}/auth/session`, { headers: { cookie: `authjs.session-token=${first}` } })).json(),
    ).toBeNull();
  });

  // promise: sessions.jwt-revocation
  it('signing in again in the same browser revokes the session it replaces', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const before = client.cookies.get('authjs.session-token')!;
    await signIn(client);
    const after = client.cookies.get('authjs.session-token')!;
    expect((await meWith(after)).status).toBe(200);
    expect((await meWith(before)).status).toBe(401);
  });

  it('AuthService.signOut(request) revokes it too; other sessions of the user are untouched', async () => {
    const phone = new TestClient(t.url);
    const laptop = new TestClient(t.url);
    await signIn(phone);
    await signIn(laptop);
    const token = phone.cookies.get('authjs.session-token')!;
    const request = { headers: { cookie: `authjs.session-token=${token}` }, socket: {} } as never;
    await t.app.get(AuthService).signOut(request);
    expect((await meWith(token)).status).toBe(401);
    expect((await laptop.get('/me')).status).toBe(200);
  });
});

const withRedis = await redisAvailable('JWT revocation across instances');

(withRedis ? describe : describe.skip)('JWT revocation across instances sharing a Redis store', () => {
  const prefix = `nestjs-auth-test:${randomUUID()}:`;
  const apps: TestApp[] = [];
  const clients: Redis[] = [];
  let dead: Redis;
  let broken: TestApp;
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const connection = (await connectRedis())!;
      clients.push(connection);
      apps.push(
        await createTestApp({
          auth: {
            providers: [credentialsProvider()],
            session: { strategy: 'jwt', jwtRevocation: true },
            rateLimitStore: new RedisRateLimitStore(connection, { prefix }),
          },
        }),
      );
    }
    // An instance whose store is down: nothing listens on port 1.
    dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    dead.on('error', () => undefined);
    broken = await createTestApp({
      auth: {
        providers: [credentialsProvider()],
        session: { strategy: 'jwt', jwtRevocation: true },
        rateLimitStore: new RedisRateLimitStore(dead, { prefix }),
      },
    });
  });
  afterAll(async () => {
    await Promise.all([...apps, broken].map((a) => a?.close()));
    const keys = await clients[0]!.keys(`${prefix}*`);
    if (keys.length) await clients[0]!.del(...keys);
    await Promise.all(clients.map((c) => c.quit()));
    // (Disconnecting a connection that already ended leaves ioredis a 2 s timer: the worker would not exit.)
    if (dead && dead.status !== 'end') dead.disconnect();
  });

  it('signed out on instance A, the session is refused on instance B, which had it decoded and cached', async () => {
    const [a, b] = apps as [TestApp, TestApp];
    const client = new TestClient(a.url);
    await signIn(client);
    const token = client.cookies.get('authjs.session-token')!;
    const onB = () => fetch(`${b.url}/me`, { headers: { cookie: `authjs.session-token=${token}` } });
    expect((await onB()).status).toBe(200);
    expect((await onB()).status).toBe(200);
    const csrfToken = await client.csrf();
    await client.post('/auth/signout', { csrfToken, callbackUrl: '/public' });
    expect((await onB()).status).toBe(401);
    // Kept in Redis until the token would have expired (30 days by default).
    const [key] = await clients[0]!.keys(`${prefix}jwt-revoked:sid:*`);
    expect(await clients[0]!.pttl(key!)).toBeGreaterThan(29 * 86_400_000);
  });

  // promise: sessions.jwt-revocation
  it('when the store does not answer, JWT sessions are refused (fail closed) and their cookie kept', async () => {
    const token = await encode({
      token: { sub: 'user-alice', name: 'Alice', sid: randomUUID() },
      secret: TEST_SECRET,
      salt: 'authjs.session-token',
    });
    const res = await fetch(`${broken.url}/me`, { headers: { cookie: `authjs.session-token=${token}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'InvalidSession' });
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});

describe('session.hashTokens: the store holds only a hash of each database session token', () => {
  const adapter = new MemoryAdapter();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: { providers: [credentialsProvider()], adapter, session: { strategy: 'database', hashTokens: true } },
    });
  });
  afterAll(() => t?.close());

  // promise: sessions.hash-tokens
  it('stores SHA-256(token); what the store holds is not a usable session', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const token = client.cookies.get('authjs.session-token')!;
    const stored = createHash('sha256').update(token).digest('hex');
    expect(await adapter.getSessionAndUser(token)).toBeNull();
    expect(await adapter.getSessionAndUser(stored)).toMatchObject({
      session: { sessionToken: stored },
      user: { id: 'user-alice' },
    });
    expect((await client.get('/me')).status).toBe(200);
    // Someone who read the sessions table presents what it holds: refused.
    const leaked = await fetch(`${t.url}/me`, { headers: { cookie: `authjs.session-token=${stored}` } });
    expect(leaked.status).toBe(401);
    // Sign-out deletes the row by its hash.
    const csrfToken = await client.csrf();
    await client.post('/auth/signout', { csrfToken, callbackUrl: '/public' });
    expect(await adapter.getSessionAndUser(stored)).toBeNull();
  });
});

describe('the public origin: from `url`, or from proxy headers only when trusted (REDIR-04)', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close())));
  const links: string[] = [];
  const start = async (auth: Partial<AuthModuleOptions> & AuthModuleExtras) => {
    const t = await createTestApp({
      auth: {
        adapter: new MemoryAdapter(),
        ...auth,
        providers: [
          Email({ rateLimit: false, sendVerificationRequest: ({ url }) => void links.push(url) }),
          {
            id: 'idp',
            name: 'IdP',
            type: 'oauth',
            clientId: 'c',
            clientSecret: 's',
            authorization: 'https://idp.example/authorize',
            token: 'https://idp.example/token',
            userinfo: 'https://idp.example/userinfo',
          },
        ] as never,
      },
    });
    apps.push(t);
    return t;
  };
  const forged = { 'x-forwarded-host': 'evil.test', 'x-forwarded-proto': 'https' };

  async function signInStart(t: TestApp, provider: string, body: Record<string, string>): Promise<Response> {
    // Every request through the same (forging) proxy: the CSRF cookie's name follows the scheme it claims.
    const client = new TestClient(t.url);
    const { csrfToken } = (await (await client.request('GET', '/auth/csrf', undefined, forged)).json()) as {
      csrfToken: string;
    };
    return client.post(`/auth/signin/${provider}`, { csrfToken, ...body }, { headers: forged });
  }

  it('with `url` set, forged X-Forwarded-Host/Proto change neither the magic link nor the OAuth redirect_uri', async () => {
    const t = await start({ url: 'https://app.example/auth', trustHost: false });
    links.length = 0;
    await signInStart(t, 'email', { email: 'host@example.test' });
    expect(new URL(links[0]!).origin).toBe('https://app.example');
    const oauth = await signInStart(t, 'idp', {});
    expect(location(oauth).searchParams.get('redirect_uri')).toBe('https://app.example/auth/callback/idp');
  });

  it('untrusted without `url`: auth routes refuse (UntrustedHost), never build a URL from the Host header', async () => {
    const t = await start({ trustHost: false });
    const res = await fetch(`${t.url}/auth/csrf`, { headers: forged });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'UntrustedHost',
      message:
        'Set the `url` option (or AUTH_URL) to the public origin, or `trustHost: true` behind a proxy you control.',
    });
    links.length = 0;
    const client = new TestClient(t.url);
    const signin = await client.post('/auth/signin/email', { email: 'host@example.test' }, { headers: forged });
    expect(signin.status).toBe(400);
    expect(await signin.json()).toMatchObject({ error: 'UntrustedHost' });
    expect(links).toEqual([]);
  });

  it('trusted (`trustHost: true`, behind your proxy): the forwarded host and scheme are the origin', async () => {
    const t = await start({ trustHost: true });
    links.length = 0;
    await signInStart(t, 'email', { email: 'host@example.test' });
    expect(new URL(links[0]!).origin).toBe('https://evil.test');
  });
});

describe('a storage failure during the session lookup fails closed', () => {
  const targetsForFailure = targets.filter((target) => target.name === 'sqlite' && target.available);
  (targetsForFailure.length ? describe : describe.skip)('TypeORM on SQLite, data source gone', () => {
    let t: TestApp;
    let db: TestDatabase;
    const logged: string[] = [];
    beforeAll(async () => {
      db = await createDatabase(targetsForFailure[0]!, 'sessions_failure');
      t = await createTestApp({
        imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })],
        auth: {
          providers: [credentialsProvider()],
          logger: {
            error: (e: Error) => void logged.push(`${e.name}: ${e.message}`),
            warn: () => undefined,
            debug: () => undefined,
          },
        },
      });
    });
    afterAll(async () => {
      await t?.close().catch(() => undefined);
      await dropDatabase(db);
    });

    it('answers 401 InvalidSession (never 500, never signed in), keeps the cookie and logs the cause', async () => {
      const client = new TestClient(t.url);
      await signIn(client);
      expect((await client.get('/me')).status).toBe(200);
      await t.app.get(DataSource).destroy();
      const res = await client.get('/me');
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'InvalidSession' });
      expect(res.headers.getSetCookie()).toEqual([]);
      const session = await client.get('/auth/session');
      expect(session.status).toBe(200);
      expect(await session.json()).toBeNull();
      expect(
        logged.some((line) =>
          /AdapterError: The adapter's getSessionAndUser failed .*Check the database connection/.test(line),
        ),
      ).toBe(true);
    });
  });
});

describe('a session deleted while its expiry is being extended (STORE-06)', () => {
  /** A MemoryAdapter on which a sign-out elsewhere lands between the lookup and the extension. */
  class SignedOutMeanwhile extends MemoryAdapter {
    race = false;
    override async updateSession(session: Parameters<MemoryAdapter['updateSession']>[0]) {
      if (this.race) await this.deleteSession(session.sessionToken);
      return super.updateSession(session);
    }
  }
  const adapter = new SignedOutMeanwhile();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: {
        providers: [credentialsProvider()],
        adapter,
        session: { strategy: 'database', maxAge: 100, updateAge: 10, cacheTtl: 60 },
      },
    });
  });
  afterAll(() => t?.close());

  it('is refused, not served (nor cached) as if the extension had worked', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const token = client.cookies.get('authjs.session-token')!;
    await adapter.updateSession({ sessionToken: token, expires: new Date(Date.now() + 85_000) }); // extension due
    adapter.race = true;
    const res = await client.get('/me');
    adapter.race = false;
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'InvalidSession' });
    expect((await fetch(`${t.url}/me`, { headers: { cookie: `authjs.session-token=${token}` } })).status).toBe(401);
  });
});

describe('AuthService.signOutEverywhere (SESS-06)', () => {
  const adapter = new MemoryAdapter();
  let t: TestApp;
  let jwtApp: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: { providers: [credentialsProvider()], adapter, session: { strategy: 'database', cacheTtl: 60 } },
    });
    jwtApp = await createTestApp({ auth: { providers: [credentialsProvider()], session: { strategy: 'jwt' } } });
  });
  afterAll(async () => {
    await t?.close();
    await jwtApp?.close();
  });

  // promise: auth-service.sign-out-everywhere
  it('ends every database session of the user at once, cached ones included', async () => {
    const devices = [new TestClient(t.url), new TestClient(t.url), new TestClient(t.url)];
    for (const device of devices) {
      await signIn(device);
      expect((await device.get('/me')).status).toBe(200); // looked up and cached
    }
    expect(await t.app.get(AuthService).signOutEverywhere('user-alice')).toBe(3);
    for (const device of devices) {
      const res = await device.get('/me');
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'InvalidSession' });
    }
    // The user signs in again as usual.
    const again = new TestClient(t.url);
    await signIn(again);
    expect((await again.get('/me')).status).toBe(200);
  });

  // promise: auth-service.sign-out-everywhere
  it('ends every JWT session of the user with session.jwtRevocation (each sid revoked through its index)', async () => {
    const stored = new MemoryAdapter();
    // A stored user: the index that lists JWT sessions points at it.
    await stored.createUser({ id: 'user-alice', email: 'alice@example.com', emailVerified: null });
    const revoking = await createTestApp({
      auth: { providers: [credentialsProvider()], adapter: stored, session: { strategy: 'jwt', jwtRevocation: true } },
    });
    try {
      const devices = [new TestClient(revoking.url), new TestClient(revoking.url)];
      for (const device of devices) {
        await signIn(device);
        expect((await device.get('/me')).status).toBe(200);
      }
      expect(await revoking.app.get(AuthService).signOutEverywhere('user-alice')).toBe(2);
      for (const device of devices) expect((await device.get('/me')).status).toBe(401);
      const again = new TestClient(revoking.url);
      await signIn(again);
      expect((await again.get('/me')).status).toBe(200);
    } finally {
      await revoking.close();
    }
  });

  // promise: auth-service.sign-out-everywhere
  it('says why it cannot with JWT sessions', async () => {
    await expect(jwtApp.app.get(AuthService).signOutEverywhere('user-alice')).rejects.toMatchObject({
      name: expect.stringMatching(/SignOutError/),
      message: expect.stringMatching(/JWT sessions cannot be ended by user/),
    });
  });
});
