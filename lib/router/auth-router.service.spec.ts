import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { AUTH_SERVICES } from '../auth.providers.js';
import { CredentialsService } from '../methods/credentials/credentials.service.js';
import { EmailService } from '../methods/email/email.service.js';
import { OAuthService } from '../methods/oauth/oauth.service.js';
import { WebAuthnService } from '../methods/webauthn/webauthn.service.js';
import {
  applyCookies,
  createAuthTestbed,
  everyProvider,
  ORIGIN,
  type AuthTestbed,
  type RequestInit,
} from '../sign-in/fixtures/auth-testbed.fixture.js';
import type { AuthResponse } from '../types/http.types.js';
import { AuthRouterService, type AuthAction } from './auth-router.service.js';

const AUTH = `${ORIGIN}/auth`;

/** The action and provider of a path under basePath, as the controller's route table maps them. */
function route(path: string): [AuthAction, string | undefined] {
  const [first = '', providerId] = path.split('/').slice(1);
  if (first === 'webauthn-client.js') return ['webauthn-client', undefined];
  const actions: AuthAction[] = [
    'providers',
    'csrf',
    'session',
    'signin',
    'signout',
    'callback',
    'verify-request',
    'error',
    'webauthn-options',
  ];
  return actions.includes(first as AuthAction) ? [first as AuthAction, providerId] : ['unknown', undefined];
}

/** One browser in front of the router: its cookies, sent with every request. */
class Client {
  jar: Record<string, string> = {};
  constructor(private readonly bed: AuthTestbed) {}

  /** `method path` through `AuthRouterService.handle`, as the controller calls it. */
  async send(method: string, path: string, init: RequestInit = {}): Promise<AuthResponse> {
    const request = this.bed.request(method, path, { ...init, cookies: { ...this.jar, ...init.cookies } });
    const response = await this.bed.get(AuthRouterService).handle(request, ...route(path));
    this.jar = applyCookies(this.jar, response.cookies);
    return response;
  }

  /** A POST carrying the CSRF token of `GET /csrf` (fetched each time: it is bound to the signed-in user). */
  async post(path: string, body: Record<string, unknown> = {}, init: RequestInit = {}): Promise<AuthResponse> {
    const { csrfToken } = (await this.send('GET', '/csrf')).json as { csrfToken: string };
    return this.send('POST', path, { ...init, body: { csrfToken, ...body } });
  }
}

/** The `error` a refused request reports: from its JSON body, or from its redirect's query. */
function errorOf(response: AuthResponse): string | null {
  if (response.json && typeof response.json === 'object') return (response.json as { error?: string }).error ?? null;
  return response.redirect ? new URL(response.redirect).searchParams.get('error') : null;
}

