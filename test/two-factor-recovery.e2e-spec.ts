/**
 * Recovering an account never skips its second factor, and an administrator's reset
 * (`resetTwoFactor`) ends every session of the user, JWT sessions included. On the platform of the run (Express, or
 * Fastify in the e2e-fastify project), with database and JWT sessions (`jwtRevocation`), for a user with a confirmed
 * authenticator app:
 * - the password reset (README "Forgot password": a magic link proves the address, then the app's
 *   own `POST /forgot-password` sets the password within the recent sign-in window): the link ends at
 *   `{basePath}/two-factor` with no session, so the reset route refuses the browser until the code;
 *   the reset itself starts no session, and the next password sign-in asks for the second factor;
 * - the email change (account API `email`, then the link's `email/confirm`): following the link in a
 *   browser without a session starts none (the link asks it to sign in, through the second factor,
 *   and the change then completes); a magic link to the new address ends at `/two-factor` too, and
 *   one to the old address no longer reaches the account.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Type } from '@nestjs/common';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { verifyPassword } from '../lib/methods/credentials/password.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { totpCode } from '../lib/methods/two-factor/totp.js';
import { decode } from '../lib/session/jwt.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { createTestApp, TEST_PLATFORM, TEST_SECRET, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';
import { readmeSnippet } from './setup/readme.js';

type Json = any;

const SESSION = 'authjs.session-token';
const PENDING = 'authjs.two-factor';
const JSON_ACCEPT = { accept: 'application/json' };
const PERIOD_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The README's "forgot password" route, written as a module next to the sources and imported. */
async function forgotPasswordController(): Promise<Type> {
  const dir = join(process.cwd(), 'test-output', 'readme-snippets');
  mkdirSync(dir, { recursive: true });
  // Its own file: test/forgot-password.e2e-spec.ts may write its copy at the same time.
  const file = join(dir, `forgot-password-two-factor-${TEST_PLATFORM}.ts`);
  writeFileSync(
    file,
    readmeSnippet('forgot-password').code.replace(/from 'nestjs-auth'/g, "from '../../lib/index.js'"),
  );
  return ((await import(file)) as { ForgotPasswordController: Type }).ForgotPasswordController;
}

/** An authenticator app as the test holds it: its secret, its backup codes, the last step it used. */
interface Factor {
  secret: string;
  backupCodes: string[];
  lastStep: number;
}

/**
 * A code of the app's next unused time step that the server accepts now (current step ±1; each
 * step works once). Never within 1.5 s of a step's end.
 */
async function nextCode(f: Factor): Promise<string> {
  const left = PERIOD_MS - (Date.now() % PERIOD_MS);
  if (left < 1500) await sleep(left + 50);
  const now = Math.floor(Date.now() / PERIOD_MS);
  const step = Math.max(now - 1, f.lastStep + 1);
  if (step > now + 1) throw new Error('This factor has used every step the window accepts now: use another user.');
  f.lastStep = step;
  return totpCode(f.secret, { now: step * PERIOD_MS + 1000 });
}

/** The `Set-Cookie` of `name` with a value (not a deletion) in a response, if any. */
const setCookie = (res: Response, name: string) =>
  res.headers.getSetCookie().find((line) => line.startsWith(`${name}=`) && !line.startsWith(`${name}=;`));

