import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deepMerge } from '../../config/resolve-config.js';
import { OAuthCallbackError } from '../../errors/auth.errors.js';
import { normalizeOAuthProvider, type NormalizedOAuthProvider } from '../../methods/oauth/oauth.normalize.js';
import type { OAuthConfig } from '../../methods/oauth/oauth.types.js';
import { Apple } from './apple.provider.js';
import { AzureAD } from './azure-ad.provider.js';
import { AzureDevOps } from './azure-devops.provider.js';
import { Bungie } from './bungie.provider.js';
import { Descope } from './descope.provider.js';
import { Dribbble } from './dribbble.provider.js';
import { Dropbox } from './dropbox.provider.js';
import { Foursquare } from './foursquare.provider.js';
import { FusionAuth } from './fusionauth.provider.js';
import { GitHub } from './github.provider.js';
import { GitLab } from './gitlab.provider.js';
import { HubSpot } from './hubspot.provider.js';
import { Mailchimp } from './mailchimp.provider.js';
import { MailRu } from './mailru.provider.js';
import { MicrosoftEntraID } from './microsoft-entra-id.provider.js';
import { Nextcloud } from './nextcloud.provider.js';
import { Notion } from './notion.provider.js';
import { Osso } from './osso.provider.js';
import { TikTok } from './tiktok.provider.js';
import { Todoist } from './todoist.provider.js';
import { Trakt } from './trakt.provider.js';
import { Twitch } from './twitch.provider.js';
import { UnitedEffects } from './united-effects.provider.js';
import { WeChat } from './wechat.provider.js';
import { Zoho } from './zoho.provider.js';

interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A vendor API on 127.0.0.1: answers by path and records every request. */
class VendorServer {
  readonly requests: Recorded[] = [];
  readonly routes = new Map<
    string,
    (req: Recorded) => { status?: number; json?: unknown; body?: string; headers?: Record<string, string> }
  >();
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const recorded: Recorded = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body,
        };
        this.requests.push(recorded);
        const route = this.routes.get(`${recorded.method} ${url.pathname}`);
        const answer = route ? route(recorded) : { status: 404, json: { error: 'not_found' } };
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
        res.end(answer.body ?? JSON.stringify(answer.json ?? {}));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  last(path: string): Recorded {
    const found = [...this.requests].reverse().find((r) => r.path === path);
    if (!found) throw new Error(`no request to ${path}`);
    return found;
  }
}

const vendor = new VendorServer();
beforeAll(() => vendor.start());
afterAll(() => vendor.stop());

/** The provider as the OAuth flow sees it: options merged over the defaults, then normalised. */
function normalized(config: OAuthConfig<any>): NormalizedOAuthProvider {
  const { options, ...defaults } = config as OAuthConfig<any> & { options?: Record<string, unknown> };
  return normalizeOAuthProvider(deepMerge(defaults as Record<string, unknown>, options ?? {}));
}

const tokens = { access_token: 'at-123', token_type: 'bearer' as const };

describe('Apple', () => {
  const apple = Apple({ clientId: 'com.example.web', clientSecret: 'jwt' });
  const claims = {
    sub: '001.abc',
    iss: 'https://appleid.apple.com',
    aud: 'com.example.web',
    iat: 1,
    exp: 2,
    email: 'jane@privaterelay.appleid.com',
  };

  it('asks for form_post, name and email, and posts the secret', () => {
    expect(apple.authorization).toEqual({ params: { scope: 'name email', response_mode: 'form_post' } });
    expect(normalized(apple).formPost).toBe(true);
    expect(apple.client).toEqual({ token_endpoint_auth_method: 'client_secret_post' });
    expect(apple.checks).toEqual(['nonce', 'state']);
  });

  it('folds the `user` form field of the first consent into the profile, and maps the name', async () => {
    const user = JSON.stringify({
      name: { firstName: 'Jane', lastName: 'Doe' },
      email: 'jane@privaterelay.appleid.com',
    });
    const profile = await apple.conformProfile!(claims, { params: { code: 'c', state: 's', user }, tokens });
    expect(profile.user).toEqual({
      name: { firstName: 'Jane', lastName: 'Doe' },
      email: 'jane@privaterelay.appleid.com',
    });
    expect(await apple.profile!(profile, tokens)).toEqual({
      id: '001.abc',
      name: 'Jane Doe',
      email: 'jane@privaterelay.appleid.com',
      image: null,
    });
  });

  it('on later sign-ins (no `user`) falls back to the email as the name', async () => {
    const profile = await apple.conformProfile!(claims, { params: { code: 'c' }, tokens });
    expect(profile).toEqual(claims);
    expect((await apple.profile!(profile, tokens)).name).toBe('jane@privaterelay.appleid.com');
  });

  it.each([['not json'], ['[1,2]'], ['"text"'], ['{"name":{"firstName":42}}'], ['x'.repeat(5000)]])(
    'ignores a malformed `user` field (%#)',
    async (user) => {
      const profile = await apple.conformProfile!(claims, { params: { user }, tokens });
      expect(profile.user?.name?.firstName).toBeUndefined();
      expect((await apple.profile!(profile, tokens)).name).toBe('jane@privaterelay.appleid.com');
    },
  );
});

