import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { signInErrorMessage, signInErrorTypes } from '../lib/pages/signin.page.js';
import { MemoryRateLimitStore } from '../lib/rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from '../lib/rate-limit/rate-limit.store.js';
import type { TestApp } from './setup/app.js';
import { databaseTargets } from './setup/databases.js';
import { CHROMIUM, chromiumAvailable } from './setup/ci.js';
import {
  checkState as check,
  CHROMIUM_ARGS,
  DESKTOP,
  focused as focusedIn,
  PASSWORD,
  PHONE,
  shotsDir,
  startSignInApp,
  toMethods,
} from './setup/signin-browser.js';

/**
 * The built-in sign-in page as a person meets it, in real Chromium: errors shown in the form that
 * failed (typed address kept, field marked and focused), "please sign in" as a notice, busy buttons
 * that cannot be pressed twice, and axe (WCAG A/AA) with 0 violations in each state, on a desktop and
 * a phone. Screenshots go to test-output/signin-<platform>/. Identifier-first itself, the phone fit
 * and the keyboard walk are in test/identifier-first.e2e-spec.ts.
 */

// Strict under any CI value but empty, `false` or `0` (isStrictCi): a missing Chromium then fails.
const hasChromium = chromiumAvailable('signin-experience.e2e-spec');

const [sqlite] = await databaseTargets(['sqlite']);
const describeBrowser = hasChromium ? sqlite!.describe : describe.skip;

