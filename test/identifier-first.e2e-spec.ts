import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryRateLimitStore } from '../lib/rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from '../lib/rate-limit/rate-limit.store.js';
import type { TestApp } from './setup/app.js';
import { CHROMIUM, chromiumAvailable } from './setup/ci.js';
import { databaseTargets } from './setup/databases.js';
import {
  brokenWords,
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
 * Identifier-first sign-in in real Chromium, on a desktop and a 390×844 phone: the address, then the
 * methods for it; by keyboard alone; long addresses wrapping without any word broken mid-word; axe
 * (WCAG A/AA) with 0 violations in each state, light and dark. Screenshots go to
 * test-output/identifier-first-<platform>/. (Without JavaScript: test/signin-experience.e2e-spec.ts
 * for a password, test/sample.e2e-spec.ts for a magic link.)
 */

const [sqlite] = await databaseTargets(['sqlite']);
const describeBrowser = chromiumAvailable('identifier-first.e2e-spec') ? sqlite!.describe : describe.skip;

describeBrowser('identifier-first sign-in in Chromium', () => {
  let app: { t: TestApp; close(): Promise<void> };
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const SHOTS = shotsDir('identifier-first');

  beforeAll(async () => {
    app = await startSignInApp(sqlite!, 'identifier_first');
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

  // promise: pages.identifier-first
  it('identifier-first: the address first, then the methods for it, at 390×844 too', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await page.goto(`${t.url}/auth/signin`);
      expect(await page.locator('input:visible').count()).toBe(1);
      await toMethods(page, 'ada@example.test');
      await expect(page.locator('[data-email]').textContent()).resolves.toBe('ada@example.test');
      expect(await page.getByRole('button', { name: 'Email me a sign-in link' }).isVisible()).toBe(true);
      // The password field is focused: type and press Enter.
      expect(await focused()).toEqual({ name: 'password', invalid: null, description: undefined });
      // Another address or method: back to step 1, the address kept.
      await page.getByRole('link', { name: 'Use another address or sign-in method' }).click();
      await expect(page.getByLabel('Email', { exact: true }).inputValue()).resolves.toBe('ada@example.test');
    }
    await page.goto(`${t.url}/auth/signin`);
    await toMethods(page, 'ada@example.test');
    await checkState('methods');
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkState('methods-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    // Not an address (the browser's own check bypassed): step 1 again, the error under the field.
    await page.goto(`${t.url}/auth/signin?step=methods&email=nope`);
    expect(await focused()).toEqual({ name: 'email', invalid: 'true', description: expect.stringContaining('valid') });
    await checkState('invalid-email');
  });

  // promise: pages.no-break-mid-word
  it('on a 390 px phone a long address wraps inside the card and no word breaks mid-word', async () => {
    await page.setViewportSize(PHONE);
    const long = `${'a'.repeat(30)}.${'b'.repeat(30)}@${'sub.'.repeat(8)}example.test`;
    await page.goto(`${t.url}/auth/signin?step=methods&email=${encodeURIComponent(long)}`);
    const sizes = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      address: document.querySelector('[data-email]')!.getClientRects().length,
    }));
    expect(sizes.scroll).toBeLessThanOrEqual(390);
    expect(sizes.address).toBeGreaterThan(1);
    expect(await brokenWords(page)).toEqual([]);
    await page.goto(`${t.url}/auth/signin?error=OAuthAccountNotLinked`);
    expect(await brokenWords(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'long-address-phone.png'), fullPage: true });
  });

  // promise: pages.keyboard
  it('signs in by keyboard alone: Tab to the address, Enter, the password, Enter', async () => {
    await page.goto(`${t.url}/auth/signin`);
    await page.keyboard.press('Tab');
    expect((await focused()).name).toBe('email');
    await page.keyboard.type('ada@example.test');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.searchParams.get('step') === 'methods');
    expect((await focused()).name).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => !u.pathname.startsWith('/auth/'));
    const session = await (await context.request.get(`${t.url}/auth/session`)).json();
    expect(session.user.email).toBe('ada@example.test');
  });
});