describe('Microsoft Entra ID', () => {
  it('builds the issuer from the tenant, `common` by default', () => {
    expect(MicrosoftEntraID().issuer).toBe('https://login.microsoftonline.com/common/v2.0');
    expect(MicrosoftEntraID({ tenantId: 'contoso.onmicrosoft.com' }).issuer).toBe(
      'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0',
    );
    expect(MicrosoftEntraID({ issuer: 'https://login.microsoftonline.com/abc/v2.0/' }).issuer).toBe(
      'https://login.microsoftonline.com/abc/v2.0',
    );
    expect(AzureAD({ tenantId: 'organizations' })).toMatchObject({
      id: 'azure-ad',
      issuer: 'https://login.microsoftonline.com/organizations/v2.0',
    });
  });

  it('reads AUTH_MICROSOFT_ENTRA_ID_ISSUER when no tenant or issuer is given', () => {
    process.env.AUTH_MICROSOFT_ENTRA_ID_ISSUER =
      'https://login.microsoftonline.com/11111111-2222-3333-4444-555555555555/v2.0';
    try {
      expect(MicrosoftEntraID().issuer).toBe(process.env.AUTH_MICROSOFT_ENTRA_ID_ISSUER);
    } finally {
      delete process.env.AUTH_MICROSOFT_ENTRA_ID_ISSUER;
    }
  });

  const tid = '9122040d-6c67-4c5b-b112-36a304b66dad';
  it.each([
    ['common', { tid }, `https://login.microsoftonline.com/${tid}/v2.0`],
    ['organizations', { tid }, `https://login.microsoftonline.com/${tid}/v2.0`],
    [
      'consumers',
      { tid: '9188040d-6c67-4c5b-b112-36a304b66dad' },
      'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0',
    ],
    ['common', { tid: '../evil' }, undefined],
    ['common', { tid: 'evil.example/x' }, undefined],
    ['common', {}, undefined],
    [tid, { tid: '00000000-0000-0000-0000-000000000000' }, undefined],
  ])('multi-tenant issuer of an ID token (tenant %s, claims %j)', (tenantId, claims, issuer) => {
    expect(MicrosoftEntraID({ tenantId }).idTokenIssuer!(claims)).toBe(issuer);
  });

  it('resolves the `{tenantid}` template of the discovery document to the tenant asked for', async () => {
    vendor.routes.set('GET /common/v2.0/.well-known/openid-configuration', () => ({
      json: {
        issuer: 'https://login.microsoftonline.com/{tenantid}/v2.0',
        authorization_endpoint: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
      },
    }));
    vendor.routes.set(`GET /${tid}/v2.0/.well-known/openid-configuration`, () => ({
      json: { issuer: `https://login.microsoftonline.com/${tid}/v2.0` },
    }));
    const entra = MicrosoftEntraID();
    const common = await entra.customFetch!(`${vendor.url}/common/v2.0/.well-known/openid-configuration`, {
      method: 'GET',
    });
    expect(((await common.json()) as { issuer: string }).issuer).toBe('https://login.microsoftonline.com/common/v2.0');
    const tenant = await entra.customFetch!(`${vendor.url}/${tid}/v2.0/.well-known/openid-configuration`, {
      method: 'GET',
    });
    expect(((await tenant.json()) as { issuer: string }).issuer).toBe(`https://login.microsoftonline.com/${tid}/v2.0`);
  });

  it('reads the profile photo from Graph into a data URL, and does without it when Graph fails', async () => {
    vendor.routes.set('GET /v1.0/me/photos/64x64/$value', (req) =>
      req.headers.authorization === 'Bearer at-123'
        ? { body: 'PNGDATA', headers: { 'content-type': 'image/png' } }
        : { status: 401 },
    );
    const claims = {
      sub: 's1',
      oid: 'o',
      tid,
      aud: 'a',
      iss: 'i',
      iat: 1,
      exp: 2,
      name: 'Jane Doe',
      email: 'jane@contoso.com',
    };
    const entra = MicrosoftEntraID({ profilePhotoSize: 64, graphUrl: vendor.url });
    expect(await entra.profile!(claims, tokens)).toEqual({
      id: 's1',
      name: 'Jane Doe',
      email: 'jane@contoso.com',
      image: `data:image/png;base64,${Buffer.from('PNGDATA').toString('base64')}`,
    });
    expect((await entra.profile!(claims, { ...tokens, access_token: 'wrong' })).image).toBeNull();
    expect(
      (await MicrosoftEntraID({ profilePhotoSize: false, graphUrl: vendor.url }).profile!(claims, tokens)).image,
    ).toBeNull();
  });
});

