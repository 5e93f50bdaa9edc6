import { beforeEach, describe, expect, it } from '@jest/globals';
import { AUTH_SERVICES } from '../auth.providers.js';
import { ChecksService } from '../sign-in/checks.service.js';
import {
  applyCookies,
  createAuthTestbed,
  everyProvider,
  type AuthTestbed,
  type RequestInit,
} from '../sign-in/fixtures/auth-testbed.fixture.js';
import type { AuthResponse } from '../types/http.types.js';
import { AuthRouterService, type AuthAction } from './auth-router.service.js';

/** One browser in front of the router (cookies kept between requests). */
class Client {
  jar: Record<string, string> = {};
  constructor(private readonly bed: AuthTestbed) {}

  async send(method: string, path: string, action: AuthAction, provider?: string, init: RequestInit = {}) {
    const request = this.bed.request(method, path, { ...init, cookies: { ...this.jar, ...init.cookies } });
    const response = await this.bed.get(AuthRouterService).handle(request, action, provider);
    this.jar = applyCookies(this.jar, response.cookies);
    return response;
  }

  async csrf(): Promise<string> {
    return ((await this.send('GET', '/csrf', 'csrf')).json as { csrfToken: string }).csrfToken;
  }

  async signIn(): Promise<void> {
    const csrfToken = await this.csrf();
    await this.send('POST', '/callback/credentials', 'callback', 'credentials', {
      body: { csrfToken, username: 'ada', password: 'right' },
    });
  }

  link(provider: string, body: Record<string, unknown>) {
    return this.send('POST', `/link/${provider}`, 'link', provider, { body });
  }
}

const errorOf = (r: AuthResponse) => (r.redirect ? new URL(r.redirect).searchParams.get('error') : null);

describe('POST /link/:provider (the action table)', () => {
  let bed: AuthTestbed;
  let client: Client;
  beforeEach(async () => {
    bed = await createAuthTestbed({ providers: everyProvider() }, AUTH_SERVICES);
    client = new Client(bed);
  });

  it('signed in, with the CSRF token: redirects to the provider, the user sealed in the check cookies', async () => {
    await client.signIn();
    const response = await client.link('idp', { csrfToken: await client.csrf(), callbackUrl: '/account' });
    const target = new URL(response.redirect!);
    expect(target.origin + target.pathname).toBe('https://idp.example/authorize');
    expect(target.searchParams.get('code_challenge')).toBeTruthy();
    // The PKCE cookie (the check in force) holds the link for the signed-in user (u1), bound to `idp`.
    const ctx = bed.providerContext(bed.request('GET', '/callback/idp', { cookies: client.jar }), 'idp');
    expect((await bed.get(ChecksService).open(ctx, 'pkceCodeVerifier', 'idp')).data).toEqual({ link: 'u1' });
    expect(client.jar['authjs.callback-url']).toBe('http://127.0.0.1:3000/account');
  });

  it('refuses a missing or wrong CSRF token (MissingCSRF), before going to the provider', async () => {
    await client.signIn();
    for (const body of [{}, { csrfToken: 'forged' }]) {
      const response = await client.link('idp', body);
      expect(errorOf(response)).toBe('MissingCSRF');
      expect(new URL(response.redirect!).origin).toBe('http://127.0.0.1:3000');
    }
    expect(Object.keys(client.jar).some((name) => name.includes('state') || name.includes('pkce'))).toBe(false);
  });

  it('refuses a sign-in older than account.recentSignInMaxAge (ReauthenticationRequired), before going to the provider', async () => {
    bed = await createAuthTestbed({ providers: everyProvider(), account: { recentSignInMaxAge: 60 } }, AUTH_SERVICES);
    client = new Client(bed);
    await client.signIn();
    const csrfToken = await client.csrf();
    const realNow = Date.now;
    Date.now = () => realNow() + 61_000;
    try {
      const response = await client.link('idp', { csrfToken });
      expect(errorOf(response)).toBe('ReauthenticationRequired');
      expect(new URL(response.redirect!).pathname).toBe('/auth/signin');
    } finally {
      Date.now = realNow;
    }
    expect(Object.keys(client.jar).some((name) => name.includes('state') || name.includes('pkce'))).toBe(false);
    // Within the window the same request goes to the provider.
    const response = await client.link('idp', { csrfToken: await client.csrf() });
    expect(new URL(response.redirect!).origin).toBe('https://idp.example');
  });

  it('refuses without a session (SessionRequired, to the sign-in page)', async () => {
    const response = await client.link('idp', { csrfToken: await client.csrf() });
    expect(errorOf(response)).toBe('SessionRequired');
    expect(new URL(response.redirect!).pathname).toBe('/auth/signin');
  });

  it.each(['email', 'credentials', 'passkey', 'nope'])('refuses provider %s (InvalidProvider)', async (provider) => {
    await client.signIn();
    expect(errorOf(await client.link(provider, { csrfToken: await client.csrf() }))).toBe('InvalidProvider');
  });

  it('refuses a provider without any check cookie to carry the link (InvalidProvider)', async () => {
    bed = await createAuthTestbed({ providers: everyProvider([], { checks: ['none'] }) }, AUTH_SERVICES);
    client = new Client(bed);
    await client.signIn();
    expect(errorOf(await client.link('idp', { csrfToken: await client.csrf() }))).toBe('InvalidProvider');
  });

  it('answers GET with UnknownAction', async () => {
    expect((await client.send('GET', '/link/idp', 'link', 'idp')).json).toMatchObject({ error: 'UnknownAction' });
  });
});
