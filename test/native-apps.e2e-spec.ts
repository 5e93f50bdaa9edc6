/**
 * Native apps (RFC 8252) over HTTP, with `oauth4webapi` as the app and a cookie-keeping client as
 * the system browser: the authorization route (sign-in, "Continue", `prompt=login`), the code
 * exchange with PKCE, the access token on the guard and at `/auth/session`, verified from the JWKS by
 * `jose` alone, refresh-token rotation (the idempotent window, 50 concurrent refreshes, a replay after
 * the window ending the family), the app in the user's sessions (listed, ended), revocation (RFC
 * 7009, `AuthService.signOut`), an account change ending it, and hostile input: each an OAuth error,
 * no 5xx, nothing written. The same on a second instance (shared storage, a Redis revocation bus):
 * the family ended on one is refused on the other within a second. Real Chromium as the system
 * browser, and the database dump, are in native-apps-browser.e2e-spec.ts and native-apps-storage.e2e-spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Controller, Get, Req, UseGuards } from '@nestjs/common';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { AuthEvents } from '../lib/core/auth-events.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import type { HttpRequestLike } from '../lib/http/auth-request.factory.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';
import { appOf, authorizeInBrowser } from './setup/native-app.js';
import { readmeSnippet } from './setup/readme.js';

const ISSUER = 'https://api.example.test/auth';
const PASSWORD = 'correct horse battery';
const SCHEME_REDIRECT = 'com.example.app:/oauth';
const LOOPBACK_REDIRECT = 'http://127.0.0.1/callback';
const REUSE_WINDOW = 3;
const RECENT = 3;

@Controller('app')
@UseGuards(AuthGuard)
class AppController {
  constructor(private readonly auth: AuthService) {}

  @Get('sessions')
  sessions(@Req() req: HttpRequestLike & { user: { id: string } }) {
    return this.auth.listSessions(req.user.id, req);
  }

  @Get('signout')
  async signOut(@Req() req: HttpRequestLike) {
    await this.auth.signOut(req);
    return { ok: true };
  }
}

/** One app instance with the module's native-app options. */
async function start(
  adapter: MemoryAdapter,
  extra: Partial<AuthModuleOptions> & AuthModuleExtras = {},
): Promise<TestApp> {
  return createTestApp({
    controllers: [AppController],
    auth: {
      adapter,
      session: { strategy: 'database' },
      logger: { error: () => undefined, warn: () => undefined },
      accessToken: { issuer: ISSUER },
      // A sign-in older than this is not recent: the browser must sign in again to start an app's.
      account: { recentSignInMaxAge: RECENT },
      nativeApps: {
        clients: [
          { clientId: 'ios', name: 'Acme for iOS', redirectUris: [SCHEME_REDIRECT, LOOPBACK_REDIRECT] },
          { clientId: 'desktop', redirectUris: ['http://127.0.0.1:7777/cb'] },
        ],
        reuseWindow: REUSE_WINDOW,
      },
      providers: [
        Credentials({
          credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
          async authorize({ email, password }) {
            const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
            return user && password === PASSWORD ? { id: user.id, email: user.email, name: user.name ?? null } : null;
          },
        }),
      ],
      ...extra,
    },
  });
}