describe('token response repairs', () => {
  it('Twitch: array scope → space-separated, {status, message} errors → OAuth errors', async () => {
    const conform = (Twitch().token as { conform: (r: Response) => Promise<Response> }).conform;
    const ok = await conform(
      Response.json({ access_token: 'a', token_type: 'bearer', id_token: 'x', scope: ['openid', 'user:read:email'] }),
    );
    expect(await ok.json()).toEqual({
      access_token: 'a',
      token_type: 'bearer',
      id_token: 'x',
      scope: 'openid user:read:email',
    });
    const error = await conform(Response.json({ status: 400, message: 'Invalid authorization code' }, { status: 400 }));
    expect(error.status).toBe(400);
    expect(await error.json()).toEqual({ error: 'invalid_request', error_description: 'Invalid authorization code' });
    const text = new Response('not json', { status: 502 });
    expect(await conform(text)).toBe(text);
  });

  it('FusionAuth: drops WWW-Authenticate from successful token responses only', async () => {
    const conform = (
      FusionAuth({ issuer: 'https://fusion.example.com' }).token as { conform: (r: Response) => Response }
    ).conform;
    const ok = conform(Response.json({ access_token: 'a' }, { headers: { 'www-authenticate': 'Bearer realm="x"' } }));
    expect(ok.headers.has('www-authenticate')).toBe(false);
    expect(await ok.json()).toEqual({ access_token: 'a' });
    const challenge = conform(
      new Response('{}', { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } }),
    );
    expect(challenge.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });
});

describe('parameters and URLs built from options', () => {
  it('TikTok sends the client id as client_key, in the authorization request and in the code exchange', () => {
    const tiktok = TikTok({ clientId: 'aw123', clientSecret: 's' });
    expect(tiktok.authorization).toEqual({
      url: 'https://www.tiktok.com/v2/auth/authorize',
      params: { client_key: 'aw123', scope: 'user.info.basic' },
    });
    expect(normalized(tiktok).token?.params).toEqual({ client_key: 'aw123' });
    process.env.AUTH_TIKTOK_ID = 'from-env';
    try {
      expect(normalized(TikTok()).authorization?.params.client_key).toBe('from-env');
    } finally {
      delete process.env.AUTH_TIKTOK_ID;
    }
  });

  it('WeChat picks the endpoint and scope of the platform, and sends the app id', () => {
    expect(WeChat({ clientId: 'wx1' }).authorization).toEqual({
      url: 'https://open.weixin.qq.com/connect/oauth2/authorize',
      params: { appid: 'wx1', scope: 'snsapi_userinfo' },
    });
    expect(WeChat({ clientId: 'wx1', platformType: 'WebsiteApp' }).authorization).toEqual({
      url: 'https://open.weixin.qq.com/connect/qrconnect',
      params: { appid: 'wx1', scope: 'snsapi_login' },
    });
  });

  it('GitHub Enterprise Server and self-managed GitLab get their own hosts', () => {
    const ghes = GitHub({ enterprise: { baseUrl: 'https://github.example.com/' } });
    expect(ghes).toMatchObject({
      issuer: 'https://github.example.com/login/oauth',
      token: 'https://github.example.com/login/oauth/access_token',
    });
    expect((ghes.authorization as { url: string }).url).toBe('https://github.example.com/login/oauth/authorize');
    expect((ghes.userinfo as { url: string }).url).toBe('https://github.example.com/api/v3/user');
    expect(GitLab({ baseUrl: 'https://git.example.com' })).toMatchObject({
      token: 'https://git.example.com/oauth/token',
      userinfo: 'https://git.example.com/api/v4/user',
    });
  });

  it('Dribbble scope, Descope issuer from the project id, United Effects resource, Osso trailing slash', () => {
    expect(Dribbble({ scope: 'public upload' }).authorization).toEqual({
      url: 'https://dribbble.com/oauth/authorize',
      params: { scope: 'public upload' },
    });
    expect(Descope({ clientId: 'P2abc' }).issuer).toBe('https://api.descope.com/P2abc');
    expect(UnitedEffects({ issuer: 'https://auth.unitedeffects.com/group1' }).authorization).toEqual({
      params: { scope: 'openid email profile', resource: 'https://auth.unitedeffects.com/group1' },
    });
    expect(Osso({ issuer: 'https://osso.example.com' }).token).toBe('https://osso.example.com/oauth/token');
    expect(Osso({ issuer: 'https://osso.example.com//' }).token).toBe('https://osso.example.com/oauth/token');
  });

  it('instance-based providers leave the endpoints unset without an issuer, so bootstrap reports it', () => {
    expect(Nextcloud().authorization).toBeUndefined();
    expect(Nextcloud().token).toBeUndefined();
  });
});

