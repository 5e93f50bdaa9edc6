/**
 * Valid material for the fuzzer, obtained from the app with ordinary requests over the same raw
 * socket (so the headers are exactly what a plain browser-less client sends): a CSRF pair, a
 * signed-in session, an OAuth sign-in in progress with a real code, WebAuthn challenges.
 */
import {
  DEVICE_COOKIE,
  PENDING_COOKIE,
  type CookiePair,
  type Fixtures,
  type OAuthInProgress,
  type PendingFixture,
  type SignedIn,
  type WebAuthnRegisterOptions,
} from './generator.js';
import { buildRequest, sendRaw, type HeaderLine, type WireResponse } from './wire.js';

export interface FixtureTarget {
  port: number;
  /** The configured public origin (sent as Host). */
  origin: string;
  /** The user the fixture session belongs to (never named by the fuzzer). */
  user: { username: string; password: string };
  /**
   * The stale browser: `session()` makes a new session of a user that signed in longer ago than
   * `account.recentSignInMaxAge`; `idpUser(who)` makes the next OAuth authorization one of a new IdP
   * account (so a stale browser's OAuth sign-in could attach an account nobody has).
   */
  stale?: { session(): Promise<CookiePair[]>; idpUser(who: string): void };
}

/** One ordinary request: cookies and a form or JSON body, `Host` the public host. */
export async function call(
  target: Pick<FixtureTarget, 'port' | 'origin'>,
  method: string,
  path: string,
  options: { cookies?: CookiePair[]; form?: Record<string, string>; json?: unknown } = {},
): Promise<WireResponse> {
  const headers: HeaderLine[] = [['Host', new URL(target.origin).host]];
  if (options.cookies?.length) headers.push(['Cookie', options.cookies.map(([n, v]) => `${n}=${v}`).join('; ')]);
  let body: Buffer | undefined;
  if (options.form) {
    headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
    body = Buffer.from(new URLSearchParams(options.form).toString());
  } else if (options.json !== undefined) {
    headers.push(['Content-Type', 'application/json']);
    body = Buffer.from(JSON.stringify(options.json));
  }
  return sendRaw(target.port, buildRequest(`${method} ${path} HTTP/1.1`, headers, body));
}

/** The cookies an answer sets (name and value), deletions left out. */
export function setCookiePairs(res: WireResponse): CookiePair[] {
  const out: CookiePair[] = [];
  for (const line of res.setCookies) {
    const pair = line.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const value = pair.slice(eq + 1).trim();
    if (value !== '' && !/;\s*max-age=0\b/i.test(line)) out.push([pair.slice(0, eq).trim(), value]);
  }
  return out;
}

function expectStatus(res: WireResponse, status: number, what: string): void {
  if (res.status !== status)
    throw new Error(
      `${what}: expected ${status}, got ${res.status} ${res.headers.location ?? ''} ${res.body.slice(0, 200)}`,
    );
}

/** A fresh anonymous CSRF pair. */
export async function anonymousCsrf(target: FixtureTarget): Promise<Fixtures['anon']> {
  const res = await call(target, 'GET', '/auth/csrf');
  expectStatus(res, 200, 'GET /auth/csrf');
  const cookie = setCookiePairs(res).find(([n]) => n === 'authjs.csrf-token');
  if (!cookie) throw new Error('GET /auth/csrf set no CSRF cookie');
  return { cookie, token: (JSON.parse(res.body) as { csrfToken: string }).csrfToken };
}

/** Signs `user` in with credentials; returns the session cookies and a CSRF pair bound to the session. */
export async function credentialsSignIn(
  target: FixtureTarget,
  user: FixtureTarget['user'],
  anon: Fixtures['anon'],
): Promise<NonNullable<Fixtures['user']>> {
  const res = await call(target, 'POST', '/auth/callback/credentials', {
    cookies: [anon.cookie],
    form: { csrfToken: anon.token, username: user.username, password: user.password, callbackUrl: '/me' },
  });
  expectStatus(res, 302, `credentials sign-in of ${user.username}`);
  if (res.headers.location !== `${target.origin}/me`)
    throw new Error(`credentials sign-in of ${user.username} went to ${res.headers.location}`);
  const session = setCookiePairs(res).filter(([n]) => n.startsWith('authjs.session-token'));
  if (session.length === 0) throw new Error(`credentials sign-in of ${user.username} set no session cookie`);
  return withBoundCsrf(target, session, anon, `credentials sign-in of ${user.username}`);
}

/** A session's CSRF pair (bound to its user) and its token as one value. */
async function withBoundCsrf(
  target: Pick<FixtureTarget, 'port' | 'origin'>,
  session: CookiePair[],
  anon: Fixtures['anon'],
  what: string,
): Promise<SignedIn> {
  const bound = await call(target, 'GET', '/auth/csrf', { cookies: [...session, anon.cookie] });
  expectStatus(bound, 200, `GET /auth/csrf after the ${what}`);
  const csrf = setCookiePairs(bound).find(([n]) => n === 'authjs.csrf-token');
  if (!csrf) throw new Error(`GET /auth/csrf after the ${what} set no bound CSRF cookie`);
  const sessionToken =
    session.length === 1
      ? session[0]![1]
      : session
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([, v]) => v)
          .join('');
  return { session, sessionToken, csrf, token: (JSON.parse(bound.body) as { csrfToken: string }).csrfToken };
}

