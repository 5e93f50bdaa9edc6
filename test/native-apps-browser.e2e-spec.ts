/**
 * Native apps (RFC 8252) with real Chromium as the system browser, on the platform of the run
 * (Express, or Fastify in the e2e-fastify project), and `oauth4webapi` as a desktop app: the app
 * listens on a loopback HTTP server (127.0.0.1, a random port) registered as
 * `http://127.0.0.1/callback` (any port, RFC 8252 section 7.3), opens the authorization URL in the
 * browser, receives the redirect with `code`, `state` and `iss` on that server, and exchanges the
 * code with its PKCE verifier. The ways in: a password typed with the keyboard on the built-in
 * sign-in page; a real OpenID Provider (`oidc-provider`) through its button; a passkey (DevTools'
 * virtual authenticator, on http://localhost, a secure context); a password and an authenticator
 * app's code on the two-factor page; a browser already signed in, which confirms on the "Continue to
 * {app}" page (axe: no WCAG 2.1 A/AA violation, on a desktop and a phone), or takes "Use another
 * account" there (`prompt=login`) and signs in as someone else. Each access token is
 * verified from the JWKS alone, answers the guarded `/me`, and carries the `amr` and `acr` of the
 * sign-in. The HTTP-level matrix (refresh, revocation, hostile input) is in native-apps.e2e-spec.ts.
 * Screenshots go to test-output/native-apps-<platform>/.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import { nextCode, type TotpFactor as Factor } from './setup/totp-clock.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { CHROMIUM, chromiumAvailable, VIRTUAL_PLATFORM_AUTHENTICATOR } from './setup/ci.js';
import { location, TestClient } from './setup/http-client.js';
import { startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { opProvider } from './setup/oidc-sign-in.js';
import { checkState, CHROMIUM_ARGS, DESKTOP, focused, PASSWORD, shotsDir } from './setup/signin-browser.js';

// Strict under any CI value but empty, `false` or `0` (isStrictCi): a missing Chromium then fails.
const describeBrowser = chromiumAvailable('native-apps-browser.e2e-spec') ? describe : describe.skip;

/** The access tokens' issuer (and audience): what the app's oauth4webapi expects in `iss`. */
const ISSUER = 'https://api.example.test/auth';
const CLIENT_ID = 'desktop';
const APP_NAME = 'Acme Desktop';
/** Registered without a port: a loopback redirect URI matches at any port (RFC 8252 section 7.3). */
const LOOPBACK_REDIRECT = 'http://127.0.0.1/callback';
const OP_CLIENT = 'native-apps-browser';

/**
 * The desktop app's redirect listener: an HTTP server on 127.0.0.1 at a port the system chose, which
 * takes one redirect on `/callback`, answers the browser with a page saying to go back to the app,
 * and hands the URL to the app.
 */