describeBrowser('the sign-in page in Chromium', () => {
  let app: { t: TestApp; close(): Promise<void> };
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const SHOTS = shotsDir('signin');

  beforeAll(async () => {
    app = await startSignInApp(sqlite!, 'signin_experience');
    t = app.t;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  beforeEach(async () => {
    (t.app.get(RateLimitStore) as MemoryRateLimitStore).clear();
    await context?.close();
    context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
  });

  const checkState = (name: string) => check(page, SHOTS, name);
  const focused = () => focusedIn(page);

  // promise: pages.inline-errors
  it('a wrong password: the message is in the credentials form, the address kept, the field marked and focused', async () => {
    await page.goto(`${t.url}/auth/signin`);
    await checkState('default');
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkState('default-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await toMethods(page, 'ada@example.test');
    const form = page.locator('form[data-form="credentials"]');
    await form.getByLabel('Password').fill('wrong password');
    await form.getByRole('button', { name: 'Sign in with Password' }).click();
    await page.waitForURL(/error=CredentialsSignin/);

    const url = new URL(page.url());
    expect(url.searchParams.get('error')).toBe('CredentialsSignin');
    expect(url.searchParams.get('provider')).toBe('credentials');
    expect(url.searchParams.get('email')).toBe('ada@example.test');
    expect(page.url()).not.toContain('wrong');

    const message = form.locator('[data-error]');
    await expect(message.textContent()).resolves.toBe(signInErrorMessage('CredentialsSignin'));
    expect(await message.getAttribute('data-error')).toBe('CredentialsSignin');
    expect(await page.locator('[data-error]').count()).toBe(1);
    await expect(page.locator('[data-email]').textContent()).resolves.toBe('ada@example.test');
    await expect(form.locator('input[name="email"]').inputValue()).resolves.toBe('ada@example.test');
    await expect(form.getByLabel('Password').inputValue()).resolves.toBe('');
    expect(await focused()).toEqual({
      name: 'password',
      invalid: 'true',
      description: signInErrorMessage('CredentialsSignin'),
    });
    await checkState('error-credentials');
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkState('error-credentials-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Fixed and sent again: signed in.
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Sign in with Password' }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/auth/signin'));
    const session = await (await context.request.get(`${t.url}/auth/session`)).json();
    expect(session.user.email).toBe('ada@example.test');
  });

  it("a malformed address: the page's inline error and aria-invalid, not the browser's validation bubble", async () => {
    await page.goto(`${t.url}/auth/signin`);
    const field = page.getByLabel('Email', { exact: true });
    await field.fill('not-an-address');
    await page.getByRole('button', { name: 'Continue' }).click();
    // The browser's own check stays on and stops the form; the page's script shows its own error.
    expect(new URL(page.url()).searchParams.get('step')).toBeNull();
    const error = page.locator('form[data-form="identifier"] [data-error="InvalidEmail"]');
    await expect(error.isVisible()).resolves.toBe(true);
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(field.inputValue()).resolves.toBe('not-an-address');
    expect(await focused()).toMatchObject({ name: 'email', invalid: 'true' });
    // What gets past a browser's check (or comes without one) gets the same error from the server.
    await page.goto(`${t.url}/auth/signin?step=methods&email=not-an-address`);
    await expect(error.isVisible()).resolves.toBe(true);
    expect(await focused()).toMatchObject({ name: 'email', invalid: 'true' });
  });

  it('an email that could not be sent: the message under the email field, the address kept and focused', async () => {
    await page.goto(`${t.url}/auth/signin`);
    await toMethods(page, 'grace@example.test');
    const form = page.locator(`form[action$="/auth/signin/email"]`);
    await form.getByRole('button').click();
    await page.waitForURL(/error=EmailSignin/);
    await expect(form.locator('[data-error="EmailSignin"]').textContent()).resolves.toBe(
      signInErrorMessage('EmailSignin'),
    );
    // The button that failed is focused and described by the message; the address is still there.
    expect(await focused()).toEqual({ name: 'BUTTON', invalid: null, description: signInErrorMessage('EmailSignin') });
    await expect(page.locator('[data-email]').textContent()).resolves.toBe('grace@example.test');
    await checkState('error-email');
  });

  it('"please sign in to continue" is a neutral notice: no alert, nothing marked invalid', async () => {
    await page.goto(`${t.url}/auth/signin?error=SessionRequired`);
    const notice = page.locator('[data-error="SessionRequired"]');
    await expect(notice.textContent()).resolves.toBe('Please sign in to continue.');
    expect(await notice.getAttribute('role')).toBe('status');
    expect(await page.locator('[role="alert"]').count()).toBe(0);
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(0);
    await checkState('notice');
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkState('notice-dark');
  });

  // promise: pages.error-messages-in-browser
  // Every type the page has a sentence for, and one it does not know.
  it.each([...signInErrorTypes(), 'Nope'])('?error=%s shows its human sentence, never the raw type', async (type) => {
    await page.goto(`${t.url}/auth/signin?error=${type}&provider=credentials`);
    const message = page.locator('[data-error]');
    const text = (await message.textContent()) ?? '';
    expect(text).toBe(signInErrorMessage(type));
    expect(text).not.toContain(type);
    expect(await message.getAttribute('data-error')).toBe(type === 'Nope' ? 'Unknown' : type);
  });

  /**
   * Presses "Sign in with Password" (right password), then, once that POST is on its way (it hashes
   * for about a second), clicks again and presses Enter in the password field, as an impatient person
   * does. Returns how many POSTs the browser sent.
   */
  async function impatientSignIn(target: Page): Promise<number> {
    await target.goto(`${t.url}/auth/signin`);
    await toMethods(target, 'ada@example.test');
    const form = target.locator('form[data-form="credentials"]');
    await form.getByLabel('Password').fill(PASSWORD);
    const posts: string[] = [];
    target.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/auth/callback/credentials')) posts.push(r.url());
    });
    const sent = target.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/callback/credentials'));
    await form.getByRole('button', { name: 'Sign in with Password' }).click({ noWaitAfter: true });
    await sent;
    // `force`: a disabled button is clicked anyway (and does nothing), instead of waited for.
    await form
      .getByRole('button', { name: 'Sign in with Password' })
      .click({ force: true, noWaitAfter: true, timeout: 5000 })
      .catch(() => undefined);
    await form
      .getByLabel('Password')
      .press('Enter', { noWaitAfter: true, timeout: 5000 })
      .catch(() => undefined);
    await target.waitForURL((u) => !u.pathname.startsWith('/auth/'));
    await target.waitForLoadState('networkidle');
    return posts.length;
  }

  // promise: pages.busy-states
  it('a double click on the credentials button posts once; the form is busy and its buttons disabled meanwhile', async () => {
    // This first POST is answered 204 No Content, which leaves the page where it is: the busy state
    // stays to be looked at (a real sign-in follows below).
    await page.route('**/auth/callback/credentials', (route) => route.fulfill({ status: 204 }));
    await page.goto(`${t.url}/auth/signin`);
    await toMethods(page, 'ada@example.test');
    const form = page.locator('form[data-form="credentials"]');
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Sign in with Password' }).click({ noWaitAfter: true });
    const state = () =>
      page.evaluate(() => {
        const f = document.querySelector('form[data-form="credentials"]')!;
        return {
          busy: f.getAttribute('aria-busy'),
          disabled: Array.from(f.querySelectorAll('button')).every((b) => b.disabled),
          spinner: f.querySelectorAll('button[data-busy]').length,
          // Only the submitted form is busy: the others still work.
          otherDisabled: (document.querySelector('form[action$="/auth/signin/email"] button') as HTMLButtonElement)
            .disabled,
        };
      });
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('form[data-form="credentials"] button')).every(
        (b) => (b as HTMLButtonElement).disabled,
      ),
    );
    expect(await state()).toEqual({ busy: 'true', disabled: true, spinner: 1, otherDisabled: false });
    await checkState('busy');

    // Signing in for real: pressed again while the first POST is on its way, it posts once. (This
    // Chromium also drops a resubmission of the same pending form without the script; the busy
    // state above is what the script adds, and what fails without it.)
    const fresh = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    try {
      expect(await impatientSignIn(fresh)).toBe(1);
      const session = await (await fresh.context().request.get(`${t.url}/auth/session`)).json();
      expect(session.user.email).toBe('ada@example.test');
    } finally {
      await fresh.context().close();
    }
  });

  // promise: pages.no-js
  it('without JavaScript identifier-first still signs in with a password (both steps rendered by the server)', async () => {
    const noJs = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    try {
      const p = await noJs.newPage();
      await p.goto(`${t.url}/auth/signin`);
      await toMethods(p, 'ada@example.test');
      const form = p.locator('form[data-form="credentials"]');
      await form.getByLabel('Password').fill(PASSWORD);
      await form.getByRole('button', { name: 'Sign in with Password' }).click();
      await p.waitForURL((u) => !u.pathname.startsWith('/auth/'));
      const session = await (await noJs.request.get(`${t.url}/auth/session`)).json();
      expect(session.user.email).toBe('ada@example.test');
    } finally {
      await noJs.close();
    }
  });
});
