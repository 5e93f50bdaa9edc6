import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { GERMAN_MESSAGES } from '../lib/config/messages/page-messages.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import { Apple } from '../lib/providers/catalog/apple.provider.js';
import { GitHub } from '../lib/providers/catalog/github.provider.js';
import { Google } from '../lib/providers/catalog/google.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { checkDesign, primaryBottom } from './setup/design-checks.js';
import { CHROMIUM, chromiumAvailable } from './setup/ci.js';
import { brokenWords, CHROMIUM_ARGS, DESKTOP, focused, PASSWORD, PHONE, shotsDir } from './setup/signin-browser.js';

/**
 * The sign-in side of issue 41 in real Chromium: every state of the sign-in steps, the OAuth error,
 * verify-request, the error page and sign-out, each in light and dark at 1280×800 and 390×844, with
 * axe (WCAG 2.1 A/AA) at 0 violations, nothing wider than the window, every button and link's visible
 * words in its accessible name (2.5.3), no two controls sharing a name unless they do the same thing,
 * and the primary action on the phone's first screen. Screenshots: test-output/signin-design-<platform>/.
 */

const describeBrowser = chromiumAvailable('signin-design.e2e-spec') ? describe : describe.skip;

/** A one-colour square logo, as a `data:` URI (no request). */
const LOGO = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="10" fill="#4f46e5"/></svg>')}`;

