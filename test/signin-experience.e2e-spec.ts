import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { hashPassword, verifyPassword } from '../lib/flows/credentials/password.js';
import { signInErrorMessage } from '../lib/pages/signin.page.js';
import { Credentials } from '../lib/providers/credentials.provider.js';
import { Email } from '../lib/providers/email.provider.js';
import { MemoryRateLimitStore } from '../lib/rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from '../lib/rate-limit/rate-limit.store.js';
import { createTestApp, TEST_PLATFORM, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { startSmtpServer } from './setup/smtp.js';

/**
 * The built-in sign-in page as a person meets it, in real Chromium: errors shown in the form that
 * failed (typed address kept, field marked and focused), "please sign in" as a notice, busy buttons
 * that cannot be pressed twice, and axe (WCAG A/AA) with 0 violations in each state, on a desktop and
 * a phone. Screenshots go to test-output/signin-<platform>/.
 */

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];
const SHOTS = join(process.cwd(), 'test-output', `signin-${TEST_PLATFORM}`);
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'correct horse battery staple';
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI === 'true') throw new Error(`Chromium is required in CI (${CHROMIUM}).`);
if (!hasChromium) console.log(`signin-experience.e2e-spec: skipped, no Chromium at ${CHROMIUM}.`);

const [sqlite] = await databaseTargets(['sqlite']);
const describeBrowser = hasChromium ? sqlite!.describe : describe.skip;

describeBrowser('the sign-in page in Chromium', () => {
  let db: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let hash: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    hash = await hashPassword(PASSWORD);
    // A mail server that is gone: the email sign-in fails for real (EmailSignin).
    const down = await startSmtpServer();
    await down.close();
    db = await createDatabase(sqlite!, 'signin_experience');
    t = await createTestApp({
      imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })],
      auth: {
        session: { strategy: 'jwt' },
        logger: { error: () => undefined, warn: () => undefined },
        providers: [
          Email({ server: down.url, from: 'auth@example.test' }),
          Credentials({
            name: 'Password',
            credentials: {
              email: { label: 'Email address', type: 'email', required: true },
              password: { label: 'Password', type: 'password', required: true },
            },
            async authorize(credentials) {
              const ok = await verifyPassword(String(credentials.password ?? ''), hash);
              return ok && credentials.email === 'ada@example.test' ? { id: 'ada', email: 'ada@example.test' } : null;
            },
          }),
        ],
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await dropDatabase(db);
  });

  beforeEach(async () => {
    (t.app.get(RateLimitStore) as MemoryRateLimitStore).clear();
    await context?.close();
    context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
  });

  /** axe's WCAG 2 A/AA rules on the page as it is now: the violations' ids and targets. */
  async function axe(): Promise<string[]> {
    await page.addScriptTag({ path: AXE_SOURCE }).catch(async () => {
      // The page's CSP refuses inline scripts: evaluate the source instead (DevTools is not bound by it).
      const { readFileSync } = await import('node:fs');
      await page.evaluate(readFileSync(AXE_SOURCE, 'utf8'));
    });
    return page.evaluate(async () => {
      const result = await (
        window as unknown as {
          axe: {
            run(
              ctx: Document,
              opts: object,
            ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown[] }> }> }>;
          };
        }
      ).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
    });
  }

  /** axe on a desktop and on a phone, with a screenshot of each. */
  async function checkState(name: string): Promise<void> {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      expect({ state: name, size, violations: await axe() }).toEqual({ state: name, size, violations: [] });
      await page.screenshot({ path: join(SHOTS, `${name}-${size}.png`), fullPage: true });
    }
    await page.setViewportSize(DESKTOP);
  }

  /** What the focused element is: its name attribute and whether it is marked invalid and described. */
  function focused() {
    return page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null;
      const describedBy = el?.getAttribute('aria-describedby');
      return {
        name: el?.getAttribute('name') ?? el?.tagName,
        invalid: el?.getAttribute('aria-invalid'),
        description: describedBy ? document.getElementById(describedBy)?.textContent : undefined,
      };
    });
  }

  /** Step 1 of identifier-first: types the address, presses Continue, lands on step 2. */
  async function toMethods(target: Page, email: string): Promise<void> {
    await target.getByLabel('Email', { exact: true }).fill(email);
    await target.getByRole('button', { name: 'Continue' }).click();
    await target.waitForURL((u) => u.searchParams.get('step') === 'methods');
  }

  /**
   * Words of the card's text (addresses aside) that the browser split over two lines: each word's
   * range has one line box, or it was broken mid-word.
   */
  function brokenWords(target: Page): Promise<string[]> {
    return target.evaluate(() => {
      const broken: string[] = [];
      const walker = document.createTreeWalker(document.querySelector('.card')!, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const m of text.matchAll(/\S+/g)) {
          if (m[0].includes('@')) continue;
          const range = document.createRange();
          range.setStart(node, m.index!);
          range.setEnd(node, m.index! + m[0].length);
          const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
          if (tops.size > 1) broken.push(m[0]);
        }
      }
      return broken;
    });
  }

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
    await form.getByRole('button').click();
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
    await form.getByRole('button').click();
    await page.waitForURL((u) => !u.pathname.startsWith('/auth/signin'));
    const session = await (await context.request.get(`${t.url}/auth/session`)).json();
    expect(session.user.email).toBe('ada@example.test');
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
  it.each(['MissingCSRF', 'RateLimited', 'OAuthAccountNotLinked', 'Verification', 'AccessDenied', 'Nope'])(
    '?error=%s shows its human sentence, never the raw type',
    async (type) => {
      await page.goto(`${t.url}/auth/signin?error=${type}&provider=credentials`);
      const message = page.locator('[data-error]');
      const text = (await message.textContent()) ?? '';
      expect(text).toBe(signInErrorMessage(type));
      expect(text).not.toContain(type);
      expect(await message.getAttribute('data-error')).toBe(type === 'Nope' ? 'Unknown' : type);
    },
  );

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
    await form.getByRole('button').click({ noWaitAfter: true });
    await sent;
    // `force`: a disabled button is clicked anyway (and does nothing), instead of waited for.
    await form
      .getByRole('button')
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
    await form.getByRole('button').click({ noWaitAfter: true });
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
      await form.getByRole('button').click();
      await p.waitForURL((u) => !u.pathname.startsWith('/auth/'));
      const session = await (await noJs.request.get(`${t.url}/auth/session`)).json();
      expect(session.user.email).toBe('ada@example.test');
    } finally {
      await noJs.close();
    }
  });
});
