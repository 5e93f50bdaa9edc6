/**
 * Two-factor authentication end to end, on the platform of the run (Express, or Fastify in the
 * e2e-fastify project), with both session strategies, against the real parts the other ways in use:
 * a real OpenID Provider (oidc-provider), real WebAuthn ceremonies (a software authenticator),
 * magic links, the credentials flow, the account API for enrolment, and TypeORM on SQLite for what
 * a database dump shows.
 *
 * The bypass matrix: a user with a confirmed authenticator app signs in with every first factor, and
 * each one ends at `{basePath}/two-factor` with the sealed pending cookie only: no session cookie,
 * no session row, the guarded routes refuse the browser. The code completes it with a session that
 * records `mfa`. Then the attacks on the challenge itself: wrong codes and the lockout, a code used
 * twice, a backup code used twice, twenty answers racing with one pending cookie, the pending cookie
 * replayed after its success; the required policy's enrolment at sign-in; the account API's removal.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Controller, Get, Req, UseGuards } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AdapterTwoFactor } from '../lib/adapters/adapter.interface.js';
import { CurrentUser } from '../lib/guard/current-user.decorator.js';
import type { HttpRequestLike } from '../lib/http/auth-request.factory.js';
import { AuthGuard, AuthService, MemoryAdapter, RequireAal } from '../lib/index.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { totpCode } from '../lib/methods/two-factor/totp.js';
import { WebAuthn } from '../lib/methods/webauthn/webauthn.provider.js';
import type { WebAuthnUserConfig } from '../lib/methods/webauthn/webauthn.types.js';
import { decode } from '../lib/session/jwt.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { location, TestClient } from './setup/http-client.js';
import { followToApp, useOidcProvider } from './setup/oidc-provider.js';
import { opProvider } from './setup/oidc-sign-in.js';
import { SoftAuthenticator } from './setup/soft-authenticator.js';

type Json = any;

const SESSION = 'authjs.session-token';
const PENDING = 'authjs.two-factor';
const DEVICE = 'authjs.two-factor-device';
const JSON_ACCEPT = { accept: 'application/json' };
const PASSWORD = 'correct horse battery staple';
/** The apps' `twoFactor.maxAttempts` and `lockoutWindow` (seconds): small, so the lockout ends within a test. */
const MAX_ATTEMPTS = 3;
const LOCKOUT_WINDOW = 2;
const PERIOD_MS = 30_000;
const GENEROUS = { windowSeconds: 60, maxPerIp: 1000, maxPerAddress: 1000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The routes a second factor guards: `@RequireAal(2)`, and what `AuthService.assurance` says. */
@Controller('mfa')
@UseGuards(AuthGuard)
class AssuranceController {
  constructor(private readonly auth: AuthService) {}

  @Get('strong')
  @RequireAal(2)
  strong(@CurrentUser('id') id: string) {
    return { id };
  }

  @Get('assurance')
  assurance(@Req() req: HttpRequestLike) {
    return this.auth.assurance(req);
  }
}

/** An authenticator app as the test holds it: its secret, its backup codes, the last step it used. */
interface Factor {
  secret: string;
  backupCodes: string[];
  lastStep: number;
}

/**
 * A code of the app's next unused time step that the server accepts now (current step ±1): each
 * step works once, so the test keeps the last one used. Never within 1.5 s of a step's end, so the
 * step the code was made for is still in the window when the server checks it.
 */
async function nextCode(f: Factor, { record = true } = {}): Promise<string> {
  const left = PERIOD_MS - (Date.now() % PERIOD_MS);
  if (left < 1500) await sleep(left + 50);
  const now = Math.floor(Date.now() / PERIOD_MS);
  const step = Math.max(now - 1, f.lastStep + 1);
  if (step > now + 1) throw new Error('This factor has used every step the window accepts now: use another user.');
  if (record) f.lastStep = step;
  return totpCode(f.secret, { now: step * PERIOD_MS + 1000 });
}

/** Six digits that are none of the codes the window accepts now. */
async function wrongCode(f: Factor): Promise<string> {
  const now = Date.now();
  const valid = await Promise.all([-1, 0, 1].map((k) => totpCode(f.secret, { now: now + k * PERIOD_MS })));
  return ['000000', '111111', '222222', '333333'].find((c) => !valid.includes(c))!;
}

/** The `Set-Cookie` of `name` with a value (not a deletion) in a response, if any. */
const setCookie = (res: Response, name: string) =>
  res.headers.getSetCookie().find((line) => line.startsWith(`${name}=`) && !line.startsWith(`${name}=;`));

type Way = 'credentials' | 'email' | 'oidc' | 'passkey';
/** What each first factor proves (RFC 8176). */
const FIRST: Record<Way, string> = { credentials: 'pwd', email: 'email', oidc: 'fed', passkey: 'hwk' };
const WAYS: Way[] = ['credentials', 'email', 'oidc', 'passkey'];

const op = useOidcProvider();
const [sqlite] = await databaseTargets(['sqlite']);
let seq = 0;

/**
 * MemoryAdapter answering reads of second factors after a database's round trip: the rows are read,
 * then returned 10 ms later. In memory every call resolves at once, so concurrent requests never
 * interleave between a read and the write that depends on it; against a networked database they
 * do, and the races below (a double submit) are those a real deployment sees.
 */
class RoundTripAdapter extends MemoryAdapter {
  override async listTwoFactorsByUserId(userId: string): Promise<AdapterTwoFactor[]> {
    const rows = await super.listTwoFactorsByUserId(userId);
    await sleep(10);
    return rows;
  }
}

/** One app: its client-facing origin, its adapter, the links its Email provider sent. */
interface Site {
  t: TestApp;
  origin: string;
  adapter: MemoryAdapter;
  links: Map<string, string>;
}

/** Adds an authenticator app through the account API (session `c`); returns it with its backup codes. */
async function enrol(c: TestClient): Promise<Factor> {
  const csrfToken = await c.csrf();
  const started = await c.post('/auth/account/two-factor/totp', { csrfToken }, { json: true });
  expect(started.status).toBe(200);
  const enrolment = (await started.json()) as Json;
  expect(enrolment).toEqual({
    id: expect.any(String),
    secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
    uri: expect.stringMatching(/^otpauth:\/\/totp\//),
    qrSvg: expect.stringContaining('<svg'),
  });
  const f: Factor = { secret: enrolment.secret, backupCodes: [], lastStep: -Infinity };
  const confirmed = await c.post(
    '/auth/account/two-factor/confirm',
    { csrfToken, id: enrolment.id, code: await nextCode(f), name: 'Phone' },
    { json: true },
  );
  expect(confirmed.status).toBe(200);
  f.backupCodes = ((await confirmed.json()) as Json).backupCodes;
  expect(f.backupCodes).toHaveLength(10);
  return f;
}

describe.each(['database', 'jwt'] as const)('two-factor sign-in with %s sessions', (strategy) => {
  let site: Site;
  /** An app whose policy requires a second factor of everyone. */
  let required: Site;
  const clientId = `two-factor-${++seq}-${strategy}`;

  /** The app's own users, as `authorize` finds them: the adapter's user with that address. */
  const credentials = (adapter: MemoryAdapter) =>
    Credentials({
      credentials: { email: {}, password: {} },
      async authorize({ email, password }) {
        const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
        return user && password === PASSWORD ? { id: user.id, email: user.email, name: user.name ?? null } : null;
      },
    });

  async function start(policy: 'optional' | 'required'): Promise<Site> {
    const adapter = new RoundTripAdapter();
    const links = new Map<string, string>();
    const t = await createTestApp({
      auth: {
        providers: [
          WebAuthn({ rateLimit: GENEROUS } as WebAuthnUserConfig),
          Email({
            consumeOnGet: true,
            rateLimit: false,
            sendVerificationRequest: ({ identifier, url }) => void links.set(identifier, url),
          }),
          credentials(adapter),
          opProvider(op, 'idp', clientId),
        ],
        adapter,
        trustHost: true,
        session: { strategy },
        twoFactor: { policy, maxAttempts: MAX_ATTEMPTS, lockoutWindow: LOCKOUT_WINDOW, rememberDevice: 30 },
      },
      controllers: [AssuranceController],
    });
    // localhost: a secure context, the passkeys' relying party.
    return { t, origin: t.url.replace('127.0.0.1', 'localhost'), adapter, links };
  }

  beforeAll(async () => {
    [site, required] = await Promise.all([start('optional'), start('required')]);
    await op.addClient({
      client_id: clientId,
      client_secret: `${clientId}-secret`,
      redirect_uris: [site, required].map((s) => `${s.origin}/auth/callback/idp`),
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([site?.t.close(), required?.t.close()]);
  });

  /** A user of one way in, and (once enrolled) their app. */
  interface Person {
    way: Way;
    email: string;
    sub: string;
    device: SoftAuthenticator;
    id: string;
    factor: Factor;
  }

  const callbackOf = (s: Site) => `${s.origin}/me`;
  const me = async (c: TestClient): Promise<string> => ((await (await c.get('/me')).json()) as Json).user.id;

  /**
   * The first factor of `p` in browser `c`: the app's answer to its last request (a session's
   * redirect, or the redirect to the second factor). Passkeys sign in without user verification
   * unless `uv` says otherwise.
   */
  async function firstFactor(s: Site, c: TestClient, p: Person, { uv = false } = {}): Promise<Response> {
    const callbackUrl = callbackOf(s);
    const csrfToken = await c.csrf();
    switch (p.way) {
      case 'credentials':
        return c.post('/auth/callback/credentials', { csrfToken, email: p.email, password: PASSWORD, callbackUrl });
      case 'email': {
        s.links.delete(p.email);
        expect((await c.post('/auth/signin/email', { csrfToken, email: p.email, callbackUrl })).status).toBe(302);
        const link = new URL(s.links.get(p.email)!);
        return c.get(`${link.pathname}${link.search}`);
      }
      case 'oidc': {
        op.signInAs({ sub: p.sub, email: p.email, email_verified: true });
        const begin = await c.post('/auth/signin/idp', { csrfToken, callbackUrl });
        const back = await followToApp(c, begin, s.origin);
        return back.method === 'GET' ? c.get(back.url.href) : c.post(back.url.href, back.body);
      }
      case 'passkey': {
        const o = (await (await c.get('/auth/webauthn-options/webauthn?action=authenticate')).json()) as Json;
        const data = p.device.authenticate(o.options, { origin: s.origin, uv });
        return c.post('/auth/callback/webauthn', { action: 'authenticate', data, callbackUrl }, { json: true });
      }
    }
  }

  /** A new user of `way` with a session in `c` (their first sign-in; a passkey user registers one). */
  async function newPerson(s: Site, way: Way, c: TestClient): Promise<Person> {
    const tag = `${way}-${strategy}-${randomUUID().slice(0, 8)}`;
    const p = { way, email: `${tag}@example.test`, sub: `sub-${tag}`, device: new SoftAuthenticator() } as Person;
    if (way === 'credentials')
      await s.adapter.createUser({ id: randomUUID(), email: p.email, emailVerified: new Date(), name: tag });
    const first = await firstFactor(s, c, way === 'passkey' ? { ...p, way: 'email' } : p);
    expect(location(first).href).toBe(callbackOf(s));
    if (way === 'passkey') {
      const o = (await (await c.get('/auth/webauthn-options/webauthn?action=register')).json()) as Json;
      const data = p.device.register(o.options, { origin: s.origin });
      const registered = await c.post(
        '/auth/callback/webauthn',
        { action: 'register', data, callbackUrl: callbackOf(s) },
        { json: true },
      );
      expect(location(registered).href).toBe(callbackOf(s));
    }
    p.id = await me(c);
    return p;
  }

  /** A user of `way` with a confirmed authenticator app (the optional app). */
  async function enrolled(way: Way): Promise<Person> {
    const c = new TestClient(site.origin);
    const p = await newPerson(site, way, c);
    p.factor = await enrol(c);
    return p;
  }

  const sessionRows = async (s: Site, userId: string) => s.adapter.listSessionsByUserId(userId);

  /** The first factor was held: only the pending cookie, no session, the guarded routes refuse. */
  async function expectHeld(s: Site, res: Response, c: TestClient): Promise<void> {
    expect(res.status).toBe(302);
    expect(location(res).href).toBe(`${s.origin}/auth/two-factor`);
    expect(setCookie(res, PENDING)).toMatch(/HttpOnly/i);
    expect(setCookie(res, SESSION)).toBeUndefined();
    expect(c.cookies.has(SESSION)).toBe(false);
    expect(c.cookies.get(PENDING)).toBeTruthy();
    for (const path of ['/me', '/mfa/strong', '/mfa/assurance'])
      expect([path, (await c.get(path)).status]).toEqual([path, 401]);
    expect(((await (await c.get('/auth/session')).json()) as Json)?.user).toBeUndefined();
  }

  /** The challenge's JSON (what the page shows): its CSRF token, the methods, the expiry. */
  async function challenge(c: TestClient): Promise<Json> {
    const page = await c.get('/auth/two-factor', JSON_ACCEPT);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    return page.json();
  }

  const answer = (c: TestClient, csrfToken: string, code: string, method = 'totp', json = false) =>
    c.post('/auth/two-factor', { csrfToken, method, code }, { json });

  /** The answer started a session of `p` proving `amr` (with `mfa`): the guarded and AAL2 routes let it in. */
  async function expectSignedIn(s: Site, res: Response, c: TestClient, p: Person, amr: string[]): Promise<void> {
    expect(res.status).toBe(302);
    expect(location(res).href).toBe(callbackOf(s));
    expect(setCookie(res, SESSION)).toBeTruthy();
    expect(c.cookies.has(PENDING)).toBe(false);
    expect(await me(c)).toBe(p.id);
    expect(await (await c.get('/mfa/strong')).json()).toEqual({ id: p.id });
    const assurance = (await (await c.get('/mfa/assurance')).json()) as Json;
    expect(assurance).toEqual({ amr: expect.arrayContaining([...amr, 'mfa']), aal: 2 });
    const token = c.cookies.get(SESSION)!;
    if (strategy === 'jwt') {
      const claims = (await decode({ token, secret: TEST_SECRET, salt: SESSION }))!;
      expect(claims).toMatchObject({ acr: 'aal2', amr: expect.arrayContaining([...amr, 'mfa']) });
    } else {
      const row = (await sessionRows(s, p.id)).find((r) => r.sessionToken === token);
      expect(row?.amr?.split(' ')).toEqual(expect.arrayContaining([...amr, 'mfa']));
    }
  }

  // promise: two-factor.bypass
  it.each(WAYS)(
    'a %s sign-in of a user with an authenticator app is held at /two-factor (no session, no row) until the code',
    async (way) => {
      const p = await enrolled(way);
      const rowsBefore = (await sessionRows(site, p.id)).length;
      const c = new TestClient(site.origin);
      await expectHeld(site, await firstFactor(site, c, p, { uv: false }), c);
      expect(await sessionRows(site, p.id)).toHaveLength(rowsBefore);

      const page = await challenge(c);
      expect(page).toEqual({
        csrfToken: expect.any(String),
        // A user with a passkey may also prove the second factor with it.
        methods: way === 'passkey' ? ['totp', 'backup-code', 'passkey'] : ['totp', 'backup-code'],
        expires: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      // The HTML page asks for the code.
      const html = await c.get('/auth/two-factor');
      expect(html.status).toBe(200);
      expect(await html.text()).toMatch(/<form method="post"[\s\S]*name="code"/);

      await expectSignedIn(site, await answer(c, page.csrfToken, await nextCode(p.factor)), c, p, [FIRST[way], 'otp']);
      expect(await sessionRows(site, p.id)).toHaveLength(rowsBefore + (strategy === 'database' ? 1 : 0));
    },
  );

  /** Proves the pending sign-in's second factor with `p`'s passkey (the two-factor page's ceremony). */
  async function passkeyAnswer(s: Site, c: TestClient, p: Person, csrfToken: string): Promise<Response> {
    const started = await c.get('/auth/two-factor?options=passkey', JSON_ACCEPT);
    expect(started.status).toBe(200);
    const { options } = (await started.json()) as Json;
    // Only this user's passkeys are offered.
    expect(options.allowCredentials).toHaveLength(1);
    const data = p.device.authenticate(options, { origin: s.origin, uv: false });
    return c.post('/auth/two-factor', { csrfToken, method: 'passkey', action: 'authenticate', data }, { json: true });
  }

  it('a passkey proves the second factor after a magic link: a session at AAL2 recording both', async () => {
    const p = await enrolled('passkey');
    const c = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, c, { ...p, way: 'email' }), c);
    const page = await challenge(c);
    expect(page.methods).toContain('passkey');
    const html = await (await c.get('/auth/two-factor')).text();
    expect(html).toMatch(/data-webauthn-two-factor="[^"]+\/auth\/two-factor"/);
    await expectSignedIn(site, await passkeyAnswer(site, c, p, page.csrfToken), c, p, ['email', 'hwk']);
  });

  it("the second factor's passkey challenge serves no sign-in, and a sign-in's challenge no second factor", async () => {
    const p = await enrolled('passkey');
    const c = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, c, { ...p, way: 'email' }), c);
    const page = await challenge(c);
    // The second factor's options answered at the sign-in callback: refused, no session.
    const { options } = (await (await c.get('/auth/two-factor?options=passkey', JSON_ACCEPT)).json()) as Json;
    const data = p.device.authenticate(options, { origin: site.origin, uv: true });
    const misused = await c.post('/auth/callback/webauthn', { action: 'authenticate', data }, { json: true });
    expect(c.cookies.has(SESSION)).toBe(false);
    expect(setCookie(misused, SESSION)).toBeUndefined();
    // A sign-in's options answered at the two-factor route: refused, the sign-in still pending.
    const o = (await (await c.get('/auth/webauthn-options/webauthn?action=authenticate')).json()) as Json;
    const other = p.device.authenticate(o.options, { origin: site.origin, uv: false });
    const refused = await c.post(
      '/auth/two-factor',
      { csrfToken: page.csrfToken, method: 'passkey', action: 'authenticate', data: other },
      { json: true },
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Json).error).toBe('WebAuthnVerificationError');
    expect(c.cookies.has(SESSION)).toBe(false);
    await expectSignedIn(site, await passkeyAnswer(site, c, p, page.csrfToken), c, p, ['email', 'hwk']);
  });

  it('policy required: a user whose only second factor is a passkey is asked for it, not enrolled', async () => {
    // Signed up with a passkey that verified the user: two factors at once, so no enrolment then.
    const c = new TestClient(required.origin);
    const email = `passkey-only-${strategy}-${randomUUID().slice(0, 8)}@example.test`;
    const device = new SoftAuthenticator();
    const o = (await (
      await c.get(`/auth/webauthn-options/webauthn?action=register&email=${encodeURIComponent(email)}`)
    ).json()) as Json;
    const data = device.register(o.options, { origin: required.origin, uv: true });
    const registered = await c.post(
      '/auth/callback/webauthn',
      { action: 'register', data, callbackUrl: callbackOf(required) },
      { json: true },
    );
    expect(location(registered).href).toBe(callbackOf(required));
    const p = { way: 'passkey', email, sub: '', device, id: await me(c) } as Person;
    const held = new TestClient(required.origin);
    // A password (an unproven address would give a magic link's holder a user of its own).
    const res = await firstFactor(required, held, { ...p, way: 'credentials' });
    expect(location(res).href).toBe(`${required.origin}/auth/two-factor`);
    const page = (await (await held.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json;
    expect(page.methods).toEqual(['passkey']);
    expect(page.enrol).toBeUndefined();
    const done = await passkeyAnswer(required, held, p, page.csrfToken);
    expect(done.status).toBe(302);
    expect(await me(held)).toBe(p.id);
  });

  it('"don\'t ask again on this device": that browser\'s next sign-ins skip the second factor until the factors change', async () => {
    const p = await enrolled('credentials');
    const c = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, c, p), c);
    const page = await challenge(c);
    expect(await (await c.get('/auth/two-factor')).text()).toMatch(/name="remember" value="1"/);
    const done = await c.post('/auth/two-factor', {
      csrfToken: page.csrfToken,
      method: 'totp',
      code: await nextCode(p.factor),
      remember: '1',
    });
    expect(setCookie(done, DEVICE)).toMatch(/HttpOnly/i);
    expect(setCookie(done, DEVICE)).toMatch(/Max-Age=2592000/i);
    await expectSignedIn(site, done, c, p, ['pwd', 'otp']);

    // The same browser, signed out: the password alone starts a session, recorded as remembered.
    c.cookies.delete(SESSION);
    const again = await firstFactor(site, c, p);
    expect(location(again).href).toBe(callbackOf(site));
    expect(await (await c.get('/mfa/assurance')).json()).toEqual({
      amr: expect.arrayContaining(['pwd', 'dev', 'mfa']),
      aal: 2,
    });
    // Another browser is asked; so is one that copied another user's cookie.
    const other = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, other, p), other);
    const q = await enrolled('credentials');
    const copied = new TestClient(site.origin);
    copied.cookies.set(DEVICE, c.cookies.get(DEVICE)!);
    await expectHeld(site, await firstFactor(site, copied, q), copied);

    // New backup codes (a factor change): every remembered device asks again.
    const csrfToken = await c.csrf();
    expect((await c.post('/auth/account/two-factor/backup-codes', { csrfToken }, { json: true })).status).toBe(200);
    c.cookies.delete(SESSION);
    await expectHeld(site, await firstFactor(site, c, p), c);
  });

  it('a passkey added while signed in proves nothing new: the new session keeps what the session proved', async () => {
    const c = new TestClient(site.origin);
    const p = await newPerson(site, 'credentials', c);
    const register = async (device: SoftAuthenticator) => {
      const o = (await (await c.get('/auth/webauthn-options/webauthn?action=register')).json()) as Json;
      const data = device.register(o.options, { origin: site.origin, uv: true });
      return c.post(
        '/auth/callback/webauthn',
        { action: 'register', data, callbackUrl: callbackOf(site) },
        { json: true },
      );
    };
    // A password alone, then a passkey made just now with user verification: still one factor.
    expect(location(await register(p.device)).href).toBe(callbackOf(site));
    expect(await (await c.get('/mfa/assurance')).json()).toEqual({ amr: ['pwd'], aal: 1 });
    // Two factors, then another passkey: still two, and no challenge on the way.
    p.factor = await enrol(c);
    c.cookies.delete(SESSION);
    await expectHeld(site, await firstFactor(site, c, p), c);
    const page = await challenge(c);
    await expectSignedIn(site, await answer(c, page.csrfToken, await nextCode(p.factor)), c, p, ['pwd', 'otp']);
    const again = await register(new SoftAuthenticator());
    expect(location(again).href).toBe(callbackOf(site));
    expect(await (await c.get('/mfa/assurance')).json()).toEqual({ amr: ['pwd', 'otp', 'mfa'], aal: 2 });
  });

  it('a passkey that verified the user proves two factors by itself: a session at AAL2, no challenge', async () => {
    const p = await enrolled('passkey');
    const c = new TestClient(site.origin);
    const res = await firstFactor(site, c, p, { uv: true });
    expect(location(res).href).toBe(callbackOf(site));
    expect(setCookie(res, PENDING)).toBeUndefined();
    expect(c.cookies.has(SESSION)).toBe(true);
    expect(await (await c.get('/mfa/assurance')).json()).toEqual({ amr: ['hwk', 'user', 'mfa'], aal: 2 });
    expect((await c.get('/mfa/strong')).status).toBe(200);
  });

  it('a user without a second factor (policy optional) gets a session at once, which @RequireAal(2) refuses', async () => {
    for (const way of ['credentials', 'email'] as const) {
      const c = new TestClient(site.origin);
      await newPerson(site, way, c);
      expect(c.cookies.has(PENDING)).toBe(false);
      expect((await c.get('/me')).status).toBe(200);
      const strong = await c.get('/mfa/strong');
      expect(strong.status).toBe(401);
      expect(await strong.json()).toMatchObject({ error: 'SecondFactorRequired' });
      expect(await (await c.get('/mfa/assurance')).json()).toEqual({ amr: [FIRST[way]], aal: 1 });
      expect(await (await c.get('/auth/account/two-factor', JSON_ACCEPT)).json()).toEqual({
        factors: [],
        backupCodesLeft: 0,
        required: false,
      });
    }
  });

  it('a wrong code is refused (400) and the pending sign-in stays; past maxAttempts even the right code gets 429 until the window ends', async () => {
    const p = await enrolled('credentials');
    const c = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, c, p), c);
    const { csrfToken } = await challenge(c);
    const wrong = await wrongCode(p.factor);

    const page = await answer(c, csrfToken, wrong);
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toMatch(/<form method="post"[\s\S]*name="code"/);
    const json = await answer(c, csrfToken, wrong, 'totp', true);
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'InvalidTwoFactorCode' });
    expect(c.cookies.has(SESSION)).toBe(false);
    expect((await c.get('/me')).status).toBe(401);
    await expectSignedIn(site, await answer(c, csrfToken, await nextCode(p.factor)), c, p, ['pwd', 'otp']);

    // The lockout counts per user, over every pending sign-in of theirs.
    const d = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, d, p), d);
    const token = (await challenge(d)).csrfToken;
    for (let i = 0; i < MAX_ATTEMPTS; i++) expect((await answer(d, token, wrong)).status).toBe(400);
    const right = await nextCode(p.factor, { record: false });
    const locked = await answer(d, token, right);
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(LOCKOUT_WINDOW);
    const lockedJson = await answer(d, token, right, 'totp', true);
    expect(lockedJson.status).toBe(429);
    expect(lockedJson.headers.get('retry-after')).toBeTruthy();
    expect(await lockedJson.json()).toMatchObject({ error: 'RateLimited' });
    expect(d.cookies.has(SESSION)).toBe(false);
    expect(d.cookies.has(PENDING)).toBe(true);

    await sleep(retryAfter * 1000 + 200);
    await expectSignedIn(site, await answer(d, token, await nextCode(p.factor)), d, p, ['pwd', 'otp']);
  });

  it('a TOTP code works once: the same code in a second sign-in within its step is refused', async () => {
    const p = await enrolled('email');
    const a = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, a, p), a);
    const code = await nextCode(p.factor);
    await expectSignedIn(site, await answer(a, (await challenge(a)).csrfToken, code), a, p, ['email', 'otp']);

    const b = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, b, p), b);
    const { csrfToken } = await challenge(b);
    const replay = await answer(b, csrfToken, code, 'totp', true);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'InvalidTwoFactorCode' });
    expect(b.cookies.has(SESSION)).toBe(false);
    await expectSignedIn(site, await answer(b, csrfToken, await nextCode(p.factor)), b, p, ['email', 'otp']);
  });

  it('a backup code works once (typed in any case, with spaces), then is refused', async () => {
    const p = await enrolled('credentials');
    const [code] = p.factor.backupCodes;
    const a = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, a, p), a);
    const typed = code!.toUpperCase().replace(/-/g, ' ');
    await expectSignedIn(site, await answer(a, (await challenge(a)).csrfToken, typed, 'backup-code'), a, p, [
      'pwd',
      'lookup',
    ]);
    expect(await (await a.get('/auth/account/two-factor', JSON_ACCEPT)).json()).toMatchObject({ backupCodesLeft: 9 });

    const b = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, b, p), b);
    const { csrfToken } = await challenge(b);
    const again = await answer(b, csrfToken, code!, 'backup-code', true);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'InvalidTwoFactorCode' });
    expect(b.cookies.has(SESSION)).toBe(false);
    await expectSignedIn(site, await answer(b, csrfToken, p.factor.backupCodes[1]!, 'backup-code'), b, p, [
      'pwd',
      'lookup',
    ]);
  });

  it('twenty answers at once with one pending cookie and one valid code: exactly one session', async () => {
    const p = await enrolled('credentials');
    const c = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, c, p), c);
    const { csrfToken } = await challenge(c);
    const rowsBefore = (await sessionRows(site, p.id)).length;
    const code = await nextCode(p.factor);
    const clones = Array.from({ length: 20 }, () => {
      const k = new TestClient(site.origin);
      for (const [name, value] of c.cookies) k.cookies.set(name, value);
      return k;
    });
    const results = await Promise.all(clones.map((k) => answer(k, csrfToken, code)));
    const winners = clones.filter((_k, i) => setCookie(results[i]!, SESSION));
    expect(winners).toHaveLength(1);
    const losers = results.filter((r) => !setCookie(r, SESSION));
    for (const r of losers) expect([400, 429]).toContain(r.status);
    expect(await me(winners[0]!)).toBe(p.id);
    expect(await sessionRows(site, p.id)).toHaveLength(rowsBefore + (strategy === 'database' ? 1 : 0));
  });

  it('the pending cookie is used up by its success: replayed with a fresh code it gets no session', async () => {
    const p = await enrolled('oidc');
    const c = new TestClient(site.origin);
    await expectHeld(site, await firstFactor(site, c, p), c);
    const pending = c.cookies.get(PENDING)!;
    await expectSignedIn(site, await answer(c, (await challenge(c)).csrfToken, await nextCode(p.factor)), c, p, [
      'fed',
      'otp',
    ]);
    const rowsBefore = (await sessionRows(site, p.id)).length;

    const thief = new TestClient(site.origin);
    const csrfToken = await thief.csrf();
    thief.cookies.set(PENDING, pending);
    const replay = await answer(thief, csrfToken, await nextCode(p.factor), 'totp', true);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'InvalidCheck' });
    expect(setCookie(replay, SESSION)).toBeUndefined();
    thief.cookies.set(PENDING, pending);
    const form = await answer(thief, csrfToken, await wrongCode(p.factor));
    expect(setCookie(form, SESSION)).toBeUndefined();
    expect(thief.cookies.has(SESSION)).toBe(false);
    expect((await thief.get('/me')).status).toBe(401);
    expect(await sessionRows(site, p.id)).toHaveLength(rowsBefore);
  });

  /** A user of the required app who enrolled at sign-in (JSON): their session `c` and app. */
  async function enrolledAtSignIn(): Promise<{ p: Person; c: TestClient; backupCodes: string[] }> {
    const c = new TestClient(required.origin);
    const p = { way: 'credentials', email: `required-${strategy}-${randomUUID().slice(0, 8)}@example.test` } as Person;
    p.id = (await required.adapter.createUser({ id: randomUUID(), email: p.email, emailVerified: new Date() })).id;
    await expectHeld(required, await firstFactor(required, c, p), c);
    const held = c.cookies.get(PENDING);
    const page = await challenge(c);
    expect(page).toEqual({
      csrfToken: expect.any(String),
      methods: [],
      enrol: {
        secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
        uri: expect.stringMatching(/^otpauth:\/\/totp\//),
        qrSvg: expect.stringContaining('<svg'),
      },
    });
    expect(page.enrol.uri).toContain(`secret=${page.enrol.secret}`);
    // The secret is sealed into the pending state, and the same one shown again.
    expect(c.cookies.get(PENDING)).not.toBe(held);
    expect((await challenge(c)).enrol.secret).toBe(page.enrol.secret);
    p.factor = { secret: page.enrol.secret, backupCodes: [], lastStep: -Infinity };

    const wrong = await answer(c, page.csrfToken, await wrongCode(p.factor), 'totp', true);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'InvalidTwoFactorCode' });
    expect(await required.adapter.listTwoFactorsByUserId(p.id)).toEqual([]);

    const done = await c.post(
      '/auth/two-factor',
      { csrfToken: page.csrfToken, code: await nextCode(p.factor) },
      { json: true },
    );
    expect(done.status).toBe(200);
    const body = (await done.json()) as Json;
    expect(body).toEqual({ url: callbackOf(required), backupCodes: expect.any(Array) });
    expect(body.backupCodes).toHaveLength(10);
    p.factor.backupCodes = body.backupCodes;
    expect(setCookie(done, SESSION)).toBeTruthy();
    return { p, c, backupCodes: body.backupCodes };
  }

  // promise: two-factor.enrol
  it('policy required: a user without a factor enrols at sign-in; the first code starts an AAL2 session and shows the backup codes once', async () => {
    const { p, c, backupCodes } = await enrolledAtSignIn();
    expect(await me(c)).toBe(p.id);
    expect((await c.get('/mfa/strong')).status).toBe(200);
    expect(await (await c.get('/mfa/assurance')).json()).toEqual({ amr: ['pwd', 'otp', 'mfa'], aal: 2 });
    expect(await (await c.get('/auth/account/two-factor', JSON_ACCEPT)).json()).toEqual({
      factors: [expect.objectContaining({ id: expect.any(String), name: null })],
      backupCodesLeft: 10,
      required: true,
    });
    // The codes shown work: a backup code signs in.
    const b = new TestClient(required.origin);
    await expectHeld(required, await firstFactor(required, b, p), b);
    expect((await challenge(b)).methods).toEqual(['totp', 'backup-code']);
    await expectSignedIn(
      required,
      await answer(b, (await challenge(b)).csrfToken, backupCodes[0]!, 'backup-code'),
      b,
      p,
      ['pwd', 'lookup'],
    );

    // The HTML enrolment: the page shows the secret, the form's answer the backup codes page.
    const h = new TestClient(required.origin);
    const q = {
      way: 'credentials',
      email: `required-html-${strategy}-${randomUUID().slice(0, 8)}@example.test`,
    } as Person;
    q.id = (await required.adapter.createUser({ id: randomUUID(), email: q.email, emailVerified: new Date() })).id;
    await expectHeld(required, await firstFactor(required, h, q), h);
    const page = await h.get('/auth/two-factor');
    expect(page.status).toBe(200);
    const html = await page.text();
    const secret = /\b[A-Z2-7]{32}\b/.exec(html)?.[0];
    expect(secret).toBeTruthy();
    expect(html).toContain('<svg');
    // Submitted as the browser submits the page's form: its own hidden CSRF token.
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(html)?.[1];
    expect(csrfToken).toBeTruthy();
    const codes = await h.post('/auth/two-factor', {
      csrfToken: csrfToken!,
      code: await nextCode({ secret: secret!, backupCodes: [], lastStep: -Infinity }),
    });
    expect(codes.status).toBe(200);
    expect(codes.headers.get('cache-control')).toBe('no-store');
    expect(setCookie(codes, SESSION)).toBeTruthy();
    const shown = await codes.text();
    const listed = [
      ...(/<ol class="codes" data-backup-codes>([\s\S]*?)<\/ol>/.exec(shown)?.[1] ?? '').matchAll(/<li>([^<]+)<\/li>/g),
    ];
    expect(listed).toHaveLength(10);
    expect(shown).toContain(`href="${callbackOf(required)}"`);
    expect(await me(h)).toBe(q.id);
    expect((await h.get('/mfa/strong')).status).toBe(200);
    // The codes the page listed are the stored ones.
    const k = new TestClient(required.origin);
    await expectHeld(required, await firstFactor(required, k, q), k);
    const listedCode = listed[3]![1]!;
    await expectSignedIn(required, await answer(k, (await challenge(k)).csrfToken, listedCode, 'backup-code'), k, q, [
      'pwd',
      'lookup',
    ]);
  });

  it('policy required: several answers at once to one enrolment store one app, and the backup codes shown work', async () => {
    const c = new TestClient(required.origin);
    const p = { way: 'credentials', email: `race-${strategy}-${randomUUID().slice(0, 8)}@example.test` } as Person;
    p.id = (await required.adapter.createUser({ id: randomUUID(), email: p.email, emailVerified: new Date() })).id;
    await expectHeld(required, await firstFactor(required, c, p), c);
    const page = await challenge(c);
    const code = await nextCode({ secret: page.enrol.secret, backupCodes: [], lastStep: -Infinity });
    const clones = Array.from({ length: MAX_ATTEMPTS }, () => {
      const k = new TestClient(required.origin);
      for (const [name, value] of c.cookies) k.cookies.set(name, value);
      return k;
    });
    const results = await Promise.all(
      clones.map((k) => k.post('/auth/two-factor', { csrfToken: page.csrfToken, code }, { json: true })),
    );
    const winners = results.filter((r) => setCookie(r, SESSION));
    expect(winners).toHaveLength(1);
    const { backupCodes } = (await winners[0]!.json()) as Json;
    const rows = await required.adapter.listTwoFactorsByUserId(p.id);
    expect(rows.filter((r) => r.type === 'totp')).toHaveLength(1);
    expect(rows.filter((r) => r.type === 'backup-code')).toHaveLength(10);

    p.factor = { secret: page.enrol.secret, backupCodes, lastStep: -Infinity };
    const b = new TestClient(required.origin);
    await expectHeld(required, await firstFactor(required, b, p), b);
    await expectSignedIn(
      required,
      await answer(b, (await challenge(b)).csrfToken, backupCodes[0], 'backup-code'),
      b,
      p,
      ['pwd', 'lookup'],
    );
  });

  it('the account API refuses to remove the last app when the policy requires one (LastSignInMethod); with optional it goes and the next sign-in asks for no code', async () => {
    const { c } = await enrolledAtSignIn();
    const listed = (await (await c.get('/auth/account/two-factor', JSON_ACCEPT)).json()) as Json;
    const csrfToken = await c.csrf();
    const refused = await c.post(
      '/auth/account/two-factor/remove',
      { csrfToken, id: listed.factors[0].id },
      { json: true },
    );
    // 400, as the account API answers every refused change (`passkeys/delete` of the last way in too).
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'LastSignInMethod' });
    expect(await (await c.get('/auth/account/two-factor', JSON_ACCEPT)).json()).toEqual(listed);

    const o = new TestClient(site.origin);
    const p = await newPerson(site, 'credentials', o);
    p.factor = await enrol(o);
    const mine = (await (await o.get('/auth/account/two-factor', JSON_ACCEPT)).json()) as Json;
    expect(mine).toEqual({
      factors: [expect.objectContaining({ id: expect.any(String), name: 'Phone' })],
      backupCodesLeft: 10,
      required: false,
    });
    const removed = await o.post(
      '/auth/account/two-factor/remove',
      { csrfToken: await o.csrf(), id: mine.factors[0].id },
      { json: true },
    );
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ removed: true });
    expect(await (await o.get('/auth/account/two-factor', JSON_ACCEPT)).json()).toEqual({
      factors: [],
      backupCodesLeft: 0,
      required: false,
    });
    expect(await site.adapter.listTwoFactorsByUserId(p.id)).toEqual([]);
    const next = new TestClient(site.origin);
    const res = await firstFactor(site, next, p);
    expect(location(res).href).toBe(callbackOf(site));
    expect(setCookie(res, PENDING)).toBeUndefined();
    expect(await me(next)).toBe(p.id);
    expect((await next.get('/mfa/strong')).status).toBe(401);
  });

  it('the stored factors hold neither the secret nor a backup code in clear', async () => {
    const p = await enrolled('credentials');
    const store = (site.adapter as unknown as { twoFactors: Map<string, AdapterTwoFactor> }).twoFactors;
    const rows = [...store.values()].filter((r) => r.userId === p.id);
    expect(rows.map((r) => r.type).sort()).toEqual([...Array(10).fill('backup-code'), 'totp']);
    expectNothingInClear(JSON.stringify(rows), p.factor);
  });
});

