import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { GERMAN_MESSAGES } from '../lib/config/messages/page-messages.js';
import type { PageRenderContext } from '../lib/config/page-render.types.js';
import { hashPassword, verifyPassword } from '../lib/methods/credentials/password.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { createTestApp, TEST_PLATFORM, type TestApp } from './setup/app.js';
import { CHROMIUM, chromiumAvailable } from './setup/ci.js';
import { startSmtpServer, type TestSmtpServer } from './setup/smtp.js';
import { brokenWords } from './setup/signin-browser.js';

/**
 * The built-in pages in another language (`messages: GERMAN_MESSAGES`) and replaced by a render hook
 * (`pages.render`), in real Chromium: the module still brings the CSRF token, the typed error and the
 * CSP (a nonce for the hook's own script). Screenshots go to test-output/pages-<platform>/.
 */

const SHOTS = join(process.cwd(), 'test-output', `pages-${TEST_PLATFORM}`);
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'correct horse battery staple';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const describeBrowser = chromiumAvailable('pages-custom.e2e-spec') ? describe : describe.skip;

describeBrowser('custom pages in Chromium', () => {
  let browser: Browser;
  let smtp: TestSmtpServer;
  let german: TestApp;
  let hooked: TestApp;
  let hash: string;
  const logged: Error[] = [];

  const credentials = () =>
    Credentials({
      name: 'Passwort',
      credentials: {
        email: { label: 'E-Mail', type: 'email', required: true },
        password: { label: 'Passwort', type: 'password', required: true },
      },
      async authorize(c) {
        const ok = await verifyPassword(String(c.password ?? ''), hash);
        return ok && c.email === 'ada@example.test' ? { id: 'ada', email: 'ada@example.test' } : null;
      },
    });

  /** A sign-in page of the app's own: its form, its script (with the nonce), the module's values. */
  function customSignIn(c: PageRenderContext): string {
    const e = c.escape;
    return [
      `<h1>Acme: ${e(c.messages['signIn.title'])}</h1>`,
      c.error ? `<p class="error" role="alert" data-error="${e(c.error.type)}">${e(c.error.message)}</p>` : '',
      `<form method="post" action="${e(c.authUrl)}/callback/credentials" data-custom>`,
      `<input type="hidden" name="csrfToken" value="${e(c.csrfToken)}">`,
      `<input type="hidden" name="callbackUrl" value="${e(c.callbackUrl)}">`,
      `<label for="who">Work email</label><input id="who" name="email" type="email" value="${e(c.email ?? '')}">`,
      '<label for="pw">Password</label><input id="pw" name="password" type="password">',
      '<button class="button" type="submit">Go</button>',
      '</form>',
      `<script nonce="${e(c.nonce)}">document.body.setAttribute('data-hook', 'ran')</script>`,
      // Without the nonce: refused by the CSP.
      "<script>document.body.setAttribute('data-evil', 'ran')</script>",
    ].join('\n');
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    hash = await hashPassword(PASSWORD);
    smtp = await startSmtpServer();
    german = await createTestApp({
      auth: {
        session: { strategy: 'jwt' },
        adapter: new MemoryAdapter(),
        messages: GERMAN_MESSAGES,
        providers: [Email({ server: smtp.url, from: 'auth@example.test' }), credentials()],
      },
    });
    hooked = await createTestApp({
      auth: {
        session: { strategy: 'jwt' },
        logger: { error: (e: Error) => logged.push(e), warn: () => undefined, debug: () => undefined },
        pages: {
          render: {
            signIn: customSignIn,
            error: () => {
              throw new Error('template missing');
            },
          },
        },
        providers: [credentials()],
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await german?.close();
    await hooked?.close();
    await smtp?.close();
  });

  async function axe(page: Page): Promise<string[]> {
    await page.evaluate(AXE);
    return page.evaluate(async () => {
      const result = await (
        window as unknown as {
          axe: { run(d: Document, o: object): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> };
        }
      ).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
    });
  }

  // promise: pages.messages
  it('German: identifier-first in German, a wrong then a right password, axe clean in light and dark', async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(`${german.url}/auth/signin`);
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await page.title()).toBe('Anmelden');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'german-signin-phone.png'), fullPage: true });
    await page.getByLabel('E-Mail', { exact: true }).fill('ada@example.test');
    await page.getByRole('button', { name: 'Weiter' }).click();
    await page.waitForURL((u) => u.searchParams.get('step') === 'methods');
    expect(await page.getByRole('button', { name: 'Anmeldelink per E-Mail senden' }).isVisible()).toBe(true);
    await page.getByLabel('Passwort').fill('falsch');
    await page.getByRole('button', { name: 'Mit Passwort anmelden' }).click();
    await page.waitForURL(/error=CredentialsSignin/);
    await expect(page.locator('[data-error="CredentialsSignin"]').textContent()).resolves.toBe(
      GERMAN_MESSAGES['error.CredentialsSignin'],
    );
    expect(await axe(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'german-error-dark-phone.png'), fullPage: true });
    // German's long compounds wrap whole: no word broken mid-word at 390 px.
    expect(await brokenWords(page)).toEqual([]);
    await page.getByLabel('Passwort').fill(PASSWORD);
    await page.getByLabel('Passwort').press('Enter');
    await page.waitForURL((u) => !u.pathname.startsWith('/auth/'));
    const session = await (await context.request.get(`${german.url}/auth/session`)).json();
    expect(session.user.email).toBe('ada@example.test');
    await context.close();
  });

  // promise: pages.render-hook
  it("a render hook's sign-in page: its script runs by the nonce (another does not), CSRF and errors from the module", async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(`${hooked.url}/auth/signin`);
    expect(await page.locator('h1').textContent()).toBe('Acme: Sign in');
    expect(await page.getAttribute('body', 'data-hook')).toBe('ran');
    expect(await page.getAttribute('body', 'data-evil')).toBeNull();
    expect(await axe(page)).toEqual([]);
    await page.getByLabel('Work email').fill('ada@example.test');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Go' }).click();
    await page.waitForURL(/error=CredentialsSignin/);
    await expect(page.locator('[data-error="CredentialsSignin"]').textContent()).resolves.toBe(
      'Sign in failed. Check that the details you entered are correct.',
    );
    await expect(page.getByLabel('Work email').inputValue()).resolves.toBe('ada@example.test');
    await page.screenshot({ path: join(SHOTS, 'hook-error-phone.png'), fullPage: true });
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Go' }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/auth/'));
    const session = await (await context.request.get(`${hooked.url}/auth/session`)).json();
    expect(session.user.email).toBe('ada@example.test');
    await context.close();
  });

  it('a hook that throws: the built-in page, and the failure logged', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${hooked.url}/auth/error?error=AccessDenied`);
    expect(res!.status()).toBe(403);
    expect(await page.locator('h1').textContent()).toBe('Access denied');
    expect(logged.map((e) => `${e.name}: ${e.message}`)).toContainEqual(
      'PageRenderError: pages.render.error failed, so the built-in page was shown: template missing',
    );
    await page.close();
  });
});
