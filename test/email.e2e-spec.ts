import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { VerificationTokenEntity } from '../lib/adapters/typeorm/verification-token.entity.js';
import { hashEmailToken } from '../lib/methods/email/email-token.js';
import { MemoryRateLimitStore } from '../lib/rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from '../lib/rate-limit/rate-limit.store.js';
import { Email } from '../lib/methods/email/email.provider.js';
import type { SendVerificationRequestParams } from '../lib/methods/email/email.types.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { TestClient, location } from './setup/http-client.js';
import { extractLink, startSmtpServer, type CapturedMail, type TestSmtpServer } from './setup/smtp.js';

const FROM = 'Test App <no-reply@example.test>';
const BLOCKED = 'blocked@example.test';
const targets = await databaseTargets(['sqlite', 'postgres']);

/** A fresh address per test: the per-address limit never carries over. */
function address(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.test`;
}

/** The hidden fields and action of the confirmation page's form. */
function confirmForm(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error('No confirmation form on the page');
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[m[1]!] = unescape(m[2]!);
  return { action: unescape(action), fields };
}

function unescape(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

describe.each(targets)('email magic links on $name', (target) => {
  target.describe(`against a real SMTP server (${target.name})`, () => {
    let db: TestDatabase;
    let smtp: TestSmtpServer;
    let t: TestApp;
    let dataSource: DataSource;
    const logged: string[] = [];
    const customSends: SendVerificationRequestParams[] = [];
    const signInCalls: Array<{ email: string | null | undefined; verificationRequest: boolean | undefined }> = [];

    function providers(server: string) {
      return [
        // Generous per-IP limit: every test client is 127.0.0.1.
        Email({ server, from: FROM, rateLimit: { maxPerAddress: 3, maxPerIp: 1000, windowSeconds: 60 } }),
        Email({
          id: 'strict',
          name: 'Strict email',
          server,
          from: FROM,
          rateLimit: { maxPerAddress: 100, maxPerIp: 2, windowSeconds: 60 },
        }),
        Email({ id: 'instant', name: 'Instant email', server, from: FROM, consumeOnGet: true, rateLimit: false }),
        // A normaliser that lets anything through: the default sender must still refuse lists.
        Email({
          id: 'lenient',
          name: 'Lenient email',
          server,
          from: FROM,
          normalizeIdentifier: (s: string) => s.trim(),
          rateLimit: false,
        }),
        Email({
          id: 'custom',
          name: 'Custom sender',
          rateLimit: false,
          async sendVerificationRequest(params) {
            if (params.identifier.startsWith('fail-')) throw new Error('mail API answered 503');
            customSends.push(params);
          },
        }),
      ];
    }

    async function startApp(secret: string | string[] = TEST_SECRET): Promise<TestApp> {
      return createTestApp({
        imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })],
        auth: {
          secret,
          providers: providers(smtp.url),
          logger: {
            error: (error: Error) =>
              logged.push(`${error.name}: ${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`),
            warn: (line: string) => logged.push(line),
            debug: (line: string, meta?: unknown) => logged.push(`${line} ${JSON.stringify(meta ?? '')}`),
          },
          callbacks: {
            signIn: ({ user, email }) => {
              signInCalls.push({ email: user.email, verificationRequest: email?.verificationRequest });
              return user.email !== BLOCKED;
            },
          },
        },
      });
    }

    beforeAll(async () => {
      db = await createDatabase(target, 'email');
      smtp = await startSmtpServer();
      t = await startApp();
      dataSource = t.app.get(DataSource);
    }, 60_000);

    afterAll(async () => {
      await t?.close();
      await smtp?.close();
      await dropDatabase(db);
    });

    beforeEach(() => {
      smtp.refuse(undefined);
    });

    async function requestLink(
      client: TestClient,
      email: string,
      provider = 'email',
      callbackUrl = '/me',
    ): Promise<Response> {
      const csrfToken = await client.csrf();
      return client.post(`/auth/signin/${provider}`, { csrfToken, email, callbackUrl });
    }

    /** Every token mailed in this suite, to check none reaches a log line. */
    const mailedTokens = new Set<string>();

    async function mailTo(email: string): Promise<CapturedMail> {
      const mail = await smtp.waitForMessage((m) => m.envelope.to.includes(email));
      const token = extractLink(mail, '/callback/').searchParams.get('token');
      if (token) mailedTokens.add(token);
      return mail;
    }

    async function tokenRows(identifier: string): Promise<VerificationTokenEntity[]> {
      return dataSource.getRepository(VerificationTokenEntity).find({ where: { identifier } });
    }

    async function count(table: string): Promise<number> {
      return Number(((await dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`)) as Array<{ n: unknown }>)[0]!.n);
    }

    function expectError(res: Response, page: 'signin' | 'error', type: string, app = t) {
      expect(res.status).toBe(302);
      const url = location(res);
      expect(`${url.origin}${url.pathname}`).toBe(`${app.url}/auth/${page}`);
      expect(url.searchParams.get('error')).toBe(type);
      expect(res.headers.getSetCookie().join()).not.toMatch(/authjs\.session-token=[^;]/);
    }

    /** Opens the link (GET: the confirmation page), presses the button (POST), returns the POST's response. */
    async function followLink(client: TestClient, link: URL): Promise<Response> {
      const page = await client.get(link.href);
      expect(page.status).toBe(200);
      const { action, fields } = confirmForm(await page.text());
      return client.post(action, fields);
    }

    it('sends a link, confirms it with a POST, and lands signed in on the guarded route', async () => {
      const email = address('alice');
      const client = new TestClient(t.url);
      const usersBefore = await count('users');

      // The clock read around each step brackets the instants the server stores (no tolerance; a
      // database may keep whole seconds only, hence the floor).
      const sec = (ms: number) => Math.floor(ms / 1000) * 1000;
      const requested = Date.now();
      const res = await requestLink(client, email);
      const answered = Date.now();
      expect(res.status).toBe(302);
      expect(location(res).href).toBe(
        `${t.url}/auth/verify-request?provider=email&type=email&email=${encodeURIComponent(email)}`,
      );

      const mail = await mailTo(email);
      expect(mail.envelope.to).toEqual([email]);
      expect(mail.subject).toBe(`Sign in to ${new URL(t.url).host}`);
      expect(mail.headers.from).toContain('no-reply@example.test');
      expect(mail.text).toContain(`Sign in to ${new URL(t.url).host}`);
      expect(mail.html).toContain('Sign in to <strong>');
      const link = extractLink(mail, '/auth/callback/email');
      expect(extractLink({ ...mail, text: '' }, '/auth/callback/email').href).toBe(link.href);
      expect(link.origin).toBe(t.url);
      expect(link.searchParams.get('email')).toBe(email);
      expect(link.searchParams.get('callbackUrl')).toBe(`${t.url}/me`);
      const token = link.searchParams.get('token')!;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

      // Only a keyed hash is stored: the row cannot be replayed from a database dump.
      const rows = await tokenRows(email);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.token).not.toContain(token);
      expect(rows[0]!.token).toBe(hashEmailToken(TEST_SECRET, email, token));
      // The default maxAge: 24 hours from the request.
      const expires = new Date(rows[0]!.expires).getTime();
      expect(expires).toBeGreaterThanOrEqual(sec(requested + 86_400_000));
      expect(expires).toBeLessThanOrEqual(answered + 86_400_000);

      // The link opens a confirmation page on a fresh device: nothing is used yet.
      const device = new TestClient(t.url);
      const page = await device.get(link.href);
      expect(page.status).toBe(200);
      expect(page.headers.get('referrer-policy')).toBe('same-origin');
      expect(page.headers.get('cache-control')).toContain('no-store');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      const html = await page.text();
      expect(html).toContain(email);
      expect(await tokenRows(email)).toHaveLength(1);

      const { action, fields } = confirmForm(html);
      expect(action).toBe(`${t.url}/auth/callback/email`);
      expect(fields).toEqual({ token, email, callbackUrl: `${t.url}/me` });
      const confirming = Date.now();
      const signedIn = await device.post(action, fields);
      const confirmed = Date.now();
      expect(signedIn.status).toBe(302);
      expect(location(signedIn).href).toBe(`${t.url}/me`);
      expect(signedIn.headers.get('referrer-policy')).toBe('same-origin');
      expect(device.cookies.get('authjs.session-token')).toBeTruthy();

      const me = await device.get('/me');
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ user: { email } });
      expect(await tokenRows(email)).toHaveLength(0);

      // First sign-in: the user is created with emailVerified set; no account row for email.
      expect(await count('users')).toBe(usersBefore + 1);
      const [user] = (await dataSource.query(`SELECT * FROM users WHERE email = '${email}'`)) as Array<
        Record<string, unknown>
      >;
      // emailVerified is the instant of the confirmation.
      const verified = new Date(user!.emailVerified as string).getTime();
      expect(verified).toBeGreaterThanOrEqual(sec(confirming));
      expect(verified).toBeLessThanOrEqual(confirmed);
      expect(signInCalls.filter((c) => c.email === email).map((c) => c.verificationRequest)).toEqual([true, false]);
    });

    // The browser's type=email check accepts an apostrophe (WHATWG); so does the server, and the mail goes there.
    it("sends the link for o'brien@… to that address (the SMTP envelope), and the link signs that user in", async () => {
      const email = `o'brien-${randomBytes(4).toString('hex')}@example.test`;
      const client = new TestClient(t.url);
      const res = await requestLink(client, email);
      expect(res.status).toBe(302);
      const redirect = location(res);
      expect(redirect.pathname).toBe('/auth/verify-request');
      expect(redirect.searchParams.get('email')).toBe(email);
      // The verify-request page names it (escaped).
      const shown = await (await client.get(redirect.href)).text();
      expect(shown).toContain(`<strong class="address" data-email>${email.replace("'", '&#39;')}</strong>`);

      const mail = await mailTo(email);
      expect(mail.envelope.to).toEqual([email]);
      const link = extractLink(mail, '/auth/callback/email');
      expect(link.searchParams.get('email')).toBe(email);
      expect((await tokenRows(email)).map((r) => r.identifier)).toEqual([email]);

      const device = new TestClient(t.url);
      const signedIn = await followLink(device, link);
      expect(signedIn.status).toBe(302);
      expect(location(signedIn).href).toBe(`${t.url}/me`);
      expect(await (await device.get('/me')).json()).toMatchObject({ user: { email } });
    });

    it('signs an existing user in again without creating another (same user id, emailVerified kept)', async () => {
      const email = address('repeat');
      const first = new TestClient(t.url);
      await requestLink(first, email);
      expect((await followLink(first, extractLink(await mailTo(email), '/callback/email'))).status).toBe(302);
      const firstUser = (await (await first.get('/me')).json()) as { user: { id: string } };
      const usersBefore = await count('users');

      smtp.clear();
      const second = new TestClient(t.url);
      await requestLink(second, email);
      expect((await followLink(second, extractLink(await mailTo(email), '/callback/email'))).status).toBe(302);
      const secondUser = (await (await second.get('/me')).json()) as { user: { id: string } };
      expect(secondUser.user.id).toBe(firstUser.user.id);
      expect(await count('users')).toBe(usersBefore);
    });

    // promise: email.same-answer
    it('answers the same whether or not the address has an account', async () => {
      const known = address('known');
      const setup = new TestClient(t.url);
      await requestLink(setup, known);
      await followLink(setup, extractLink(await mailTo(known), '/callback/email'));

      const unknown = address('unknown');
      const a = await requestLink(new TestClient(t.url), known);
      const b = await requestLink(new TestClient(t.url), unknown);
      expect(a.status).toBe(b.status);
      // The same but for the address each typed, which the verify-request page shows back.
      const typed = (r: Response, addr: string) =>
        r.headers.get('location')!.replace(`email=${encodeURIComponent(addr)}`, 'email=TYPED');
      expect(typed(a, known)).toBe(typed(b, unknown));
      expect(typed(a, known)).toContain('email=TYPED');
      expect(await a.text()).toBe(await b.text());
      const cookieNames = (r: Response) =>
        r.headers
          .getSetCookie()
          .map((c) => c.split('=')[0])
          .sort();
      expect(cookieNames(a)).toEqual(cookieNames(b));
      await mailTo(unknown);
    });

    // promise: email.latest-link
    it('a new link replaces the older ones: only the latest signs in', async () => {
      const email = address('latest');
      const client = new TestClient(t.url);
      await requestLink(client, email);
      const first = extractLink(await mailTo(email), '/callback/email');
      await requestLink(client, email);
      const second = extractLink(smtp.messagesTo(email)[1]!, '/callback/email');
      expect(second.searchParams.get('token')).not.toBe(first.searchParams.get('token'));
      expect(await tokenRows(email)).toHaveLength(1);
      const { fields, action } = confirmForm(await (await client.get(first.href)).text());
      expectError(await client.post(action, fields), 'error', 'Verification');
      expect((await client.get('/me')).status).toBe(401);
      expect(location(await followLink(client, second)).href).toBe(`${t.url}/me`);
      expect((await client.get('/me')).status).toBe(200);
    });

    it('refuses a replayed link with Verification', async () => {
      const email = address('replay');
      const client = new TestClient(t.url);
      await requestLink(client, email);
      const link = extractLink(await mailTo(email), '/callback/email');
      const { fields, action } = confirmForm(await (await client.get(link.href)).text());
      expect((await client.post(action, fields)).status).toBe(302);

      const attacker = new TestClient(t.url);
      expectError(await attacker.post(action, fields), 'error', 'Verification');
      expect((await attacker.get('/me')).status).toBe(401);
    });

    it('refuses an expired link with Verification, and the row is gone', async () => {
      const email = address('expired');
      const client = new TestClient(t.url);
      await requestLink(client, email);
      const link = extractLink(await mailTo(email), '/callback/email');
      await dataSource
        .getRepository(VerificationTokenEntity)
        .update({ identifier: email }, { expires: new Date(Date.now() - 1000) });

      expectError(await followLink(client, link), 'error', 'Verification');
      expect(await tokenRows(email)).toHaveLength(0);
      expect((await client.get('/me')).status).toBe(401);
    });

    it('binds the token to its address: the same token with another email is refused and stays usable', async () => {
      const email = address('owner');
      const other = address('other');
      const client = new TestClient(t.url);
      await requestLink(client, email);
      const link = extractLink(await mailTo(email), '/callback/email');
      const { action, fields } = confirmForm(await (await client.get(link.href)).text());

      expectError(await new TestClient(t.url).post(action, { ...fields, email: other }), 'error', 'Verification');
      expectError(
        await new TestClient(t.url).post(action, { ...fields, token: `${fields.token}x` }),
        'error',
        'Verification',
      );
      expectError(
        await new TestClient(t.url).post(action, { email: fields.email!, callbackUrl: '/me' }),
        'error',
        'Verification',
      );
      expect(await tokenRows(email)).toHaveLength(1);
      expect((await client.post(action, fields)).status).toBe(302);
      expect((await client.get('/me')).status).toBe(200);
    });

    // promise: email.concurrent-clicks
    it('20 concurrent clicks on one link sign in exactly once', async () => {
      const email = address('race');
      const client = new TestClient(t.url);
      await requestLink(client, email);
      const link = extractLink(await mailTo(email), '/callback/email');
      const { action, fields } = confirmForm(await (await client.get(link.href)).text());
      const sessionsBefore = await count('sessions');
      const usersBefore = await count('users');

      const clients = Array.from({ length: 20 }, () => new TestClient(t.url));
      const results = await Promise.all(clients.map((c) => c.post(action, fields)));
      const winners = results.filter((r) => location(r).href === `${t.url}/me`);
      const losers = results.filter((r) => location(r).searchParams.get('error') === 'Verification');
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(19);
      expect(clients.filter((c) => c.cookies.get('authjs.session-token'))).toHaveLength(1);
      expect(await count('sessions')).toBe(sessionsBefore + 1);
      expect(await count('users')).toBe(usersBefore + 1);
    });

    // promise: email.scanners-safe
    it('HEAD and GET never use the token; only the POST does', async () => {
      const email = address('scanner');
      const client = new TestClient(t.url);
      await requestLink(client, email);
      const link = extractLink(await mailTo(email), '/callback/email');

      // What mail scanners do: HEAD, then GET (several times), without cookies.
      const head = await fetch(link, { method: 'HEAD', redirect: 'manual' });
      // HEAD is no method of the callback route: a 400 on both platforms, and the token is untouched.
      expect(head.status).toBe(400);
      for (let i = 0; i < 3; i++) expect((await fetch(link, { redirect: 'manual' })).status).toBe(200);
      expect(await tokenRows(email)).toHaveLength(1);

      expect((await followLink(client, link)).status).toBe(302);
      expect((await client.get('/me')).status).toBe(200);
    });

    // promise: email.cross-site-post
    it('refuses a cross-site POST (login CSRF) without using the token', async () => {
      const email = address('csrf');
      const client = new TestClient(t.url);
      await requestLink(client, email);
      const link = extractLink(await mailTo(email), '/callback/email');
      const { action, fields } = confirmForm(await (await client.get(link.href)).text());

      const victim = new TestClient(t.url);
      expectError(
        await victim.post(action, fields, { headers: { origin: 'https://evil.example' } }),
        'signin',
        'MissingCSRF',
      );
      expectError(
        await victim.post(action, fields, { headers: { 'sec-fetch-site': 'cross-site' } }),
        'signin',
        'MissingCSRF',
      );
      expect(await tokenRows(email)).toHaveLength(1);

      const res = await client.post(action, fields, { headers: { origin: t.url, 'sec-fetch-site': 'same-origin' } });
      expect(location(res).href).toBe(`${t.url}/me`);
    });

    // promise: email.consume-on-get
    it('consumeOnGet: true signs in on the GET itself (Auth.js behaviour)', async () => {
      const email = address('instant');
      const client = new TestClient(t.url);
      const res = await requestLink(client, email, 'instant');
      expect(location(res).href).toBe(
        `${t.url}/auth/verify-request?provider=instant&type=email&email=${encodeURIComponent(email)}`,
      );
      const link = extractLink(await mailTo(email), '/auth/callback/instant');
      const opened = await client.get(link.href);
      expect(location(opened).href).toBe(`${t.url}/me`);
      expect((await client.get('/me')).status).toBe(200);
      expectError(await new TestClient(t.url).get(link.href), 'error', 'Verification');
    });

    describe('the advisory cases never send mail to an attacker', () => {
      it.each([
        ['a quoted local part (GHSA-5jpx-9hw9-2fx4)', '"a@attacker.com"@victim.com'],
        ['comma-separated addresses (CVE-2022-35924)', 'victim@victim.com,attacker@attacker.com'],
        ['semicolon-separated addresses', 'victim@victim.com;attacker@attacker.com'],
        ['a full-width @ making a second address (GHSA-7rqj-j65f-68wh)', 'victim@victim.com＠attacker.com'],
        ['a small @ making a second address', 'attacker﹫attacker.com@victim.com'],
        ['HTML in the address (CVE-2022-31127)', 'victim@victim.com <a href="https://attacker.com">click</a>'],
        ['a display name', 'Victim <attacker@attacker.com>'],
        ['a header injection', 'victim@victim.com\r\nBcc: attacker@attacker.com'],
        ['an empty address', ''],
      ])('%s', async (_label, input) => {
        smtp.clear();
        const client = new TestClient(t.url);
        const tokensBefore = await count('verification_tokens');
        const res = await requestLink(client, input);
        expectError(res, 'signin', 'EmailSignin');
        // Nothing reached the SMTP server, nothing was stored.
        expect(smtp.attemptedRecipients).toEqual([]);
        expect(smtp.messages).toEqual([]);
        expect(await count('verification_tokens')).toBe(tokensBefore);
      });

      it('an email field that is not one string is refused the same way', async () => {
        smtp.clear();
        const client = new TestClient(t.url);
        const csrfToken = await client.csrf();
        const res = await client.post(
          '/auth/signin/email',
          { csrfToken, email: ['victim@victim.com', 'attacker@attacker.com'] },
          { json: true },
        );
        expectError(res, 'signin', 'EmailSignin');
        expect(smtp.attemptedRecipients).toEqual([]);
      });

      it('a full-width @ in a single address is normalised and mailed only to that address', async () => {
        smtp.clear();
        const local = `fw-${randomBytes(3).toString('hex')}`;
        const res = await requestLink(new TestClient(t.url), `${local.toUpperCase()}＠Example.TEST`);
        expect(location(res).pathname).toBe('/auth/verify-request');
        const mail = await mailTo(`${local}@example.test`);
        expect(smtp.attemptedRecipients).toEqual([`${local}@example.test`]);
        expect(extractLink(mail, '/callback/email').searchParams.get('email')).toBe(`${local}@example.test`);
      });
    });

    // promise: email.rate-limits
    it('limits links per address (RateLimited, no mail)', async () => {
      const email = address('limit');
      for (let i = 0; i < 3; i++) {
        const res = await requestLink(new TestClient(t.url), email);
        expect(location(res).pathname).toBe('/auth/verify-request');
      }
      const refused = await requestLink(new TestClient(t.url), email);
      expectError(refused, 'signin', 'RateLimited');
      expect(smtp.messagesTo(email)).toHaveLength(3);
      // Each link replaced the one before: one live row.
      expect(await tokenRows(email)).toHaveLength(1);
    });

    // promise: email.rate-limits
    it('limits links per client IP (RateLimited, no mail)', async () => {
      (t.app.get(RateLimitStore) as MemoryRateLimitStore).clear();
      const sent = [address('ip1'), address('ip2')];
      for (const email of sent)
        expect(location(await requestLink(new TestClient(t.url), email, 'strict')).pathname).toBe(
          '/auth/verify-request',
        );
      const third = address('ip3');
      expectError(await requestLink(new TestClient(t.url), third, 'strict'), 'signin', 'RateLimited');
      expect(smtp.messagesTo(third)).toHaveLength(0);
      expect(await tokenRows(third)).toHaveLength(0);
    });

    // promise: email.send-failure
    it('an SMTP server that refuses the recipient gives EmailSignin, and no usable token is left', async () => {
      const email = address('refused');
      smtp.refuse([email]);
      const res = await requestLink(new TestClient(t.url), email);
      expectError(res, 'signin', 'EmailSignin');
      expect(smtp.attemptedRecipients).toContain(email);
      expect(smtp.messagesTo(email)).toHaveLength(0);
      expect(await tokenRows(email)).toHaveLength(0);
    });

    // promise: email.send-failure
    it('an unreachable SMTP server gives EmailSignin, not a 500', async () => {
      const down = await startSmtpServer();
      const url = down.url;
      await down.close();
      const app = await createTestApp({
        imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: false })],
        auth: { providers: [Email({ server: url, from: FROM })], logger: { error: () => undefined } },
      });
      try {
        const res = await requestLink(new TestClient(app.url), address('down'));
        expectError(res, 'signin', 'EmailSignin', app);
      } finally {
        await app.close();
      }
    });

    it('the default sender refuses a recipient list a custom normaliser let through', async () => {
      smtp.clear();
      const res = await requestLink(new TestClient(t.url), 'victim@victim.com,attacker@attacker.com', 'lenient');
      expectError(res, 'signin', 'EmailSignin');
      expect(smtp.attemptedRecipients).toEqual([]);
      expect(await tokenRows('victim@victim.com,attacker@attacker.com')).toHaveLength(0);
    });

    it('a custom sendVerificationRequest gets every parameter, and its failure is EmailSignin', async () => {
      const email = address('custom');
      const client = new TestClient(t.url);
      const requested = Date.now();
      const res = await requestLink(client, email, 'custom');
      const answered = Date.now();
      expect(location(res).href).toBe(
        `${t.url}/auth/verify-request?provider=custom&type=email&email=${encodeURIComponent(email)}`,
      );
      const sent = customSends.find((p) => p.identifier === email)!;
      expect(sent).toBeDefined();
      expect(new URL(sent.url).searchParams.get('token')).toBe(sent.token);
      expect(sent.url.startsWith(`${t.url}/auth/callback/custom?`)).toBe(true);
      expect(sent.expires.getTime()).toBeGreaterThanOrEqual(requested + 86_400_000);
      expect(sent.expires.getTime()).toBeLessThanOrEqual(answered + 86_400_000);
      expect(sent.provider).toMatchObject({ id: 'custom', type: 'email' });
      expect(sent.theme).toMatchObject({ colorScheme: 'auto' });
      expect(sent.request).toBeInstanceOf(Request);
      expect(sent.request.headers.get('cookie')).toBeNull();
      expect(await sent.request.json()).toEqual({ email, callbackUrl: '/me' });
      // The link it was given works.
      expect((await followLink(client, new URL(sent.url))).status).toBe(302);
      expect((await client.get('/me')).status).toBe(200);

      const failing = address('fail');
      expectError(await requestLink(new TestClient(t.url), failing, 'custom'), 'signin', 'EmailSignin');
      expect(await tokenRows(failing)).toHaveLength(0);
    });

    it('a signIn callback that refuses the address sends nothing (AccessDenied)', async () => {
      smtp.clear();
      const res = await requestLink(new TestClient(t.url), BLOCKED);
      expectError(res, 'error', 'AccessDenied');
      expect(smtp.attemptedRecipients).toEqual([]);
      expect(await tokenRows(BLOCKED)).toHaveLength(0);
    });

    // promise: email.secret-rotation
    it('a link keeps working after the secret is rotated', async () => {
      const email = address('rotate');
      await requestLink(new TestClient(t.url), email);
      const link = extractLink(await mailTo(email), '/callback/email');

      const rotated = await startApp(['rotated-secret-that-is-long-enough-0123456789', TEST_SECRET]);
      try {
        const client = new TestClient(rotated.url);
        const moved = new URL(link.pathname + link.search, rotated.url);
        const res = await followLink(client, moved);
        expect(res.status).toBe(302);
        expect((await client.get('/me')).status).toBe(200);
        // New links are hashed with the new first secret.
        const next = address('rotated');
        await requestLink(new TestClient(rotated.url), next);
        const token = extractLink(await mailTo(next), '/callback/email').searchParams.get('token')!;
        expect((await tokenRows(next))[0]!.token).toBe(
          hashEmailToken('rotated-secret-that-is-long-enough-0123456789', next, token),
        );
      } finally {
        await rotated.close();
      }
    });

    it('a malformed link is Verification, never a 500', async () => {
      for (const query of [
        '',
        '?token=abc',
        '?email=a@example.test',
        `?token=${'x'.repeat(600)}&email=a@example.test`,
        '?token=abc&email=not-an-address',
        '?token=a%00b&email=a@example.test',
      ]) {
        const res = await new TestClient(t.url).get(`/auth/callback/email${query}`);
        expectError(res, 'error', 'Verification');
      }
    });

    it('never logs a token', async () => {
      const joined = logged.join('\n');
      expect(logged.length).toBeGreaterThan(0);
      expect(mailedTokens.size).toBeGreaterThan(5);
      for (const token of mailedTokens) expect(joined).not.toContain(token);
    });
  });
});
