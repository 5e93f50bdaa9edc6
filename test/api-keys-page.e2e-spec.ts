/**
 * The account page's API keys on a real app (`apiKeys: {}`), over HTTP as a browser without
 * JavaScript sends its forms: sign in with a password, create a key through the page's form (the
 * CSRF token read from the page), see it once on a page of its own (never cached, never on the
 * account page or in its JSON again), find it listed by name and hint, use it as `Authorization:
 * Bearer` on a route that accepts API keys only, revoke it through the page's form, and the key is
 * refused. A JSON client keeps getting `{ key, apiKey }`. Then the same in real Chromium, typed by
 * label, with axe (WCAG 2.1 A/AA) on the section and on the page that shows the key, on a desktop and
 * a phone, and once more with JavaScript off (skipped with one line without Chromium, outside CI).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Controller, Get, UseGuards } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Auth } from '../lib/core/public.decorator.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { CurrentUser } from '../lib/guard/current-user.decorator.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { CHROMIUM, chromiumAvailable } from './setup/ci.js';
import { parseTags } from './setup/html-checks.js';
import { location, TestClient } from './setup/http-client.js';
import { axe, CHROMIUM_ARGS, DESKTOP, PHONE } from './setup/signin-browser.js';

const ISSUER = 'https://api.example.test/auth';
const PASSWORD = 'correct horse battery';

@Controller('scripts')
@UseGuards(AuthGuard)
class ScriptsController {
  /** What a script with an API key may call: API keys only (a session cookie is refused). */
  @Get('whoami')
  @Auth({ accept: ['apiKey'] })
  whoami(@CurrentUser('email') email: string) {
    return { email };
  }
}

/** A form of the page: where it posts and its fields (hidden ones with their values). */
interface PageForm {
  action: string;
  fields: Record<string, string>;
}

/** The POST forms of `html`, each with its inputs (values entity-decoded). */
function formsOf(html: string): PageForm[] {
  return [...html.matchAll(/<form method="post" action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)].map((m) => ({
    action: parseTags(`<form action="${m[1]}">`)[0]!.attrs.action!,
    fields: Object.fromEntries(
      parseTags(m[2]!)
        .filter((t) => t.name === 'input' && t.attrs.name)
        .map((t) => [t.attrs.name!, t.attrs.value ?? '']),
    ),
  }));
}

/** The one form of the page that posts to `…/account/{path}` (and, with `id`, carries that key's id). */
function formFor(html: string, path: string, id?: string): PageForm {
  const found = formsOf(html).filter(
    (f) => f.action.endsWith(`/account/${path}`) && (id === undefined || f.fields.id === id),
  );
  expect({ path, forms: found.length }).toEqual({ path, forms: 1 });
  return found[0]!;
}

/** The key a page shows in its `<code data-api-key>`. */
function keyOn(html: string): string | undefined {
  return /<code data-api-key>([^<]+)<\/code>/.exec(html)?.[1];
}