describeBrowser('the sign-in pages in Chromium: light and dark, desktop and phone', () => {
  let browser: Browser;
  let t: TestApp;
  /** http://localhost:<port>: the passkeys' relying party (WebAuthn refuses an IP address). */
  let url: string;
  let context: BrowserContext;
  let page: Page;
  const dir = shotsDir('signin-design');

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    t = await createTestApp({
      auth: {
        adapter: new MemoryAdapter(),
        session: { strategy: 'jwt' },
        logger: { error: () => undefined, warn: () => undefined },
        theme: { brandName: 'Acme', logo: LOGO },
        trustHost: true,
        pages: { forgotPassword: '/forgot-password' },
        providers: [
          Google({ clientId: 'google-client', clientSecret: 'google-secret' }),
          GitHub({ clientId: 'github-client', clientSecret: 'github-secret' }),
          Apple({ clientId: 'apple-client', clientSecret: 'apple-secret' }),
          Email({ sendVerificationRequest: async () => undefined }),
          Credentials({
            name: 'Password',
            credentials: {
              email: { label: 'Email', type: 'email', required: true },
              password: { label: 'Password', type: 'password', required: true },
            },
            authorize: async ({ email, password }) =>
              email === 'ada@example.test' && password === PASSWORD ? { id: 'ada', email: 'ada@example.test' } : null,
          }),
          Passkey(),
        ],
      },
    });
    url = t.url.replace('127.0.0.1', 'localhost');
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    await context?.close();
    context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
  });

  /** Every design check in both schemes and sizes (test/setup/design-checks.ts); the phone's first screen holds the primary action. */
  const check = (state: string) => checkDesign(page, dir, state, { primaryBottom }).then(() => undefined);

  const cardTop = () => page.evaluate(() => document.querySelector('.card')!.getBoundingClientRect().top);

  // promise: pages.design-walk
  it('walks every sign-in state: axe 0, label in name, distinct names, the primary action on the first phone screen', async () => {
    await page.goto(`${url}/auth/signin`);
    expect(await page.title()).toBe('Sign in to Acme');
    expect(await page.locator('img.logo').getAttribute('alt')).toBe('Acme');
    const top = await cardTop();
    await check('step-1');

    await page.goto(`${url}/auth/signin?step=methods&email=ada%40example.test`);
    // The card does not move between steps.
    expect(await cardTop()).toBe(top);
    await check('step-2');
    await page.getByRole('button', { name: 'Show password' }).click();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('type')).toBe('text');
    await check('step-2-password-shown');

    await page.goto(`${url}/auth/signin?error=OAuthCallbackError&provider=github`);
    // The error sits under its button, clear of the focus ring (2 px ring, 2 px offset).
    const gap = await page.evaluate(() => {
      const error = document.querySelector('.provider .error')!;
      const button = error.closest('form')!.querySelector('button')!;
      return error.getBoundingClientRect().top - button.getBoundingClientRect().bottom;
    });
    expect(gap).toBeGreaterThanOrEqual(8);
    await check('oauth-error');
    await page.goto(`${url}/auth/signin?error=OAuthAccountNotLinked`);
    await check('account-not-linked');

    await page.goto(`${url}/auth/verify-request?provider=email&email=ada-lovelace%40example.test`);
    expect(await cardTop()).toBe(top);
    await expect(page.getByRole('link', { name: 'Back to Acme' }).isVisible()).resolves.toBe(true);
    await check('verify-request');
    await page.goto(`${url}/auth/error?error=Verification`);
    await check('error');
    await page.goto(`${url}/auth/signout`);
    expect(await cardTop()).toBe(top);
    await check('sign-out');
  }, 300_000);

  // promise: pages.inline-invalid-email
  it("a malformed address, the browser's own check left on: the page's inline error, the field marked and focused", async () => {
    await page.goto(`${url}/auth/signin`);
    const field = page.getByLabel('Email', { exact: true });
    await field.fill('ada@');
    await page.getByRole('button', { name: 'Continue' }).click();
    // The browser's check stopped the form: no request, still step 1.
    expect(new URL(page.url()).searchParams.get('step')).toBeNull();
    expect(await field.evaluate((i: HTMLInputElement) => i.validity.valid)).toBe(false);
    expect(await page.locator('form[data-form="identifier"]').getAttribute('novalidate')).toBeNull();
    expect(await focused(page)).toEqual({
      name: 'email',
      invalid: 'true',
      description: 'Enter a valid email address, like name@example.com.',
    });
    await expect(page.locator('form[data-form="identifier"]').getByRole('alert').textContent()).resolves.toBe(
      'Enter a valid email address, like name@example.com.',
    );
    await check('step-1-invalid-email');
    // A second try does not add a second message; fixing the address clears the mark.
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.locator('form[data-form="identifier"] .error').count()).toBe(1);
    await field.fill('ada@example.test');
    expect(await field.getAttribute('aria-invalid')).toBeNull();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL((u) => u.searchParams.get('step') === 'methods');
  });

  it('without JavaScript the browser still refuses a malformed address, and the show-password button is not there', async () => {
    const noJs = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    try {
      const p = await noJs.newPage();
      await p.goto(`${url}/auth/signin`);
      await p.getByLabel('Email', { exact: true }).fill('ada@');
      await p.getByRole('button', { name: 'Continue' }).click();
      expect(new URL(p.url()).searchParams.get('step')).toBeNull();
      await p.goto(`${url}/auth/signin?step=methods&email=ada%40example.test`);
      expect(await p.getByRole('button', { name: 'Show password' }).count()).toBe(0);
      expect(await p.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe(
        `${url}/forgot-password?email=ada%40example.test`,
      );
    } finally {
      await noJs.close();
    }
  });

  // promise: pages.step-two
  it('step 2: one primary action, the other methods as links, the address with a change control, sign-up apart', async () => {
    await page.goto(`${url}/auth/signin?step=methods&email=ada%40example.test`);
    const primary = page.locator('.card .button:not(.button-secondary):not(.oauth)');
    expect(await primary.allTextContents()).toEqual(['Sign in with Password']);
    for (const name of ['Email me a sign-in link', 'Sign in with a passkey', 'Create a passkey'])
      expect(await page.getByRole('button', { name }).getAttribute('class')).toBe('link-button');
    const change = page.getByRole('link', { name: 'Change' });
    await change.click();
    await page.waitForURL((u) => u.searchParams.get('step') === 'email');
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('ada@example.test');
  });

  it('German: hyphenated words are never split (E-Mail), and the app is named', async () => {
    const de = await createTestApp({
      auth: {
        adapter: new MemoryAdapter(),
        session: { strategy: 'jwt' },
        theme: { brandName: 'Acme' },
        messages: GERMAN_MESSAGES,
        providers: [Email({ sendVerificationRequest: async () => undefined })],
      },
    });
    try {
      await page.setViewportSize({ width: 320, height: 640 });
      await page.goto(`${de.url}/auth/verify-request?provider=email&email=ada-lovelace%40example.test`);
      expect(await brokenWords(page)).toEqual([]);
      await expect(page.getByRole('link', { name: 'Zurück zu Acme' }).isVisible()).resolves.toBe(true);
      await page.screenshot({ path: join(dir, 'verify-request-german-320.png'), fullPage: true });
      await page.goto(`${de.url}/auth/signin`);
      expect(await page.locator('h1').textContent()).toBe('Bei Acme anmelden');
      expect(await brokenWords(page)).toEqual([]);
    } finally {
      await de.close();
    }
  });
});