/**
 * Starts an OAuth sign-in (with `cookies` and `token`: anonymous, or a signed-in browser's), lets
 * the test server approve it and keeps the code it sends back. Undefined when the app refuses to
 * start it (a stale browser may be refused).
 */
async function startOAuth(
  target: Pick<FixtureTarget, 'port' | 'origin'>,
  cookies: CookiePair[],
  token: string,
  required: boolean,
): Promise<OAuthInProgress | undefined> {
  const start = await call(target, 'POST', '/auth/signin/oauth', {
    cookies,
    form: { csrfToken: token, callbackUrl: '/me' },
  });
  const to = start.headers.location ?? '';
  if (!required && (start.status !== 302 || to.startsWith(target.origin))) return undefined;
  expectStatus(start, 302, 'POST /auth/signin/oauth');
  const checks = setCookiePairs(start).filter(
    ([name]) => name !== 'authjs.csrf-token' && name !== 'authjs.callback-url',
  );
  const approved = await fetch(to, { redirect: 'manual' });
  const back = new URL(approved.headers.get('location') ?? '', target.origin);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`the OAuth test server sent no code back: ${back.href}`);
  return { cookies: checks, state: back.searchParams.get('state') ?? undefined, code };
}

/** Everything the generator draws on, fetched anew (`n` keeps addresses apart between refreshes). */
export async function refreshFixtures(target: FixtureTarget, n: number, emailLinks: string[]): Promise<Fixtures> {
  const anon = await anonymousCsrf(target);
  const user = await credentialsSignIn(target, target.user, anon);

  // OAuth: start a sign-in, let the test server approve it, keep the code it sends back.
  target.stale?.idpUser(`anon-${n}`);
  const oauth = await startOAuth(target, [anon.cookie], anon.token, true);

  // The stale browser: an old session, its CSRF pair, and an OAuth sign-in it started for a new
  // IdP account (what an attacker holding an old cookie would complete with their own account).
  let stale: SignedIn | undefined;
  let oauthStale: OAuthInProgress | undefined;
  if (target.stale) {
    stale = await withBoundCsrf(target, await target.stale.session(), anon, 'stale session');
    target.stale.idpUser(`stale-${n}`);
    oauthStale = await startOAuth(target, [...stale.session, stale.csrf], stale.token, false);
  }

  // WebAuthn: one registration and one authentication challenge.
  const webauthn: Fixtures['webauthn'] = {};
  const reg = await call(
    target,
    'GET',
    `/auth/webauthn-options/passkey?action=register&email=fz-reg-${n}%40example.test`,
  );
  expectStatus(reg, 200, 'GET /auth/webauthn-options/passkey?action=register');
  const regCookie = setCookiePairs(reg).find(([name]) => name === 'authjs.challenge');
  if (regCookie)
    webauthn.register = {
      cookie: regCookie,
      options: (JSON.parse(reg.body) as { options: WebAuthnRegisterOptions }).options,
    };
  const regUser = await call(target, 'GET', '/auth/webauthn-options/passkey?action=register', {
    cookies: user.session,
  });
  expectStatus(regUser, 200, 'GET /auth/webauthn-options/passkey?action=register with a session');
  const regUserCookie = setCookiePairs(regUser).find(([name]) => name === 'authjs.challenge');
  if (regUserCookie)
    webauthn.registerAsUser = {
      cookie: regUserCookie,
      options: (JSON.parse(regUser.body) as { options: WebAuthnRegisterOptions }).options,
    };
  if (stale) {
    // Refused (403) once passkey registration needs a recent sign-in; fuzzed with when handed out.
    const regStale = await call(target, 'GET', '/auth/webauthn-options/passkey?action=register', {
      cookies: stale.session,
    });
    const regStaleCookie = setCookiePairs(regStale).find(([name]) => name === 'authjs.challenge');
    if (regStale.status === 200 && regStaleCookie)
      webauthn.registerAsStale = {
        cookie: regStaleCookie,
        options: (JSON.parse(regStale.body) as { options: WebAuthnRegisterOptions }).options,
      };
  }
  const auth = await call(target, 'GET', '/auth/webauthn-options/passkey?action=authenticate');
  expectStatus(auth, 200, 'GET /auth/webauthn-options/passkey?action=authenticate');
  const authCookie = setCookiePairs(auth).find(([name]) => name === 'authjs.challenge');
  if (authCookie)
    webauthn.authenticate = {
      cookie: authCookie,
      options: (JSON.parse(auth.body) as { options: { challenge: string; rpId?: string } }).options,
    };

  // A magic link (the provider's sender keeps it in `emailLinks`).
  const mail = await call(target, 'POST', '/auth/signin/email', {
    cookies: [anon.cookie],
    form: { csrfToken: anon.token, email: `fz-link-${n}@example.test`, callbackUrl: '/me' },
  });
  expectStatus(mail, 302, 'POST /auth/signin/email');

  return { anon, user, stale, oauth, oauthStale, webauthn, emailLinks };
}

