/**
 * Two-factor authentication as a person meets it, in real Chromium on the platform of the run
 * (Express, or Fastify in the e2e-fastify project): an authenticator app added from the account
 * page (the secret read from the `otpauth://` link), a sign-in finished with the app's code typed
 * with the keyboard only, a backup code used once (and refused the second time, on the page), the
 * whole sign-in without JavaScript, the enrolment a `required` policy asks for at sign-in, and axe
 * (WCAG 2.1 A/AA) with no horizontal overflow on each two-factor page, on a desktop and a phone, in
 * English and German. With passkeys (DevTools' virtual authenticator, on http://localhost, a secure
 * context): a passkey added on the account page proves the second factor of a password sign-in
 * ("Use a passkey" on the challenge); a user whose only factor is a passkey (signed up with it under
 * a `required` policy) is offered the button alone; "Don't ask again on this device", ticked with the
 * keyboard, lets that browser skip the second factor while another browser is still asked. The
 * HTTP-level attacks (bypass matrix, lockout, races) are in test/two-factor.e2e-spec.ts. Screenshots
 * go to test-output/two-factor-<platform>/.
 */
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Req, UseGuards } from '@nestjs/common';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import type { HttpRequestLike } from '../lib/http/auth-request.factory.js';
import { ENGLISH_MESSAGES, GERMAN_MESSAGES, type PageMessages } from '../lib/config/messages/page-messages.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { totpCode } from '../lib/methods/two-factor/totp.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import { signInErrorMessage } from '../lib/pages/signin.page.js';
import { nextCode, type TotpFactor as Factor } from './setup/totp-clock.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { CHROMIUM, chromiumAvailable, VIRTUAL_PLATFORM_AUTHENTICATOR } from './setup/ci.js';
import { axe, CHROMIUM_ARGS, DESKTOP, focused, PASSWORD, PHONE, shotsDir, toMethods } from './setup/signin-browser.js';

// Strict under any CI value but empty, `false` or `0` (isStrictCi): a missing Chromium then fails.
const describeBrowser = chromiumAvailable('two-factor-browser.e2e-spec') ? describe : describe.skip;

const PERIOD_MS = 30_000;
/** The cookie of a remembered browser (`twoFactor.rememberDevice`), without `__Secure-` over http. */
const DEVICE_COOKIE = 'authjs.two-factor-device';

/** Six digits that are none of the codes the window accepts now. */
async function wrongCode(f: Factor): Promise<string> {
  const now = Date.now();
  const valid = await Promise.all([-1, 0, 1].map((k) => totpCode(f.secret, { now: now + k * PERIOD_MS })));
  return ['000000', '111111', '222222', '333333'].find((c) => !valid.includes(c))!;
}

/** What `AuthService.assurance` says of the request's session (the unit of truth for `amr`/`aal`). */
@Controller('mfa')
@UseGuards(AuthGuard)
class AssuranceController {
  constructor(private readonly auth: AuthService) {}

  @Get('assurance')
  assurance(@Req() req: HttpRequestLike) {
    return this.auth.assurance(req);
  }
}

/** One app: its URL, its adapter, the words of its pages. */
interface Site {
  t: TestApp;
  /** The origin the browser uses: http://127.0.0.1:<port>, or http://localhost:<port> with passkeys (their RP ID). */
  url: string;
  /** Passkey() next to the password: the sign-in page asks for the address first (identifier-first). */
  passkeys: boolean;
  adapter: MemoryAdapter;
  m: PageMessages;
  /** The credentials form's labels and button in the site's language. */
  labels: { email: string; password: string; button: string };
}

