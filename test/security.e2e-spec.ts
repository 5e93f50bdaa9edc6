/**
 * Regression tests for an outside attack run (issue "Security hardening"): origins never taken from
 * the request target, dates and counters read from storage or tokens failing closed, the headers
 * every answer carries, client mistakes logged as warnings (bounded), CSRF defence in depth, and
 * the `trust proxy` warning. Each test here failed on the code before the fix it guards.
 */
import { hkdfSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Module } from '@nestjs/common';
import { EncryptJWT } from 'jose';
import type { AdapterSession, AdapterUser, VerificationToken } from '../lib/adapters/adapter.interface.js';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { AuthModule } from '../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions, LoggerInstance } from '../lib/config/auth-options.interface.js';
import type { RateLimitRecord, RateLimitStore } from '../lib/rate-limit/rate-limit.store.js';
import { TRUST_PROXY_WARNING } from '../lib/http/trust-proxy.check.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';
import { startOidcProvider, followToApp, type TestOidcProvider } from './setup/oidc-provider.js';
import { rawHttp, rawRequest, type RawResponse } from './setup/raw-http.js';
import { extractLink, startSmtpServer, type TestSmtpServer } from './setup/smtp.js';

const PUBLIC_ORIGIN = 'http://app.test';
const SESSION_COOKIE = 'authjs.session-token';

/** Users of the credentials provider. */
const USERS: Record<string, { id: string; email: string; password: string }> = {
  alice: { id: 'user-alice', email: 'alice@example.test', password: 'correct horse' },
  mallory: { id: 'user-mallory', email: 'mallory@example.test', password: 'battery staple' },
};

function credentials() {
  return {
    id: 'credentials',
    name: 'Password',
    type: 'credentials' as const,
    credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c: Partial<Record<string, unknown>>) => {
      const user = USERS[String(c.username)];
      return user && user.password === c.password ? { id: user.id, email: user.email } : null;
    },
  };
}

/** A logger that keeps every line, by level. */
function capturingLogger() {
  const lines = { error: [] as string[], warn: [] as string[], debug: [] as string[] };
  const logger: LoggerInstance = {
    error: (error: Error) => lines.error.push(`${error.name}: ${error.message}`),
    warn: (line: string) => lines.warn.push(line),
    debug: (line: string) => lines.debug.push(line),
  };
  return { lines, logger };
}

/** A JWE session cookie minted with the secret, with exactly the claims given (no defaults added). */
async function mintJwe(claims: Record<string, unknown>, salt = SESSION_COOKIE): Promise<string> {
  const key = new Uint8Array(hkdfSync('sha256', TEST_SECRET, salt, `Auth.js Generated Encryption Key (${salt})`, 64));
  return new EncryptJWT(claims).setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512' }).encrypt(key);
}

async function signIn(client: TestClient, username = 'alice'): Promise<Response> {
  const csrfToken = await client.csrf();
  return client.post('/auth/callback/credentials', {
    csrfToken,
    username,
    password: USERS[username].password,
    callbackUrl: '/public',
  });
}

function port(app: TestApp): number {
  return Number(new URL(app.url).port);
}

let op: TestOidcProvider;
let smtp: TestSmtpServer;
beforeAll(async () => {
  op = await startOidcProvider();
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await op?.close();
  await smtp?.close();
});