describe.each(['database', 'jwt'] as const)('two-factor account recovery with %s sessions', (strategy) => {
  const adapter = new MemoryAdapter();
  /** The `passwordStore`'s hashes, by user id (what a reset writes). */
  const hashes = new Map<string, string>();
  /** Each user's first password, until a hash replaces it (scrypt at its cost for each new user is slow). */
  const initial = new Map<string, string>();
  /** The links the Email provider sent: `sign-in:<address>` and `email-change:<address>`. */
  const links = new Map<string, string>();
  let t: TestApp;
  let origin: string;

  beforeAll(async () => {
    t = await createTestApp({
      controllers: [await forgotPasswordController()],
      auth: {
        adapter,
        trustHost: true,
        // JWT sessions with their index, so an administrator's reset can end them (resetTwoFactor).
        session: strategy === 'jwt' ? { strategy, jwtRevocation: true } : { strategy },
        twoFactor: { policy: 'optional' },
        providers: [
          Email({
            rateLimit: false,
            sendVerificationRequest: ({ identifier, url, purpose }) =>
              void links.set(`${purpose ?? 'sign-in'}:${identifier}`, url),
          }),
          Credentials({
            credentials: { email: { type: 'email' }, password: { type: 'password' } },
            async authorize({ email, password }) {
              const user = await adapter.getUserByEmail(String(email));
              const hash = user ? hashes.get(user.id) : undefined;
              const ok = hash ? await verifyPassword(String(password), hash) : initial.get(user?.id ?? '') === password;
              return ok && user ? { id: user.id, email: user.email, name: user.name ?? null } : null;
            },
            passwordStore: {
              getPasswordHash: (id) => hashes.get(id) ?? null,
              setPasswordHash: (id, hash) => void hashes.set(id, hash),
            },
          }),
        ],
      },
    });
    origin = t.url;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  interface Person {
    id: string;
    email: string;
    password: string;
    factor: Factor;
  }

  const me = async (c: TestClient) => (await c.get('/me')).status;
  const rows = async (userId: string) => (await adapter.listSessionsByUserId(userId)).length;

  /** The magic link most recently sent to `email` for `purpose`, as a URL. */
  function linkTo(purpose: 'sign-in' | 'email-change', email: string): URL {
    const href = links.get(`${purpose}:${email}`);
    if (!href) throw new Error(`no ${purpose} link was sent to ${email}`);
    return new URL(href);
  }

  const passwordSignIn = async (c: TestClient, email: string, password: string, callbackUrl = `${origin}/me`) =>
    c.post('/auth/callback/credentials', { csrfToken: await c.csrf(), email, password, callbackUrl });

  /** Asks for a sign-in link to `email` in `c` and follows it (the confirm page's POST). */
  async function magicLink(c: TestClient, email: string): Promise<Response> {
    links.delete(`sign-in:${email}`);
    const asked = await c.post('/auth/signin/email', { csrfToken: await c.csrf(), email, callbackUrl: `${origin}/me` });
    expect(location(asked).pathname).toBe('/auth/verify-request');
    const link = linkTo('sign-in', email);
    return c.post('/auth/callback/email', { ...Object.fromEntries(link.searchParams), csrfToken: await c.csrf() });
  }

  /**
   * A stored user with a password who added an authenticator app through the account API (in a
   * session of their own, signed in before the app existed, which the test then drops).
   */
  async function personWithApp(): Promise<Person> {
    const tag = `${strategy}-${randomUUID().slice(0, 8)}`;
    const p = { email: `recover-${tag}@example.test`, password: `old password ${tag}` } as Person;
    p.id = (await adapter.createUser({ id: randomUUID(), email: p.email, emailVerified: new Date(), name: tag })).id;
    initial.set(p.id, p.password);
    const e = new TestClient(origin);
    expect(location(await passwordSignIn(e, p.email, p.password)).href).toBe(`${origin}/me`);
    const csrfToken = await e.csrf();
    const started = await e.post('/auth/account/two-factor/totp', { csrfToken }, { json: true });
    expect(started.status).toBe(200);
    const enrolment = (await started.json()) as Json;
    p.factor = { secret: enrolment.secret, backupCodes: [], lastStep: -Infinity };
    const confirmed = await e.post(
      '/auth/account/two-factor/confirm',
      { csrfToken, id: enrolment.id, code: await nextCode(p.factor) },
      { json: true },
    );
    expect(confirmed.status).toBe(200);
    p.factor.backupCodes = ((await confirmed.json()) as Json).backupCodes;
    expect(p.factor.backupCodes).toHaveLength(10);
    return p;
  }

  /** The answer was held for the second factor: the pending cookie only, no session, no new row. */
  async function expectHeld(res: Response, c: TestClient, p: Person, rowsBefore: number): Promise<void> {
    expect(res.status).toBe(302);
    expect(location(res).href).toBe(`${origin}/auth/two-factor`);
    expect(setCookie(res, PENDING)).toMatch(/HttpOnly/i);
    expect(setCookie(res, SESSION)).toBeUndefined();
    expect(c.cookies.has(SESSION)).toBe(false);
    expect(await rows(p.id)).toBe(rowsBefore);
    expect(await me(c)).toBe(401);
    expect(((await (await c.get('/auth/session')).json()) as Json)?.user).toBeUndefined();
  }

  /** Completes the pending sign-in in `c` with the app's code (or a backup code); returns the answer. */
  async function secondFactor(c: TestClient, p: Person, backupCode?: string): Promise<Response> {
    const page = await c.get('/auth/two-factor', JSON_ACCEPT);
    expect(page.status).toBe(200);
    const { csrfToken, methods } = (await page.json()) as Json;
    expect(methods).toEqual(['totp', 'backup-code']);
    return backupCode
      ? c.post('/auth/two-factor', { csrfToken, method: 'backup-code', code: backupCode })
      : c.post('/auth/two-factor', { csrfToken, method: 'totp', code: await nextCode(p.factor) });
  }

  /** `c` now holds a session of `p` that proved `amr` (JWT claims or the session row say so). */
  async function expectSession(c: TestClient, p: Person, amr: string[]): Promise<void> {
    const session = (await (await c.get('/auth/session')).json()) as Json;
    expect(session?.user?.email).toBe(p.email);
    const token = c.cookies.get(SESSION)!;
    expect(token).toBeTruthy();
    if (strategy === 'jwt') {
      const claims = (await decode({ token, secret: TEST_SECRET, salt: SESSION }))!;
      expect(claims.sub).toBe(p.id);
      expect(claims).toMatchObject({ acr: 'aal2', amr: expect.arrayContaining([...amr, 'mfa']) });
    } else {
      const row = (await adapter.listSessionsByUserId(p.id)).find((r) => r.sessionToken === token) as Json;
      expect(row?.amr?.split(' ')).toEqual(expect.arrayContaining([...amr, 'mfa']));
    }
  }

  it("an administrator's resetTwoFactor removes every factor and ends the user's sessions; the next sign-in asks for none", async () => {
    const p = await personWithApp();
    // Two signed-in browsers, each through the second factor.
    const browsers = [new TestClient(origin), new TestClient(origin)];
    for (const c of browsers) {
      const held = await passwordSignIn(c, p.email, p.password);
      expect(location(held).href).toBe(`${origin}/auth/two-factor`);
      expect(location(await secondFactor(c, p)).href).toBe(`${origin}/me`);
      expect(await me(c)).toBe(200);
    }

    expect(await t.app.get(AuthService).resetTwoFactor(p.id)).toBe(11); // the app and its 10 backup codes
    for (const c of browsers) expect(await me(c)).toBe(401);
    expect(await rows(p.id)).toBe(0);

    // The next sign-in asks for no second factor, and its session is one factor.
    const next = new TestClient(origin);
    expect(location(await passwordSignIn(next, p.email, p.password)).href).toBe(`${origin}/me`);
    expect(await me(next)).toBe(200);
    // The old factor's codes are gone with it.
    const section = await next.get('/auth/account/two-factor', JSON_ACCEPT);
    expect(await section.json()).toMatchObject({ factors: [], backupCodesLeft: 0 });
  });

  // promise: two-factor.recovery
  it('a password reset by magic link is held at /two-factor: the reset route refuses the browser until the code, the reset starts no session, and the new password still asks for the second factor', async () => {
    const p = await personWithApp();
    const before = await rows(p.id);
    const c = new TestClient(origin);

    // "Forgot password": the emailed link proves the address, which is one factor.
    const linked = await magicLink(c, p.email);
    await expectHeld(linked, c, p, before);

    // The reset route (AuthGuard + RequireRecentSignIn) refuses the held browser: nothing changes.
    const refused = await c.post('/forgot-password', { newPassword: 'new password 2' }, { json: true });
    expect(refused.status).toBe(401);
    expect(setCookie(refused, SESSION)).toBeUndefined();
    expect(hashes.has(p.id)).toBe(false);
    // The account API's own password change refuses it as well.
    const api = await c.post(
      '/auth/account/password',
      { csrfToken: await c.csrf(), newPassword: 'new password 2' },
      { json: true },
    );
    expect(api.status).toBe(401);
    expect(hashes.has(p.id)).toBe(false);

    // The second factor completes the link's sign-in; then the reset goes through.
    const done = await secondFactor(c, p);
    expect(location(done).href).toBe(`${origin}/me`);
    expect(setCookie(done, SESSION)).toBeTruthy();
    await expectSession(c, p, ['email', 'otp']);
    const rowsAfterSignIn = await rows(p.id);
    expect(rowsAfterSignIn).toBe(before + 1); // a row per session: database rows, and JWT sessions' index (jwtRevocation)
    const reset = await c.post('/forgot-password', { newPassword: 'new password 2' }, { json: true });
    expect(reset.status).toBe(201);
    // Setting the password signs nobody in: no session cookie, no session row.
    expect(setCookie(reset, SESSION)).toBeUndefined();
    expect(await rows(p.id)).toBe(rowsAfterSignIn);
    expect(await verifyPassword('new password 2', hashes.get(p.id)!)).toBe(true);

    // The new password is one factor: held again, in a fresh browser; the old one is refused.
    const d = new TestClient(origin);
    await expectHeld(await passwordSignIn(d, p.email, 'new password 2'), d, p, rowsAfterSignIn);
    const old = await passwordSignIn(new TestClient(origin), p.email, p.password);
    expect(location(old).searchParams.get('error')).toBe('CredentialsSignin');
    expect(setCookie(old, SESSION)).toBeUndefined();
    expect(await rows(p.id)).toBe(rowsAfterSignIn);
  });

  it('an email change confirmed from a browser without a session starts none there: the link asks it to sign in, through the second factor, and only then changes the address', async () => {
    const p = await personWithApp();
    // A session that proved both factors asks for the change (a backup code this time).
    const s = new TestClient(origin);
    await expectHeld(await passwordSignIn(s, p.email, p.password), s, p, await rows(p.id));
    expect(location(await secondFactor(s, p, p.factor.backupCodes[0])).href).toBe(`${origin}/me`);
    await expectSession(s, p, ['pwd', 'lookup']);
    const newEmail = `new-${p.email}`;
    const asked = await s.post('/auth/account/email', { csrfToken: await s.csrf(), email: newEmail }, { json: true });
    expect(asked.status).toBe(200);
    const link = linkTo('email-change', newEmail);
    const fields = { token: link.searchParams.get('token')!, email: link.searchParams.get('email')! };
    const before = await rows(p.id);

    // Another browser, no session: following the link sends it to sign in, and sets no session.
    const x = new TestClient(origin);
    const opened = await x.get(`${link.pathname}${link.search}`);
    expect(opened.status).toBe(302);
    const signIn = location(opened);
    expect(signIn.pathname).toBe('/auth/signin');
    expect(signIn.searchParams.get('callbackUrl')).toBe(link.href);
    expect(setCookie(opened, SESSION)).toBeUndefined();
    // Posting the link's token without a session: refused (form and JSON), nothing set or changed.
    const form = await x.post('/auth/account/email/confirm', { ...fields, csrfToken: await x.csrf() });
    expect(form.status).toBe(302);
    expect(location(form).pathname).toBe('/auth/signin');
    const json = await x.post('/auth/account/email/confirm', { ...fields, csrfToken: await x.csrf() }, { json: true });
    expect(json.status).toBe(401);
    expect(await json.json()).toMatchObject({ error: 'SessionRequired' });
    for (const res of [form, json]) expect(setCookie(res, SESSION)).toBeUndefined();
    expect(x.cookies.has(SESSION)).toBe(false);
    expect(await rows(p.id)).toBe(before);
    expect((await adapter.getUser(p.id))?.email).toBe(p.email);

    // Signing in there, as the link asked, is held for the second factor: the pending state is no
    // session for the confirmation either.
    await expectHeld(await passwordSignIn(x, p.email, p.password, link.href), x, p, before);
    const held = await x.post('/auth/account/email/confirm', { ...fields, csrfToken: await x.csrf() }, { json: true });
    expect(held.status).toBe(401);
    expect(setCookie(held, SESSION)).toBeUndefined();
    expect((await adapter.getUser(p.id))?.email).toBe(p.email);

    // The code completes the sign-in, back to the link; its page's form confirms the change.
    const done = await secondFactor(x, p);
    expect(location(done).href).toBe(link.href);
    await expectSession(x, p, ['pwd', 'otp']);
    const page = await x.get(`${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    const sessionCookie = x.cookies.get(SESSION);
    const confirmed = await x.post(
      '/auth/account/email/confirm',
      { ...fields, csrfToken: await x.csrf() },
      { json: true },
    );
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toMatchObject({ ok: true, email: newEmail });
    // Confirming starts no session of its own.
    expect(setCookie(confirmed, SESSION)).toBeUndefined();
    expect(x.cookies.get(SESSION)).toBe(sessionCookie);
    expect(await rows(p.id)).toBe(before + 1); // a row per session: database rows, and JWT sessions' index (jwtRevocation)
    expect((await adapter.getUser(p.id))?.email).toBe(newEmail);
  });

  it('after an email change, a magic link to the new address is held at /two-factor and the code completes it; a link to the old address no longer reaches the account', async () => {
    const p = await personWithApp();
    // The change, from a session with both factors.
    const s = new TestClient(origin);
    await expectHeld(await passwordSignIn(s, p.email, p.password), s, p, await rows(p.id));
    expect(location(await secondFactor(s, p, p.factor.backupCodes[1])).href).toBe(`${origin}/me`);
    const newEmail = `moved-${p.email}`;
    expect(
      (await s.post('/auth/account/email', { csrfToken: await s.csrf(), email: newEmail }, { json: true })).status,
    ).toBe(200);
    const link = linkTo('email-change', newEmail);
    const confirmed = await s.post(
      '/auth/account/email/confirm',
      { token: link.searchParams.get('token')!, email: newEmail, csrfToken: await s.csrf() },
      { json: true },
    );
    expect(confirmed.status).toBe(200);
    expect((await adapter.getUser(p.id))?.email).toBe(newEmail);
    const before = await rows(p.id);

    // The new address is the account's: its magic link is one factor, held like any other.
    const y = new TestClient(origin);
    await expectHeld(await magicLink(y, newEmail), y, p, before);
    const done = await secondFactor(y, p);
    expect(location(done).href).toBe(`${origin}/me`);
    await expectSession(y, { ...p, email: newEmail }, ['email', 'otp']);
    expect(((await (await y.get('/me')).json()) as Json).user.id).toBe(p.id);

    // The password with the new address: held too.
    const z = new TestClient(origin);
    await expectHeld(await passwordSignIn(z, newEmail, p.password), z, p, await rows(p.id));

    // The old address belongs to nobody now: its link signs in someone else (a new user), never
    // this account, and adds no session of it.
    const rowsNow = await rows(p.id);
    const o = new TestClient(origin);
    const old = await magicLink(o, p.email);
    expect(setCookie(old, PENDING)).toBeUndefined();
    const someone = ((await (await o.get('/me')).json()) as Json).user;
    expect(someone.id).not.toBe(p.id);
    expect(someone.email).toBe(p.email);
    expect(await rows(p.id)).toBe(rowsNow);
  });
});
