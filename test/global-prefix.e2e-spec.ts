/**
 * An app with `app.setGlobalPrefix('api')`: Nest moves the module's routes under the prefix, and
 * every URL the module builds moves with them (OAuth redirect URIs, magic links, the built-in
 * pages' forms, redirects), so each flow works end to end at `/api/auth`. On the platform of the run.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';

describe("app.setGlobalPrefix('api'): the routes and every URL the module builds", () => {
  const adapter = new MemoryAdapter();
  const links = new Map<string, string>();
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      globalPrefix: 'api',
      auth: {
        adapter,
        trustHost: true,
        providers: [
          Email({
            rateLimit: false,
            sendVerificationRequest: ({ identifier, url }) => void links.set(identifier, url),
          }),
          {
            id: 'acme',
            name: 'Acme',
            type: 'oauth',
            clientId: 'acme-client',
            clientSecret: 'acme-secret',
            authorization: 'http://127.0.0.1:9/authorize',
            token: 'http://127.0.0.1:9/token',
            userinfo: 'http://127.0.0.1:9/userinfo',
          },
        ],
      },
    });
  });
  afterAll(() => t?.close());

  it('answers under /api/auth, with the module headers, and builds its URLs there', async () => {
    const res = await fetch(`${t.url}/api/auth/providers`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toMatchObject({
      acme: { signinUrl: `${t.url}/api/auth/signin/acme`, callbackUrl: `${t.url}/api/auth/callback/acme` },
      email: { signinUrl: `${t.url}/api/auth/signin/email`, callbackUrl: `${t.url}/api/auth/callback/email` },
    });
    // Under the prefix, an unknown action is the module's own answer, not the platform's 404.
    const unknown = await fetch(`${t.url}/api/auth/nope`);
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: 'UnknownAction' });
  });

  it("sends the OAuth provider a redirect URI under the prefix, and the sign-in page's forms post there", async () => {
    const c = new TestClient(t.url);
    const started = await c.post('/api/auth/signin/acme', { csrfToken: await c.csrf('/api/auth') });
    expect(started.status).toBe(302);
    expect(location(started).searchParams.get('redirect_uri')).toBe(`${t.url}/api/auth/callback/acme`);
    const page = await (await c.get('/api/auth/signin')).text();
    expect(page).toContain(`action="${t.url}/api/auth/signin/acme"`);
    expect(page).not.toMatch(/action="[^"]*\/\/[^/"]+\/auth\//);
  });

  it('mails a magic link under the prefix that signs the user in, and the guard sees the session', async () => {
    const c = new TestClient(t.url);
    const asked = await c.post('/api/auth/signin/email', {
      csrfToken: await c.csrf('/api/auth'),
      email: 'prefix@example.test',
      callbackUrl: `${t.url}/api/me`,
    });
    expect(location(asked).pathname).toBe('/api/auth/verify-request');
    const link = new URL(links.get('prefix@example.test')!);
    expect(link.origin + link.pathname).toBe(`${t.url}/api/auth/callback/email`);
    const confirmed = await c.post('/api/auth/callback/email', {
      ...Object.fromEntries(link.searchParams),
      csrfToken: await c.csrf('/api/auth'),
    });
    expect(location(confirmed).href).toBe(`${t.url}/api/me`);
    const me = await c.get('/api/me');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user: { email: 'prefix@example.test' } });
  });
});