describe('custom userinfo and token requests', () => {
  /** The provider's endpoint pointed at the local vendor server (path kept), as a user would override it. */
  function local(config: OAuthConfig<any>, endpoint: 'userinfo' | 'token', path: string): NormalizedOAuthProvider {
    const p = normalized(config);
    const handler = p[endpoint]!;
    handler.url = new URL(path, vendor.url);
    return p;
  }

  it('GitHub reads /user, then the primary address of /user/emails when the email is private', async () => {
    vendor.routes.set('GET /user', () => ({
      json: { id: 1, login: 'octocat', name: null, email: null, avatar_url: 'https://a/1' },
    }));
    vendor.routes.set('GET /user/emails', () => ({
      json: [
        { email: 'second@example.com', primary: false, verified: true, visibility: null },
        { email: 'octocat@example.com', primary: true, verified: true, visibility: 'private' },
      ],
    }));
    const p = local(GitHub(), 'userinfo', '/user');
    const profile = await p.userinfo!.request!({ tokens, provider: p });
    expect(profile.email).toBe('octocat@example.com');
    expect(vendor.last('/user').headers.authorization).toBe('Bearer at-123');
    expect(vendor.last('/user').headers['user-agent']).toBeTruthy();
    expect(vendor.last('/user/emails').headers.authorization).toBe('Bearer at-123');
    expect(await GitHub().profile!(profile as never, tokens)).toEqual({
      id: '1',
      name: 'octocat',
      email: 'octocat@example.com',
      image: 'https://a/1',
    });
  });

  it('GitHub keeps a public email and skips the emails call; a refused emails call leaves no email', async () => {
    const before = vendor.requests.length;
    vendor.routes.set('GET /user', () => ({
      json: { id: 2, login: 'pub', name: 'Pub', email: 'pub@example.com', avatar_url: 'x' },
    }));
    const p = local(GitHub(), 'userinfo', '/user');
    expect((await p.userinfo!.request!({ tokens, provider: p })).email).toBe('pub@example.com');
    expect(vendor.requests.slice(before).map((r) => r.path)).toEqual(['/user']);

    vendor.routes.set('GET /user', () => ({
      json: { id: 3, login: 'priv', name: null, email: null, avatar_url: 'x' },
    }));
    vendor.routes.set('GET /user/emails', () => ({ status: 403, json: { message: 'Resource not accessible' } }));
    expect((await p.userinfo!.request!({ tokens, provider: p })).email).toBeNull();
  });

  it('a failing vendor API is an OAuthCallbackError that names the provider, never the token', async () => {
    vendor.routes.set('GET /user', () => ({ status: 500, json: {} }));
    const p = local(GitHub(), 'userinfo', '/user');
    const error = await Promise.resolve(p.userinfo!.request!({ tokens, provider: p })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OAuthCallbackError);
    expect(String((error as Error).message)).toMatch(/GitHub.*500/);
    expect(String((error as Error).message)).not.toContain('at-123');
  });

  it('an oversized or non-JSON vendor answer is refused with an OAuthCallbackError', async () => {
    const p = local(Dropbox(), 'userinfo', '/2/users/get_current_account');
    vendor.routes.set('POST /2/users/get_current_account', () => ({
      body: JSON.stringify({ padding: 'x'.repeat(600 * 1024) }),
    }));
    await expect(Promise.resolve(p.userinfo!.request!({ tokens, provider: p }))).rejects.toThrow(/too large/);
    vendor.routes.set('POST /2/users/get_current_account', () => ({ body: '<html>maintenance</html>' }));
    await expect(Promise.resolve(p.userinfo!.request!({ tokens, provider: p }))).rejects.toBeInstanceOf(
      OAuthCallbackError,
    );
  });

  // [name, factory, configured userinfo path, method, path the request must reach, further checks]
  it.each([
    [
      'Dropbox (POST, no body)',
      () => Dropbox(),
      '/2/users/get_current_account',
      'POST',
      '/2/users/get_current_account',
      (r: Recorded) => {
        expect(r.headers.authorization).toBe('Bearer at-123');
        expect(r.body).toBe('');
      },
    ],
    [
      'HubSpot (token in the path)',
      () => HubSpot(),
      '/oauth/v1/access-tokens',
      'GET',
      '/oauth/v1/access-tokens/at-123',
      () => undefined,
    ],
    [
      'Foursquare (oauth_token and v)',
      () => Foursquare({ apiVersion: '20240101' }),
      '/v2/users/self?v=20240101',
      'GET',
      '/v2/users/self',
      (r: Recorded) => {
        expect(r.query.get('oauth_token')).toBe('at-123');
        expect(r.query.get('v')).toBe('20240101');
      },
    ],
    [
      'Mail.ru (access_token query)',
      () => MailRu(),
      '/userinfo',
      'GET',
      '/userinfo',
      (r: Recorded) => expect(r.query.get('access_token')).toBe('at-123'),
    ],
    [
      'Mailchimp (OAuth scheme)',
      () => Mailchimp(),
      '/oauth2/metadata',
      'GET',
      '/oauth2/metadata',
      (r: Recorded) => expect(r.headers.authorization).toBe('OAuth at-123'),
    ],
    [
      'Zoho (Zoho-oauthtoken scheme)',
      () => Zoho(),
      '/oauth/user/info',
      'GET',
      '/oauth/user/info',
      (r: Recorded) => expect(r.headers.authorization).toBe('Zoho-oauthtoken at-123'),
    ],
    [
      'Trakt (API version and key headers)',
      () => Trakt({ clientId: 'trakt-client' }),
      '/users/me?extended=full',
      'GET',
      '/users/me',
      (r: Recorded) => {
        expect(r.headers.authorization).toBe('Bearer at-123');
        expect(r.headers['trakt-api-version']).toBe('2');
        expect(r.headers['trakt-api-key']).toBe('trakt-client');
        expect(r.query.get('extended')).toBe('full');
      },
    ],
    [
      'Notion (users/me with Notion-Version)',
      () => Notion(),
      '/v1/users',
      'GET',
      '/v1/users/me',
      (r: Recorded) => {
        expect(r.headers.authorization).toBe('Bearer at-123');
        expect(r.headers['notion-version']).toBe('2022-06-28');
      },
    ],
    [
      'Todoist (Sync API POST for the user resource)',
      () => Todoist(),
      '/sync/v9/sync',
      'POST',
      '/sync/v9/sync',
      (r: Recorded) => {
        expect(r.headers.authorization).toBe('Bearer at-123');
        const form = new URLSearchParams(r.body);
        expect(form.get('sync_token')).toBe('*');
        expect(form.get('resource_types')).toBe('["user"]');
      },
    ],
    [
      'Nextcloud (OCS API for the token user, JSON format)',
      () => Nextcloud({ issuer: 'https://cloud.example.com' }),
      '/ocs/v1.php/cloud/users',
      'GET',
      '/ocs/v1.php/cloud/users/jdoe',
      (r: Recorded) => {
        expect(r.headers.authorization).toBe('Bearer at-123');
        expect(r.query.get('format')).toBe('json');
        expect(r.headers['ocs-apirequest']).toBe('true');
      },
    ],
    [
      'Bungie (membership id in the path, API key header)',
      () => Bungie({ apiKey: 'bungie-key' }),
      '/platform/User/GetBungieAccount/{membershipId}/254/',
      'GET',
      '/platform/User/GetBungieAccount/4611686018/254/',
      (r: Recorded) => {
        expect(r.headers.authorization).toBe('Bearer at-123');
        expect(r.headers['x-api-key']).toBe('bungie-key');
      },
    ],
  ])('%s', async (_name, factory, configured, method, served, check) => {
    vendor.routes.set(`${method} ${served}`, () => ({ json: { ok: true } }));
    const p = local(factory(), 'userinfo', configured);
    const before = vendor.requests.length;
    const profile = await p.userinfo!.request!({
      tokens: { ...tokens, user_id: 'jdoe', membership_id: '4611686018' },
      provider: p,
    });
    expect(profile).toEqual({ ok: true });
    const sent = vendor.requests.slice(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([`${method} ${served}`]);
    check(sent[0]);
  });

  it('WeChat exchanges the code with appid and secret, and reads the user with openid', async () => {
    vendor.routes.set('GET /sns/oauth2/access_token', () => ({
      json: {
        access_token: 'wx-at',
        expires_in: 7200,
        refresh_token: 'r',
        openid: 'OPENID',
        scope: 'snsapi_userinfo',
        unionid: 'U1',
      },
    }));
    vendor.routes.set('GET /sns/userinfo', () => ({
      json: { openid: 'OPENID', nickname: 'Jane', unionid: 'U1', headimgurl: 'https://h' },
    }));
    const p = local(WeChat({ clientId: 'wx1', clientSecret: 'wx-secret' }), 'token', '/sns/oauth2/access_token');
    p.userinfo!.url = new URL('/sns/userinfo', vendor.url);
    const { tokens: issued } = await p.token!.request!({
      checks: { state: 's' },
      params: { code: 'CODE', state: 's' },
      provider: p,
    });
    expect(issued).toMatchObject({ access_token: 'wx-at', token_type: 'bearer', openid: 'OPENID' });
    const exchange = vendor.last('/sns/oauth2/access_token');
    expect(Object.fromEntries(exchange.query)).toEqual({
      appid: 'wx1',
      secret: 'wx-secret',
      code: 'CODE',
      grant_type: 'authorization_code',
    });
    const profile = await p.userinfo!.request!({ tokens: issued, provider: p });
    expect(Object.fromEntries(vendor.last('/sns/userinfo').query)).toEqual({
      access_token: 'wx-at',
      openid: 'OPENID',
      lang: 'zh_CN',
    });
    expect(await WeChat().profile!(profile as never, issued)).toEqual({
      id: 'U1',
      name: 'Jane',
      email: null,
      image: 'https://h',
    });
  });

  it('WeChat errors (HTTP 200 with errcode) are refused', async () => {
    vendor.routes.set('GET /sns/oauth2/access_token', () => ({ json: { errcode: 40029, errmsg: 'invalid code' } }));
    const p = local(WeChat({ clientId: 'wx1', clientSecret: 'wx-secret' }), 'token', '/sns/oauth2/access_token');
    await expect(p.token!.request!({ checks: {}, params: { code: 'bad' }, provider: p })).rejects.toBeInstanceOf(
      OAuthCallbackError,
    );
  });

  it('Azure DevOps exchanges the assertion with the JWT-bearer grant', async () => {
    vendor.routes.set('POST /oauth2/token', () => ({
      json: {
        access_token: 'ado',
        token_type: 'jwt-bearer',
        expires_in: '3599',
        refresh_token: 'r',
        scope: 'vso.profile',
      },
    }));
    const p = local(AzureDevOps({ clientId: 'app', clientSecret: 'client-assertion-jwt' }), 'token', '/oauth2/token');
    const withCallback = Object.assign(p, { callbackUrl: 'https://app.example.com/auth/callback/azure-devops' });
    const { tokens: issued } = await p.token!.request!({
      checks: {},
      params: { code: 'ASSERTION' },
      provider: withCallback,
    });
    expect(issued).toMatchObject({ access_token: 'ado', token_type: 'bearer', expires_in: 3599 });
    expect(Object.fromEntries(new URLSearchParams(vendor.last('/oauth2/token').body))).toEqual({
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: 'client-assertion-jwt',
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: 'ASSERTION',
      redirect_uri: 'https://app.example.com/auth/callback/azure-devops',
    });
  });
});