describe.each(['jwt', 'database'] as const)(
  'request targets never set the origin (url configured, %s sessions)',
  (strategy) => {
    let t: TestApp;
    const { lines, logger } = capturingLogger();
    beforeAll(async () => {
      t = await createTestApp({
        auth: {
          url: PUBLIC_ORIGIN,
          trustHost: false,
          adapter: new MemoryAdapter(),
          session: { strategy },
          logger,
          providers: [
            credentials(),
            Email({ server: smtp.url, from: 'App <no-reply@app.test>', rateLimit: false }),
            {
              id: 'oidc',
              name: 'OIDC',
              type: 'oidc',
              issuer: op.issuer,
              clientId: 'security-oidc',
              clientSecret: 'security-oidc-secret',
            },
          ],
        },
      });
    });
    afterAll(() => t?.close());

    /** A CSRF cookie and token of an attacker's own (a valid pair, obtained with an ordinary GET). */
    async function attackerCsrf(): Promise<{ cookie: string; token: string }> {
      const client = new TestClient(t.url);
      const token = await client.csrf();
      return { cookie: client.cookieHeader(), token };
    }

    const ROUTES: Array<[string, string]> = [
      ['GET', '/auth/providers'],
      ['GET', '/auth/csrf'],
      ['GET', '/auth/session'],
      ['POST', '/auth/session'],
      ['GET', '/auth/signin'],
      ['POST', '/auth/signin/email'],
      ['POST', '/auth/signin/oidc'],
      ['POST', '/auth/signin/credentials'],
      ['POST', '/auth/link/oidc'],
      ['GET', '/auth/callback/oidc?code=x&state=y'],
      ['POST', '/auth/callback/credentials'],
      ['GET', '/auth/callback/email?token=t&email=a%40b.test'],
      ['GET', '/auth/signout'],
      ['POST', '/auth/signout'],
      ['GET', '/auth/verify-request'],
      ['GET', '/auth/error?error=Verification'],
      ['GET', '/auth/webauthn-options/oidc'],
      ['GET', '/auth/webauthn-client.js'],
      ['GET', '/auth/nope'],
      ['DELETE', '/auth/session'],
    ];
    const FOREIGN_TARGETS = [
      'http://evil.example',
      'https://evil.example',
      'http://app.test:8081',
      'http://app@evil.example',
      'http://evil.example@app.test',
      'http://evil.example:80',
    ];

    // promise: security.origins
    it('answers 400 InvalidRequest to an absolute-form target naming another host, on every route, before any flow runs', async () => {
      const { cookie, token } = await attackerCsrf();
      const body = `csrfToken=${token}&email=victim%40example.test&username=alice&password=x&callbackUrl=%2F`;
      smtp.clear();
      for (const [method, path] of ROUTES) {
        for (const base of FOREIGN_TARGETS) {
          const request =
            method === 'POST'
              ? rawHttp(
                  `${method} ${base}${path} HTTP/1.1`,
                  { host: 'app.test', cookie, 'content-type': 'application/x-www-form-urlencoded' },
                  body,
                )
              : rawHttp(`${method} ${base}${path} HTTP/1.1`, { host: 'app.test', cookie });
          const res = await rawRequest(port(t), request);
          const where = `${method} ${base}${path}`;
          expect({ where, status: res.status }).toEqual({ where, status: 400 });
          expect(JSON.parse(res.body)).toMatchObject({ error: 'InvalidRequest' });
          expect(res.headers.location).toBeUndefined();
          expect(res.setCookies).toEqual([]);
          expect(res.body).not.toContain('evil.example');
        }
      }
      // Not one email went out: the victim received no link to the attacker's host.
      expect(smtp.messages).toHaveLength(0);
      expect(lines.error).toEqual([]);
    });

    it('accepts an absolute-form target naming the public host, and builds every URL on the configured origin', async () => {
      const { cookie, token } = await attackerCsrf();
      const res = await rawRequest(
        port(t),
        rawHttp(
          `POST ${PUBLIC_ORIGIN}/auth/signin/email HTTP/1.1`,
          { host: 'evil.example', cookie, 'content-type': 'application/x-www-form-urlencoded' },
          `csrfToken=${token}&email=victim%40example.test`,
        ),
      );
      expect(res.status).toBe(302);
      expect(new URL(res.headers.location).origin).toBe(PUBLIC_ORIGIN);
      const mail = await smtp.waitForMessage((m) => m.envelope.to.includes('victim@example.test'));
      const link = extractLink(mail, '/callback/email');
      expect(link.origin).toBe(PUBLIC_ORIGIN);
      expect(mail.subject).toContain('app.test');
      expect(mail.subject).not.toContain('evil');
    });

    // promise: security.origins
    it('puts the configured origin into the OAuth redirect_uri whatever Host and X-Forwarded-* say', async () => {
      const { cookie, token } = await attackerCsrf();
      const res = await rawRequest(
        port(t),
        rawHttp(
          'POST /auth/signin/oidc HTTP/1.1',
          {
            host: 'evil.example',
            'x-forwarded-host': 'evil.example',
            'x-forwarded-proto': 'https',
            cookie,
            'content-type': 'application/x-www-form-urlencoded',
          },
          `csrfToken=${token}`,
        ),
      );
      expect(res.status).toBe(302);
      expect(new URL(res.headers.location).searchParams.get('redirect_uri')).toBe(
        `${PUBLIC_ORIGIN}/auth/callback/oidc`,
      );
    });

    it('keeps a protocol-relative or backslashed path on the configured origin', async () => {
      for (const target of [
        '/auth/signout?callbackUrl=//evil.example/x',
        '/auth/signout?callbackUrl=/%5Cevil.example',
        '/auth/signin?callbackUrl=https:evil.example',
      ]) {
        const res = await rawRequest(port(t), rawHttp(`GET ${target} HTTP/1.1`, { host: 'app.test' }));
        expect(res.status).toBe(200);
        for (const c of res.setCookies.filter((c) => c.startsWith('authjs.callback-url='))) {
          expect(decodeURIComponent(c.split(';')[0].split('=')[1])).toMatch(/^http:\/\/app\.test\//);
        }
      }
    });
  },
);

describe('request targets never set the origin (trustHost, no url)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: { trustHost: true, adapter: new MemoryAdapter(), providers: [credentials()] } });
  });
  afterAll(() => t?.close());

  it('refuses an absolute-form target whose host is not the trusted Host', async () => {
    const host = `127.0.0.1:${port(t)}`;
    const foreign = await rawRequest(
      port(t),
      rawHttp('GET http://evil.example/auth/signout?callbackUrl=/x HTTP/1.1', { host }),
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body).not.toContain('evil.example');
    const own = await rawRequest(port(t), rawHttp(`GET http://${host}/auth/signout?callbackUrl=/x HTTP/1.1`, { host }));
    expect(own.status).toBe(200);
    const callbackCookie = own.setCookies.find((c) => c.startsWith('authjs.callback-url='));
    expect(decodeURIComponent(callbackCookie!.split(';')[0].split('=')[1])).toBe(`http://${host}/x`);
  });
});