describe('AuthRouterService', () => {
  let bed: AuthTestbed;
  let client: Client;
  let sent: string[];
  beforeEach(async () => {
    sent = [];
    bed = await createAuthTestbed({ providers: everyProvider(sent) }, AUTH_SERVICES);
    client = new Client(bed);
  });

  describe('the action table', () => {
    it('GET /providers lists every provider with its URLs', async () => {
      const { json } = await client.send('GET', '/providers');
      expect(Object.keys(json as object)).toEqual(['idp', 'email', 'credentials', 'passkey']);
      expect((json as Record<string, unknown>).email).toEqual({
        id: 'email',
        name: 'Email',
        type: 'email',
        signinUrl: `${AUTH}/signin/email`,
        callbackUrl: `${AUTH}/callback/email`,
      });
    });

    it('GET /csrf answers a token and sets the CSRF cookie it belongs to', async () => {
      const response = await client.send('GET', '/csrf');
      expect((response.json as { csrfToken: string }).csrfToken).toMatch(/^[0-9a-f]{64}$/);
      expect(
        client.jar['authjs.csrf-token']?.startsWith(`${(response.json as { csrfToken: string }).csrfToken}|`),
      ).toBe(true);
    });

    it('GET /csrf for a signed-in browser without a CSRF cookie mints a token its next POST can use', async () => {
      await client.post('/callback/credentials', { username: 'ada', password: 'right' });
      delete client.jar['authjs.csrf-token'];
      const { csrfToken } = (await client.send('GET', '/csrf')).json as { csrfToken: string };
      expect(csrfToken).toMatch(/^[0-9a-f]{64}\.[\w-]+$/);
      const updated = await client.send('POST', '/session', { body: { csrfToken, data: { theme: 'dark' } } });
      expect(updated.json).toMatchObject({ user: { name: 'ada' } });
    });

    it('GET /session answers null without a session; POST /session with the token updates it', async () => {
      expect((await client.send('GET', '/session')).json).toBeNull();
      await client.post('/callback/credentials', { username: 'ada', password: 'right' });
      expect((await client.send('GET', '/session')).json).toMatchObject({ user: { name: 'ada' } });
      expect((await client.post('/session', { data: { theme: 'dark' } })).json).toMatchObject({
        user: { name: 'ada' },
      });
    });

    it('GET /signin renders the sign-in page, or redirects to pages.signIn', async () => {
      const page = await client.send('GET', '/signin', { query: { error: 'Verification' } });
      expect(page.html).toContain(`action="${AUTH}/signin/idp"`);
      expect(page.html).toContain(`${AUTH}/webauthn-client.js`);
      bed = await createAuthTestbed({ providers: everyProvider(sent), pages: { signIn: '/login' } }, AUTH_SERVICES);
      const redirect = await new Client(bed).send('GET', '/signin', { query: { error: 'Verification' } });
      expect(redirect.redirect).toBe(
        `${ORIGIN}/login?callbackUrl=${encodeURIComponent(`${ORIGIN}/`)}&error=Verification`,
      );
    });

    it('GET /signout renders the sign-out form; POST /signout ends the session and redirects', async () => {
      expect((await client.send('GET', '/signout')).html).toContain(`action="${AUTH}/signout"`);
      await client.post('/callback/credentials', { username: 'ada', password: 'right' });
      expect(client.jar['authjs.session-token']).toBeDefined();
      const response = await client.post('/signout');
      expect(response.redirect).toBe(`${ORIGIN}/`);
      expect(client.jar['authjs.session-token']).toBeUndefined();
    });

    it("asks the methods: the passkey script only with a passkey provider, the link's lifetime from its flow", async () => {
      // everyProvider has a passkey provider; without it, the page loads no script.
      bed = await createAuthTestbed(
        { providers: everyProvider(sent).filter((p) => (p as { type?: string }).type !== 'webauthn') },
        AUTH_SERVICES,
      );
      const page = await new Client(bed).send('GET', '/signin');
      expect(page.html).toContain(`action="${AUTH}/signin/idp"`);
      expect(page.html).not.toContain('webauthn-client.js');
      // The email flow tells the page its link's lifetime (the provider's default, 24 hours); another
      // provider, or none, says nothing about it.
      const lifetime = (html: string | undefined) => /data-expires>([^<]*)</.exec(html ?? '')?.[1];
      expect(lifetime((await client.send('GET', '/verify-request', { query: { provider: 'email' } })).html)).toBe(
        '24 hours',
      );
      expect(
        lifetime((await client.send('GET', '/verify-request', { query: { provider: 'idp' } })).html),
      ).toBeUndefined();
      expect(lifetime((await client.send('GET', '/verify-request')).html)).toBeUndefined();
    });

    it('GET /verify-request and GET /error render their pages', async () => {
      expect((await client.send('GET', '/verify-request')).html).toContain('Check your email');
      const error = await client.send('GET', '/error', { query: { error: 'Configuration' } });
      // A page anyone can open is never a server error (Auth.js answers 500 here).
      expect(error.status).toBe(200);
      expect(error.html).toContain('<html');
      expect((await client.send('GET', '/error', { query: { error: 'AccessDenied' } })).status).toBe(403);
    });

    it('GET /webauthn-client.js serves the passkey script, cacheable', async () => {
      const response = await client.send('GET', '/webauthn-client.js');
      expect(response.body?.contentType).toMatch(/javascript/);
      expect(response.headers).toEqual({ 'Cache-Control': 'public, max-age=3600' });
    });
  });

  describe('dispatch: each provider route reaches its flow in one hop', () => {
    it.each([
      ['POST', '/signin/email', EmailService, 'signIn'],
      ['GET', '/callback/email', EmailService, 'callback'],
      ['POST', '/callback/credentials', CredentialsService, 'callback'],
      ['POST', '/signin/idp', OAuthService, 'signIn'],
      ['GET', '/callback/idp', OAuthService, 'callback'],
      ['GET', '/webauthn-options/passkey', WebAuthnService, 'options'],
      ['POST', '/callback/passkey', WebAuthnService, 'callback'],
    ] as const)('%s %s → %p.%s', async (method, path, type, name) => {
      const flow = bed.get<object>(type as never) as Record<
        string,
        (ctx: { provider: { id: string } }) => Promise<AuthResponse>
      >;
      const call = jest.spyOn(flow, name);
      await (method === 'POST' ? client.post(path, { email: 'ada@example.com' }) : client.send('GET', path));
      expect(call).toHaveBeenCalledTimes(1);
      expect(call.mock.calls[0]![0].provider.id).toBe(route(path)[1]);
    });

    it('really runs the flow: POST /signin/email mails a link; POST /callback/credentials signs in', async () => {
      expect((await client.post('/signin/email', { email: 'ada@example.com' })).redirect).toBe(
        `${AUTH}/verify-request?provider=email&type=email&email=ada%40example.com`,
      );
      expect(sent).toHaveLength(1);
      expect((await client.post('/callback/credentials', { username: 'ada', password: 'wrong' })).redirect).toBe(
        `${AUTH}/signin?error=CredentialsSignin&code=credentials&provider=credentials`,
      );
    });

    it('sends a provider without a sign-in step back to the sign-in page', async () => {
      expect((await client.post('/signin/credentials')).redirect).toBe(`${AUTH}/signin`);
    });
  });

  describe('refusals', () => {
    it.each([
      ['POST', '/providers'],
      ['POST', '/csrf'],
      ['DELETE', '/session'],
      ['PUT', '/signin'],
      ['POST', '/signin'],
      ['GET', '/signin/email'],
      ['PUT', '/signout'],
      ['HEAD', '/callback/email'],
      ['DELETE', '/callback/idp'],
      ['POST', '/verify-request'],
      ['POST', '/error'],
      ['POST', '/webauthn-options/passkey'],
      ['GET', '/webauthn-options'],
      ['POST', '/webauthn-client.js'],
      ['GET', '/nowhere'],
    ])('%s %s: UnknownAction (400)', async (method, path) => {
      const response = method === 'POST' ? await client.post(path) : await client.send(method, path);
      expect(errorOf(response)).toBe('UnknownAction');
      expect(response.status).toBe(400);
    });

    it('GET /callback of a credentials provider: UnknownAction (credentials are posted)', async () => {
      const response = await client.send('GET', '/callback/credentials');
      expect(response).toMatchObject({ status: 400, json: { error: 'UnknownAction' } });
    });

    it.each([
      ['POST', '/signin/nope', `${AUTH}/error?error=InvalidProvider`],
      ['GET', '/callback/nope', `${AUTH}/error?error=InvalidProvider`],
      ['GET', '/webauthn-options/nope', undefined],
      ['GET', '/webauthn-options/email', undefined],
    ])('%s %s: InvalidProvider', async (method, path, redirect) => {
      const response = method === 'POST' ? await client.post(path) : await client.send(method, path);
      expect(errorOf(response)).toBe('InvalidProvider');
      if (redirect) expect(response.redirect).toBe(redirect);
      else expect(response.status).toBe(400);
    });

    it.each([
      ['/session', { status: 400, json: { error: 'MissingCSRF' } }],
      // The failed form is named and the typed address given back; the password never is.
      ['/signin/email', { redirect: `${AUTH}/signin?error=MissingCSRF&provider=email&email=ada%40example.com` }],
      [
        '/callback/credentials',
        { redirect: `${AUTH}/signin?error=MissingCSRF&provider=credentials&email=ada%40example.com` },
      ],
      // A refused sign-out goes back to the sign-out page, which says why (the user is still signed in).
      ['/signout', { redirect: `${AUTH}/signout?error=MissingCSRF` }],
    ])('POST %s without the CSRF token: MissingCSRF, and the flow never runs', async (path, expected) => {
      const response = await client.send('POST', path, {
        body: { email: 'ada@example.com', username: 'ada', password: 'right' },
      });
      expect(response).toMatchObject(expected);
      expect(sent).toEqual([]);
      expect(client.jar['authjs.session-token']).toBeUndefined();
    });

    it('refuses a POST with a wrong CSRF token, and a cross-site POST with the right one', async () => {
      await client.post('/session');
      const wrong = await client.send('POST', '/signin/email', {
        body: { csrfToken: 'f'.repeat(64), email: 'ada@example.com' },
      });
      expect(errorOf(wrong)).toBe('MissingCSRF');
      const crossSite = await client.post(
        '/signin/email',
        { email: 'ada@example.com' },
        { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } },
      );
      expect(errorOf(crossSite)).toBe('MissingCSRF');
      expect(sent).toEqual([]);
    });

    it('binds the CSRF token to the signed-in user: a token from before the sign-in is refused after it', async () => {
      const { csrfToken } = (await client.send('GET', '/csrf')).json as { csrfToken: string };
      await client.post('/callback/credentials', { username: 'ada', password: 'right' });
      expect(errorOf(await client.send('POST', '/signout', { body: { csrfToken } }))).toBe('MissingCSRF');
      expect(client.jar['authjs.session-token']).toBeDefined();
    });

    it('lets the cross-site OAuth form_post callback through the same-origin check, with no referrer', async () => {
      const response = await client.send('POST', '/callback/idp', {
        headers: { origin: 'https://idp.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(errorOf(response)).not.toBe('MissingCSRF');
      expect(response.headers).toEqual({ 'Referrer-Policy': 'no-referrer' });
    });

    it("sends no Referer from a failed callback of another site's flow or of no known provider, and keeps it for the module's own forms", async () => {
      const refused = async (path: string, body: Record<string, unknown>) => {
        const response = await client.post(path, body);
        expect(response.redirect).toContain('error=');
        return response.headers?.['Referrer-Policy'];
      };
      expect(await refused('/callback/idp', {})).toBe('no-referrer');
      expect(await refused('/callback/nobody', {})).toBe('no-referrer');
      // The credentials form is this module's page: its answer keeps the default policy (same-origin).
      expect(await refused('/callback/credentials', { username: 'ada', password: 'wrong' })).toBeUndefined();
    });
  });
});