/** Waits up to a second for `check` (an event's listener runs after the turn that emits it). */
async function expectSoon(check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 1000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('not within 1 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const bearer = (t: TestApp, token: string, path = '/me') =>
  fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe('native apps (RFC 8252) over HTTP', () => {
  let adapter: MemoryAdapter;
  let t: TestApp;
  let email: string;

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    t = await start(adapter);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function newUser(): Promise<string> {
    const address = `${randomUUID()}@example.test`;
    await adapter.createUser({ email: address, emailVerified: null, name: 'App User' } as never);
    return address;
  }

  async function signedInApp(redirectUri = SCHEME_REDIRECT) {
    email = await newUser();
    const app = appOf(t.url);
    const req = await app.request(redirectUri);
    const browser = new TestClient(t.url);
    const redirect = await authorizeInBrowser(browser, req.url, email);
    const tokens = await app.exchange(req, redirect);
    return { app, browser, tokens, req, redirect };
  }

  // promise: native-apps.flow
  // promise: native-apps.jwks
  it('signs a password user in through the browser; the app gets tokens the guard, /session and a JWKS verifier accept', async () => {
    const { tokens, redirect } = await signedInApp();
    expect(redirect.protocol).toBe('com.example.app:');
    expect(redirect.searchParams.get('iss')).toBe(ISSUER);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: expect.any(Number) });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const me = await bearer(t, tokens.access_token);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe(email);
    const session = await bearer(t, tokens.access_token, '/auth/session');
    expect(session.headers.getSetCookie().filter((c) => c.startsWith('authjs.session-token'))).toEqual([]);
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe(email);
    // Only jose and the JWKS route: what another service does.
    const jwks = createRemoteJWKSet(new URL(`${t.url}/auth/jwks`));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      issuer: ISSUER,
      audience: ISSUER,
      typ: 'at+jwt',
      algorithms: ['EdDSA'],
    });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload).toMatchObject({ client_id: 'ios', amr: ['pwd'], acr: 'aal1', email });
  });

  // promise: native-apps.continue
  it('asks a browser that is already signed in to confirm ("Continue"), and prompt=login signs in again', async () => {
    const { browser } = await signedInApp();
    const app = appOf(t.url);
    const req = await app.request();
    const page = await browser.get(req.url.href);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Continue to Acme for iOS');
    // Never inside another site's frame (a click there would send the code).
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(html)![1]!;
    const fields = Object.fromEntries([...req.url.searchParams]);
    // Without the CSRF token the form is refused; with it the code goes to the app.
    const refused = await browser.post('/auth/authorize', fields, { headers: { origin: t.url } });
    expect(refused.status).toBeLessThan(500);
    expect(refused.headers.get('location') ?? '').not.toMatch(/^com\.example\.app:/);
    const res = await browser.post('/auth/authorize', { ...fields, csrfToken }, { headers: { origin: t.url } });
    const tokens = await app.exchange(req, location(res));
    expect((await bearer(t, tokens.access_token)).status).toBe(200);
    const again = await app.request(SCHEME_REDIRECT, { prompt: 'login' });
    expect(location(await browser.get(again.url.href)).pathname).toBe('/auth/signin');
  });

  // promise: native-apps.redirect-uris
  it('matches redirect URIs exactly (a loopback one at any port)', async () => {
    const app = appOf(t.url);
    for (const uri of ['http://127.0.0.1:51234/callback', 'http://127.0.0.1/callback']) {
      const { redirect } = await signedInApp(uri);
      expect(`${redirect.origin}${redirect.pathname}`).toBe(uri);
    }
    const browser = new TestClient(t.url);
    for (const uri of [
      'com.example.app:/oauth/',
      'com.example.app:/oauthx',
      'com.example.ap:/oauth',
      'http://127.0.0.1:51234/callback/x',
      'http://localhost:51234/callback',
      'https://evil.example/cb',
    ]) {
      const req = await app.request(uri);
      const res = await browser.get(req.url.href);
      expect({ uri, status: res.status, location: res.headers.get('location') }).toEqual({
        uri,
        status: 400,
        location: null,
      });
    }
    // A loopback URI that is registered with a port still matches at any port; none is registered on a scheme.
    const desktop = appOf(t.url, 'desktop');
    const req = await desktop.request('http://127.0.0.1:9999/cb');
    expect(location(await browser.get(req.url.href)).pathname).toBe('/auth/signin');
  });

  it('refuses bad authorization requests: on the page when the app cannot be trusted, else back to the app', async () => {
    const app = appOf(t.url);
    const browser = new TestClient(t.url);
    const unknown = await app.request();
    unknown.url.searchParams.set('client_id', 'nope');
    expect((await browser.get(unknown.url.href)).status).toBe(400);
    const cases: Array<[string, Record<string, string | null>, string]> = [
      ['no PKCE', { code_challenge: null, code_challenge_method: null }, 'invalid_request'],
      ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
      ['short challenge', { code_challenge: 'abc' }, 'invalid_request'],
      ['implicit', { response_type: 'token' }, 'unsupported_response_type'],
    ];
    for (const [name, change, error] of cases) {
      const req = await app.request();
      for (const [k, v] of Object.entries(change)) {
        if (v === null) req.url.searchParams.delete(k);
        else req.url.searchParams.set(k, v);
      }
      const to = location(await browser.get(req.url.href));
      expect({ name, error: to.searchParams.get('error'), state: to.searchParams.get('state') }).toEqual({
        name,
        error,
        state: req.state,
      });
    }
    // An embedded web view (Android WebView) is sent back to the app.
    const req = await app.request();
    const res = await browser.get(req.url.href, {
      'user-agent':
        'Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0 Mobile Safari/537.36',
    });
    expect(location(res).searchParams.get('error_description')).toMatch(/embedded web view/);
  });

  // promise: native-apps.bad-input
  it('refuses bad token requests with OAuth errors, no 5xx and nothing written', async () => {
    email = await newUser();
    const app = appOf(t.url);
    const req = await app.request();
    const redirect = await authorizeInBrowser(new TestClient(t.url), req.url, email);
    const code = redirect.searchParams.get('code')!;
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body),
      });
    const good = {
      grant_type: 'authorization_code',
      client_id: 'ios',
      code,
      redirect_uri: SCHEME_REDIRECT,
      code_verifier: req.verifier,
    };
    const sessionsBefore = (await adapter.listSessionsByUserId((await adapter.getUserByEmail(email))!.id)).length;
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['unknown client', { ...good, client_id: 'android' }, 401, 'invalid_client'],
      ['no client', { ...good, client_id: '' }, 401, 'invalid_client'],
      ['another client', { ...good, client_id: 'desktop' }, 400, 'invalid_grant'],
      ['wrong verifier', { ...good, code_verifier: oauth.generateRandomCodeVerifier() }, 400, 'invalid_grant'],
      ['no verifier', { ...good, code_verifier: '' }, 400, 'invalid_request'],
      ['other redirect', { ...good, redirect_uri: LOOPBACK_REDIRECT }, 400, 'invalid_grant'],
      ['forged code', { ...good, code: `${code.slice(0, -4)}AAAA` }, 400, 'invalid_grant'],
      ['junk code', { ...good, code: '%00'.repeat(50) }, 400, 'invalid_grant'],
      ['unknown grant', { ...good, grant_type: 'password' }, 400, 'unsupported_grant_type'],
      ['no grant', { ...good, grant_type: '' }, 400, 'invalid_request'],
      [
        'junk refresh token',
        { grant_type: 'refresh_token', client_id: 'ios', refresh_token: 'x'.repeat(500) },
        400,
        'invalid_grant',
      ],
    ];
    for (const [name, body, status, error] of cases) {
      const res = await post(body);
      expect({
        name,
        status: res.status,
        body: await res.json(),
        store: res.headers.get('cache-control'),
      }).toMatchObject({
        name,
        status,
        body: { error, error_description: expect.any(String) },
        store: 'no-store',
      });
    }
    const huge = await post({ ...good, code: 'a'.repeat(2_000_000) });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
    expect((await adapter.listSessionsByUserId((await adapter.getUserByEmail(email))!.id)).length).toBe(sessionsBefore);
    // The code still works once after all that, and never again; the replay ends what it started.
    const first = await post(good);
    expect(first.status).toBe(200);
    const pair = (await first.json()) as { access_token: string; refresh_token: string };
    const replay = await post(good);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await bearer(t, pair.access_token)).status).toBe(401);
    expect((await app.refreshRaw(pair.refresh_token)).status).toBe(400);
  });

  // promise: native-apps.rotation
  it('rotates refresh tokens: a retry inside the window gets the same pair, a replay after it ends the family', async () => {
    const { app, tokens, browser } = await signedInApp();
    const next = await app.refresh(tokens.refresh_token!);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    // A lost response: the same old token again, inside the window, gets the same new pair.
    const retry = await app.refresh(tokens.refresh_token!);
    expect(retry.refresh_token).toBe(next.refresh_token);
    expect(retry.access_token).toBe(next.access_token);
    expect((await bearer(t, next.access_token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, (Math.max(REUSE_WINDOW + 1, RECENT) + 1) * 1000));
    // The browser's sign-in is no longer recent: another app sign-in asks for it again (no "Continue").
    const stale = await app.request();
    expect(location(await browser.get(stale.url.href)).pathname).toBe('/auth/signin');
    const replay = await app.refreshRaw(tokens.refresh_token!);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    // The whole family went: the newest refresh token and the access token too.
    expect((await app.refreshRaw(next.refresh_token!)).status).toBe(400);
    expect((await bearer(t, next.access_token)).status).toBe(401);
  });

  it('50 concurrent refreshes with one token mint one pair, which all of them get', async () => {
    const { app, tokens } = await signedInApp();
    const answers = await Promise.all(Array.from({ length: 50 }, () => app.refreshRaw(tokens.refresh_token!)));
    const bodies = await Promise.all(
      answers.map((r) => r.json() as Promise<{ access_token: string; refresh_token: string }>),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(bodies.map((b) => b.refresh_token)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.access_token)).size).toBe(1);
    expect((await bearer(t, bodies[0]!.access_token)).status).toBe(200);
    expect((await app.refresh(bodies[0]!.refresh_token)).refresh_token).not.toBe(bodies[0]!.refresh_token);
  });

  // promise: native-apps.revocation
  it("lists the app among the user's sessions, and ending it there ends its tokens", async () => {
    const { app, tokens, browser } = await signedInApp();
    const listed = (await (await browser.get('/app/sessions')).json()) as Array<{
      id: string;
      app: string | null;
      userAgent: string;
      current: boolean;
    }>;
    const entry = listed.find((s) => s.app === 'ios')!;
    expect(entry).toMatchObject({ userAgent: 'Acme for iOS', current: false });
    const fromApp = (await (await bearer(t, tokens.access_token, '/app/sessions')).json()) as typeof listed;
    expect(fromApp.find((s) => s.current)?.app).toBe('ios');
    const user = (await adapter.getUserByEmail(email))!;
    await t.app.get(AuthService).endSession(user.id, entry.id);
    expect((await bearer(t, tokens.access_token)).status).toBe(401);
    expect((await app.refreshRaw(tokens.refresh_token!)).status).toBe(400);
  });

  it('signs the app out: RFC 7009 revocation of the refresh token or the access token, and AuthService.signOut', async () => {
    for (const how of ['refresh', 'access', 'signOut'] as const) {
      const { app, tokens } = await signedInApp();
      if (how === 'signOut') expect((await bearer(t, tokens.access_token, '/app/signout')).status).toBe(200);
      else expect((await app.revoke(how === 'refresh' ? tokens.refresh_token! : tokens.access_token)).status).toBe(200);
      expect({ how, access: (await bearer(t, tokens.access_token)).status }).toEqual({ how, access: 401 });
      expect({ how, refresh: (await app.refreshRaw(tokens.refresh_token!)).status }).toEqual({ how, refresh: 400 });
    }
    // An unknown token is answered as a revoked one (RFC 7009 section 2.2).
    expect((await appOf(t.url).revoke('not-a-token')).status).toBe(200);
  });

  it('ends the app sign-ins of a user whose account changes (signOutEverywhere, a new password, deleted account)', async () => {
    const { app, tokens } = await signedInApp();
    const user = (await adapter.getUserByEmail(email))!;
    expect(await t.app.get(AuthService).signOutEverywhere(user.id)).toBeGreaterThanOrEqual(1);
    expect((await bearer(t, tokens.access_token)).status).toBe(401);
    expect((await app.refreshRaw(tokens.refresh_token!)).status).toBe(400);
    // A way in changed (the account API and the password flows announce it so): the app signs in again.
    const third = await signedInApp();
    t.app
      .get(AuthEvents)
      .emit('accountChange', { action: 'password.set', userId: (await adapter.getUserByEmail(email))!.id });
    await expectSoon(async () => (await bearer(t, third.tokens.access_token)).status === 401);
    expect((await third.app.refreshRaw(third.tokens.refresh_token!)).status).toBe(400);
    const second = await signedInApp();
    await t.app.get(AuthService).deleteAccount((await adapter.getUserByEmail(email))!.id, { recentSignIn: false });
    expect((await bearer(t, second.tokens.access_token)).status).toBe(401);
    expect((await second.app.refreshRaw(second.tokens.refresh_token!)).status).toBe(400);
  });

  it('refuses look-alike tokens as bearer: alg none, a wrong typ, another issuer, a session JWE', async () => {
    const { tokens } = await signedInApp();
    const [h, p, s] = tokens.access_token.split('.') as [string, string, string];
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const flipBit = (sig: string) => {
      const bytes = Buffer.from(sig, 'base64url');
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
      return bytes.toString('base64url');
    };
    const header = decodeProtectedHeader(tokens.access_token);
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = [
      `${b64({ alg: 'none', typ: 'at+jwt' })}.${p}.`,
      `${b64({ ...header, typ: 'JWT' })}.${p}.${s}`,
      `${b64({ ...header, alg: 'HS256' })}.${p}.${s}`,
      `${b64({ ...header, kid: 'nope' })}.${p}.${s}`,
      `${h}.${b64({ ...claims, iss: 'https://evil.example' })}.${s}`,
      `${h}.${b64({ ...claims, sub: 'someone-else' })}.${s}`,
      // One bit of the signature flipped (overwriting its last characters would leave it unchanged
      // whenever they already held those bits: one run in 256).
      `${h}.${p}.${flipBit(s)}`,
      `${h}.${p}.${'A'.repeat(5000)}`,
    ];
    for (const token of forged)
      expect({ token: token.slice(0, 40), status: (await bearer(t, token)).status }).toMatchObject({ status: 401 });
  });
});

// promise: native-apps.flow
describe("README: the native apps' options, as written", () => {
  it('boots and signs an app in through its registered loopback redirect', async () => {
    const file = join(process.cwd(), 'test-output', 'readme-snippets', 'native-apps-options.ts');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      readmeSnippet('native-apps-options').code.replace(/from 'nestjs-auth'/g, "from '../../lib/index.js'"),
    );
    const { nativeAppOptions } = (await import(file)) as { nativeAppOptions: Partial<AuthModuleOptions> };
    const adapter = new MemoryAdapter();
    // `url` is the README's public origin; this app listens on 127.0.0.1, so the issuer is given as the README's.
    const t = await start(adapter, {
      ...nativeAppOptions,
      url: undefined,
      accessToken: { issuer: 'https://api.example.com/auth' },
    });
    try {
      const address = `${randomUUID()}@example.test`;
      await adapter.createUser({ email: address, emailVerified: null } as never);
      const app = appOf(t.url, 'acme-desktop', 'https://api.example.com/auth');
      const req = await app.request('http://127.0.0.1:43210/callback');
      const tokens = await app.exchange(req, await authorizeInBrowser(new TestClient(t.url), req.url, address));
      expect((await bearer(t, tokens.access_token)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
