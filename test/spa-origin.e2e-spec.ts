/**
 * A single-page app on another origin, in real Chromium (issue 39, the SPA half): the front end is
 * served from one port of 127.0.0.1 and calls the API on another (cross-origin, same site: what
 * `localhost:5173` calling `localhost:3000` is in development). Two patterns, as the README's
 * "Single-page apps" describes them:
 * - cross-origin: the API lists the front end in `trustedOrigins` and enables CORS for it; the SPA
 *   signs in, calls a guarded route, uses the account JSON API and signs out, with `fetch` and the
 *   browser's own cookies; another origin, not listed, gets nothing;
 * - a same-origin proxy: the front end's server forwards `/auth` and the API to the app, which needs
 *   neither setting.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { CHROMIUM, chromiumAvailable } from './setup/ci.js';
import { CHROMIUM_ARGS } from './setup/signin-browser.js';

const describeBrowser = chromiumAvailable('spa-origin.e2e-spec') ? describe : describe.skip;

/** A front end's server: its pages, and (with `api`) `/auth/*` and `/me` forwarded to the API with the Host kept. */
async function frontEnd(api?: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (api && /^\/(auth|me)(\/|\?|$)/.test(req.url ?? '')) {
      const target = new URL(req.url!, api);
      const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><title>SPA</title><h1>${req.url?.split('?')[0]}</h1></html>`);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const credentials = (adapter: MemoryAdapter) => ({
  id: 'password',
  name: 'Password',
  type: 'credentials' as const,
  credentials: { email: { type: 'email' }, password: { type: 'password' } },
  authorize: async (c: Partial<Record<string, unknown>>) =>
    c.password === 'correct horse' ? await adapter.getUserByEmail(String(c.email)) : null,
});

/** What the SPA's code does, run in its page: the steps of a session, each step's outcome. */
async function spaSession(page: Page, api: string, back: string) {
  return page.evaluate(
    async ({ api, back }) => {
      const form = (fields: Record<string, string>) => ({
        method: 'POST',
        credentials: 'include' as const,
        // `X-Auth-Return-Redirect`: the answer is `200 { url }` instead of a redirect, which the SPA follows itself.
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-auth-return-redirect': '1' },
        body: new URLSearchParams(fields).toString(),
      });
      const { csrfToken } = (await (await fetch(`${api}/auth/csrf`, { credentials: 'include' })).json()) as {
        csrfToken: string;
      };
      // Sign in: the API answers with where to go next, `callbackUrl`, back here.
      const signIn = await fetch(
        `${api}/auth/callback/password`,
        form({ csrfToken, email: 'spa@example.test', password: 'correct horse', callbackUrl: `${back}/home` }),
      );
      const me = await fetch(`${api}/me`, { credentials: 'include' });
      const meBody = me.ok ? ((await me.json()) as { user: { email: string } }) : null;
      // The account JSON API: the page as JSON, then an action with the CSRF token in a header.
      const account = await fetch(`${api}/auth/account`, {
        credentials: 'include',
        headers: { accept: 'application/json' },
      });
      const accountBody = (await account.json()) as { csrfToken?: string };
      const action = await fetch(`${api}/auth/account/sessions/end-others`, {
        method: 'POST',
        credentials: 'include',
        headers: { 'content-type': 'application/json', 'x-csrf-token': accountBody.csrfToken ?? '' },
        body: '{}',
      });
      const actionBody = (await action.json()) as { ok?: boolean; ended?: number };
      const { csrfToken: signOutToken } = (await (
        await fetch(`${api}/auth/csrf`, { credentials: 'include' })
      ).json()) as { csrfToken: string };
      const signOut = await fetch(`${api}/auth/signout`, form({ csrfToken: signOutToken, callbackUrl: `${back}/bye` }));
      const after = await fetch(`${api}/me`, { credentials: 'include' });
      return {
        signedInTo: ((await signIn.json()) as { url: string }).url,
        me: me.status,
        email: meBody?.user.email,
        account: account.status,
        action: [action.status, actionBody],
        signedOutTo: ((await signOut.json()) as { url: string }).url,
        after: after.status,
      };
    },
    { api, back },
  );
}

/** What {@link spaSession} sees when every step works: back on the front end, signed in, then out. */
const aWholeSession = (front: string) => ({
  signedInTo: `${front}/home`,
  me: 200,
  email: 'spa@example.test',
  account: 200,
  action: [200, { ok: true, ended: 0 }],
  signedOutTo: `${front}/bye`,
  after: 401,
});

describeBrowser('a single-page app on another origin, in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(() => browser?.close());

  describe('cross-origin: trustedOrigins and the app’s CORS', () => {
    let t: TestApp;
    let spa: Awaited<ReturnType<typeof frontEnd>>;
    let stranger: Awaited<ReturnType<typeof frontEnd>>;
    const adapter = new MemoryAdapter();

    beforeAll(async () => {
      spa = await frontEnd();
      stranger = await frontEnd();
      await adapter.createUser({ id: 'spa-user', email: 'spa@example.test', emailVerified: null });
      t = await createTestApp({
        auth: {
          adapter,
          session: { strategy: 'database' },
          trustedOrigins: [spa.url],
          providers: [credentials(adapter)],
        },
        cors: {
          origin: [spa.url],
          credentials: true,
          allowedHeaders: ['content-type', 'x-csrf-token', 'x-auth-return-redirect'],
        },
      });
    });
    afterAll(async () => {
      await t?.close();
      await spa?.close();
      await stranger?.close();
    });

    // promise: spa.trusted-origins
    it('signs in, calls the API, uses the account API and signs out, with the browser’s cookies', async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${spa.url}/`);
        expect(await spaSession(page, t.url, spa.url)).toEqual(aWholeSession(spa.url));
      } finally {
        await context.close();
      }
    });

    it('gives an origin it does not list nothing: its sign-in is refused and no session cookie is set', async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${stranger.url}/`);
        // A form post needs no CORS to be sent; the API must refuse it by its Origin.
        const status = await page.evaluate(async (api) => {
          const res = await fetch(`${api}/auth/callback/password`, {
            method: 'POST',
            mode: 'no-cors',
            credentials: 'include',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              email: 'spa@example.test',
              password: 'correct horse',
              csrfToken: 'x',
            }).toString(),
          });
          return res.type;
        }, t.url);
        expect(status).toBe('opaque');
        const cookies = await context.cookies(t.url);
        expect(cookies.filter((c) => c.name.includes('session-token'))).toEqual([]);
        // And it cannot read the API: no CORS for it.
        const read = await page.evaluate(
          (api) =>
            fetch(`${api}/auth/session`, { credentials: 'include' }).then(
              () => 'read',
              () => 'blocked',
            ),
          t.url,
        );
        expect(read).toBe('blocked');
      } finally {
        await context.close();
      }
    });

    it('sends a listed front end back to itself, and anything else back to the API', async () => {
      const client = await fetch(`${t.url}/auth/signin?callbackUrl=${encodeURIComponent(`${spa.url}/after`)}`);
      expect(client.status).toBe(200);
      const cookie = client.headers.getSetCookie().find((c) => c.startsWith('authjs.callback-url='));
      expect(decodeURIComponent(cookie!.split(';')[0]!.split('=')[1]!)).toBe(`${spa.url}/after`);
      const other = await fetch(`${t.url}/auth/signin?callbackUrl=${encodeURIComponent(`${stranger.url}/after`)}`);
      const otherCookie = other.headers.getSetCookie().find((c) => c.startsWith('authjs.callback-url='));
      expect(decodeURIComponent(otherCookie!.split(';')[0]!.split('=')[1]!)).toBe(`${t.url}/`);
    });
  });

  describe('a same-origin proxy: no setting at all', () => {
    let t: TestApp;
    let spa: Awaited<ReturnType<typeof frontEnd>>;
    const adapter = new MemoryAdapter();

    beforeAll(async () => {
      await adapter.createUser({ id: 'spa-user', email: 'spa@example.test', emailVerified: null });
      t = await createTestApp({
        auth: { adapter, session: { strategy: 'database' }, providers: [credentials(adapter)] },
      });
      spa = await frontEnd(t.url);
    });
    afterAll(async () => {
      await spa?.close();
      await t?.close();
    });

    // promise: spa.proxy
    it('signs in, calls the API, uses the account API and signs out through the front end’s own origin', async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${spa.url}/`);
        expect(await spaSession(page, spa.url, spa.url)).toEqual(aWholeSession(spa.url));
      } finally {
        await context.close();
      }
    });
  });
});
