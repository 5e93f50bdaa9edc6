import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { startSample, type RunningSample } from '../sample/sample.js';
import { DEMO_USER, sampleConfigFromEnv } from '../sample/sample.config.js';
import { TEST_PLATFORM } from './setup/app.js';
import { DEMO_IDP_USER } from '../sample/demo-idp.js';
import { CHROMIUM, chromiumAvailable, VIRTUAL_PLATFORM_AUTHENTICATOR } from './setup/ci.js';

/**
 * The sample app driven as a person would, in real Chromium: every sign-in kind, the protected
 * page, sign-out. Each page is photographed at desktop and phone width (test-output/sample-<platform>/) and
 * checked for unlabeled inputs, external resources and horizontal overflow on a phone.
 */

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
// One folder per platform: the Express and Fastify projects run this suite at the same time.
const SHOTS = join(process.cwd(), 'test-output', `sample-${process.env.AUTH_TEST_PLATFORM ?? 'express'}`);
const DESKTOP = { width: 1280, height: 800 };
/** The pages photographed that have inputs (and so a label check that means something). */
const PAGES_WITH_INPUTS = new Set(['signin', 'signin-methods', 'signin-error', 'account']);
const PHONE = { width: 390, height: 844 };

const hasChromium = chromiumAvailable('the sample app in Chromium');
const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser('the sample app in Chromium', () => {
  let sample: RunningSample;
  let browser: Browser;
  let dbDir: string;
  let app: string;
  const photographed: string[] = [];

  beforeAll(async () => {
    dbDir = join(tmpdir(), `nestjs-auth-sample-${process.pid}-${Date.now()}`);
    mkdirSync(dbDir, { recursive: true });
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    const config = sampleConfigFromEnv({
      PORT: '0',
      SAMPLE_IDP_PORT: '0',
      SAMPLE_SMTP_PORT: '0',
      SAMPLE_DB: join(dbDir, 'sample.db'),
      SAMPLE_PLATFORM: TEST_PLATFORM,
    });
    sample = await startSample(config, { logger: false });
    app = sample.urls.app;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await sample?.close();
    if (dbDir) rmSync(dbDir, { recursive: true, force: true });
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    return { context, page };
  }

  /**
   * Screenshots the current page at desktop and phone width and checks it: every visible input
   * labelled, nothing loaded from outside `origins`, no horizontal scrolling on a phone.
   */
  async function inspect(page: Page, name: string, origins: string[] = [new URL(app).origin]): Promise<void> {
    await page.waitForLoadState('load');
    const { problems, inputs } = await page.evaluate((allowed: string[]) => {
      const out: string[] = [];
      let visible = 0;
      for (const el of Array.from(document.querySelectorAll('input, select, textarea'))) {
        const input = el as HTMLInputElement;
        if (input.type === 'hidden' || input.hidden) continue;
        visible++;
        const labelled =
          (input.labels && input.labels.length > 0) ||
          input.getAttribute('aria-label') ||
          input.getAttribute('aria-labelledby');
        if (!labelled) out.push(`unlabeled <${input.tagName.toLowerCase()} name="${input.name}">`);
      }
      const urls = [
        ...Array.from(document.querySelectorAll('[src]')).map((e) => (e as HTMLImageElement).src),
        ...Array.from(document.querySelectorAll('link[href]')).map((e) => (e as HTMLLinkElement).href),
        ...performance.getEntriesByType('resource').map((e) => e.name),
      ];
      for (const u of urls) {
        if (u.startsWith('data:')) continue;
        if (!allowed.includes(new URL(u, location.href).origin)) out.push(`external resource ${u}`);
      }
      return { problems: out, inputs: visible };
    }, origins);
    // Which pages have inputs to label is part of the check: "none unlabelled" on a page that should
    // have a form but rendered none would otherwise pass.
    expect({ page: name, problems, hasInputs: inputs > 0 }).toEqual({
      page: name,
      problems: [],
      hasInputs: PAGES_WITH_INPUTS.has(name),
    });
    // axe (WCAG 2.1 A/AA) on every page the sample shows, built-in or its own.
    await page.evaluate(readFileSync(AXE_SOURCE, 'utf8'));
    const violations = await page.evaluate(async () => {
      const run = (
        window as unknown as {
          axe: {
            run(
              d: Document,
              o: object,
            ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown[] }> }> }>;
          };
        }
      ).axe.run;
      const result = await run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      });
      return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
    });
    expect({ page: name, violations }).toEqual({ page: name, violations: [] });

    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      if (size === 'phone') {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect({ page: name, overflow: overflow > 1 ? overflow : 0 }).toEqual({ page: name, overflow: 0 });
      }
      const file = join(SHOTS, `${name}-${size}.png`);
      await page.screenshot({ path: file, fullPage: true });
      expect(statSync(file).size).toBeGreaterThan(2000);
      photographed.push(file);
    }
    await page.setViewportSize(DESKTOP);
  }

  /** A platform authenticator with resident keys and user verification (DevTools' virtual one). */
  async function addVirtualAuthenticator(page: Page) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: VIRTUAL_PLATFORM_AUTHENTICATOR,
    });
    return { cdp, id: authenticatorId };
  }

  /** The protected page's user table, as text. */
  async function privatePageUser(page: Page): Promise<string> {
    expect(new URL(page.url()).pathname).toBe('/private');
    return page.locator('section').first().innerText();
  }

  /** Signs out through the protected page's link and the sign-out page (ends on the home page). */
  async function signOutTo(page: Page): Promise<void> {
    await page.getByRole('link', { name: 'Sign out' }).click();
    await page.waitForURL(`${app}/auth/signout?callbackUrl=%2F`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The sign-out page returns to its callbackUrl: the home page.
    await page.waitForURL(`${app}/`);
  }

  /**
   * Opens the sign-in page and waits for the passkey autofill (conditional UI) to sign in. On a
   * loaded machine Chromium sometimes never answers the conditional request; the page then shows
   * nothing, and one reload starts it again. An error the page shows (a refusal by the server) fails
   * the test at once: that would be a bug, not timing.
   */
  async function signInByAutofill(page: Page): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await page.goto(`${app}/auth/signin?callbackUrl=%2Fprivate`);
      try {
        await page.waitForURL(`${app}/private`, { timeout: 15_000 });
        return;
      } catch (error) {
        const shown = await page
          .locator('[data-webauthn-error]:not([hidden])')
          .allInnerTexts()
          .catch(() => []);
        if (shown.some((text) => text.trim()))
          throw new Error(`The passkey autofill sign-in was refused: ${shown.join(' ')}`, { cause: error });
        if (attempt >= 2) throw error;
      }
    }
  }

  /** Identifier-first step 1: the address, Continue; waits for step 2. */
  async function toMethods(page: Page, email: string): Promise<void> {
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL((url) => url.searchParams.get('step') === 'methods');
  }

  /** Signs out, and shows the protected page now sends the browser to the sign-in page. */
  async function signOut(page: Page): Promise<void> {
    await signOutTo(page);
    await page.goto(`${app}/private`);
    expect(new URL(page.url()).pathname).toBe('/auth/signin');
  }

  it('shows the home page and the sign-in page with every kind of provider', async () => {
    const { context, page } = await newPage();
    await page.goto(app);
    await expect(page.getByRole('heading', { name: 'nestjs-auth sample' }).isVisible()).resolves.toBe(true);
    await inspect(page, 'home');

    await page.goto(`${app}/private`);
    expect(new URL(page.url()).pathname).toBe('/auth/signin');
    expect(new URL(page.url()).searchParams.get('callbackUrl')).toBe('/private');
    // Identifier-first: the provider button, one email field, a passkey button.
    for (const name of ['Sign in with Demo IdP', 'Continue', 'Sign in with a passkey']) {
      await expect(page.getByRole('button', { name }).isVisible()).resolves.toBe(true);
    }
    await inspect(page, 'signin');

    // promise: pages.phone-fit
    // On a 390×844 phone the email field, its button and the first provider button are on the first screen.
    await page.setViewportSize(PHONE);
    const bottoms: Record<string, number> = {};
    for (const [name, locator] of [
      ['provider', page.getByRole('button', { name: 'Sign in with Demo IdP' })],
      ['email', page.getByLabel('Email', { exact: true })],
      ['continue', page.getByRole('button', { name: 'Continue' })],
    ] as const) {
      const box = (await locator.boundingBox())!;
      bottoms[name] = Math.round(box.y + box.height);
    }
    console.log(`sample sign-in page at 390×844: bottoms ${JSON.stringify(bottoms)}`);
    for (const bottom of Object.values(bottoms)) expect(bottom).toBeLessThan(844);
    await page.setViewportSize(DESKTOP);

    // Step 2: the methods for the address typed.
    await toMethods(page, DEMO_USER.email);
    for (const name of [
      'Sign in with Password',
      'Email me a sign-in link',
      'Sign in with a passkey',
      'Create a passkey',
    ]) {
      await expect(page.getByRole('button', { name }).isVisible()).resolves.toBe(true);
    }
    await inspect(page, 'signin-methods');
    await page.goBack();

    // Keyboard: Tab reaches the first provider button, which shows a focus ring.
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      // The button's own text (its mark is an aria-hidden SVG with the initial).
      return {
        tag: el.tagName,
        text: el.querySelector('span')?.textContent,
        outline: getComputedStyle(el).outlineStyle,
      };
    });
    expect(focused).toMatchObject({ tag: 'BUTTON', text: 'Sign in with Demo IdP', outline: 'solid' });
    await context.close();
  });

  it('signs in with the Demo IdP, shows the protected page, and signs out', async () => {
    const { context, page } = await newPage();
    await page.goto(`${app}/private`);
    await page.getByRole('button', { name: 'Sign in with Demo IdP' }).click();
    await page.waitForURL((url) => url.href.startsWith(sample.urls.idpIssuer));
    await inspect(page, 'demo-idp-login', [sample.urls.idpIssuer]);
    await page.getByRole('button', { name: `Continue as ${DEMO_IDP_USER.name}` }).click();
    await page.waitForURL(`${app}/private`);
    expect(await privatePageUser(page)).toContain(DEMO_IDP_USER.email);
    await expect(page.locator('section', { hasText: 'Linked accounts' }).innerText()).resolves.toContain('demo-idp');
    await expect(page.locator('pre').innerText()).resolves.toContain('"expires"');
    await inspect(page, 'private');

    // The protected page links to the built-in account page: the linked Demo IdP account is there.
    await page.getByRole('link', { name: 'Manage your account' }).click();
    await page.waitForURL(`${app}/auth/account`);
    await expect(page.getByRole('region', { name: 'Linked accounts' }).innerText()).resolves.toContain('Demo IdP');
    await inspect(page, 'account');
    await page.goto(`${app}/private`);

    await page.getByRole('link', { name: 'Sign out' }).click();
    await page.waitForURL(`${app}/auth/signout?callbackUrl=%2F`);
    await inspect(page, 'signout');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${app}/`);
    await page.goto(`${app}/private`);
    expect(new URL(page.url()).pathname).toBe('/auth/signin');
    await context.close();
  });

  // promise: pages.no-js
  it('without JavaScript: signs in with an emailed link (both identifier-first steps rendered by the server)', async () => {
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    const email = `nojs.user.${Date.now()}@example.com`;
    await page.goto(`${app}/private`);
    await toMethods(page, email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.waitForURL((url) => url.pathname === '/auth/verify-request');
    await page.goto(`${app}/dev/inbox`);
    const link = await page
      .locator('section', { hasText: `To ${email}` })
      .locator('a[href*="/auth/callback/email"]')
      .first()
      .getAttribute('href');
    await page.goto(link!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app}/private`);
    expect(await privatePageUser(page)).toContain(email);
    await context.close();
  });

  it('signs in with an emailed link read from the development inbox', async () => {
    const { context, page } = await newPage();
    const email = `mail.user.${Date.now()}@example.com`;
    await page.goto(`${app}/private`);
    await toMethods(page, email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.waitForURL((url) => url.pathname === '/auth/verify-request');
    // Where the link went, and how long it lasts.
    await expect(page.locator('[data-email]').innerText()).resolves.toBe(email);
    await expect(page.locator('[data-expires]').innerText()).resolves.toMatch(/^\d+ (minute|hour|day)s?/);
    await inspect(page, 'verify-request');

    await page.goto(`${app}/dev/inbox`);
    const mail = page.locator('section', { hasText: `To ${email}` });
    await expect(mail.count()).resolves.toBe(1);
    await inspect(page, 'inbox');
    const link = await mail.locator('a[href*="/auth/callback/email"]').first().getAttribute('href');
    expect(link).toBeTruthy();

    await page.goto(link!);
    await inspect(page, 'email-confirm');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app}/private`);
    expect(await privatePageUser(page)).toContain(email);
    // The link verified the address: its date is shown (it said "email verified —").
    expect(await privatePageUser(page)).toMatch(/email verified\s+\d{4}-\d{2}-\d{2}T/);

    // The link worked once; opening and confirming it again is refused.
    await signOut(page);
    await page.goto(link!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState('load');
    expect(new URL(page.url()).searchParams.get('error')).toBe('Verification');
    await inspect(page, 'error-verification');
    await context.close();
  });

  it('signs in with the seeded credentials user, after a wrong password', async () => {
    const { context, page } = await newPage();
    await page.goto(`${app}/private`);
    await toMethods(page, DEMO_USER.email);
    const form = page.locator('form[data-form="credentials"]');
    await form.getByLabel('Password').fill('not-the-password');
    await form.getByRole('button', { name: 'Sign in with Password' }).click();
    await page.waitForURL((url) => url.searchParams.get('error') === 'CredentialsSignin');
    await expect(page.getByRole('alert').first().innerText()).resolves.toContain(
      'Check that the details you entered are correct',
    );
    await inspect(page, 'signin-error');

    await form.getByLabel('Password').fill(DEMO_USER.password);
    await form.getByLabel('Password').press('Enter');
    await page.waitForURL(`${app}/private`);
    expect(await privatePageUser(page)).toContain(DEMO_USER.email);
    await signOut(page);
    await context.close();
  });

  it('registers a passkey, then signs in with it through autofill and with the button (virtual authenticator)', async () => {
    const { context, page } = await newPage();
    const authenticator = await addVirtualAuthenticator(page);
    const email = `passkey.user.${Date.now()}@example.com`;

    // A new user: type an email, press "Create a passkey".
    await page.goto(`${app}/private`);
    await toMethods(page, email);
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.waitForURL(`${app}/private`);
    expect(await privatePageUser(page)).toContain(email);
    await expect(page.locator('section', { hasText: 'Passkeys' }).innerText()).resolves.not.toContain('No passkey yet');
    const { credentials } = await authenticator.cdp.send('WebAuthn.getCredentials', {
      authenticatorId: authenticator.id,
    });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);

    // Conditional UI: the sign-in page offers the passkey in the email field's autofill, which the
    // virtual authenticator accepts at once; no click needed.
    await signOutTo(page);
    await signInByAutofill(page);
    expect(await privatePageUser(page)).toContain(email);
    // Take the passkey (its counter moved) off this page, or its autofill would sign in again.
    const { credentials: moved } = await authenticator.cdp.send('WebAuthn.getCredentials', {
      authenticatorId: authenticator.id,
    });
    await authenticator.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: authenticator.id });
    await signOutTo(page);
    await page.close();

    // The button, with a discoverable credential (no email typed), in a browser without autofill
    // for passkeys: the same passkey moved to a fresh page.
    const second = await context.newPage();
    await second.addInitScript(() => {
      Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable', { value: async () => false });
    });
    const other = await addVirtualAuthenticator(second);
    await other.cdp.send('WebAuthn.addCredential', { authenticatorId: other.id, credential: moved[0]! });
    await second.goto(`${app}/private`);
    expect(new URL(second.url()).pathname).toBe('/auth/signin');
    await second
      .locator('form[data-webauthn-provider="passkey"]')
      .getByRole('button', { name: 'Sign in with a passkey' })
      .click();
    await second.waitForURL(`${app}/private`);
    expect(await privatePageUser(second)).toContain(email);
    const after = await other.cdp.send('WebAuthn.getCredentials', { authenticatorId: other.id });
    expect(after.credentials[0]!.signCount).toBeGreaterThan(moved[0]!.signCount);
    await context.close();
  });

  it('renders the error page with the right status', async () => {
    const { context, page } = await newPage();
    const res = await page.goto(`${app}/auth/error?error=AccessDenied`);
    expect(res!.status()).toBe(403);
    await expect(page.getByRole('heading', { name: 'Access denied' }).isVisible()).resolves.toBe(true);
    await inspect(page, 'error-access-denied');
    await context.close();
  });

  it('wrote a non-empty screenshot of every page at both widths', () => {
    expect(photographed).toHaveLength(2 * 13);
    for (const file of photographed) expect(statSync(file).size).toBeGreaterThan(2000);
  });
});