/** Neither the base32 secret nor any backup code (as shown, or as typed without dashes) is in `dump`. */
function expectNothingInClear(dump: string, f: Factor): void {
  const text = dump.toLowerCase();
  expect(text).not.toContain(f.secret.toLowerCase());
  expect(f.backupCodes).toHaveLength(10);
  for (const code of f.backupCodes) {
    expect(text).not.toContain(code.toLowerCase());
    expect(text).not.toContain(code.toLowerCase().replace(/-/g, ''));
  }
}

describe('a code by email as the second factor (twoFactor.emailCode, policy required)', () => {
  let t: TestApp;
  let adapter: MemoryAdapter;
  const mails: Array<{ identifier: string; token: string; purpose?: string; url: string }> = [];

  beforeAll(async () => {
    adapter = new RoundTripAdapter();
    t = await createTestApp({
      auth: {
        providers: [
          Email({
            consumeOnGet: true,
            rateLimit: false,
            sendVerificationRequest: (m) => void mails.push(m),
          }),
          Credentials({
            credentials: { email: {}, password: {} },
            async authorize({ email, password }) {
              const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
              return user && password === PASSWORD ? { id: user.id, email: user.email } : null;
            },
          }),
        ],
        adapter,
        trustHost: true,
        // Attempts enough for 50 answers at once to reach the code checks (the lockout is tested above).
        twoFactor: { policy: 'required', emailCode: true, maxAttempts: 100 },
      },
      controllers: [AssuranceController],
    });
  });
  afterAll(async () => t?.close());

  /** A user with a verified address and a password, held after the password in a new browser. */
  async function held(verified = true): Promise<{ c: TestClient; email: string; id: string }> {
    const email = `code-${randomUUID().slice(0, 8)}@example.test`;
    const id = randomUUID();
    await adapter.createUser({ id, email, emailVerified: verified ? new Date() : null });
    const c = new TestClient(t.url);
    const res = await c.post('/auth/callback/credentials', { csrfToken: await c.csrf(), email, password: PASSWORD });
    expect(location(res).pathname).toBe('/auth/two-factor');
    expect(c.cookies.has(SESSION)).toBe(false);
    return { c, email, id };
  }
  const lastMailTo = (email: string) => mails.filter((m) => m.identifier === email).at(-1)!;

  it('a user without an app gets a 6-digit code by email instead of an enrolment; it works once', async () => {
    const { c, email, id } = await held();
    const page = (await (await c.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json;
    expect(page.methods).toEqual(['email-code']);
    expect(page.enrol).toBeUndefined();
    // A GET never sends a mail.
    await c.get('/auth/two-factor?options=email-code', JSON_ACCEPT);
    expect(mails.filter((m) => m.identifier === email)).toHaveLength(0);

    const sent = await c.post(
      '/auth/two-factor',
      { csrfToken: page.csrfToken, method: 'email-code', send: true },
      { json: true },
    );
    expect(sent.status).toBe(200);
    expect(await sent.json()).toEqual({
      method: 'email-code',
      sent: true,
      to: expect.stringMatching(/^c•••@example\.test$/),
      expires: expect.any(String),
    });
    const mail = lastMailTo(email);
    expect(mail).toMatchObject({ purpose: 'two-factor-code', token: expect.stringMatching(/^\d{6}$/) });
    expect(mail.url).toBe(`${t.url}/auth/two-factor`);
    expect(c.cookies.has(SESSION)).toBe(false);

    const done = await c.post('/auth/two-factor', {
      csrfToken: page.csrfToken,
      method: 'email-code',
      code: mail.token,
    });
    expect(done.status).toBe(302);
    expect(await (await c.get('/mfa/assurance')).json()).toEqual({
      amr: expect.arrayContaining(['pwd', 'email', 'mfa']),
      aal: 2,
    });
    expect(((await (await c.get('/mfa/strong')).json()) as Json).id).toBe(id);

    // The same code in the next sign-in: refused.
    const again = new TestClient(t.url);
    await again.post('/auth/callback/credentials', { csrfToken: await again.csrf(), email, password: PASSWORD });
    const csrfToken = ((await (await again.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json).csrfToken;
    const reused = await again.post(
      '/auth/two-factor',
      { csrfToken, method: 'email-code', code: mail.token },
      { json: true },
    );
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as Json).error).toBe('InvalidTwoFactorCode');
    expect(again.cookies.has(SESSION)).toBe(false);
  });

  it('the page offers the mail; a new code replaces the old one; 3 mails per 15 minutes', async () => {
    const { c, email } = await held();
    const html = await (await c.get('/auth/two-factor')).text();
    expect(html).toMatch(/name="send" value="1"/);
    expect(html).not.toMatch(/name="code"/);
    const csrfToken = html.match(/name="csrfToken" value="([^"]+)"/)![1]!;
    const first = await c.post('/auth/two-factor', { csrfToken, method: 'email-code', send: '1' });
    expect(first.status).toBe(200);
    const shown = await first.text();
    expect(shown).toMatch(/name="code"[^>]*autocomplete="one-time-code"/);
    expect(shown).toMatch(/c•••@example\.test/);
    const old = lastMailTo(email).token;
    expect((await c.post('/auth/two-factor', { csrfToken, method: 'email-code', send: '1' })).status).toBe(200);
    const fresh = lastMailTo(email).token;
    expect((await c.post('/auth/two-factor', { csrfToken, method: 'email-code', send: '1' })).status).toBe(200);
    const limited = await c.post('/auth/two-factor', { csrfToken, method: 'email-code', send: true }, { json: true });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    if (old !== fresh) {
      const refused = await c.post('/auth/two-factor', { csrfToken, method: 'email-code', code: old }, { json: true });
      expect(refused.status).toBe(400);
    }
    const latest = lastMailTo(email).token;
    expect((await c.post('/auth/two-factor', { csrfToken, method: 'email-code', code: latest })).status).toBe(302);
  });

  /** Signs `email` in with the password in `n` new browsers at once: each holds its own pending sign-in. */
  async function heldTimes(email: string, n: number): Promise<Array<{ c: TestClient; csrfToken: string }>> {
    return Promise.all(
      Array.from({ length: n }, async () => {
        const c = new TestClient(t.url);
        await c.post('/auth/callback/credentials', { csrfToken: await c.csrf(), email, password: PASSWORD });
        const { csrfToken } = (await (await c.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json;
        return { c, csrfToken };
      }),
    );
  }

  it('fifty sign-ins answering one TOTP code at once: exactly one session; fifty with one backup code: the same', async () => {
    // A user who signed in with an emailed code, then added an app through the account API.
    const { c, email, id } = await held();
    const first = (await (await c.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json;
    await c.post('/auth/two-factor', { csrfToken: first.csrfToken, method: 'email-code', send: true }, { json: true });
    await c.post('/auth/two-factor', {
      csrfToken: first.csrfToken,
      method: 'email-code',
      code: lastMailTo(email).token,
    });
    const f = await enrol(c);

    for (const [method, code] of [
      ['totp', await nextCode(f)],
      ['backup-code', f.backupCodes[0]!],
    ] as const) {
      const browsers = await heldTimes(email, 50);
      const results = await Promise.all(
        browsers.map(({ c: b, csrfToken: token }) => b.post('/auth/two-factor', { csrfToken: token, method, code })),
      );
      const won = browsers.filter((b) => b.c.cookies.has(SESSION));
      expect([method, won.length]).toEqual([method, 1]);
      expect(results.filter((r) => r.status === 302)).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 302)) expect(r.status).toBe(400);
      expect(await (await won[0]!.c.get('/mfa/strong')).json()).toEqual({ id });
    }
  }, 60_000);

  it('never after a magic link (the same inbox would prove both), nor to an unproven address', async () => {
    // A magic link proves the inbox: the second factor must be another one, so the app is enrolled.
    const email = `link-${randomUUID().slice(0, 8)}@example.test`;
    await adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
    const c = new TestClient(t.url);
    await c.post('/auth/signin/email', { csrfToken: await c.csrf(), email });
    const link = new URL(lastMailTo(email).url);
    const res = await c.get(`${link.pathname}${link.search}`);
    expect(location(res).pathname).toBe('/auth/two-factor');
    const page = (await (await c.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json;
    expect(page.methods).toEqual([]);
    expect(page.enrol).toBeDefined();
    const refused = await c.post(
      '/auth/two-factor',
      { csrfToken: page.csrfToken, method: 'email-code', send: true },
      { json: true },
    );
    expect(refused.status).toBe(400);
    // An address nobody proved gets no code either.
    const unproven = await held(false);
    expect(((await (await unproven.c.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json).methods).toEqual([]);
  });
});

sqlite!.describe('two-factor on TypeORM (SQLite), database sessions', () => {
  let db: TestDatabase;
  let t: TestApp;
  let ds: DataSource;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    db = await createDatabase(sqlite!, 'two_factor');
    t = await createTestApp({
      imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })],
      auth: {
        session: { strategy: 'database' },
        providers: [
          Credentials({
            credentials: { email: {}, password: {} },
            authorize: ({ email, password }) =>
              typeof email === 'string' && ids.has(email) && password === PASSWORD
                ? { id: ids.get(email)!, email }
                : null,
          }),
        ],
        twoFactor: { policy: 'optional' },
      },
      controllers: [AssuranceController],
    });
    ds = t.app.get(DataSource);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await dropDatabase(db);
  });

  const count = async (sql: string, params: unknown[]) =>
    Number(((await ds.query(sql, params)) as Array<{ n: unknown }>)[0]!.n);

  it('the two_factors rows hold no secret in clear; a held sign-in writes no session row; the code and a backup code complete it', async () => {
    const email = `typeorm-${randomUUID().slice(0, 8)}@example.test`;
    const userId = randomUUID();
    ids.set(email, userId);
    const signIn = async (c: TestClient) =>
      c.post('/auth/callback/credentials', {
        csrfToken: await c.csrf(),
        email,
        password: PASSWORD,
        callbackUrl: `${t.url}/me`,
      });

    const c = new TestClient(t.url);
    expect(location(await signIn(c)).href).toBe(`${t.url}/me`);
    const f = await enrol(c);

    const rows = (await ds.query('SELECT * FROM two_factors WHERE "userId" = ?', [userId])) as Array<
      Record<string, unknown>
    >;
    expect(rows.map((r) => r.type).sort()).toEqual([...Array(10).fill('backup-code'), 'totp']);
    expectNothingInClear(JSON.stringify(rows), f);

    const sessions = 'SELECT COUNT(*) AS n FROM sessions WHERE "userId" = ?';
    const before = await count(sessions, [userId]);
    const d = new TestClient(t.url);
    const held = await signIn(d);
    expect(location(held).href).toBe(`${t.url}/auth/two-factor`);
    expect(setCookie(held, SESSION)).toBeUndefined();
    expect(await count(sessions, [userId])).toBe(before);
    expect((await d.get('/me')).status).toBe(401);
    const page = (await (await d.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json;
    const done = await d.post('/auth/two-factor', {
      csrfToken: page.csrfToken,
      method: 'totp',
      code: await nextCode(f),
    });
    expect(location(done).href).toBe(`${t.url}/me`);
    expect(await count(sessions, [userId])).toBe(before + 1);
    expect(await (await d.get('/mfa/assurance')).json()).toEqual({ amr: ['pwd', 'otp', 'mfa'], aal: 2 });
    const amr = (await ds.query('SELECT amr FROM sessions WHERE "userId" = ? AND amr IS NOT NULL', [userId])) as Json[];
    // The first sign-in's session (one factor), and the new one.
    expect(amr.map((r) => r.amr).sort()).toEqual(['pwd', 'pwd otp mfa']);

    // A backup code: used once (its row goes), refused the second time.
    const e = new TestClient(t.url);
    expect(location(await signIn(e)).href).toBe(`${t.url}/auth/two-factor`);
    const token = ((await (await e.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json).csrfToken;
    expect(
      location(await e.post('/auth/two-factor', { csrfToken: token, method: 'backup-code', code: f.backupCodes[0]! }))
        .href,
    ).toBe(`${t.url}/me`);
    expect(
      await count('SELECT COUNT(*) AS n FROM two_factors WHERE "userId" = ? AND type = ?', [userId, 'backup-code']),
    ).toBe(9);
    const g = new TestClient(t.url);
    await signIn(g);
    const again = await g.post(
      '/auth/two-factor',
      {
        csrfToken: ((await (await g.get('/auth/two-factor', JSON_ACCEPT)).json()) as Json).csrfToken,
        method: 'backup-code',
        code: f.backupCodes[0]!,
      },
      { json: true },
    );
    expect(again.status).toBe(400);
    expect(g.cookies.has(SESSION)).toBe(false);
  });
});