/**
 * A credentials sign-in of `user`, who has a second factor: held, it answers with the redirect to
 * `{basePath}/two-factor` and the pending cookie, and nothing else (throws on a session cookie).
 */
export async function heldSignIn(
  target: Pick<FixtureTarget, 'port' | 'origin'>,
  user: FixtureTarget['user'],
  anon: Fixtures['anon'],
): Promise<CookiePair> {
  const res = await call(target, 'POST', '/auth/callback/credentials', {
    cookies: [anon.cookie],
    form: { csrfToken: anon.token, username: user.username, password: user.password, callbackUrl: '/me' },
  });
  const what = `credentials sign-in of ${user.username}, who has a second factor`;
  expectStatus(res, 302, what);
  if (res.headers.location !== `${target.origin}/auth/two-factor`)
    throw new Error(`${what} went to ${res.headers.location}`);
  const cookies = setCookiePairs(res);
  const session = cookies.filter(([n]) => n.includes('session-token'));
  if (session.length > 0) throw new Error(`${what} set a session cookie: ${session.map(([n]) => n).join(', ')}`);
  const pending = cookies.find(([n]) => n === PENDING_COOKIE);
  if (!pending) throw new Error(`${what} set no ${PENDING_COOKIE} cookie`);
  return pending;
}

/**
 * A browser `user` (who has a second factor) told not to be asked again, through the real flow: a
 * credentials sign-in held for the second factor, then the challenge answered with `backupCode` and
 * the "don't ask again on this device" box ticked. Returns the `authjs.two-factor-device` cookie it
 * set and the session the sign-in made (which the caller ends or keeps).
 */
export async function rememberedDevice(
  target: FixtureTarget,
  user: FixtureTarget['user'],
  backupCode: string,
): Promise<{ device: CookiePair; session: CookiePair[] }> {
  const anon = await anonymousCsrf(target);
  const pending = await heldSignIn(target, user, anon);
  const res = await call(target, 'POST', '/auth/two-factor', {
    cookies: [anon.cookie, pending],
    form: { csrfToken: anon.token, method: 'backup-code', code: backupCode, remember: '1' },
  });
  const what = `the second factor of ${user.username}, answered with a backup code and the box ticked`;
  expectStatus(res, 302, what);
  if (res.headers.location !== `${target.origin}/me`) throw new Error(`${what} went to ${res.headers.location}`);
  const cookies = setCookiePairs(res);
  const device = cookies.find(([n]) => n === DEVICE_COOKIE);
  if (!device) throw new Error(`${what} set no ${DEVICE_COOKIE} cookie`);
  const session = cookies.filter(([n]) => n.startsWith('authjs.session-token'));
  if (session.length === 0) throw new Error(`${what} set no session cookie`);
  return { device, session };
}

/**
 * A credentials sign-in of `user` from a fresh anonymous browser holding `cookies` (a device cookie):
 * the answer, whatever it is.
 */
export async function signInWith(
  target: FixtureTarget,
  user: FixtureTarget['user'],
  cookies: CookiePair[],
): Promise<WireResponse> {
  const anon = await anonymousCsrf(target);
  return call(target, 'POST', '/auth/callback/credentials', {
    cookies: [anon.cookie, ...cookies],
    form: { csrfToken: anon.token, username: user.username, password: user.password, callbackUrl: '/me' },
  });
}

/** What the pending-state suite's fixtures need besides the app: alice (who has a second factor) and her ids. */
export interface PendingFixtureTarget extends FixtureTarget {
  held: FixtureTarget['user'] & { email: string; userId: string; factorIds(): Promise<string[]> };
  /** The id of `user` (who has no second factor). */
  userId: string;
}

/**
 * The fixtures of the pending-state suite (`two-factor.fuzz.e2e-spec.ts`; an app with credentials
 * and magic links): an anonymous CSRF pair, a signed-in user without a second factor, alice's sign-in
 * held for her second factor (a fresh pending cookie made with the anonymous pair), and magic links
 * to her address and to a new one.
 */
export async function refreshPendingFixtures(
  target: PendingFixtureTarget,
  n: number,
  emailLinks: string[],
): Promise<Fixtures> {
  const anon = await anonymousCsrf(target);
  const user = await credentialsSignIn(target, target.user, anon);
  const pending: PendingFixture = {
    cookie: await heldSignIn(target, target.held, anon),
    userId: target.held.userId,
    factorIds: await target.held.factorIds(),
    otherUserId: target.userId,
  };
  for (const email of [target.held.email, `fz-link-${n}@example.test`]) {
    const mail = await call(target, 'POST', '/auth/signin/email', {
      cookies: [anon.cookie],
      form: { csrfToken: anon.token, email, callbackUrl: '/me' },
    });
    expectStatus(mail, 302, `POST /auth/signin/email for ${email}`);
  }
  return { anon, user, webauthn: {}, emailLinks, pending };
}
