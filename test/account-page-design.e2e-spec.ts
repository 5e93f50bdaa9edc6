import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { ENGLISH_MESSAGES, GERMAN_MESSAGES, type PageMessages } from '../lib/config/messages/page-messages.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import { Discord } from '../lib/providers/catalog/discord.provider.js';
import { GitHub } from '../lib/providers/catalog/github.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { checkDesign } from './setup/design-checks.js';
import { CHROMIUM, chromiumAvailable, VIRTUAL_PLATFORM_AUTHENTICATOR } from './setup/ci.js';
import { CHROMIUM_ARGS, DESKTOP, shotsDir } from './setup/signin-browser.js';

/**
 * The account page as a person sees it, in real Chromium, in English and German, light and dark, on a
 * desktop (1280x800) and a phone (390x844): a user with four sessions (two on Chrome on macOS), a
 * linked account, two passkeys without a name, an API key. In every state axe (WCAG 2.1 A/AA) finds
 * nothing, every button and link has its visible words in its accessible name (label in name), no
 * two controls share a name, nothing is wider than the screen, and times are in the browser's time
 * zone. A user without a passkey is offered one first, on the phone's first screen, and creating it
 * (DevTools' virtual authenticator) turns the offer into the list. Screenshots go to
 * test-output/account-page-<platform>/ (git-ignored) for review.
 */

const PASSWORD = 'correct horse battery staple';
const TIME_ZONE = 'America/New_York';
const AGENTS = {
  chromeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  firefoxWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
};
const describeBrowser = chromiumAvailable('account-page-design.e2e-spec') ? describe : describe.skip;