async function loopback(): Promise<{ redirectUri: string; received: Promise<URL>; close(): Promise<void> }> {
  let deliver!: (url: URL) => void;
  const received = new Promise<URL>((resolve) => (deliver = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(
      '<!DOCTYPE html><html lang="en"><title>Signed in</title><h1>You can close this window and return to the app.</h1>',
    );
    deliver(url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Where a page stopped, and the start of what it says (for a failure's message). */
async function whereIs(page: Page): Promise<string> {
  const text = await page
    .locator('body')
    .textContent({ timeout: 1000 })
    .catch(() => null);
  return `${page.url()}: ${(text ?? '').trim().slice(0, 300)}`;
}

/** What the app gets at the end of a sign-in: the redirect its loopback server received, the tokens, the claims. */
interface AppSignIn {
  redirect: URL;
  tokens: oauth.TokenEndpointResponse;
  claims: JWTPayload & { amr?: string[]; acr?: string; client_id?: string; email?: string };
}

describeBrowser('native apps (RFC 8252) with Chromium as the system browser', () => {
  let adapter: MemoryAdapter;
  let op: TestOidcProvider;
  let t: TestApp;
  /** http://localhost:<port>: a secure context, the passkeys' relying party. */
  let origin: string;
  let browser: Browser;
  const SHOTS = shotsDir('native-apps');

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    [op, browser] = await Promise.all([
      startOidcProvider(),
      chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
    ]);
    t = await createTestApp({
      auth: {
        adapter,
        session: { strategy: 'database' },
        logger: { error: () => undefined, warn: () => undefined },
        // http://localhost is where the passkeys' relying party is: trust the Host header there.
        trustHost: true,
        twoFactor: { policy: 'optional' },
        accessToken: { issuer: ISSUER },
        nativeApps: { clients: [{ clientId: CLIENT_ID, name: APP_NAME, redirectUris: [LOOPBACK_REDIRECT] }] },
        providers: [
          Credentials({
            name: 'Password',
            credentials: {
              email: { label: 'Email address', type: 'email', required: true },
              password: { label: 'Password', type: 'password', required: true },
            },
            async authorize({ email, password }) {
              const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
              return user && password === PASSWORD ? { id: user.id, email: user.email, name: user.name ?? null } : null;
            },
          }),
          // No autofill (conditional UI): the virtual authenticator would answer it at once.
          Passkey({ enableConditionalUI: false }),
          opProvider(op, 'idp', OP_CLIENT, { name: 'Acme ID' }),
        ],
      },
    });
    origin = t.url.replace('127.0.0.1', 'localhost');
    await op.addClient({
      client_id: OP_CLIENT,
      client_secret: `${OP_CLIENT}-secret`,
      redirect_uris: [`${origin}/auth/callback/idp`],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await op?.close();
  });

  /** The app's side: oauth4webapi's view of this server. */
  function app() {
    const as: oauth.AuthorizationServer = {
      issuer: ISSUER,
      authorization_endpoint: `${origin}/auth/authorize`,
      token_endpoint: `${t.url}/auth/token`,
      jwks_uri: `${t.url}/auth/jwks`,
      authorization_response_iss_parameter_supported: true,
    };
    const client: oauth.Client = { client_id: CLIENT_ID };
    return { as, client };
  }

  /**
   * A sign-in as the desktop app makes it: its loopback server, a new authorization request (PKCE
   * S256, state), the URL for the browser; `finish` awaits the redirect on the loopback server and
   * exchanges the code, then checks the access token from the JWKS alone and on `/me`.
   */
  async function startSignIn() {
    const { as, client } = app();
    const listener = await loopback();
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', CLIENT_ID);
    url.searchParams.set('redirect_uri', listener.redirectUri);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);
    return {
      url,
      redirectUri: listener.redirectUri,
      close: listener.close,
      /** The redirect, the code exchange and the token's checks; `email` is whom `/me` must answer. */
      async finish(page: Page, email: string): Promise<AppSignIn> {
        try {
          // The browser lands on the app's own page (or the test says where it stopped instead).
          await page
            .waitForURL((u) => u.href.startsWith(`${listener.redirectUri}?`), { timeout: 20_000 })
            .catch(async () => {
              throw new Error(`The browser never reached the app: ${await whereIs(page)}`);
            });
          const redirect = await listener.received;
          expect(redirect.searchParams.get('code')).toEqual(expect.any(String));
          expect(redirect.searchParams.get('state')).toBe(state);
          expect(redirect.searchParams.get('iss')).toBe(ISSUER);
          const params = oauth.validateAuthResponse(as, client, redirect, state);
          const res = await oauth.authorizationCodeGrantRequest(
            as,
            client,
            oauth.None(),
            params,
            listener.redirectUri,
            verifier,
            { [oauth.allowInsecureRequests]: true },
          );
          const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
          expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: expect.any(Number) });
          expect(tokens.refresh_token).toEqual(expect.any(String));
          // What another service does: jose and the JWKS route only.
          const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(as.jwks_uri!)), {
            issuer: ISSUER,
            audience: ISSUER,
            typ: 'at+jwt',
            algorithms: ['EdDSA'],
          });
          expect(payload).toMatchObject({ client_id: CLIENT_ID, email });
          const me = await fetch(`${t.url}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
          expect(me.status).toBe(200);
          expect(((await me.json()) as { user: { email: string } }).user.email).toBe(email);
          return { redirect, tokens, claims: payload as AppSignIn['claims'] };
        } finally {
          await listener.close();
        }
      },
    };
  }

  /** A fresh browser (no cookies) at the desktop size. */
  async function fresh(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.log('[browser error]', e.message));
    return { context, page };
  }

  /** A new user with the password. */
  async function newUser(tag: string): Promise<string> {
    const email = `${tag}-${randomUUID().slice(0, 8)}@example.test`;
    await adapter.createUser({ id: randomUUID(), email, emailVerified: new Date(), name: tag });
    return email;
  }

  /**
   * The app opens its authorization URL in the browser, which is not signed in: the sign-in page,
   * whose `callbackUrl` is the authorization request.
   */
  async function openInBrowser(page: Page, url: URL): Promise<void> {
    await page.goto(url.href);
    const at = new URL(page.url());
    expect(at.origin + at.pathname).toBe(`${origin}/auth/signin`);
    expect(at.searchParams.get('callbackUrl')).toBe(url.href);
  }

  /**
   * The password on the (identifier-first) sign-in page, with the keyboard only: Tab past the
   * provider's button to the address, Enter, the password (focused), Enter.
   */
  async function typePassword(page: Page, email: string): Promise<void> {
    const stops: string[] = [];
    while (stops.at(-1) !== 'email' && stops.length < 5) {
      await page.keyboard.press('Tab');
      stops.push((await focused(page)).name ?? '');
    }
    // The OpenID Provider's button comes first on the page.
    expect(stops).toEqual(['BUTTON', 'email']);
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.searchParams.get('step') === 'methods');
    expect((await focused(page)).name).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
  }

  it('a password typed on the sign-in page: the loopback server gets code, state and iss; the token answers /me with amr pwd', async () => {
    const email = await newUser('pat');
    const { context, page } = await fresh();
    const signIn = await startSignIn();
    try {
      await openInBrowser(page, signIn.url);
      // The redirect to the app, as the browser makes it.
      const toApp = page.waitForRequest((r) => r.url().startsWith(`${signIn.redirectUri}?`));
      // Awaited below; a step failing before that closes the page, which rejects it: not unhandled.
      toApp.catch(() => undefined);
      await typePassword(page, email);
      expect(new URL((await toApp).url()).searchParams.get('code')).toEqual(expect.any(String));
      const { claims } = await signIn.finish(page, email);
      expect(claims).toMatchObject({ amr: ['pwd'], acr: 'aal1' });
      expect(await page.locator('h1').textContent()).toBe('You can close this window and return to the app.');
      // The check cookie that remembered the request is gone once the code went out.
      expect((await context.cookies()).map((c) => c.name)).not.toContain('authjs.native-authorize');
    } finally {
      await signIn.close();
      await context.close();
    }
  });

  it('an OpenID Provider through its button on the sign-in page: back to the app with amr fed', async () => {
    const email = `fed-${randomUUID().slice(0, 8)}@example.test`;
    op.signInAs({ sub: `fed-${randomUUID()}`, email, email_verified: true, name: 'Fed User' });
    const { context, page } = await fresh();
    const signIn = await startSignIn();
    try {
      await openInBrowser(page, signIn.url);
      const visited: string[] = [];
      page.on('request', (r) => void (r.isNavigationRequest() && visited.push(new URL(r.url()).origin)));
      await page.getByRole('button', { name: 'Sign in with Acme ID' }).click();
      const { claims } = await signIn.finish(page, email);
      // Through the provider's own pages, then the app's callback, then the app.
      expect(visited).toContain(op.issuer);
      expect(claims).toMatchObject({ amr: ['fed'], acr: 'aal1' });
    } finally {
      await signIn.close();
      await context.close();
    }
  });

  it('a passkey: created on the sign-in page, then, signed out, "Sign in with a passkey" signs the app in with amr hwk', async () => {
    const email = `key-${randomUUID().slice(0, 8)}@example.test`;
    const { context, page } = await fresh();
    const signIn = await startSignIn();
    try {
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', { options: VIRTUAL_PLATFORM_AUTHENTICATOR });
      // Sign up with a passkey on the site itself, then sign out.
      await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/me`)}`);
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL((u) => u.searchParams.get('step') === 'methods');
      await Promise.all([
        page.waitForURL(`${origin}/me`),
        page.getByRole('button', { name: 'Create a passkey' }).click(),
      ]);
      await page.goto(`${origin}/auth/signout`);
      await Promise.all([
        page.waitForURL((u) => u.pathname !== '/auth/signout'),
        page.getByRole('button', { name: 'Sign out' }).click(),
      ]);
      expect((await context.request.get(`${origin}/me`)).status()).toBe(401);

      // The app asks; the passkey (discoverable: no address typed) answers.
      await openInBrowser(page, signIn.url);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      const { claims } = await signIn.finish(page, email);
      expect(claims.amr).toContain('hwk');
      expect(claims).toMatchObject({ amr: ['hwk', 'user', 'mfa'], acr: 'aal2' });
    } finally {
      await signIn.close();
      await context.close();
    }
  });

  it('a password and an authenticator app: the two-factor page, then the app gets tokens with acr aal2', async () => {
    const email = await newUser('otp');
    // The authenticator app, added through the account API of a session of the user's (over HTTP).
    const c = new TestClient(origin);
    const signedIn = await c.post('/auth/callback/credentials', {
      csrfToken: await c.csrf(),
      email,
      password: PASSWORD,
    });
    expect(location(signedIn).pathname).not.toContain('/auth/');
    const csrfToken = await c.csrf();
    const started = await c.post('/auth/account/two-factor/totp', { csrfToken }, { json: true });
    expect(started.status).toBe(200);
    const enrolment = (await started.json()) as { id: string; secret: string };
    const factor: Factor = { secret: enrolment.secret, lastStep: -Infinity };
    const confirmed = await c.post(
      '/auth/account/two-factor/confirm',
      { csrfToken, id: enrolment.id, code: await nextCode(factor), name: 'Phone' },
      { json: true },
    );
    expect(confirmed.status).toBe(200);

    const { context, page } = await fresh();
    const signIn = await startSignIn();
    try {
      await openInBrowser(page, signIn.url);
      await typePassword(page, email);
      await page.waitForURL(`${origin}/auth/two-factor`);
      expect((await focused(page)).name).toBe('code');
      await page.keyboard.type(await nextCode(factor));
      await page.keyboard.press('Enter');
      const { claims } = await signIn.finish(page, email);
      expect(claims).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'aal2' });
    } finally {
      await signIn.close();
      await context.close();
    }
  });

  it('a browser already signed in: "Continue to <app>" (axe: no violations), and Continue sends the code', async () => {
    const email = await newUser('sam');
    const { context, page } = await fresh();
    const signIn = await startSignIn();
    try {
      // Signed in on the site itself first.
      await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/me`)}`);
      await typePassword(page, email);
      await page.waitForURL(`${origin}/me`);

      await page.goto(signIn.url.href);
      expect(page.url()).toBe(signIn.url.href);
      expect(await page.locator('h1').textContent()).toBe(`Continue to ${APP_NAME}`);
      expect(await page.getByText(`${APP_NAME} asks to sign you in as ${email}.`).count()).toBe(1);
      expect(await page.getByRole('link', { name: 'Use another account' }).count()).toBe(1);
      await checkState(page, SHOTS, 'continue');
      const toApp = page.waitForRequest((r) => r.url().startsWith(`${signIn.redirectUri}?`));
      // Awaited below; a step failing before that closes the page, which rejects it: not unhandled.
      toApp.catch(() => undefined);
      await page.getByRole('button', { name: 'Continue' }).click();
      await toApp;
      const { claims } = await signIn.finish(page, email);
      expect(claims).toMatchObject({ amr: ['pwd'], acr: 'aal1' });
    } finally {
      await signIn.close();
      await context.close();
    }
  });

  it('"Use another account" on the Continue page (prompt=login): the sign-in page, another user, and the app gets that user', async () => {
    const [first, second] = await Promise.all([newUser('uma'), newUser('vic')]);
    const { context, page } = await fresh();
    const signIn = await startSignIn();
    try {
      await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/me`)}`);
      await typePassword(page, first);
      await page.waitForURL(`${origin}/me`);
      await page.goto(signIn.url.href);
      expect(await page.locator('h1').textContent()).toBe(`Continue to ${APP_NAME}`);
      await page.getByRole('link', { name: 'Use another account' }).click();
      await page.waitForURL((u) => u.pathname === '/auth/signin');
      await typePassword(page, second);
      const { claims } = await signIn.finish(page, second);
      expect(claims).toMatchObject({ amr: ['pwd'], email: second });
    } finally {
      await signIn.close();
      await context.close();
    }
  });
});
