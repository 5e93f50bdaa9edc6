import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { CHROMIUM, chromiumAvailable, VIRTUAL_PLATFORM_AUTHENTICATOR } from './setup/ci.js';
import { axe, toMethods } from './setup/signin-browser.js';

/**
 * The built-in account page in real Chromium with DevTools' virtual authenticator: sign up with a
 * passkey and land on the page, add a second passkey, rename one, remove one, be refused removing
 * the last one; axe (WCAG 2.1 A/AA) finds 0 violations in each state, on a desktop and a phone.
 */

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
  '--headless',
];
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const describeBrowser = chromiumAvailable('account-page.e2e-spec') ? describe : describe.skip;

describeBrowser('the account page in Chromium (virtual authenticator)', () => {
  let t: TestApp;
  let origin: string;
  let adapter: MemoryAdapter;
  let browser: Browser;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    t = await createTestApp({
      auth: {
        providers: [Passkey(), Email({ sendVerificationRequest: async () => undefined })],
        adapter,
        trustHost: true,
        session: { strategy: 'database' },
      },
    });
    origin = t.url.replace('127.0.0.1', 'localhost');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    page.on('pageerror', (e) => console.log('[browser error]', e.message));
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: VIRTUAL_PLATFORM_AUTHENTICATOR,
    }));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function accessible(state: string): Promise<void> {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      expect({ state, size, violations: await axe(page) }).toEqual({ state, size, violations: [] });
    }
    await page.setViewportSize(DESKTOP);
  }

  const passkeyItems = () => page.locator('li[data-passkey]');

  // promise: account.page
  it('adds a passkey, renames it, removes it (never the last one), with 0 axe violations', async () => {
    // Sign up with a passkey from the built-in sign-in page, coming back to the account page.
    const account = `${origin}/auth/account`;
    await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(account)}`);
    // Two methods need an address (magic link, passkey): the page asks for it first (identifier-first).
    await toMethods(page, 'page@example.test');
    await Promise.all([page.waitForURL(account), page.getByRole('button', { name: 'Create a passkey' }).click()]);
    expect(await page.locator('h1').textContent()).toBe('Your account');
    expect(await passkeyItems().count()).toBe(1);
    await accessible('one passkey');

    // Add a passkey on a second authenticator (the first one is excluded by the options).
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: VIRTUAL_PLATFORM_AUTHENTICATOR,
    }));
    await Promise.all([
      page.waitForURL(`${account}?notice=passkey-added`),
      page.getByRole('button', { name: 'Add a passkey' }).click(),
    ]);
    expect(await passkeyItems().count()).toBe(2);
    expect(await page.getByRole('status').textContent()).toContain('The passkey was added.');
    const user = await adapter.getUserByEmail('page@example.test');
    expect(await adapter.listAuthenticatorsByUserId(user!.id)).toHaveLength(2);
    await accessible('passkey added');

    // Rename the first one, without JavaScript's help: a disclosure, a plain form post and a redirect back.
    const first = passkeyItems().first();
    await first.getByText('Rename', { exact: true }).click();
    await first.getByLabel('New name for Passkey (1)', { exact: true }).fill('Work laptop');
    await accessible('renaming a passkey');
    await Promise.all([
      page.waitForURL(`${account}?notice=passkey-renamed`),
      first.getByRole('button', { name: 'Save the new name of Passkey (1)' }).click(),
    ]);
    expect(await page.getByRole('status').textContent()).toContain('The passkey was renamed.');
    expect(await passkeyItems().first().locator('.item-title').textContent()).toContain('Work laptop');
    await accessible('passkey renamed');

    // Remove it by its accessible name.
    await Promise.all([
      page.waitForURL(`${account}?notice=passkey-removed`),
      page.getByRole('button', { name: 'Remove Work laptop' }).click(),
    ]);
    expect(await passkeyItems().count()).toBe(1);
    expect(await page.locator('body').textContent()).not.toContain('Work laptop');
    expect(await adapter.listAuthenticatorsByUserId(user!.id)).toHaveLength(1);

    // The last passkey of a user whose address was never verified cannot go.
    await Promise.all([
      page.waitForURL(`${account}?error=LastSignInMethod`),
      passkeyItems()
        .first()
        .getByRole('button', { name: /^Remove/ })
        .click(),
    ]);
    expect(await page.getByRole('alert').first().textContent()).toContain('This is your only way to sign in');
    expect(await passkeyItems().count()).toBe(1);
    await accessible('last passkey refused');
  }, 90_000);
});
