import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { ENGLISH_MESSAGES, GERMAN_MESSAGES, type PageMessages } from '../lib/config/messages/page-messages.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { Email } from '../lib/methods/email/email.provider.js';
import type { SendVerificationRequestParams } from '../lib/methods/email/email.types.js';
import { totpCode } from '../lib/methods/two-factor/totp.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import { Apple } from '../lib/providers/catalog/apple.provider.js';
import { GitHub } from '../lib/providers/catalog/github.provider.js';
import { Google } from '../lib/providers/catalog/google.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { checkDesign, primaryBottom } from './setup/design-checks.js';
import { CHROMIUM, chromiumAvailable } from './setup/ci.js';
import { CHROMIUM_ARGS, DESKTOP, focused, PASSWORD, shotsDir } from './setup/signin-browser.js';
import { nextCode, type TotpFactor } from './setup/totp-clock.js';
import { givePasskey } from './setup/soft-authenticator.js';

/**
 * The built-in pages the sign-in and account walks leave out, in real Chromium, in English and
 * German, light and dark, at 1280×800 and 390×844: the two-factor challenge (an app's code, refused,
 * a backup code, a code by email before and after it is sent, with a passkey, a passkey alone), the
 * enrolment (required at sign-in, refused, from the account page), the backup codes (first and
 * regenerated), the magic link's confirmation page, and in German every sign-in state (the steps, an
 * invalid address, the OAuth errors, verify-request, the error page, sign-out). In every state axe
 * (WCAG 2.1 A/AA) finds nothing, nothing is wider than the window, every button and link has its
 * visible words in its accessible name, no two controls share a name unless they do the same thing,
 * and the page's primary action is on the phone's first screen (test/setup/design-checks.ts).
 * Screenshots: test-output/pages-design-<platform>/.
 */

const describeBrowser = chromiumAvailable('pages-design.e2e-spec') ? describe : describe.skip;

/** A one-colour square logo, as a `data:` URI (no request). */
const LOGO = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="10" fill="#4f46e5"/></svg>')}`;
const PERIOD_MS = 30_000;

/** Six digits that are none of the codes the window accepts now. */
async function wrongCode(secret: string): Promise<string> {
  const now = Date.now();
  const valid = await Promise.all([-1, 0, 1].map((k) => totpCode(secret, { now: now + k * PERIOD_MS })));
  return ['000000', '111111', '222222', '333333'].find((c) => !valid.includes(c))!;
}