describeBrowser('the account page in Chromium: light and dark, desktop and phone, English and German', () => {
  let browser: Browser;
  const dir = shotsDir('account-page');

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--headless'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  /**
   * Every design check in both schemes and sizes (test/setup/design-checks.ts); a page of rows: no two
   * controls share a name at all (two "Remove" buttons would leave a screen-reader user guessing).
   */
  const check = (page: Page, state: string) => checkDesign(page, dir, state, { distinct: true });

  describe.each([
    ['English', ENGLISH_MESSAGES],
    ['German', GERMAN_MESSAGES],
  ] as const)('%s', (lang, m: PageMessages) => {
    let t: TestApp;
    let adapter: MemoryAdapter;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      adapter = new MemoryAdapter();
      t = await createTestApp({
        auth: {
          adapter,
          trustHost: true,
          session: { strategy: 'database' },
          messages: m,
          logger: { error: () => undefined, warn: () => undefined },
          apiKeys: {},
          twoFactor: { policy: 'optional' },
          providers: [
            Credentials({
              credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
              async authorize({ email, password }) {
                const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
                return user && password === PASSWORD
                  ? { id: user.id, email: user.email, name: user.name ?? null }
                  : null;
              },
            }),
            Passkey(),
            Email({ sendVerificationRequest: async () => undefined }),
            GitHub({ clientId: 'github-client', clientSecret: 'github-secret' }),
            Discord({ clientId: 'discord-client', clientSecret: 'discord-secret' }),
          ],
        },
      });
    }, 60_000);
    afterAll(async () => {
      for (const c of contexts) await c.close();
      await t?.close();
    });

    /**
     * A browser with this user agent, signed in as `email` with the password (a session of its own),
     * on `origin` (http://localhost:<port> for passkeys: WebAuthn refuses an IP address).
     */
    async function signedIn(email: string, userAgent: string, origin = t.url): Promise<Page> {
      const context = await browser.newContext({ viewport: DESKTOP, userAgent, timezoneId: TIME_ZONE });
      contexts.push(context);
      const { csrfToken } = (await (await context.request.get(`${origin}/auth/csrf`)).json()) as { csrfToken: string };
      const res = await context.request.post(`${origin}/auth/callback/credentials`, {
        form: { csrfToken, email, password: PASSWORD },
        maxRedirects: 0,
      });
      expect(res.status()).toBe(302);
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (e) => console.log('[browser error]', e.message));
      return page;
    }

    it('every section, each row named for what it acts on, times in the browser’s zone: 0 axe violations in every state', async () => {
      const email = `${randomUUID()}@example.test`;
      const user = await adapter.createUser({ email, emailVerified: new Date(), name: 'Ada' } as never);
      // Sessions on four devices, two of them the same browser and system.
      const page = await signedIn(email, AGENTS.chromeMac);
      for (const agent of [AGENTS.chromeMac, AGENTS.safariIphone, AGENTS.firefoxWindows]) await signedIn(email, agent);
      // A linked GitHub account and two passkeys without a name, as a sign-in would have stored them.
      await adapter.linkAccount({ userId: user.id, type: 'oauth', provider: 'github', providerAccountId: 'gh-1' });
      for (const [i, credentialID] of ['cred-one', 'cred-two'].entries()) {
        await adapter.linkAccount({
          userId: user.id,
          type: 'webauthn',
          provider: 'passkey',
          providerAccountId: credentialID,
        });
        await adapter.createAuthenticator({
          userId: user.id,
          credentialID,
          providerAccountId: credentialID,
          credentialPublicKey: 'k',
          counter: 0,
          credentialDeviceType: i ? 'singleDevice' : 'multiDevice',
          credentialBackedUp: !i,
          transports: null,
        });
      }

      const account = `${t.url}/auth/account`;
      await page.goto(account);
      expect(await page.getAttribute('html', 'lang')).toBe(m.lang);
      expect(await page.locator('h1').textContent()).toBe(m['account.title']);
      const all = await check(page, `${lang} account`);
      const byName = (name: string) => all.filter((c) => c.name === name).map((c) => c.visible);
      const device = (browserName: string, system: string) =>
        m['account.device'].replace('{browser}', browserName).replace('{system}', system);
      const nth = (name: string, n: number) => m['account.nth'].replace('{name}', name).replace('{n}', String(n));
      const endOn = (d: string) => m['account.endSessionNamed'].replace('{device}', d);
      // The other Chrome on macOS, Safari on iOS, Firefox on Windows: each "End session" named for its device.
      for (const d of [device('Chrome', 'macOS'), device('Safari', 'iOS'), device('Firefox', 'Windows')])
        expect({ d, buttons: byName(endOn(d)) }).toEqual({ d, buttons: [m['account.endSession']] });
      expect(byName(m['account.unlinkNamed'].replace('{name}', 'GitHub'))).toEqual([m['account.unlink']]);
      for (const n of [1, 2])
        expect(byName(m['account.removeNamed'].replace('{name}', nth(m['account.unnamedPasskey'], n)))).toEqual([
          m['account.remove'],
        ]);
      // The current session: its device, the tag, no button.
      const current = page.locator('li[aria-current="true"]');
      expect(await current.locator('.item-title').textContent()).toBe(
        `${device('Chrome', 'macOS')}${m['account.thisDevice']}`,
      );
      expect(await current.getByRole('button').count()).toBe(0);

      // Times: in New York time, in the page's language, never raw ISO nor UTC.
      const time = page.locator('li[aria-current="true"] time').first();
      const at = new Date((await time.getAttribute('datetime'))!);
      const shown = (await time.textContent())!;
      const hour = Number(
        new Intl.DateTimeFormat('en-US', { hour: 'numeric', hourCycle: 'h23', timeZone: TIME_ZONE }).format(at),
      );
      const minutes = String(at.getUTCMinutes()).padStart(2, '0');
      expect(shown).toContain(
        lang === 'German' ? `${String(hour).padStart(2, '0')}:${minutes}` : `${hour % 12 || 12}:${minutes}`,
      );
      expect(shown).not.toContain('UTC');
      expect(await page.locator('main').innerText()).not.toMatch(/\d{4}-\d{2}-\d{2}|T\d{2}:\d{2}/);

      // Renaming: the disclosure opens a form labelled for that passkey; names stay distinct while open.
      const first = page.locator('li[data-passkey]').first();
      await first.getByText(m['account.rename'], { exact: true }).click();
      const firstName = nth(m['account.unnamedPasskey'], 1);
      await first.getByLabel(m['account.newNameFor'].replace('{name}', firstName), { exact: true }).fill('Work laptop');
      await check(page, `${lang} renaming`);
      await Promise.all([
        page.waitForURL(`${account}?notice=passkey-renamed`),
        first.getByRole('button', { name: m['account.saveNamed'].replace('{name}', firstName) }).click(),
      ]);
      expect(await page.getByRole('status').textContent()).toBe(m['account.notice.passkey-renamed']);
      expect(await page.locator('li[data-passkey] .item-title').first().textContent()).toContain('Work laptop');

      // Ending a session by its name: a confirmation, one row fewer.
      await Promise.all([
        page.waitForURL(`${account}?notice=session-ended`),
        page.getByRole('button', { name: endOn(device('Firefox', 'Windows')) }).click(),
      ]);
      expect(await page.getByRole('status').textContent()).toBe(m['account.notice.session-ended']);
      expect(await page.locator('section[aria-labelledby="sessions-heading"] li').count()).toBe(3);

      // An API key, made with the form, listed with its own Rotate and Revoke.
      await page.getByLabel(m['account.apiKeys.nameLabel'], { exact: true }).fill('Deploy bot');
      await Promise.all([
        page.waitForURL(`${account}/api-keys/create`),
        page.getByRole('button', { name: m['account.apiKeys.create'] }).click(),
      ]);
      await Promise.all([
        page.waitForURL(`${account}?notice=api-key-created`),
        page.getByRole('link', { name: m['account.apiKeys.continue'] }).click(),
      ]);
      expect(await page.getByRole('status').textContent()).toBe(m['account.notice.api-key-created']);
      await check(page, `${lang} api key created`);

      // Deleting is apart, last, and asks for the box first.
      const danger = page.locator('section.danger-zone');
      expect(await danger.getByRole('heading').textContent()).toBe(m['account.deleteHeading']);
      expect(await danger.getByRole('link').count()).toBe(0);
      const box = danger.getByRole('checkbox', { name: m['account.deleteConfirm'] });
      const size = (await box.boundingBox())!;
      expect(Math.min(size.width, size.height)).toBeGreaterThanOrEqual(20);
      const button = danger.getByRole('button', { name: m['account.deleteAccount'] });
      await page.emulateMedia({ colorScheme: 'dark' });
      const colours = await button.evaluate((b) => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]);
      expect(colours).toEqual(['rgb(255, 255, 255)', 'rgb(185, 28, 28)']);
      await page.emulateMedia({ colorScheme: 'light' });
    }, 180_000);

    // promise: account.passkey-offer
    it('a user without a passkey is offered one first (what it is, one primary button, on the first phone screen); creating it lists it', async () => {
      const origin = t.url.replace('127.0.0.1', 'localhost');
      const email = `${randomUUID()}@example.test`;
      const user = await adapter.createUser({ email, emailVerified: new Date(), name: 'Grace' } as never);
      const page = await signedIn(email, AGENTS.chromeMac, origin);
      const account = `${origin}/auth/account`;
      await page.goto(account);
      const offer = page.getByRole('region', { name: m['account.passkeysHeading'] });
      // The first section, the sentence, then the page's one "Add a passkey": a filled button.
      expect(await page.locator('section').first().getAttribute('aria-labelledby')).toBe('passkeys-heading');
      expect(await offer.locator('[data-passkey-offer]').textContent()).toBe(m['account.passkeysOffer']);
      const add = page.getByRole('button', { name: m['account.addPasskey'] });
      expect(await add.count()).toBe(1);
      expect(await add.getAttribute('class')).toBe('button btn-auto');
      expect(await page.locator('script[src$="/auth/webauthn-client.js"]').count()).toBe(1);
      // On the phone's first screen too.
      await checkDesign(page, dir, `${lang} passkey offer`, {
        distinct: true,
        primaryBottom: (p) =>
          p.getByRole('button', { name: m['account.addPasskey'] }).evaluate((b) => b.getBoundingClientRect().bottom),
      });

      // Creating it (a platform authenticator in this tab): back with the notice, the offer gone, the list there.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', { options: VIRTUAL_PLATFORM_AUTHENTICATOR });
      await Promise.all([page.waitForURL(`${account}?notice=passkey-added`), add.click()]);
      expect(await page.getByRole('status').textContent()).toBe(m['account.notice.passkey-added']);
      expect(await page.locator('[data-passkey-offer]').count()).toBe(0);
      expect(await page.locator('li[data-passkey]').count()).toBe(1);
      expect(await page.getByRole('button', { name: m['account.addPasskey'] }).getAttribute('class')).toBe(
        'button button-secondary btn-auto',
      );
      expect(await adapter.listAuthenticatorsByUserId(user.id)).toHaveLength(1);
      await check(page, `${lang} first passkey added`);
    }, 120_000);
  });
});