describeBrowser('two-factor authentication in Chromium', () => {
  let optional: Site;
  let required: Site;
  let german: Site;
  /** Passkeys next to the password, policy optional, "Don't ask again on this device" for 30 days. */
  let keys: Site;
  /** Passkeys next to the password, policy required. */
  let keysRequired: Site;
  let browser: Browser;
  const SHOTS = shotsDir('two-factor');

  async function start(
    policy: 'optional' | 'required',
    messages?: PageMessages,
    extra: { passkeys?: boolean; rememberDevice?: number } = {},
  ): Promise<Site> {
    const adapter = new MemoryAdapter();
    const de = messages === GERMAN_MESSAGES;
    const labels = de
      ? { email: 'E-Mail', password: 'Passwort', button: 'Mit Passwort anmelden' }
      : { email: 'Email address', password: 'Password', button: 'Sign in with Password' };
    const t = await createTestApp({
      auth: {
        adapter,
        session: { strategy: 'database' },
        logger: { error: () => undefined, warn: () => undefined },
        ...(messages ? { messages } : {}),
        twoFactor: { policy, ...(extra.rememberDevice ? { rememberDevice: extra.rememberDevice } : {}) },
        // http://localhost is where the passkeys' relying party is: trust the Host header there.
        ...(extra.passkeys ? { trustHost: true } : {}),
        providers: [
          Credentials({
            name: de ? 'Passwort' : 'Password',
            credentials: {
              email: { label: labels.email, type: 'email', required: true },
              password: { label: labels.password, type: 'password', required: true },
            },
            async authorize({ email, password }) {
              const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
              return user && password === PASSWORD ? { id: user.id, email: user.email, name: user.name ?? null } : null;
            },
          }),
          // No autofill (conditional UI): the virtual authenticator would answer it at once and sign
          // in on the sign-in page, racing the password.
          ...(extra.passkeys ? [Passkey({ enableConditionalUI: false })] : []),
        ],
      },
      controllers: [AssuranceController],
    });
    const url = extra.passkeys ? t.url.replace('127.0.0.1', 'localhost') : t.url;
    return { t, url, passkeys: !!extra.passkeys, adapter, m: messages ?? ENGLISH_MESSAGES, labels };
  }

  beforeAll(async () => {
    [optional, required, german, keys, keysRequired, browser] = await Promise.all([
      start('optional'),
      start('required'),
      start('required', GERMAN_MESSAGES),
      start('optional', undefined, { passkeys: true, rememberDevice: 30 }),
      start('required', undefined, { passkeys: true }),
      chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([optional, required, german, keys, keysRequired].map((s) => s?.t.close()));
  });

  /** A new user of `s` with the password, no second factor yet. */
  async function newUser(s: Site, tag: string): Promise<string> {
    const email = `${tag}-${randomUUID().slice(0, 8)}@example.test`;
    await s.adapter.createUser({ id: randomUUID(), email, emailVerified: new Date(), name: tag });
    return email;
  }

  /** A fresh browser (no cookies) at the desktop size, JavaScript on unless told. */
  async function fresh(javaScriptEnabled = true): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.log('[browser error]', e.message));
    return { context, page };
  }

  const callbackOf = (s: Site) => `${s.url}/me`;

  /**
   * The password, from the sign-in page (back to `/me`), wherever that leads. With passkeys the page
   * is identifier-first: the address, Continue, then the password.
   */
  async function password(page: Page, s: Site, email: string): Promise<void> {
    await page.goto(`${s.url}/auth/signin?callbackUrl=${encodeURIComponent(callbackOf(s))}`);
    if (s.passkeys) await toMethods(page, email);
    else await page.getByLabel(s.labels.email, { exact: true }).fill(email);
    await page.getByLabel(s.labels.password, { exact: true }).fill(PASSWORD);
    await Promise.all([
      page.waitForURL((u) => !u.pathname.startsWith('/auth/signin')),
      page.getByRole('button', { name: s.labels.button }).click(),
    ]);
  }

  /** The password, from the sign-in page (back to `/me`): lands on the second factor's page. */
  async function firstFactor(page: Page, s: Site, email: string): Promise<void> {
    await password(page, s, email);
    expect(page.url()).toBe(`${s.url}/auth/two-factor`);
  }

  /** Signs out through the sign-out page's button: `/me` then answers 401. */
  async function signOut(page: Page, s: Site): Promise<void> {
    await page.goto(`${s.url}/auth/signout`);
    await Promise.all([
      page.waitForURL((u) => u.pathname !== '/auth/signout'),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    expect((await page.context().request.get(`${s.url}/me`)).status()).toBe(401);
  }

  /** A platform authenticator for the page's tab (DevTools' virtual one: resident keys, user verified). */
  async function addAuthenticator(page: Page): Promise<void> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', { options: VIRTUAL_PLATFORM_AUTHENTICATOR });
  }

  /** What `AuthService.assurance` says of the browser's session. */
  async function assurance(page: Page, s: Site): Promise<{ amr: string[]; aal: number }> {
    const res = await page.context().request.get(`${s.url}/mfa/assurance`);
    expect(res.status()).toBe(200);
    return (await res.json()) as { amr: string[]; aal: number };
  }

  /** The remembered-device cookie of the browser, if any. */
  async function deviceCookie(context: BrowserContext) {
    return (await context.cookies()).find((c) => c.name === DEVICE_COOKIE);
  }

  /** The page shows the guarded route's answer: the user `email` is signed in (with two factors). */
  async function expectSignedIn(page: Page, s: Site, email: string): Promise<void> {
    expect(page.url()).toBe(callbackOf(s));
    const body = JSON.parse((await page.locator('body').textContent()) ?? '{}') as { user?: { email?: string } };
    expect(body.user?.email).toBe(email);
    const session = await (await page.context().request.get(`${s.url}/auth/session`)).json();
    expect(session.user.email).toBe(email);
  }

  /** The enrolment page's secret: the `otpauth://` link's `secret`, which is also what is shown to type. */
  async function secretOf(page: Page): Promise<string> {
    const href = (await page.locator('a[data-otpauth]').getAttribute('href'))!;
    expect(href).toMatch(/^otpauth:\/\/totp\//);
    const uri = new URL(href);
    const secret = uri.searchParams.get('secret')!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await page.locator('code[data-secret]').getAttribute('data-secret')).toBe(secret);
    // The grouped secret on the page is the same one, in fours.
    expect((await page.locator('code[data-secret]').textContent())?.replace(/\s/g, '')).toBe(secret);
    return secret;
  }

  /** The codes of the backup codes page. */
  async function backupCodes(page: Page): Promise<string[]> {
    return page.locator('ol[data-backup-codes] > li').allTextContents();
  }

  /**
   * axe (WCAG 2.1 A/AA) finds nothing and nothing is wider than the window, on a desktop and on a
   * phone, with a screenshot of each.
   */
  async function check(page: Page, state: string): Promise<void> {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      const overflow = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
      }));
      expect({ state, size, violations: await axe(page), fits: overflow.scrollWidth <= overflow.innerWidth }).toEqual({
        state,
        size,
        violations: [],
        fits: true,
      });
      await page.screenshot({ path: join(SHOTS, `${state}-${size}.png`), fullPage: true });
    }
    await page.setViewportSize(DESKTOP);
  }

  // The optional site's user who adds an app in test 1 and signs in with it after.
  let ada: { email: string; factor: Factor; codes: string[] };
  let adaContext: BrowserContext;
  let adaPage: Page;

  /**
   * Adds an authenticator app named Pixel from the account page of a signed-in user without one: the
   * otpauth link gives the secret, the first code shows 10 backup codes, the page then lists the app.
   */
  async function addApp(page: Page, s: Site): Promise<{ factor: Factor; codes: string[] }> {
    await page.goto(`${s.url}/auth/account`);
    const section = page.getByRole('region', { name: 'Two-factor authentication' });
    await expect(section.getByText('No authenticator app is set up.').isVisible()).resolves.toBe(true);
    await Promise.all([
      page.waitForURL(`${s.url}/auth/account/two-factor/totp`),
      section.getByRole('button', { name: 'Add an authenticator app' }).click(),
    ]);
    expect(await page.locator('h1').textContent()).toBe('Add an authenticator app');
    expect(await page.getByRole('img', { name: 'QR code to scan with your authenticator app' }).count()).toBe(1);
    const factor: Factor = { secret: await secretOf(page), lastStep: -Infinity };
    await page.getByLabel('Name (optional)').fill('Pixel');
    const field = page.getByLabel('Authentication code');
    // Focused only after a refused code: first the person scans.
    expect(await field.getAttribute('autofocus')).toBeNull();
    expect(await field.getAttribute('autocomplete')).toBe('one-time-code');
    await field.fill(await nextCode(factor));
    await Promise.all([
      page.waitForURL(`${s.url}/auth/account/two-factor/confirm`),
      page.getByRole('button', { name: 'Verify and turn on' }).click(),
    ]);
    expect(await page.locator('h1').textContent()).toBe('Save your backup codes');
    const codes = await backupCodes(page);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);

    await Promise.all([
      page.waitForURL(`${s.url}/auth/account?notice=two-factor-added`),
      page.getByRole('link', { name: 'Continue' }).click(),
    ]);
    const apps = section.locator('li[data-two-factor]');
    expect(await apps.count()).toBe(1);
    expect(await apps.first().locator('.item-title').textContent()).toBe('Pixel');
    expect(await section.locator('[data-backup-codes-left]').getAttribute('data-backup-codes-left')).toBe('10');
    return { factor, codes };
  }

  it('adds an authenticator app from the account page: the otpauth link gives the secret, the first code shows 10 backup codes, the page lists the app', async () => {
    const email = await newUser(optional, 'ada');
    ({ context: adaContext, page: adaPage } = await fresh());
    const page = adaPage;
    // No second factor yet: the password alone signs in.
    await page.goto(`${optional.url}/auth/signin?callbackUrl=${encodeURIComponent(callbackOf(optional))}`);
    await page.getByLabel('Email address', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([
      page.waitForURL(callbackOf(optional)),
      page.getByRole('button', { name: 'Sign in with Password' }).click(),
    ]);
    await expectSignedIn(page, optional, email);
    ada = { email, ...(await addApp(page, optional)) };
  });

  // promise: two-factor.browser
  it('signs out, signs in with the password, then the code typed with the keyboard only: back at the callback URL', async () => {
    const page = adaPage;
    // Sign out from the account page's link and the sign-out page's button.
    await page.goto(`${optional.url}/auth/account`);
    await Promise.all([
      page.waitForURL((u) => u.pathname === '/auth/signout'),
      page.getByRole('link', { name: 'Sign out' }).click(),
    ]);
    await Promise.all([
      page.waitForURL((u) => u.pathname !== '/auth/signout'),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    expect(await (await adaContext.request.get(`${optional.url}/me`)).status()).toBe(401);

    await firstFactor(page, optional, ada.email);
    // Held: no session yet.
    expect((await adaContext.request.get(`${optional.url}/me`)).status()).toBe(401);
    expect(await page.locator('h1').textContent()).toBe('Two-factor authentication');
    expect(await focused(page)).toMatchObject({ name: 'code', invalid: null });
    const field = page.locator('#two-factor-code');
    expect(await field.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await page.getByRole('link', { name: 'Use a backup code' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Sign in another way' }).count()).toBe(1);

    await page.keyboard.type(await nextCode(ada.factor));
    await Promise.all([page.waitForURL(callbackOf(optional)), page.keyboard.press('Enter')]);
    await expectSignedIn(page, optional, ada.email);
    await adaContext.close();
  });

  it('a backup code signs in once: used again in a new sign-in it is refused on the page, the field marked invalid', async () => {
    const code = ada.codes[0]!;
    const first = await fresh();
    try {
      await firstFactor(first.page, optional, ada.email);
      await Promise.all([
        first.page.waitForURL(`${optional.url}/auth/two-factor?method=backup-code`),
        first.page.getByRole('link', { name: 'Use a backup code' }).click(),
      ]);
      const field = first.page.getByLabel('Backup code');
      expect(await focused(first.page)).toMatchObject({ name: 'code' });
      await field.fill(code);
      await Promise.all([first.page.waitForURL(callbackOf(optional)), field.press('Enter')]);
      await expectSignedIn(first.page, optional, ada.email);
    } finally {
      await first.context.close();
    }

    const again = await fresh();
    try {
      const { page } = again;
      await firstFactor(page, optional, ada.email);
      await page.getByRole('link', { name: 'Use a backup code' }).click();
      await page.waitForURL(/method=backup-code/);
      await page.getByLabel('Backup code').fill(code);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/auth/two-factor')),
        page.getByRole('button', { name: 'Verify' }).click(),
      ]);
      expect(answer.status()).toBe(400);
      await page.waitForLoadState();
      const alert = page.getByRole('alert');
      await expect(alert.textContent()).resolves.toBe(ENGLISH_MESSAGES['error.InvalidTwoFactorCode']);
      // Still the backup code's form, its field marked invalid, described by the message and focused.
      const field = page.getByLabel('Backup code');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await focused(page)).toMatchObject({ name: 'code', invalid: 'true' });
      // Described by the message first, then the hint (two ids: the shared `focused` reads only one).
      const described = (await field.getAttribute('aria-describedby'))!.split(' ');
      expect(await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()))).toEqual([
        ENGLISH_MESSAGES['error.InvalidTwoFactorCode'],
        ENGLISH_MESSAGES['twoFactor.challenge.backupIntro'],
      ]);
      expect(await field.inputValue()).toBe('');
      expect((await again.context.request.get(`${optional.url}/me`)).status()).toBe(401);
    } finally {
      await again.context.close();
    }
  });

  it('without JavaScript the whole sign-in with an app code works (forms only)', async () => {
    const { context, page } = await fresh(false);
    try {
      await firstFactor(page, optional, ada.email);
      await page.getByLabel('Authentication code').fill(await nextCode(ada.factor));
      await Promise.all([page.waitForURL(callbackOf(optional)), page.getByRole('button', { name: 'Verify' }).click()]);
      await expectSignedIn(page, optional, ada.email);
    } finally {
      await context.close();
    }
  });

  it("policy 'required': a user without an app enrols at sign-in, sees the backup codes, and Continue signs in", async () => {
    const email = await newUser(required, 'grace');
    const { context, page } = await fresh();
    try {
      await firstFactor(page, required, email);
      expect(await page.locator('h1').textContent()).toBe('Set up two-factor authentication');
      expect((await context.request.get(`${required.url}/me`)).status()).toBe(401);
      const factor: Factor = { secret: await secretOf(page), lastStep: -Infinity };
      // The same secret when the page is shown again (kept in the pending state until confirmed).
      await page.reload();
      expect(await secretOf(page)).toBe(factor.secret);
      await page.getByLabel('Authentication code').fill(await nextCode(factor));
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/auth/two-factor')),
        page.getByRole('button', { name: 'Verify and turn on' }).click(),
      ]);
      await page.waitForLoadState();
      expect(await page.locator('h1').textContent()).toBe('Save your backup codes');
      expect(await backupCodes(page)).toHaveLength(10);
      await Promise.all([page.waitForURL(callbackOf(required)), page.getByRole('link', { name: 'Continue' }).click()]);
      await expectSignedIn(page, required, email);
    } finally {
      await context.close();
    }
  });

  it.each([
    ['English', () => required],
    ['German', () => german],
  ])(
    '%s: the challenge, enrolment and backup codes pages and the account page pass axe and fit a desktop and a phone',
    async (language, site) => {
      const s = site();
      const m = s.m;
      const tag = language.toLowerCase();
      const email = await newUser(s, `axe-${tag}`);
      let factor: Factor | undefined;
      const { context, page } = await fresh();
      try {
        // Enrolment at sign-in (required), then its backup codes.
        await firstFactor(page, s, email);
        expect(await page.getAttribute('html', 'lang')).toBe(m.lang);
        expect(await page.locator('h1').textContent()).toBe(m['twoFactor.enrol.requiredTitle']);
        await check(page, `${tag}-enrol-required`);
        factor = { secret: await secretOf(page), lastStep: -Infinity };
        await page.getByLabel(m['twoFactor.codeLabel']).fill(await nextCode(factor));
        await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/auth/two-factor')),
          page.getByRole('button', { name: m['twoFactor.enrol.submit'] }).click(),
        ]);
        await page.waitForLoadState();
        expect(await page.locator('h1').textContent()).toBe(m['twoFactor.backupCodes.title']);
        await check(page, `${tag}-backup-codes`);
        await Promise.all([
          page.waitForURL(callbackOf(s)),
          page.getByRole('link', { name: m['twoFactor.backupCodes.continue'] }).click(),
        ]);

        // The account page with its two-factor section (one app), and adding another app from it.
        await page.goto(`${s.url}/auth/account`);
        const section = page.getByRole('region', { name: m['twoFactor.title'] });
        expect(await section.locator('li[data-two-factor]').count()).toBe(1);
        expect(await section.locator('[data-two-factor-required]').count()).toBe(1);
        await check(page, `${tag}-account`);
        await Promise.all([
          page.waitForURL(`${s.url}/auth/account/two-factor/totp`),
          section.getByRole('button', { name: m['twoFactor.account.add'] }).click(),
        ]);
        expect(await page.locator('h1').textContent()).toBe(m['twoFactor.enrol.title']);
        await check(page, `${tag}-enrol-account`);
      } finally {
        await context.close();
      }

      // The challenge of the next sign-in: the app's code, a refused one, and a backup code.
      const next = await fresh();
      try {
        const p = next.page;
        await firstFactor(p, s, email);
        expect(await p.locator('h1').textContent()).toBe(m['twoFactor.title']);
        await check(p, `${tag}-challenge`);
        await p.getByLabel(m['twoFactor.codeLabel']).fill(await wrongCode(factor!));
        await Promise.all([
          p.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/auth/two-factor')),
          p.getByRole('button', { name: m['twoFactor.verify'] }).click(),
        ]);
        await p.waitForLoadState();
        await expect(p.getByRole('alert').textContent()).resolves.toBe(m['error.InvalidTwoFactorCode']);
        await check(p, `${tag}-challenge-error`);
        await Promise.all([
          p.waitForURL(/method=backup-code/),
          p.getByRole('link', { name: m['twoFactor.useBackupCode'] }).click(),
        ]);
        expect(await p.getByLabel(m['twoFactor.backupCodeLabel']).count()).toBe(1);
        await check(p, `${tag}-challenge-backup-code`);
      } finally {
        await next.context.close();
      }
    },
  );

  // The passkeys site's user of the tests below: a password, a passkey added on the account page, an app.
  let kay: { email: string; factor: Factor };

  it('a passkey added on the account page proves the second factor of a password sign-in: "Use a passkey" signs in, with hwk and mfa', async () => {
    const email = await newUser(keys, 'kay');
    const { context, page } = await fresh();
    try {
      await addAuthenticator(page);
      // No second factor yet: the password alone signs in.
      await password(page, keys, email);
      await expectSignedIn(page, keys, email);
      const user = (await keys.adapter.getUserByEmail(email))!;
      // A passkey from the account page (on this tab's authenticator), then an app.
      await page.goto(`${keys.url}/auth/account`);
      await Promise.all([
        page.waitForURL(`${keys.url}/auth/account?notice=passkey-added`),
        page.getByRole('button', { name: 'Add a passkey' }).click(),
      ]);
      expect(await page.locator('li[data-passkey]').count()).toBe(1);
      const [added] = await keys.adapter.listAuthenticatorsByUserId(user.id);
      kay = { email, factor: (await addApp(page, keys)).factor };
      await signOut(page, keys);

      await firstFactor(page, keys, email);
      expect((await context.request.get(`${keys.url}/me`)).status()).toBe(401);
      expect(await page.locator('h1').textContent()).toBe('Two-factor authentication');
      // The app's code (focused), the box, and the passkey's button with the script that runs it.
      expect(await focused(page)).toMatchObject({ name: 'code' });
      const box = page.getByRole('checkbox', { name: "Don't ask again on this device for 30 days" });
      expect(await box.isChecked()).toBe(false);
      const button = page.getByRole('button', { name: 'Use a passkey' });
      expect(await button.getAttribute('data-webauthn-two-factor')).toBe(`${keys.url}/auth/two-factor`);
      const csrfToken = await button.getAttribute('data-csrf-token');
      expect(csrfToken).toMatch(/\S/);
      expect(await page.locator(`script[src="${keys.url}/auth/webauthn-client.js"]`).count()).toBe(1);

      const [asked, answered] = await Promise.all([
        page.waitForRequest((r) => r.method() === 'GET' && r.url() === `${keys.url}/auth/two-factor?options=passkey`),
        page.waitForRequest((r) => r.method() === 'POST' && r.url() === `${keys.url}/auth/two-factor`),
        page.waitForURL(callbackOf(keys)),
        button.click(),
      ]);
      expect((await asked.response())?.status()).toBe(200);
      expect(answered.headers()['x-auth-return-redirect']).toBe('1');
      expect(answered.postDataJSON()).toMatchObject({
        csrfToken,
        method: 'passkey',
        action: 'authenticate',
        data: { id: expect.any(String), type: 'public-key' },
      });
      await expectSignedIn(page, keys, email);
      expect(await assurance(page, keys)).toEqual({ amr: ['pwd', 'hwk', 'user', 'mfa'], aal: 2 });
      // The passkey answered: its counter moved. The box was not ticked: nothing remembered.
      const [used] = await keys.adapter.listAuthenticatorsByUserId(user.id);
      expect(used!.counter).toBeGreaterThan(added!.counter);
      expect(await deviceCookie(context)).toBeUndefined();
    } finally {
      await context.close();
    }
  });

  it("policy 'required': a user whose only factor is a passkey (signed up with it, no challenge then) is offered the passkey alone at a password sign-in, and it signs in", async () => {
    const s = keysRequired;
    const email = `pat-${randomUUID().slice(0, 8)}@example.test`;
    const { context, page } = await fresh();
    try {
      await addAuthenticator(page);
      const visited: string[] = [];
      page.on('framenavigated', (f) => void (f === page.mainFrame() && visited.push(new URL(f.url()).pathname)));
      await page.goto(`${s.url}/auth/signin?callbackUrl=${encodeURIComponent(callbackOf(s))}`);
      await toMethods(page, email);
      await Promise.all([
        page.waitForURL(callbackOf(s)),
        page.getByRole('button', { name: 'Create a passkey' }).click(),
      ]);
      await expectSignedIn(page, s, email);
      // A passkey that verified the user is two factors by itself: neither a challenge nor an enrolment.
      expect(visited).not.toContain('/auth/two-factor');
      expect(await assurance(page, s)).toEqual({ amr: ['hwk', 'user', 'mfa'], aal: 2 });
      await signOut(page, s);

      // The password: the passkey is the only second factor there is. No code field, no box, no backup codes.
      await firstFactor(page, s, email);
      expect(await page.locator('h1').textContent()).toBe('Two-factor authentication');
      expect(await page.getByText(ENGLISH_MESSAGES['twoFactor.challenge.passkeyIntro']).count()).toBe(1);
      expect(await page.locator('input:not([type="hidden"])').count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Use a backup code' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Sign in another way' }).count()).toBe(1);
      const button = page.getByRole('button', { name: 'Use a passkey' });
      expect(await button.count()).toBe(1);
      // The page's only action: the primary button.
      expect(await button.getAttribute('class')).toBe('button');
      await check(page, 'challenge-passkey-only');

      // The sign-in took too long (its pending state is gone): the passkey is refused on the page, in
      // words, and nothing is signed in.
      await context.clearCookies({ name: 'authjs.two-factor' });
      await button.click();
      const alert = page.locator('[data-webauthn-error]');
      await alert.waitFor();
      expect(await alert.getAttribute('role')).toBe('alert');
      // Styled as the refusal it is, like a refused code (not as a hint).
      expect(await alert.getAttribute('class')).toBe('error');
      expect(await alert.getAttribute('data-error')).toBe('InvalidCheck');
      expect(await alert.textContent()).toBe(signInErrorMessage('InvalidCheck'));
      expect(page.url()).toBe(`${s.url}/auth/two-factor`);
      expect((await context.request.get(`${s.url}/me`)).status()).toBe(401);
      await check(page, 'challenge-passkey-error');

      // Again from the password: the passkey signs in.
      await firstFactor(page, s, email);
      await Promise.all([page.waitForURL(callbackOf(s)), button.click()]);
      await expectSignedIn(page, s, email);
      expect(await assurance(page, s)).toEqual({ amr: ['pwd', 'hwk', 'user', 'mfa'], aal: 2 });
    } finally {
      await context.close();
    }
  });

  it("\"Don't ask again on this device\", ticked with the keyboard: this browser's next password sign-in skips the second factor, another browser is asked (its page, with the passkey's button and the box, passes axe and fits)", async () => {
    const { context, page } = await fresh();
    const other = await fresh();
    try {
      await firstFactor(page, keys, kay.email);
      expect(await focused(page)).toMatchObject({ name: 'code' });
      await page.keyboard.type(await nextCode(kay.factor));
      await page.keyboard.press('Tab');
      expect(await focused(page)).toMatchObject({ name: 'remember' });
      await page.keyboard.press('Space');
      const box = page.getByRole('checkbox', { name: "Don't ask again on this device for 30 days" });
      expect(await box.isChecked()).toBe(true);
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Verify');
      await Promise.all([page.waitForURL(callbackOf(keys)), page.keyboard.press('Enter')]);
      await expectSignedIn(page, keys, kay.email);
      expect(await assurance(page, keys)).toEqual({ amr: ['pwd', 'otp', 'mfa'], aal: 2 });
      // HttpOnly, for the 30 days the box said.
      const cookie = (await deviceCookie(context))!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      const left = cookie.expires * 1000 - Date.now();
      expect(left).toBeGreaterThan(30 * 86_400_000 - 120_000);
      expect(left).toBeLessThanOrEqual(30 * 86_400_000 + 1000);
      // Sign-out ends the session, not the remembered device.
      await signOut(page, keys);
      expect((await deviceCookie(context))?.value).toBe(cookie.value);

      // The password again in this browser: straight to the callback URL.
      const visited: string[] = [];
      page.on('framenavigated', (f) => void (f === page.mainFrame() && visited.push(new URL(f.url()).pathname)));
      await password(page, keys, kay.email);
      await expectSignedIn(page, keys, kay.email);
      expect(visited).not.toContain('/auth/two-factor');
      expect(await assurance(page, keys)).toEqual({ amr: ['pwd', 'dev', 'mfa'], aal: 2 });

      // Another browser is asked: the challenge with the app's code, the box and the passkey's button.
      await firstFactor(other.page, keys, kay.email);
      expect(await other.page.getByRole('button', { name: 'Use a passkey' }).count()).toBe(1);
      await check(other.page, 'challenge-passkey-remember');
      // Not ticked: signed in, not remembered.
      await other.page.getByLabel('Authentication code').fill(await nextCode(kay.factor));
      await Promise.all([
        other.page.waitForURL(callbackOf(keys)),
        other.page.getByRole('button', { name: 'Verify' }).click(),
      ]);
      await expectSignedIn(other.page, keys, kay.email);
      expect(await deviceCookie(other.context)).toBeUndefined();
    } finally {
      await Promise.all([context.close(), other.context.close()]);
    }
  }, 90_000);
});