describeBrowser(
  'the two-factor, confirmation and German sign-in pages in Chromium: light and dark, desktop and phone',
  () => {
    let browser: Browser;
    const dir = shotsDir('pages-design');

    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    describe.each([
      ['English', ENGLISH_MESSAGES],
      ['German', GERMAN_MESSAGES],
    ] as const)('%s', (lang, m: PageMessages) => {
      let t: TestApp;
      /** http://localhost:<port>: the passkeys' relying party (WebAuthn refuses an IP address). */
      let url: string;
      let adapter: MemoryAdapter;
      const mails: SendVerificationRequestParams[] = [];
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
            theme: { brandName: 'Acme', logo: LOGO },
            pages: { forgotPassword: '/forgot-password' },
            // A code by email for users without an app; "Don't ask again" for 30 days.
            twoFactor: { policy: 'required', emailCode: true, rememberDevice: 30 },
            providers: [
              Google({ clientId: 'google-client', clientSecret: 'google-secret' }),
              GitHub({ clientId: 'github-client', clientSecret: 'github-secret' }),
              Apple({ clientId: 'apple-client', clientSecret: 'apple-secret' }),
              Email({ rateLimit: false, sendVerificationRequest: async (params) => void mails.push(params) }),
              Credentials({
                name: lang === 'German' ? 'Passwort' : 'Password',
                credentials: {
                  email: { label: m['signIn.emailLabel'], type: 'email', required: true },
                  password: { label: lang === 'German' ? 'Passwort' : 'Password', type: 'password', required: true },
                },
                async authorize({ email, password }) {
                  const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
                  return user && password === PASSWORD
                    ? { id: user.id, email: user.email, name: user.name ?? null }
                    : null;
                },
              }),
              Passkey({ enableConditionalUI: false }),
            ],
          },
        });
        url = t.url.replace('127.0.0.1', 'localhost');
      }, 60_000);
      afterAll(async () => {
        for (const c of contexts) await c.close();
        await t?.close();
      });

      /** Every design check in both schemes and sizes; the phone's first screen holds the primary action. */
      const check = (page: Page, state: string) =>
        checkDesign(page, dir, `${lang} ${state}`, { primaryBottom }).then(() => undefined);

      /** A fresh browser at the desktop size. */
      async function fresh(): Promise<Page> {
        const context = await browser.newContext({ viewport: DESKTOP });
        contexts.push(context);
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        page.on('pageerror', (e) => console.log('[browser error]', e.message));
        return page;
      }

      /** A user with the password; `verified`: a verified address (a code by email can reach it). */
      async function newUser(tag: string, verified: boolean): Promise<{ id: string; email: string }> {
        const email = `${tag}-${randomUUID().slice(0, 8)}@example.test`;
        const user = await adapter.createUser({
          id: randomUUID(),
          email,
          emailVerified: verified ? new Date() : null,
          name: tag,
        } as never);
        return { id: user.id, email };
      }

      /** The password (a form post of the browser), then the second factor's page. */
      async function firstFactor(page: Page, email: string): Promise<void> {
        const request = page.context().request;
        const { csrfToken } = (await (await request.get(`${url}/auth/csrf`)).json()) as { csrfToken: string };
        const res = await request.post(`${url}/auth/callback/credentials`, {
          form: { csrfToken, email, password: PASSWORD, callbackUrl: `${url}/auth/account` },
          maxRedirects: 0,
        });
        expect(res.status()).toBe(302);
        expect(res.headers().location).toBe(`${url}/auth/two-factor`);
        await page.goto(`${url}/auth/two-factor`);
      }

      /** Presses the button named `name`, which posts the page's form back to it (400 or 200: a page). */
      async function post(page: Page, name: string): Promise<void> {
        await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST' && r.url().startsWith(`${url}/auth/`)),
          page.getByRole('button', { name, exact: true }).click(),
        ]);
        await page.waitForLoadState();
      }

      const h1 = (page: Page) => page.locator('h1').textContent();

      let app: { email: string; factor: TotpFactor };

      it('the enrolment at sign-in (and refused), the backup codes, adding an app from the account page, new backup codes', async () => {
        // An address that is not verified: no code by email, so the required second factor is an app.
        const user = await newUser('enrol', false);
        const page = await fresh();
        await firstFactor(page, user.email);
        expect(await page.getAttribute('html', 'lang')).toBe(m.lang);
        expect(await h1(page)).toBe(m['twoFactor.enrol.requiredTitle']);
        expect(await page.getByRole('img', { name: m['twoFactor.enrol.qrLabel'] }).count()).toBe(1);
        await check(page, 'enrol required');
        const secret = (await page.locator('code[data-secret]').getAttribute('data-secret'))!;
        expect(secret).toMatch(/^[A-Z2-7]{32}$/);

        await page.getByLabel(m['twoFactor.codeLabel'], { exact: true }).fill(await wrongCode(secret));
        await post(page, m['twoFactor.enrol.submit']);
        await expect(page.getByRole('alert').textContent()).resolves.toBe(m['error.InvalidTwoFactorCode']);
        expect(await focused(page)).toMatchObject({ name: 'code', invalid: 'true' });
        await check(page, 'enrol required refused');

        app = { email: user.email, factor: { secret, lastStep: -Infinity } };
        await page.getByLabel(m['twoFactor.codeLabel'], { exact: true }).fill(await nextCode(app.factor));
        await post(page, m['twoFactor.enrol.submit']);
        expect(await h1(page)).toBe(m['twoFactor.backupCodes.title']);
        expect(await page.locator('ol[data-backup-codes] > li').count()).toBe(10);
        await check(page, 'backup codes');
        await Promise.all([
          page.waitForURL(`${url}/auth/account`),
          page.getByRole('link', { name: m['twoFactor.backupCodes.continue'] }).click(),
        ]);

        // A second app from the account page: a name field and Cancel.
        const section = page.getByRole('region', { name: m['twoFactor.title'] });
        await Promise.all([
          page.waitForURL(`${url}/auth/account/two-factor/totp`),
          section.getByRole('button', { name: m['twoFactor.account.add'] }).click(),
        ]);
        expect(await h1(page)).toBe(m['twoFactor.enrol.title']);
        expect(await page.getByLabel(m['twoFactor.enrol.nameLabel'], { exact: true }).count()).toBe(1);
        await check(page, 'enrol from the account page');

        // New backup codes from the account page.
        await page.goto(`${url}/auth/account`);
        await Promise.all([
          page.waitForURL(`${url}/auth/account/two-factor/backup-codes`),
          section.getByRole('button', { name: m['twoFactor.account.regenerate'] }).click(),
        ]);
        expect(await h1(page)).toBe(m['twoFactor.backupCodes.newTitle']);
        await check(page, 'backup codes regenerated');
      }, 300_000);

      it('the challenge: an app\'s code (with "Don\'t ask again"), refused, a backup code; then with a code by email and a passkey as well', async () => {
        const page = await fresh();
        await firstFactor(page, app.email);
        expect(await h1(page)).toBe(m['twoFactor.title']);
        expect(await focused(page)).toMatchObject({ name: 'code', invalid: null });
        expect(
          await page.getByRole('checkbox', { name: m['twoFactor.remember'].replace('{days}', '30') }).count(),
        ).toBe(1);
        await check(page, 'challenge');

        await page.getByLabel(m['twoFactor.codeLabel'], { exact: true }).fill(await wrongCode(app.factor.secret));
        await post(page, m['twoFactor.verify']);
        await expect(page.getByRole('alert').textContent()).resolves.toBe(m['error.InvalidTwoFactorCode']);
        await check(page, 'challenge refused');

        await Promise.all([
          page.waitForURL(/method=backup-code/),
          page.getByRole('link', { name: m['twoFactor.useBackupCode'] }).click(),
        ]);
        expect(await page.getByLabel(m['twoFactor.backupCodeLabel'], { exact: true }).count()).toBe(1);
        await check(page, 'challenge backup code');

        // The address verified and a passkey: every way at once.
        const user = (await adapter.getUserByEmail(app.email))!;
        await adapter.updateUser({ id: user.id, emailVerified: new Date() });
        await givePasskey(adapter, user.id);
        const all = await fresh();
        await firstFactor(all, app.email);
        expect(await all.getByRole('button', { name: m['twoFactor.usePasskey'] }).count()).toBe(1);
        expect(await all.getByRole('button', { name: m['twoFactor.emailCodeSend'] }).count()).toBe(1);
        await check(all, 'challenge with every method');
        await post(all, m['twoFactor.emailCodeSend']);
        expect(await all.getByLabel(m['twoFactor.emailCodeLabel'], { exact: true }).count()).toBe(1);
        await check(all, 'challenge code emailed instead');
      }, 300_000);

      it('a code by email as the only second factor: asked for, sent, and it signs in; a passkey as the only one', async () => {
        const user = await newUser('mailed', true);
        const page = await fresh();
        await firstFactor(page, user.email);
        expect(await h1(page)).toBe(m['twoFactor.title']);
        expect(await page.locator('input:not([type="hidden"])').count()).toBe(0);
        // The page's one action: a filled button.
        expect(await page.getByRole('button', { name: m['twoFactor.emailCodeSend'] }).getAttribute('class')).toBe(
          'button',
        );
        await check(page, 'challenge by email');
        await post(page, m['twoFactor.emailCodeSend']);
        const mail = mails.filter((x) => x.identifier === user.email && x.purpose === 'two-factor-code').at(-1)!;
        expect(mail.token).toMatch(/^\d{6}$/);
        expect(await page.getByRole('button', { name: m['twoFactor.emailCodeAgain'] }).count()).toBe(1);
        expect(await focused(page)).toMatchObject({ name: 'code' });
        await check(page, 'challenge by email sent');
        await page.getByLabel(m['twoFactor.emailCodeLabel'], { exact: true }).fill(mail.token);
        await Promise.all([
          page.waitForURL(`${url}/auth/account`),
          page.getByRole('button', { name: m['twoFactor.verify'], exact: true }).click(),
        ]);

        const keyed = await newUser('keyed', false);
        await givePasskey(adapter, keyed.id);
        const only = await fresh();
        await firstFactor(only, keyed.email);
        expect(await only.getByRole('button', { name: m['twoFactor.usePasskey'] }).getAttribute('class')).toBe(
          'button',
        );
        await check(only, 'challenge passkey only');
      }, 300_000);

      it("the magic link's confirmation page: the address, one button", async () => {
        const email = `link-${randomUUID().slice(0, 8)}@example.test`;
        const page = await fresh();
        const request = page.context().request;
        const { csrfToken } = (await (await request.get(`${url}/auth/csrf`)).json()) as { csrfToken: string };
        const res = await request.post(`${url}/auth/signin/email`, { form: { csrfToken, email }, maxRedirects: 0 });
        expect(res.status()).toBe(302);
        const mail = mails.find((x) => x.identifier === email)!;
        await page.goto(mail.url);
        expect(await h1(page)).toBe(m['signIn.titleNamed'].replace('{app}', 'Acme'));
        expect(await page.locator('strong.address').textContent()).toBe(email);
        await check(page, 'email confirmation');
      }, 120_000);

      // English: test/signin-design.e2e-spec.ts.
      if (lang === 'German')
        it('the sign-in states, the OAuth errors, verify-request, the error page and sign-out', async () => {
          const page = await fresh();
          await page.goto(`${url}/auth/signin`);
          expect(await page.title()).toBe(m['signIn.titleNamed'].replace('{app}', 'Acme'));
          await check(page, 'step-1');
          const field = page.getByLabel(m['signIn.emailLabel'], { exact: true });
          await field.fill('ada@');
          await page.getByRole('button', { name: m['signIn.continue'] }).click();
          expect(await focused(page)).toEqual({
            name: 'email',
            invalid: 'true',
            description: m['signIn.invalidEmail'],
          });
          await check(page, 'step-1-invalid-email');

          await page.goto(`${url}/auth/signin?step=methods&email=ada%40example.test`);
          await check(page, 'step-2');
          await page.getByRole('button', { name: m['signIn.showPassword'] }).click();
          await check(page, 'step-2-password-shown');
          await page.goto(`${url}/auth/signin?error=OAuthCallbackError&provider=github`);
          await check(page, 'oauth-error');
          await page.goto(`${url}/auth/signin?error=OAuthAccountNotLinked`);
          await check(page, 'account-not-linked');
          await page.goto(
            `${url}/auth/signin?step=methods&email=ada%40example.test&error=CredentialsSignin&provider=credentials`,
          );
          await check(page, 'step-2-refused');
          await page.goto(`${url}/auth/verify-request?provider=email&email=ada-lovelace%40example.test`);
          await expect(
            page.getByRole('link', { name: m['verifyRequest.back'].replace('{site}', 'Acme') }).isVisible(),
          ).resolves.toBe(true);
          await check(page, 'verify-request');
          for (const error of ['Verification', 'Configuration', 'AccessDenied']) {
            await page.goto(`${url}/auth/error?error=${error}`);
            await check(page, `error ${error}`);
          }
          await page.goto(`${url}/auth/signout`);
          await check(page, 'sign-out');
        }, 300_000);
    });
  },
);