describe('API keys on the account page', () => {
  let adapter: MemoryAdapter;
  let t: TestApp;

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    t = await createTestApp({
      controllers: [ScriptsController],
      auth: {
        adapter,
        session: { strategy: 'database' },
        logger: { error: () => undefined, warn: () => undefined },
        accessToken: { issuer: ISSUER },
        apiKeys: {},
        providers: [
          Credentials({
            credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
            async authorize({ email, password }) {
              const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
              return user && password === PASSWORD ? { id: user.id, email: user.email, name: user.name ?? null } : null;
            },
          }),
        ],
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function newUser(): Promise<string> {
    const email = `${randomUUID()}@example.test`;
    await adapter.createUser({ email, emailVerified: null, name: 'Script Owner' } as never);
    return email;
  }

  const bearer = (key: string) => fetch(`${t.url}/scripts/whoami`, { headers: { authorization: `Bearer ${key}` } });

  describe('over HTTP, as a browser without JavaScript', () => {
    /** A browser signed in with the password form. */
    async function signedIn(): Promise<{ browser: TestClient; email: string }> {
      const email = await newUser();
      const browser = new TestClient(t.url);
      const csrfToken = await browser.csrf();
      const res = await browser.post('/auth/callback/credentials', { csrfToken, email, password: PASSWORD });
      expect(res.status).toBeGreaterThanOrEqual(300);
      expect(res.status).toBeLessThan(400);
      return { browser, email };
    }

    async function accountPage(browser: TestClient, query = ''): Promise<string> {
      const res = await browser.get(`/auth/account${query}`);
      expect(res.status).toBe(200);
      return res.text();
    }

    // promise: api-keys.lifecycle
    it('creates a key with the form, shows it once, lists it without it; the key works until it is revoked with the form', async () => {
      const { browser, email } = await signedIn();
      let page = await accountPage(browser);
      expect(page).toContain('<h2 id="api-keys-heading">API keys</h2>');
      expect(page).toContain('You have no API keys.');

      // The create form as the page has it: its action and its CSRF token, plus what a person types.
      const create = formFor(page, 'api-keys/create');
      expect(create.action).toBe(`${t.url}/auth/account/api-keys/create`);
      expect(Object.keys(create.fields).sort()).toEqual(['csrfToken', 'expires', 'name', 'scopes']);
      expect(create.fields.csrfToken).toMatch(/\S{16,}/);
      const created = await browser.post(create.action, {
        ...create.fields,
        name: 'Deploy <bot> & "friends"',
        scopes: '',
        expires: '',
      });
      expect(created.status).toBe(200);
      expect(created.headers.get('content-type')).toMatch(/^text\/html/);
      expect(created.headers.get('cache-control')).toContain('no-store');
      const shown = await created.text();
      const key = keyOn(shown)!;
      expect(key).toMatch(/^nak_[0-9A-Za-z]{30,}$/);
      expect(shown).toContain('<h1>Copy your new API key</h1>');
      expect(shown).toContain('<strong>Deploy &lt;bot&gt; &amp; &quot;friends&quot;</strong>');
      expect(shown).not.toContain('<bot>');
      // "Continue" goes back to the account page, which says what happened.
      const next = /<a class="button" href="([^"]+)">Continue<\/a>/.exec(shown)![1]!.replace(/&#61;/g, '=');
      expect(next).toBe(`${t.url}/auth/account?notice=api-key-created`);
      page = await accountPage(browser, new URL(next).search);
      expect(page).toContain('<div class="notice" role="status"><p>The API key was created.</p></div>');

      // Listed by name and hint, never the key: not on the page, not in its JSON, not in the list's.
      expect(page).toContain('<p class="item-title">Deploy &lt;bot&gt; &amp; &quot;friends&quot;</p>');
      expect(page).toContain(`Ends in <code>…${key.slice(-4)}</code>`);
      expect(page).toContain('No scopes');
      expect(page).toContain('does not expire');
      expect(page).toContain('Not used yet');
      expect(page).not.toContain(key);
      const listed = await browser.get('/auth/account/api-keys', { accept: 'application/json' });
      const list = (await listed.json()) as { apiKeys: Array<{ id: string; name: string; hint: string }> };
      expect(list.apiKeys).toEqual([
        expect.objectContaining({ name: 'Deploy <bot> & "friends"', hint: key.slice(-4) }),
      ]);
      expect(JSON.stringify(list)).not.toContain(key);
      const json = await browser.get('/auth/account', { accept: 'application/json' });
      expect(JSON.stringify(await json.json())).not.toContain(key);

      // The key works where API keys are accepted (and the browser's cookie does not).
      const used = await bearer(key);
      expect(used.status).toBe(200);
      expect(await used.json()).toEqual({ email });
      expect((await browser.get('/scripts/whoami')).status).toBe(401);
      page = await accountPage(browser);
      expect(page).toMatch(/Last used <time datetime="[^"]+" data-local>/);

      // Revoked with its form (its id and the CSRF token from the page): back to the page, and refused.
      const { id } = list.apiKeys[0]!;
      const revoke = formFor(page, 'api-keys/revoke', id);
      expect(Object.keys(revoke.fields).sort()).toEqual(['csrfToken', 'id']);
      expect(page).toContain('aria-label="Revoke Deploy &lt;bot&gt; &amp; &quot;friends&quot;"');
      const revoked = await browser.post(revoke.action, revoke.fields);
      expect(revoked.status).toBeGreaterThanOrEqual(300);
      expect(location(revoked).href).toBe(`${t.url}/auth/account?notice=api-key-revoked`);
      page = await accountPage(browser, '?notice=api-key-revoked');
      expect(page).toContain('The API key was revoked.');
      expect(page).toContain('You have no API keys.');
      expect((await bearer(key)).status).toBe(401);
    });

    it('rotates a key with its form: the new value shown once, the old one refused at once', async () => {
      const { browser } = await signedIn();
      const page = await accountPage(browser);
      const create = formFor(page, 'api-keys/create');
      const first = keyOn(await (await browser.post(create.action, { ...create.fields, name: 'CI' })).text())!;
      expect((await bearer(first)).status).toBe(200);
      const listed = await accountPage(browser);
      const [id] = formsOf(listed)
        .filter((f) => f.action.endsWith('/api-keys/rotate'))
        .map((f) => f.fields.id);
      const rotate = formFor(listed, 'api-keys/rotate', id);
      const rotated = await browser.post(rotate.action, rotate.fields);
      expect(rotated.status).toBe(200);
      const shown = await rotated.text();
      const second = keyOn(shown)!;
      expect(second).not.toBe(first);
      expect(shown).toContain('The old value of this key no longer works.');
      expect((await bearer(first)).status).toBe(401);
      expect((await bearer(second)).status).toBe(200);
    });

    it('a refused form goes back to the page with the error; a JSON client gets { key, apiKey }', async () => {
      const { browser } = await signedIn();
      const create = formFor(await accountPage(browser), 'api-keys/create');
      const refused = await browser.post(create.action, { ...create.fields, name: 'x', expires: '2000-01-01' });
      expect(location(refused).href).toBe(`${t.url}/auth/account?error=InvalidRequest`);
      expect(await accountPage(browser, '?error=InvalidRequest')).toContain('role="alert"');

      const res = await browser.post(
        create.action,
        { name: 'From an SPA', scopes: 'notes:read notes:write' },
        { json: true, headers: { 'x-csrf-token': create.fields.csrfToken! } },
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { key: string; apiKey: { name: string; scopes: string[] } };
      expect(body.apiKey).toMatchObject({ name: 'From an SPA', scopes: ['notes:read', 'notes:write'] });
      expect((await bearer(body.key)).status).toBe(200);
    });
  });

  // Strict under any CI value but empty, `false` or `0` (isStrictCi): a missing Chromium then fails.
  const describeBrowser = chromiumAvailable('api-keys-page.e2e-spec') ? describe : describe.skip;

  describeBrowser('in Chromium', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    /** A fresh browser (no cookies) at the desktop size; a step that does not happen fails in 15 s. */
    async function fresh(javaScriptEnabled: boolean): Promise<Page> {
      const context = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      return page;
    }

    /** axe on a desktop and a phone, and nothing wider than the screen (a long key wraps). */
    async function accessible(page: Page, state: string): Promise<void> {
      for (const [size, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        await page.setViewportSize(viewport);
        expect({ state, size, violations: await axe(page) }).toEqual({ state, size, violations: [] });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
        expect({ state, size, overflow }).toEqual({ state, size, overflow: false });
      }
      await page.setViewportSize(DESKTOP);
    }

    /**
     * Signs in with the password form, creates a key by label, reads it off the page that shows it,
     * continues to the account page, finds it listed, uses it, revokes it by its button's name.
     * `check` runs in each state (axe, with JavaScript on).
     */
    async function walk(page: Page, check: (state: string) => Promise<void>): Promise<void> {
      const email = await newUser();
      const account = `${t.url}/auth/account`;
      await page.goto(`${t.url}/auth/signin?callbackUrl=${encodeURIComponent(account)}`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await Promise.all([
        page.waitForURL(account),
        page.locator('form[data-form="credentials"] button[type=submit]').click(),
      ]);

      const section = page.getByRole('region', { name: 'API keys' });
      expect(await section.getByText('You have no API keys.').count()).toBe(1);
      await check('no keys');

      await section.getByLabel('Name', { exact: true }).fill('Nightly <export>');
      await section.getByLabel('Scopes (optional)').fill('reports:read');
      const day = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
      await section.getByLabel('Expiry date (optional)').fill(day);
      await Promise.all([
        page.waitForURL(`${account}/api-keys/create`),
        section.getByRole('button', { name: 'Create key' }).click(),
      ]);
      expect(await page.locator('h1').textContent()).toBe('Copy your new API key');
      const key = (await page.locator('code[data-api-key]').textContent())!;
      expect(key).toMatch(/^nak_/);
      // In the accessibility tree as the text of a `code` node, after the sentence that names the key.
      const tree = await page.locator('main').ariaSnapshot();
      expect(tree).toContain(`- code: ${key}`);
      expect(tree).toMatch(/- text: The new key for\s+- strong: Nightly <export>/);
      expect(tree.indexOf('- strong: Nightly <export>')).toBeLessThan(tree.indexOf(`- code: ${key}`));
      await check('new key shown');

      await Promise.all([
        page.waitForURL(`${account}?notice=api-key-created`),
        page.getByRole('link', { name: 'Continue' }).click(),
      ]);
      expect(await page.getByRole('status').textContent()).toContain('The API key was created.');
      const item = page.locator('li[data-api-key]');
      expect(await item.count()).toBe(1);
      expect(await item.locator('.item-title').textContent()).toBe('Nightly <export>');
      const text = (await item.textContent())!;
      expect(text).toContain(`Ends in …${key.slice(-4)}`);
      expect(text).toContain('Scopes: reports:read');
      // The day picked, in the page's language: no time zone moves it to another day.
      const shown = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(day));
      expect(text).toContain(`expires ${shown}`);
      expect(await page.content()).not.toContain(key);
      await check('one key');

      expect((await bearer(key)).status).toBe(200);
      await Promise.all([
        page.waitForURL(`${account}?notice=api-key-revoked`),
        page.getByRole('button', { name: 'Revoke Nightly <export>' }).click(),
      ]);
      expect(await page.getByRole('status').textContent()).toContain('The API key was revoked.');
      expect(await page.locator('li[data-api-key]').count()).toBe(0);
      expect((await bearer(key)).status).toBe(401);
      await check('key revoked');
    }

    it('creates a key by label, shows it in a <code> a screen reader reads, lists it, revokes it: 0 axe violations', async () => {
      const page = await fresh(true);
      await walk(page, (state) => accessible(page, state));
      await page.context().close();
    }, 90_000);

    // promise: pages.no-js
    it('the same with JavaScript off: plain forms and links', async () => {
      const page = await fresh(false);
      await walk(page, async () => undefined);
      await page.context().close();
    }, 60_000);
  });
});