/** A MemoryAdapter that hands out what a corrupted store would: sessions and tokens with bad expiry dates. */
class CorruptStoreAdapter extends MemoryAdapter {
  sessionExpires: unknown = undefined;
  tokenExpires: unknown = undefined;
  updatedSessions = 0;

  override async getSessionAndUser(token: string): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
    const found = await super.getSessionAndUser(token);
    if (found && this.sessionExpires !== undefined) found.session.expires = this.sessionExpires as Date;
    return found;
  }

  override async updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'>,
  ): Promise<AdapterSession | null> {
    this.updatedSessions += 1;
    return super.updateSession(session);
  }

  override async useVerificationToken(params: {
    identifier: string;
    token: string;
  }): Promise<VerificationToken | null> {
    const found = await super.useVerificationToken(params);
    if (found && this.tokenExpires !== undefined) found.expires = this.tokenExpires as Date;
    return found;
  }
}

// promise: security.fail-closed
describe('dates read from storage fail closed (database sessions)', () => {
  let t: TestApp;
  const adapter = new CorruptStoreAdapter();
  beforeAll(async () => {
    t = await createTestApp({
      auth: {
        adapter,
        session: { strategy: 'database', updateAge: 0 },
        providers: [
          credentials(),
          Email({
            id: 'email',
            server: smtp.url,
            from: 'App <no-reply@app.test>',
            rateLimit: false,
            consumeOnGet: true,
          }),
        ],
      },
    });
  });
  afterAll(() => t?.close());

  it.each([
    ['an invalid Date', () => new Date(Number.NaN)],
    ['a string', () => '2999-01-01T00:00:00.000Z'],
    ['a number', () => Date.now() + 86_400_000],
    ['null', () => null],
    ['a Date beyond what a Date can hold', () => new Date(8.64e15 + 1)],
  ])('refuses a session whose stored expiry is %s, never extends it, and deletes it', async (_label, value) => {
    adapter.sessionExpires = undefined;
    const client = new TestClient(t.url);
    expect((await signIn(client)).status).toBe(302);
    expect((await client.get('/me')).status).toBe(200);
    const updatesBefore = adapter.updatedSessions;
    adapter.sessionExpires = value();
    const res = await client.get('/me');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('SessionExpired');
    expect(adapter.updatedSessions).toBe(updatesBefore);
    adapter.sessionExpires = undefined;
    // The corrupted row is gone: even with a sane store it does not come back.
    expect(
      (
        await fetch(`${t.url}/me`, {
          headers: { cookie: `${SESSION_COOKIE}=${client.cookies.get(SESSION_COOKIE) ?? 'none'}` },
        })
      ).status,
    ).toBe(401);
  });

  it.each([
    ['an invalid Date', () => new Date(Number.NaN)],
    ['a far-future string', () => '2999-01-01T00:00:00.000Z'],
  ])('refuses a magic link whose stored expiry is %s', async (_label, value) => {
    const client = new TestClient(t.url);
    smtp.clear();
    const csrfToken = await client.csrf();
    expect((await client.post('/auth/signin/email', { csrfToken, email: 'dates@example.test' })).status).toBe(302);
    const link = extractLink(await smtp.waitForMessage(), '/callback/email');
    adapter.tokenExpires = value();
    try {
      const res = await client.get(link.pathname + link.search);
      expect(res.status).toBe(302);
      expect(location(res).searchParams.get('error')).toBe('Verification');
      expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    } finally {
      adapter.tokenExpires = undefined;
    }
  });
});

// promise: security.fail-closed
describe('token claims fail closed (JWT sessions)', () => {
  let t: TestApp;
  const { lines, logger } = capturingLogger();
  beforeAll(async () => {
    t = await createTestApp({ auth: { session: { strategy: 'jwt' }, providers: [credentials()], logger } });
  });
  afterAll(() => t?.close());

  const now = () => Math.floor(Date.now() / 1000);
  it.each([
    ['exp far beyond what a Date can hold', () => ({ sub: 'u1', exp: 1e20, iat: now() })],
    ['exp as a string', () => ({ sub: 'u1', exp: String(now() + 3600), iat: now() })],
    ['no exp', () => ({ sub: 'u1', iat: now() })],
    ['iat an hour in the future', () => ({ sub: 'u1', exp: now() + 7200, iat: now() + 3600 })],
    ['iat beyond what a Date can hold', () => ({ sub: 'u1', exp: now() + 7200, iat: 1e20 })],
    ['nbf an hour in the future', () => ({ sub: 'u1', exp: now() + 7200, iat: now(), nbf: now() + 3600 })],
  ])(
    'answers 401 InvalidSession (not 500) and clears the cookie for a JWE minted with the secret with %s',
    async (_label, claims) => {
      const jwe = await mintJwe(claims());
      for (const path of ['/me', '/me/fresh']) {
        const res = await fetch(`${t.url}${path}`, { headers: { cookie: `${SESSION_COOKIE}=${jwe}` } });
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ error: 'InvalidSession' });
        expect(
          res.headers
            .getSetCookie()
            .some((c) => c.startsWith(`${SESSION_COOKIE}=;`) || /^authjs\.session-token=; .*Max-Age=0/i.test(c)),
        ).toBe(true);
      }
      const session = await fetch(`${t.url}/auth/session`, { headers: { cookie: `${SESSION_COOKIE}=${jwe}` } });
      expect(session.status).toBe(200);
      expect(await session.json()).toBeNull();
      expect(lines.error).toEqual([]);
    },
  );

  it('still accepts a JWE minted with the secret and sane claims (the control)', async () => {
    const jwe = await mintJwe({ sub: 'u1', email: 'u1@example.test', exp: now() + 3600, iat: now() - 10 });
    const res = await fetch(`${t.url}/me`, { headers: { cookie: `${SESSION_COOKIE}=${jwe}` } });
    expect(res.status).toBe(200);
  });
});

/** A rate-limit store that answers garbage, as a broken custom store or a corrupted value would. */
class GarbageRateLimitStore implements RateLimitStore {
  record: RateLimitRecord = { count: Number.NaN, msBeforeReset: Number.NaN };
  async increment(): Promise<RateLimitRecord> {
    return { ...this.record };
  }
  async get(): Promise<RateLimitRecord | null> {
    return { ...this.record };
  }
  async decrement(): Promise<void> {}
  async reset(): Promise<void> {}
}

// promise: security.fail-closed
describe('rate-limit counters read from a store fail closed', () => {
  let t: TestApp;
  const store = new GarbageRateLimitStore();
  beforeAll(async () => {
    t = await createTestApp({
      auth: { adapter: new MemoryAdapter(), providers: [credentials()], rateLimitStore: store },
    });
  });
  afterAll(() => t?.close());

  it.each([
    ['NaN', { count: Number.NaN, msBeforeReset: Number.NaN }],
    ['a negative count', { count: -5, msBeforeReset: 1000 }],
    ['a fractional count', { count: 0.5, msBeforeReset: -1 }],
    ['a string count', { count: '1' as unknown as number, msBeforeReset: Infinity }],
  ])('refuses a credentials sign-in when the store answers %s, with a sane Retry-After', async (_label, record) => {
    store.record = record;
    const client = new TestClient(t.url);
    const res = await signIn(client);
    expect(res.status).toBe(302);
    const target = location(res);
    expect(target.searchParams.get('error')).toBe('RateLimited');
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
  });
});

describe('headers on every answer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: {
        adapter: new MemoryAdapter(),
        providers: [
          credentials(),
          {
            id: 'oidc',
            name: 'OIDC',
            type: 'oidc',
            issuer: op.issuer,
            clientId: 'headers-oidc',
            clientSecret: 'headers-oidc-secret',
          },
        ],
      },
    });
    await op.addClient({
      client_id: 'headers-oidc',
      client_secret: 'headers-oidc-secret',
      redirect_uris: [`${t.url}/auth/callback/oidc`],
    });
  });
  afterAll(() => t?.close());

  function expectBaseHeaders(res: RawResponse, where: string, referrer = 'same-origin', cache = /no-store/): void {
    expect({ where, nosniff: res.headers['x-content-type-options'] }).toEqual({ where, nosniff: 'nosniff' });
    expect({ where, referrer: res.headers['referrer-policy'] }).toEqual({ where, referrer });
    expect({ where, cache: cache.test(res.headers['cache-control'] ?? '') }).toEqual({ where, cache: true });
  }

  // promise: security.headers
  it('on every route, bad method and unknown path', async () => {
    // Each with the status it gets, the same on Express and Fastify.
    const cases: Array<[number, string, string, string?]> = [
      [200, 'GET', '/auth/providers'],
      [200, 'GET', '/auth/csrf'],
      [200, 'GET', '/auth/session'],
      [400, 'POST', '/auth/session', '{}'],
      [200, 'GET', '/auth/signin'],
      [302, 'POST', '/auth/signin/credentials', ''],
      [302, 'POST', '/auth/signin/nope', ''],
      [302, 'POST', '/auth/link/oidc', ''],
      [200, 'GET', '/auth/signout'],
      [302, 'POST', '/auth/signout', ''],
      [200, 'GET', '/auth/verify-request'],
      [403, 'GET', '/auth/error?error=AccessDenied'],
      [400, 'GET', '/auth/webauthn-options/oidc'],
      [400, 'GET', '/auth/nope'],
      [400, 'DELETE', '/auth/session'],
      [400, 'PUT', '/auth/signin'],
      [400, 'PATCH', '/auth/callback/credentials'],
      [400, 'GET', '/auth'],
      [400, 'OPTIONS', '/auth/csrf'],
    ];
    for (const [status, method, path, body] of cases) {
      const headers: Record<string, string> = { host: `127.0.0.1:${port(t)}` };
      if (body !== undefined)
        headers['content-type'] = body.startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded';
      const res = await rawRequest(port(t), rawHttp(`${method} ${path} HTTP/1.1`, headers, body));
      expect({ route: `${method} ${path}`, status: res.status }).toEqual({ route: `${method} ${path}`, status });
      expectBaseHeaders(res, `${method} ${path}`);
    }
  });

  it("answers the bare base path itself (400 UnknownAction), never the framework's 404 echoing the target", async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await rawRequest(
        port(t),
        rawHttp(`${method} /auth?x=%3Cb%3E HTTP/1.1`, { host: `127.0.0.1:${port(t)}` }),
      );
      expect({ method, status: res.status, error: JSON.parse(res.body).error }).toEqual({
        method,
        status: 400,
        error: 'UnknownAction',
      });
      expect(res.body).not.toContain('<b>');
      expectBaseHeaders(res, `${method} /auth`);
    }
  });

  it('writes client-sent text into JSON answers without markup characters', async () => {
    const res = await rawRequest(
      port(t),
      rawHttp('GET /auth/webauthn-options/%3Cimg%20src%3Dx%3E%26 HTTP/1.1', { host: `127.0.0.1:${port(t)}` }),
    );
    expect(res.status).toBe(400);
    expect(res.body).not.toMatch(/[<>&]/);
    expect(JSON.parse(res.body).message).toContain('<img src=x>&');
  });

  it('on the answers written before the module runs: body-parser refusals, a target refused at the edge', async () => {
    const host = `127.0.0.1:${port(t)}`;
    const bad = [
      rawHttp('POST /auth/session HTTP/1.1', { host, 'content-type': 'application/json' }, '{"csrfToken":'),
      rawHttp('POST /auth/session HTTP/1.1', { host, 'content-type': 'application/json; charset=ebcdic' }, '{}'),
      rawHttp(
        'POST /auth/signout HTTP/1.1',
        { host, 'content-type': 'application/json' },
        `{"a":"${'x'.repeat(200_000)}"}`,
      ),
      rawHttp('GET http://evil.example/auth/csrf HTTP/1.1', { host }),
      rawHttp('GET /auth/csrf HTTP/1.1', { host: 'bad host!' }),
    ];
    const statuses: number[] = [];
    for (const request of bad) {
      const res = await rawRequest(port(t), request);
      statuses.push(res.status);
      expectBaseHeaders(res, request.split('\r\n')[0]);
    }
    expect(statuses).toEqual([400, 415, 413, 400, 400]);
  });

  it('serves the browser script with nosniff and its own cache policy', async () => {
    const res = await rawRequest(
      port(t),
      rawHttp('GET /auth/webauthn-client.js HTTP/1.1', { host: `127.0.0.1:${port(t)}` }),
    );
    expect(res.status).toBe(200);
    expectBaseHeaders(res, 'script', 'same-origin', /^public, max-age=3600$/);
  });

  it('answers POST /auth/session (update) with no-store', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const csrfToken = await client.csrf();
    const res = await client.post('/auth/session', { csrfToken, data: { a: 1 } }, { json: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
  });

  it('gives failed OAuth callbacks no-referrer, like successful ones', async () => {
    const client = new TestClient(t.url);
    const denied = await client.get('/auth/callback/oidc?error=access_denied&state=x');
    expect(denied.status).toBe(302);
    expect(denied.headers.get('referrer-policy')).toBe('no-referrer');
    const unknown = await client.get('/auth/callback/nope?code=x');
    expect(unknown.headers.get('referrer-policy')).toBe('no-referrer');
    // A replayed callback: the first succeeds, the second is refused; both no-referrer.
    const csrfToken = await client.csrf();
    const start = await client.post('/auth/signin/oidc', { csrfToken, callbackUrl: `${t.url}/me` });
    const back = await followToApp(client, start, t.url);
    const cookies = client.cookieHeader();
    const first = await client.get(back.url.href);
    expect(location(first).pathname).toBe('/me');
    expect(first.headers.get('referrer-policy')).toBe('no-referrer');
    const replay = await fetch(back.url.href, { redirect: 'manual', headers: { cookie: cookies } });
    expect(replay.status).toBe(302);
    expect(location(replay).pathname).toBe('/auth/error');
    expect(location(replay).searchParams.get('error')).toBe('InvalidCheck');
    expect(replay.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe('client mistakes are not server errors in the log', () => {
  let t: TestApp;
  const { lines, logger } = capturingLogger();
  beforeAll(async () => {
    t = await createTestApp({
      auth: {
        adapter: new MemoryAdapter(),
        providers: [credentials(), Email({ server: smtp.url, from: 'a@app.test', rateLimit: false })],
        logger,
      },
    });
  });
  afterAll(() => t?.close());

  // promise: security.logs
  it('logs a flood of hostile requests as a bounded number of short warnings, and no error', async () => {
    const longId = `${'A'.repeat(60)}<script>\u202e`;
    const client = new TestClient(t.url);
    const csrfToken = await client.csrf();
    for (let i = 0; i < 60; i++) {
      await fetch(`${t.url}/auth/signout`, { method: 'POST', redirect: 'manual' }); // MissingCSRF
      await client.post(`/auth/signin/${encodeURIComponent(longId + i)}`, { csrfToken }); // InvalidProvider
      await fetch(`${t.url}/auth/callback/email?token=${'t'.repeat(40)}&email=x%40example.test`, {
        method: 'POST',
        redirect: 'manual',
      }); // Verification
      await fetch(`${t.url}/auth/nope-${i}`, { method: 'DELETE' }); // UnknownAction
      await fetch(`http://127.0.0.1:${port(t)}/auth/csrf`, { headers: { 'x-forwarded-host': 'bad host' } }); // InvalidRequest at the edge
    }
    expect(lines.error).toEqual([]);
    // At most 10 lines a minute per kind, plus nothing else.
    const byType = new Map<string, number>();
    for (const line of lines.warn) {
      const type = /^\[(\w+)\]/.exec(line)?.[1] ?? '?';
      byType.set(type, (byType.get(type) ?? 0) + 1);
    }
    for (const [type, count] of byType) expect({ type, count: Math.min(count, 10) }).toEqual({ type, count });
    expect([...byType.keys()].sort()).toEqual([
      'InvalidProvider',
      'InvalidRequest',
      'MissingCSRF',
      'UnknownAction',
      'Verification',
    ]);
    // Client input is echoed as a short, printable prefix only.
    for (const line of lines.warn) {
      expect(line).not.toContain('A'.repeat(40));
      expect(line).not.toContain('<script>');
      expect(line).not.toContain('\u202e');
    }
  });

  it('answers a guard whose session callback throws with 401 InvalidSession, logged as a server error', async () => {
    const errors = capturingLogger();
    const app = await createTestApp({
      auth: {
        session: { strategy: 'jwt' },
        providers: [credentials()],
        logger: errors.logger,
        callbacks: {
          session: () => {
            throw new RangeError('callback bug');
          },
        },
      },
    });
    try {
      const client = new TestClient(app.url);
      await signIn(client);
      const res = await client.get('/me');
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'InvalidSession' });
      expect(errors.lines.error.some((l) => l.startsWith('SessionTokenError'))).toBe(true);
    } finally {
      await app.close();
    }
  });
});

// promise: security.csrf
describe('CSRF defence in depth', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      auth: {
        adapter: new MemoryAdapter(),
        providers: [
          credentials(),
          Email({ server: smtp.url, from: 'a@app.test', rateLimit: false }),
          {
            id: 'fp',
            name: 'Form post',
            type: 'oidc',
            issuer: op.issuer,
            clientId: 'csrf-fp',
            clientSecret: 'csrf-fp-secret',
            checks: ['pkce', 'state', 'nonce'],
            authorization: { params: { response_mode: 'form_post' } },
          },
        ],
      },
    });
    await op.addClient({
      client_id: 'csrf-fp',
      client_secret: 'csrf-fp-secret',
      redirect_uris: [`${t.url}/auth/callback/fp`],
    });
  });
  afterAll(() => t?.close());

  const CROSS_SITE: Array<Record<string, string>> = [
    { origin: 'http://evil.example' },
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site', origin: 'http://sub.127.0.0.1' },
    { origin: 'null' },
  ];

  it.each(CROSS_SITE)(
    'refuses state-changing POSTs from another site even with a valid token (%o)',
    async (headers) => {
      const client = new TestClient(t.url);
      await signIn(client);
      const posts: Array<[string, Record<string, string>]> = [
        ['/auth/signout', {}],
        ['/auth/signin/email', { email: 'x@example.test' }],
        ['/auth/signin/fp', {}],
        ['/auth/callback/credentials', { username: 'alice', password: USERS.alice.password }],
      ];
      for (const [path, fields] of posts) {
        const csrfToken = await client.csrf();
        const res = await client.post(path, { csrfToken, ...fields }, { headers });
        expect({ path, status: res.status, error: location(res).searchParams.get('error') }).toEqual({
          path,
          status: 302,
          error: 'MissingCSRF',
        });
      }
      const csrfToken = await client.csrf();
      const update = await client.post('/auth/session', { csrfToken, data: { x: 1 } }, { json: true, headers });
      expect(update.status).toBe(400);
      expect(await update.json()).toMatchObject({ error: 'MissingCSRF' });
      // Still signed in: the refused sign-out changed nothing.
      expect((await client.get('/me')).status).toBe(200);
    },
  );

  it('accepts the same POSTs from the site itself', async () => {
    const client = new TestClient(t.url);
    await signIn(client);
    const csrfToken = await client.csrf();
    const res = await client.post(
      '/auth/signout',
      { csrfToken },
      { headers: { origin: t.url, 'sec-fetch-site': 'same-origin' } },
    );
    expect(res.status).toBe(302);
    expect(location(res).searchParams.get('error')).toBeNull();
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('accepts the OAuth form_post callback, which is cross-site by design', async () => {
    const client = new TestClient(t.url);
    const csrfToken = await client.csrf();
    const start = await client.post('/auth/signin/fp', { csrfToken, callbackUrl: `${t.url}/me` });
    const back = await followToApp(client, start, t.url);
    expect(back.method).toBe('POST');
    const res = await client.post(back.url.href, back.body, {
      headers: { origin: op.issuer, 'sec-fetch-site': 'cross-site' },
    });
    expect(location(res).pathname).toBe('/me');
    expect((await client.get('/me')).status).toBe(200);
  });

  it('binds the CSRF token to the session: a pair from another browser is refused once signed in', async () => {
    const attacker = new TestClient(t.url);
    const attackerToken = await attacker.csrf();
    const attackerCookie = attacker.cookies.get('authjs.csrf-token')!;
    const victim = new TestClient(t.url);
    await signIn(victim);
    // The attacker's pair planted in the victim's browser.
    victim.cookies.set('authjs.csrf-token', attackerCookie);
    const planted = await victim.post('/auth/signout', { csrfToken: attackerToken });
    expect(location(planted).searchParams.get('error')).toBe('MissingCSRF');
    expect((await victim.get('/me')).status).toBe(200);
    // The victim's own page gets a token bound to them, which works.
    const own = await victim.csrf();
    expect(own).not.toBe(attackerToken);
    const out = await victim.post('/auth/signout', { csrfToken: own });
    expect(location(out).searchParams.get('error')).toBeNull();
    expect((await victim.get('/me')).status).toBe(401);
  });

  it('refuses a token bound to another user', async () => {
    const mallory = new TestClient(t.url);
    await signIn(mallory, 'mallory');
    const malloryToken = await mallory.csrf();
    const malloryCookie = mallory.cookies.get('authjs.csrf-token')!;
    const alice = new TestClient(t.url);
    await signIn(alice);
    alice.cookies.set('authjs.csrf-token', malloryCookie);
    const res = await alice.post('/auth/signout', { csrfToken: malloryToken });
    expect(location(res).searchParams.get('error')).toBe('MissingCSRF');
  });
});

describe('trust proxy', () => {
  @Controller()
  class NoRoutes {
    @Get('x') x() {
      return 1;
    }
    @Post('y') y() {
      return 2;
    }
  }

  async function boot(trustProxy: unknown): Promise<string[]> {
    const { lines, logger } = capturingLogger();
    @Module({
      imports: [
        AuthModule.forRoot({ secret: TEST_SECRET, providers: [], logger } as AuthModuleOptions & AuthModuleExtras),
      ],
      controllers: [NoRoutes],
    })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { logger: false });
    (app as unknown as { set(k: string, v: unknown): void }).set('trust proxy', trustProxy);
    await app.init();
    await app.close();
    return lines.warn;
  }

  it('warns once at bootstrap when Express trusts every proxy, not with a hop count or a list', async () => {
    expect((await boot(true)).filter((l) => l === TRUST_PROXY_WARNING)).toHaveLength(1);
    expect(await boot(1)).toEqual([]);
    expect(await boot('loopback')).toEqual([]);
    expect(await boot(false)).toEqual([]);
  });
});
