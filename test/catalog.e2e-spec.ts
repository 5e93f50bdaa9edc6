import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { normalizeEndpoint } from '../lib/methods/oauth/oauth.normalize.js';
import type { OAuthConfig } from '../lib/methods/oauth/oauth.types.js';
import { oauthProviderCatalog } from '../lib/providers/catalog/catalog.js';
import {
  authjsReference,
  catalogDepartures,
  type ReferenceProvider,
} from '../lib/providers/catalog/fixtures/authjs-reference.fixture.js';
import { Apple } from '../lib/providers/catalog/apple.provider.js';
import { Eventbrite } from '../lib/providers/catalog/eventbrite.provider.js';
import { GitHub } from '../lib/providers/catalog/github.provider.js';
import { Google } from '../lib/providers/catalog/google.provider.js';
import { MicrosoftEntraID } from '../lib/providers/catalog/microsoft-entra-id.provider.js';
import { AzureDevOps } from '../lib/providers/catalog/azure-devops.provider.js';
import { LINE } from '../lib/providers/catalog/line.provider.js';
import { TikTok } from '../lib/providers/catalog/tiktok.provider.js';
import { Twitch } from '../lib/providers/catalog/twitch.provider.js';
import { WeChat } from '../lib/providers/catalog/wechat.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';
import { followToApp, startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { startVendorServer, type VendorGrant, type VendorRequest, type VendorServer } from './setup/vendor-server.js';

const SESSION_COOKIE = 'authjs.session-token';
/** A LINE channel secret is 32 hex characters: long enough for the HS256 key it MACs ID tokens with. */
const LINE_CHANNEL_SECRET = '6d1c0f9a2b8e4d7c5a3f1e0b9c8d7a6f';
let vendor: VendorServer;

beforeAll(async () => {
  vendor = await startVendorServer();
});
afterAll(async () => {
  await vendor?.close();
});

type Factory = (config?: Record<string, unknown>) => OAuthConfig<any>;

/** A discovery document the vendor server serves for an issuer at `${vendor.url}${prefix}`. */
function serveDiscovery(prefix: string, metadata: Record<string, unknown> = {}): string {
  const issuer = `${vendor.url}${prefix}`;
  vendor.route(`GET ${prefix}/.well-known/openid-configuration`, () => ({
    json: {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      userinfo_endpoint: `${issuer}/userinfo`,
      jwks_uri: `${vendor.url}/jwks`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      ...metadata,
    },
  }));
  return issuer;
}

// ---- every provider: the authorization request built by the real sign-in route -------------------

describe('POST /auth/signin/:provider for every provider of the catalogue', () => {
  let app: TestApp;
  const issuers = new Map<string, string>();

  /** Factory arguments: credentials, and an issuer on the local vendor server where one is used. */
  function argsFor(ref: ReferenceProvider): Record<string, unknown> {
    const args: Record<string, unknown> = { clientId: `client-${ref.id}`, clientSecret: `secret-${ref.id}` };
    const usesIssuer =
      ref.type === 'oidc' ||
      [ref.issuer, ref.authorization, ref.token, ref.userinfo].some((v) => v?.includes('{issuer}'));
    if (usesIssuer) {
      const prefix = `/idp/${ref.id}`;
      // OIDC providers discover their endpoints: the vendor server answers for them (there is no internet).
      if (ref.type === 'oidc') serveDiscovery(prefix);
      args.issuer = `${vendor.url}${prefix}`;
      issuers.set(ref.id, args.issuer as string);
    }
    if (ref.id === 'netsuite') {
      args.accountID = 'tstdrv123';
      args.userinfo = `${vendor.url}/netsuite/restlet`;
    }
    return args;
  }

  beforeAll(async () => {
    const providers = authjsReference.map((ref) =>
      (oauthProviderCatalog[ref.id as keyof typeof oauthProviderCatalog] as Factory)(argsFor(ref)),
    );
    app = await createTestApp({ auth: { providers } });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Where the authorization request must go, and with which query parameters. */
  function expectedAuthorization(ref: ReferenceProvider): { base: string; params: Record<string, string> } {
    const issuer = issuers.get(ref.id);
    const reference = catalogDepartures[ref.id]?.authorization ?? ref.authorization;
    const url = reference.startsWith('discovered:')
      ? new URL(`${issuer}/authorize`)
      : new URL(
          reference
            .replace(/\{issuer\}(?=[a-z])/g, `${issuer}/`)
            .replace(/\{issuer\}/g, issuer ?? '')
            .replace(/\{clientId\}/g, `client-${ref.id}`)
            .replace(/\{accountID\}/g, 'tstdrv123'),
        );
    return { base: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
  }

  it.each(authjsReference.map((ref) => [ref.id, ref] as const))('%s', async (id, ref) => {
    const client = new TestClient(app.url);
    const csrfToken = await client.csrf();
    const res = await client.post(`/auth/signin/${id}`, { csrfToken, callbackUrl: `${app.url}/me` });
    expect(res.status).toBe(302);
    const target = location(res);
    const want = expectedAuthorization(ref);
    expect(`${target.origin}${target.pathname}`).toBe(want.base);

    const query = Object.fromEntries(target.searchParams);
    expect(query.client_id).toBe(`client-${id}`);
    expect(query.redirect_uri).toBe(`${app.url}/auth/callback/${id}`);
    // Azure DevOps answers with an assertion, not a code.
    expect(query.response_type).toBe(id === 'azure-devops' ? 'Assertion' : 'code');
    expect(query.scope ?? '').toBe(catalogDepartures[id]?.scope ?? ref.scope);
    for (const [key, value] of Object.entries(want.params)) {
      if (key !== 'response_type') expect([key, query[key]]).toEqual([key, value]);
    }
    // The provider's own authorization parameters (e.g. Apple's response_mode, Twitch's claims).
    const factory = oauthProviderCatalog[id as keyof typeof oauthProviderCatalog] as Factory;
    for (const [key, value] of Object.entries(normalizeEndpoint(factory(argsFor(ref)).authorization)?.params ?? {})) {
      if (key !== 'response_type') expect([key, query[key]]).toEqual([key, value]);
    }

    const checks = new Set(ref.checks);
    expect(query.code_challenge !== undefined).toBe(checks.has('pkce'));
    if (checks.has('pkce')) expect(query.code_challenge_method).toBe('S256');
    expect(query.state !== undefined).toBe(checks.has('state'));
    expect(query.nonce !== undefined).toBe(checks.has('nonce'));
    expect(query.client_secret).toBeUndefined();
  });
});

// ---- full sign-ins against a server that answers like the vendor ----------------------------------

/** Signs in through the vendor server and returns the app's callback response. */
async function signIn(
  app: TestApp,
  client: TestClient,
  providerId: string,
): Promise<{ callback: Response; start: Response }> {
  const csrfToken = await client.csrf();
  const start = await client.post(`/auth/signin/${providerId}`, { csrfToken, callbackUrl: `${app.url}/me` });
  expect(start.status).toBe(302);
  if (location(start).origin === app.url) throw new Error(`Sign-in did not start: ${location(start).href}`);
  const back = await followToApp(client, start, app.url);
  const callback =
    back.method === 'GET' ? await client.get(back.url.href) : await client.post(back.url.href, back.body);
  return { callback, start };
}

async function currentUser(client: TestClient): Promise<Record<string, unknown> | undefined> {
  const res = await client.get('/me');
  if (res.status !== 200) return undefined;
  return ((await res.json()) as { user: Record<string, unknown> }).user;
}

async function expectSignedIn(res: Response, app: TestApp, client: TestClient): Promise<void> {
  if (res.status !== 302 || location(res).href !== `${app.url}/me`) {
    throw new Error(
      `Sign-in did not complete: ${res.status} ${res.headers.get('location')} ${
        res.status === 200
          ? (await res.text())
              .replace(/<style[\s\S]*<\/style>/, '')
              .replace(/<[^>]+>/g, ' ')
              .replace(/\s+/g, ' ')
              .slice(0, 300)
          : ''
      }`,
    );
  }
  expect(client.cookies.has(SESSION_COOKIE)).toBe(true);
}

/** The authorization endpoint of a scenario: checks the client, issues a code, answers like the vendor. */
function authorizeRoute(
  path: string,
  options: {
    clientId: string;
    formPost?: boolean;
    iss?: string;
    data?: (req: VendorRequest) => Record<string, unknown>;
    extra?: (req: VendorRequest) => Record<string, string>;
  },
) {
  vendor.route(`GET ${path}`, (req) => {
    const q = Object.fromEntries(req.query);
    if (q.client_id !== options.clientId) return { status: 400, json: { error: 'invalid_client' } };
    const grant: VendorGrant = {
      clientId: q.client_id,
      redirectUri: q.redirect_uri,
      codeChallenge: q.code_challenge,
      nonce: q.nonce,
      data: options.data?.(req) ?? {},
    };
    const response: Record<string, string> = {
      code: vendor.issueCode(grant),
      ...(q.state ? { state: q.state } : {}),
      ...(options.iss ? { iss: options.iss } : {}),
      ...(options.extra?.(req) ?? {}),
    };
    if (options.formPost) {
      const inputs = Object.entries(response)
        .map(
          ([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`,
        )
        .join('');
      return { html: `<!doctype html><form method="post" action="${q.redirect_uri}">${inputs}</form>` };
    }
    const target = new URL(q.redirect_uri);
    for (const [k, v] of Object.entries(response)) target.searchParams.set(k, v);
    return { redirect: target.href };
  });
}

describe('full sign-ins against servers that answer like the vendor', () => {
  let app: TestApp;
  const v = () => vendor.url;
  const tid = '72f988bf-86f1-41af-91ab-2d7cd011db47';
  const tokenRequests = new Map<string, VendorRequest>();

  /**
   * A token endpoint: checks the client authentication method and credentials, redeems the code
   * (redirect URI, PKCE) and answers with `tokens(grant)`.
   */
  function tokenRoute(
    path: string,
    name: string,
    client: { method: 'basic' | 'post'; id: string; secret: string },
    tokens: (grant: VendorGrant) => unknown,
  ) {
    vendor.route(`POST ${path}`, async (req) => {
      tokenRequests.set(name, req);
      const creds = vendor.clientCredentials(req);
      if (creds.method !== client.method || creds.id !== client.id || creds.secret !== client.secret)
        return { status: 401, json: { error: 'invalid_client' } };
      const grant = vendor.redeem(req.form, creds.id);
      if (!('clientId' in grant)) return grant;
      return { json: await tokens(grant) };
    });
  }

  beforeAll(async () => {
    // GitHub: OAuth 2.0, `iss` in the callback, /user without email, then /user/emails.
    authorizeRoute('/github/login/oauth/authorize', { clientId: 'gh-client', iss: `${v()}/github/login/oauth` });
    tokenRoute(
      '/github/login/oauth/access_token',
      'github',
      { method: 'basic', id: 'gh-client', secret: 'gh-secret' },
      () => ({
        access_token: 'gho_abc',
        token_type: 'bearer',
        scope: 'read:user,user:email',
      }),
    );
    vendor.route('GET /github/api/user', (req) =>
      req.headers.authorization === 'Bearer gho_abc'
        ? {
            json: {
              login: 'octocat',
              id: 583231,
              name: 'The Octocat',
              email: null,
              avatar_url: 'https://avatars.githubusercontent.com/u/583231',
            },
          }
        : { status: 401, json: { message: 'Bad credentials' } },
    );
    vendor.route('GET /github/api/user/emails', (req) =>
      req.headers.authorization === 'Bearer gho_abc'
        ? {
            json: [
              { email: 'old@example.com', primary: false, verified: true, visibility: null },
              { email: 'Octocat@GitHub.com', primary: true, verified: true, visibility: 'private' },
            ],
          }
        : { status: 401, json: {} },
    );

    // Google's success path runs against oidc-provider (the last describe of this file).

    // Apple: form_post with the `user` field on first consent, client_secret_post, nonce + state, no userinfo endpoint.
    const appleIssuer = serveDiscovery('/apple', {
      userinfo_endpoint: undefined,
      response_modes_supported: ['query', 'fragment', 'form_post'],
    });
    authorizeRoute('/apple/authorize', {
      clientId: 'com.example.web',
      formPost: true,
      extra: () => ({
        user: JSON.stringify({
          name: { firstName: 'Jane', lastName: 'Appleseed' },
          email: 'jane@privaterelay.appleid.com',
        }),
      }),
    });
    tokenRoute(
      '/apple/token',
      'apple',
      { method: 'post', id: 'com.example.web', secret: 'apple-client-secret-jwt' },
      async (grant) => {
        const now = Math.floor(Date.now() / 1000);
        const idToken = await vendor.signIdToken({
          iss: appleIssuer,
          aud: 'com.example.web',
          sub: '001234.abcdef.1234',
          iat: now,
          exp: now + 600,
          nonce: grant.nonce,
          nonce_supported: true,
          email: 'jane@privaterelay.appleid.com',
          email_verified: 'true',
          is_private_email: 'true',
          auth_time: now,
        });
        return {
          access_token: 'apple-at',
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: 'apple-rt',
          id_token: idToken,
        };
      },
    );

    // Microsoft Entra ID: a single-tenant and the multi-tenant `common` issuer; tokens always carry the user's tenant.
    const tenantIssuer = `${v()}/${tid}/v2.0`;
    for (const tenant of [tid, 'common']) {
      vendor.route(`GET /${tenant}/v2.0/.well-known/openid-configuration`, () => ({
        json: {
          issuer: tenant === 'common' ? `${v()}/{tenantid}/v2.0` : tenantIssuer,
          authorization_endpoint: `${v()}/${tenant}/oauth2/v2.0/authorize`,
          token_endpoint: `${v()}/${tenant}/oauth2/v2.0/token`,
          userinfo_endpoint: `${v()}/graph/oidc/userinfo`,
          jwks_uri: `${v()}/jwks`,
          code_challenge_methods_supported: ['S256'],
        },
      }));
      authorizeRoute(`/${tenant}/oauth2/v2.0/authorize`, { clientId: 'entra-client' });
      tokenRoute(
        `/${tenant}/oauth2/v2.0/token`,
        `entra-${tenant}`,
        { method: 'basic', id: 'entra-client', secret: 'entra-secret' },
        async () => {
          const now = Math.floor(Date.now() / 1000);
          const idToken = await vendor.signIdToken({
            iss: tenantIssuer,
            aud: 'entra-client',
            sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ',
            tid,
            oid: '00000000-0000-0000-66f3-3332eca7ea81',
            iat: now,
            nbf: now,
            exp: now + 3600,
            ver: '2.0',
            name: 'Jane Doe',
            preferred_username: 'jane@contoso.com',
            email: 'jane@contoso.com',
          });
          return {
            access_token: 'entra-at',
            token_type: 'Bearer',
            expires_in: 3599,
            scope: 'openid profile email User.Read',
            id_token: idToken,
          };
        },
      );
    }
    vendor.route('GET /graph/v1.0/me/photos/48x48/$value', (req) =>
      req.headers.authorization === 'Bearer entra-at'
        ? { json: { photo: true }, headers: { 'content-type': 'image/jpeg' } }
        : { status: 401, json: {} },
    );

    // Eventbrite: OAuth 2.0 with client_secret_post; the email is the primary one of `emails`.
    authorizeRoute('/eventbrite/oauth/authorize', { clientId: 'eb-client' });
    tokenRoute(
      '/eventbrite/oauth/token',
      'eventbrite',
      { method: 'post', id: 'eb-client', secret: 'eb-secret' },
      () => ({ access_token: 'eb-at', token_type: 'bearer' }),
    );
    vendor.route('GET /eventbrite/v3/users/me/', (req) =>
      req.headers.authorization === 'Bearer eb-at'
        ? {
            json: {
              id: '1234567890',
              name: 'Jane Doe',
              first_name: 'Jane',
              last_name: 'Doe',
              emails: [
                { email: 'old@example.com', verified: true, primary: false },
                { email: 'jane@example.com', verified: true, primary: true },
              ],
            },
          }
        : { status: 401, json: {} },
    );

    // TikTok: `client_key` instead of `client_id`, in the authorization request and the code exchange.
    vendor.route('GET /tiktok/v2/auth/authorize', (req) => {
      if (req.query.get('client_key') !== 'tt-key') return { status: 400, json: { error: 'invalid_client_key' } };
      const q = Object.fromEntries(req.query);
      const code = vendor.issueCode({
        clientId: 'tt-key',
        redirectUri: q.redirect_uri,
        codeChallenge: q.code_challenge,
        data: {},
      });
      const target = new URL(q.redirect_uri);
      target.searchParams.set('code', code);
      if (q.state) target.searchParams.set('state', q.state);
      return { redirect: target.href };
    });
    vendor.route('POST /tiktok/v2/oauth/token/', (req) => {
      tokenRequests.set('tiktok', req);
      if (req.form.client_key !== 'tt-key' || req.form.client_secret !== 'tt-secret')
        return { json: { error: 'invalid_client', error_description: 'client_key or client_secret is wrong' } };
      const grant = vendor.redeem(req.form, req.form.client_key);
      if (!('clientId' in grant)) return grant;
      return {
        json: {
          access_token: 'act.tt',
          expires_in: 86400,
          open_id: '723f24d7-e717',
          refresh_token: 'rft.tt',
          refresh_expires_in: 31536000,
          scope: 'user.info.basic',
          token_type: 'Bearer',
        },
      };
    });
    vendor.route('GET /tiktok/v2/user/info/', (req) =>
      req.headers.authorization === 'Bearer act.tt'
        ? {
            json: {
              data: {
                user: {
                  open_id: '723f24d7-e717',
                  avatar_url: 'https://p16.tiktokcdn.com/jane.jpeg',
                  display_name: 'Jane on TikTok',
                },
              },
              error: { code: 'ok', message: '', log_id: '1' },
            },
          }
        : { status: 401, json: {} },
    );

    // WeChat: `appid` instead of client_id, a GET code exchange with appid + secret and no token_type, userinfo by openid.
    vendor.route('GET /wechat/connect/oauth2/authorize', (req) => {
      if (req.query.get('appid') !== 'wx-app' || req.query.get('scope') !== 'snsapi_userinfo')
        return { status: 400, json: { errcode: 10003 } };
      const code = vendor.issueCode({ clientId: 'wx-app', redirectUri: req.query.get('redirect_uri')!, data: {} });
      const target = new URL(req.query.get('redirect_uri')!);
      target.searchParams.set('code', code);
      target.searchParams.set('state', req.query.get('state') ?? '');
      return { redirect: target.href };
    });
    vendor.route('GET /wechat/sns/oauth2/access_token', (req) => {
      const q = Object.fromEntries(req.query);
      if (q.appid !== 'wx-app' || q.secret !== 'wx-secret' || q.grant_type !== 'authorization_code')
        return { json: { errcode: 40125, errmsg: 'invalid appsecret' } };
      // WeChat's exchange carries no redirect_uri; its errors come with HTTP 200.
      const grant = vendor.redeem({ code: q.code }, q.appid, { checkRedirectUri: false });
      if (!('clientId' in grant)) return { json: { errcode: 40029, errmsg: 'invalid code' } };
      return {
        json: {
          access_token: 'wx-at',
          expires_in: 7200,
          refresh_token: 'wx-rt',
          openid: 'OPENID-1',
          scope: 'snsapi_userinfo',
          unionid: 'UNION-1',
        },
      };
    });
    vendor.route('GET /wechat/sns/userinfo', (req) =>
      req.query.get('access_token') === 'wx-at' && req.query.get('openid') === 'OPENID-1'
        ? {
            json: {
              openid: 'OPENID-1',
              nickname: '小明',
              sex: 1,
              province: 'Guangdong',
              city: 'Shenzhen',
              country: 'CN',
              headimgurl: 'https://thirdwx.qlogo.cn/xm/132',
              privilege: [],
              unionid: 'UNION-1',
            },
          }
        : { json: { errcode: 40003, errmsg: 'invalid openid' } },
    );

    // Twitch: OIDC with the `claims` parameter, client_secret_post, and a token response whose `scope` is an array.
    const twitchIssuer = serveDiscovery('/twitch');
    authorizeRoute('/twitch/authorize', { clientId: 'twitch-client' });
    vendor.route('POST /twitch/token', async (req) => {
      const creds = vendor.clientCredentials(req);
      if (creds.method !== 'post' || creds.secret !== 'twitch-secret')
        return { status: 400, json: { status: 400, message: 'invalid client secret' } };
      const grant = vendor.redeem(req.form, creds.id);
      if (!('clientId' in grant)) return { status: 400, json: { status: 400, message: 'Invalid authorization code' } };
      const now = Math.floor(Date.now() / 1000);
      const idToken = await vendor.signIdToken({
        iss: twitchIssuer,
        aud: 'twitch-client',
        azp: 'twitch-client',
        sub: '713936733',
        iat: now,
        exp: now + 900,
        preferred_username: 'janedoe',
        email: 'jane@example.com',
        picture: 'https://static-cdn.jtvnw.net/jane-300x300.png',
      });
      return {
        json: {
          access_token: 'twitch-at',
          expires_in: 14400,
          refresh_token: 'twitch-rt',
          scope: ['openid', 'user:read:email'],
          token_type: 'bearer',
          id_token: idToken,
        },
      };
    });

    // Azure DevOps: response_type=Assertion, then a JWT-bearer grant with the client secret as the assertion.
    vendor.route('GET /ado/oauth2/authorize', (req) => {
      if (req.query.get('response_type') !== 'Assertion' || req.query.get('client_id') !== 'ado-app')
        return { status: 400, json: { error: 'unsupported_response_type' } };
      const code = vendor.issueCode({ clientId: 'ado-app', redirectUri: req.query.get('redirect_uri')!, data: {} });
      const target = new URL(req.query.get('redirect_uri')!);
      target.searchParams.set('code', code);
      if (req.query.get('state')) target.searchParams.set('state', req.query.get('state')!);
      return { redirect: target.href };
    });
    vendor.route('POST /ado/oauth2/token', (req) => {
      const f = req.form;
      if (
        f.client_assertion !== 'ado-client-secret' ||
        f.grant_type !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' ||
        f.client_assertion_type !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'
      ) {
        return { status: 400, json: { Error: 'invalid_client' } };
      }
      const grant = vendor.redeem({ code: f.assertion, redirect_uri: f.redirect_uri }, 'ado-app');
      if (!('clientId' in grant)) return grant;
      return {
        json: {
          access_token: 'ado-at',
          token_type: 'jwt-bearer',
          expires_in: '3599',
          refresh_token: 'ado-rt',
          scope: 'vso.profile',
        },
      };
    });
    vendor.route('GET /ado/_apis/profile/profiles/me', (req) =>
      req.headers.authorization === 'Bearer ado-at'
        ? {
            json: {
              displayName: 'Jane Doe',
              publicAlias: 'b1c2',
              emailAddress: 'jane@example.com',
              id: 'b1c2-ado',
              coreAttributes: { Avatar: { value: { value: 'iVBORw0KGgo=' } } },
            },
          }
        : { status: 401, json: {} },
    );

    // LINE: OIDC whose ID tokens are HS256-signed with the channel secret.
    const lineIssuer = serveDiscovery('/line');
    authorizeRoute('/line/authorize', { clientId: 'line-channel' });
    tokenRoute(
      '/line/token',
      'line',
      { method: 'basic', id: 'line-channel', secret: LINE_CHANNEL_SECRET },
      async () => {
        const now = Math.floor(Date.now() / 1000);
        const idToken = await new SignJWT({
          iss: lineIssuer,
          aud: 'line-channel',
          sub: 'U4af4980629',
          iat: now,
          exp: now + 3600,
          amr: ['pwd'],
          name: 'Jane LINE',
          picture: 'https://profile.line-scdn.net/jane',
          email: 'jane@line.example',
        })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .sign(new TextEncoder().encode(LINE_CHANNEL_SECRET));
        return {
          access_token: 'line-at',
          expires_in: 2592000,
          id_token: idToken,
          refresh_token: 'line-rt',
          scope: 'openid profile email',
          token_type: 'Bearer',
        };
      },
    );

    const providers = [
      GitHub({
        clientId: 'gh-client',
        clientSecret: 'gh-secret',
        issuer: `${v()}/github/login/oauth`,
        authorization: { url: `${v()}/github/login/oauth/authorize` },
        token: `${v()}/github/login/oauth/access_token`,
        userinfo: { url: `${v()}/github/api/user` },
      }),
      Apple({ clientId: 'com.example.web', clientSecret: 'apple-client-secret-jwt', issuer: appleIssuer }),
      MicrosoftEntraID({
        id: 'entra-single',
        clientId: 'entra-client',
        clientSecret: 'entra-secret',
        issuer: tenantIssuer,
        graphUrl: `${v()}/graph`,
      }),
      MicrosoftEntraID({
        id: 'entra-common',
        clientId: 'entra-client',
        clientSecret: 'entra-secret',
        issuer: `${v()}/common/v2.0`,
        graphUrl: `${v()}/graph`,
      }),
      Eventbrite({
        clientId: 'eb-client',
        clientSecret: 'eb-secret',
        authorization: { url: `${v()}/eventbrite/oauth/authorize` },
        token: `${v()}/eventbrite/oauth/token`,
        userinfo: `${v()}/eventbrite/v3/users/me/`,
      }),
      TikTok({
        clientId: 'tt-key',
        clientSecret: 'tt-secret',
        authorization: { url: `${v()}/tiktok/v2/auth/authorize` },
        token: { url: `${v()}/tiktok/v2/oauth/token/` },
        userinfo: `${v()}/tiktok/v2/user/info/?fields=open_id,avatar_url,display_name`,
      }),
      WeChat({
        clientId: 'wx-app',
        clientSecret: 'wx-secret',
        authorization: { url: `${v()}/wechat/connect/oauth2/authorize` },
        token: { url: `${v()}/wechat/sns/oauth2/access_token` },
        userinfo: { url: `${v()}/wechat/sns/userinfo` },
      }),
      Twitch({ clientId: 'twitch-client', clientSecret: 'twitch-secret', issuer: twitchIssuer }),
      AzureDevOps({
        clientId: 'ado-app',
        clientSecret: 'ado-client-secret',
        authorization: { url: `${v()}/ado/oauth2/authorize?response_type=Assertion` },
        token: { url: `${v()}/ado/oauth2/token` },
        userinfo: `${v()}/ado/_apis/profile/profiles/me?details=true&coreAttributes=Avatar&api-version=6.0`,
      }),
      LINE({ clientId: 'line-channel', clientSecret: LINE_CHANNEL_SECRET, issuer: lineIssuer }),
    ];
    app = await createTestApp({ auth: { providers } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('GitHub-style OAuth 2.0: code + PKCE with client_secret_basic, then /user and /user/emails for a private email', async () => {
    const client = new TestClient(app.url);
    const { callback } = await signIn(app, client, 'github');
    await expectSignedIn(callback, app, client);
    expect(await currentUser(client)).toMatchObject({
      name: 'The Octocat',
      email: 'octocat@github.com',
      image: 'https://avatars.githubusercontent.com/u/583231',
    });
    const token = tokenRequests.get('github')!;
    expect(token.form.grant_type).toBe('authorization_code');
    expect(token.form.code_verifier).toMatch(/^[\w-]{43,128}$/);
    expect(
      vendor.requests.some((r) => r.path === '/github/api/user/emails' && r.headers.authorization === 'Bearer gho_abc'),
    ).toBe(true);
  });

  it('GitHub-style OAuth 2.0: an `iss` from another issuer is refused and signs nobody in', async () => {
    const client = new TestClient(app.url);
    const csrfToken = await client.csrf();
    const start = await client.post('/auth/signin/github', { csrfToken, callbackUrl: `${app.url}/me` });
    const back = await followToApp(client, start, app.url);
    back.url.searchParams.set('iss', 'https://evil.example.com');
    const res = await client.get(back.url.href);
    expect(res.status).toBe(302);
    expect(location(res).origin).toBe(app.url);
    expect(location(res).pathname).toBe('/auth/signin');
    expect(location(res).searchParams.get('error')).toBe('OAuthCallbackError');
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('Apple-style form_post: state and nonce cookies are SameSite=None; Secure, the callback is a POST, the first-consent `user` gives the name', async () => {
    const client = new TestClient(app.url);
    const { callback, start } = await signIn(app, client, 'apple');
    const checkCookies = start.headers.getSetCookie().filter((c) => /^authjs\.(state|nonce)=/.test(c));
    expect(checkCookies).toHaveLength(2);
    for (const cookie of checkCookies) {
      expect(cookie).toMatch(/SameSite=None/i);
      expect(cookie).toMatch(/;\s*Secure/i);
    }
    expect(location(start).searchParams.get('code_challenge')).toBeNull();
    await expectSignedIn(callback, app, client);
    const token = tokenRequests.get('apple')!;
    expect(token.headers.authorization).toBeUndefined();
    expect(await currentUser(client)).toMatchObject({
      name: 'Jane Appleseed',
      email: 'jane@privaterelay.appleid.com',
      image: null,
    });
  });

  it.each([
    ['single tenant', 'entra-single'],
    ['multi-tenant `common`', 'entra-common'],
  ])(
    "Microsoft Entra ID, %s: the ID token of the user's tenant is accepted, the photo comes from Graph",
    async (_name, id) => {
      const client = new TestClient(app.url);
      const { callback } = await signIn(app, client, id);
      await expectSignedIn(callback, app, client);
      const user = await currentUser(client);
      expect(user).toMatchObject({ name: 'Jane Doe', email: 'jane@contoso.com' });
      expect(String(user?.image)).toMatch(/^data:image\/jpeg;base64,/);
    },
  );

  it('Microsoft Entra ID, multi-tenant: an ID token whose tenant id is not a GUID is refused', async () => {
    const client = new TestClient(app.url);
    const original = vendor.signIdToken;
    (vendor as { signIdToken: VendorServer['signIdToken'] }).signIdToken = (claims) =>
      original({ ...claims, tid: '../evil', iss: `${vendor.url}/evil/v2.0` });
    try {
      const { callback } = await signIn(app, client, 'entra-common');
      expect(callback.status).toBe(302);
      expect(location(callback).pathname).toBe('/auth/signin');
      expect(location(callback).searchParams.get('error')).toBe('OAuthCallbackError');
      expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    } finally {
      (vendor as { signIdToken: VendorServer['signIdToken'] }).signIdToken = original;
    }
  });

  it('client_secret_post (Eventbrite): the secret travels in the form body, never in a Basic header', async () => {
    const client = new TestClient(app.url);
    const { callback } = await signIn(app, client, 'eventbrite');
    await expectSignedIn(callback, app, client);
    const token = tokenRequests.get('eventbrite')!;
    expect(token.headers.authorization).toBeUndefined();
    expect(token.form).toMatchObject({
      client_id: 'eb-client',
      client_secret: 'eb-secret',
      grant_type: 'authorization_code',
    });
    expect(await currentUser(client)).toMatchObject({ name: 'Jane Doe', email: 'jane@example.com' });
  });

  it('TikTok: client_key in the authorization request and in the code exchange', async () => {
    const client = new TestClient(app.url);
    const { callback, start } = await signIn(app, client, 'tiktok');
    expect(location(start).searchParams.get('client_key')).toBe('tt-key');
    await expectSignedIn(callback, app, client);
    expect(tokenRequests.get('tiktok')!.form).toMatchObject({ client_key: 'tt-key', client_secret: 'tt-secret' });
    expect(await currentUser(client)).toMatchObject({
      name: 'Jane on TikTok',
      email: null,
      image: 'https://p16.tiktokcdn.com/jane.jpeg',
    });
  });

  it('WeChat: appid in the authorization request, the code exchanged with appid + secret, the user read by openid', async () => {
    const client = new TestClient(app.url);
    const { callback } = await signIn(app, client, 'wechat');
    await expectSignedIn(callback, app, client);
    expect(await currentUser(client)).toMatchObject({
      name: '小明',
      email: null,
      image: 'https://thirdwx.qlogo.cn/xm/132',
    });
  });

  it('Twitch: the `claims` parameter is sent, and the array `scope` of the token response is repaired', async () => {
    const client = new TestClient(app.url);
    const { callback, start } = await signIn(app, client, 'twitch');
    expect(JSON.parse(location(start).searchParams.get('claims') ?? '{}')).toEqual({
      id_token: { email: null, picture: null, preferred_username: null },
    });
    await expectSignedIn(callback, app, client);
    expect(await currentUser(client)).toMatchObject({
      name: 'janedoe',
      email: 'jane@example.com',
      image: 'https://static-cdn.jtvnw.net/jane-300x300.png',
    });
  });

  it('Azure DevOps: response_type=Assertion and the JWT-bearer assertion grant', async () => {
    const client = new TestClient(app.url);
    const { callback } = await signIn(app, client, 'azure-devops');
    await expectSignedIn(callback, app, client);
    expect(await currentUser(client)).toMatchObject({
      name: 'Jane Doe',
      email: 'jane@example.com',
      image: 'data:image/jpeg;base64,iVBORw0KGgo=',
    });
  });

  it('LINE: an ID token signed with HS256 by the channel secret', async () => {
    const client = new TestClient(app.url);
    const { callback } = await signIn(app, client, 'line');
    await expectSignedIn(callback, app, client);
    expect(await currentUser(client)).toMatchObject({
      name: 'Jane LINE',
      email: 'jane@line.example',
      image: 'https://profile.line-scdn.net/jane',
    });
  });
});

// ---- success paths against a real OpenID Provider --------------------------------------------------

describe('catalogue OpenID Connect providers against a real OpenID Provider (oidc-provider)', () => {
  // The hand-written vendor server above answers like each vendor, for what is vendor-specific and
  // for malformed answers; a plain OIDC success path runs here against oidc-provider, a certified
  // implementation: its discovery, its PKCE check, its client authentication and its signed ID token.
  let op: TestOidcProvider;
  let app: TestApp;

  beforeAll(async () => {
    op = await startOidcProvider();
    app = await createTestApp({
      auth: { providers: [Google({ clientId: 'google-client', clientSecret: 'google-secret', issuer: op.issuer })] },
    });
    await op.addClient({
      client_id: 'google-client',
      client_secret: 'google-secret',
      redirect_uris: [`${app.url}/auth/callback/google`],
    });
  });
  afterAll(async () => {
    await app?.close();
    await op?.close();
  });

  it('Google: discovery, PKCE (S256), client_secret_basic, the signed ID token as the profile', async () => {
    op.signInAs({
      sub: 'google-user-1',
      email: 'jane@example.com',
      email_verified: true,
      name: 'Jane Doe',
      picture: 'https://lh3.googleusercontent.com/a/jane',
    });
    const client = new TestClient(app.url);
    const { callback, start } = await signIn(app, client, 'google');
    const authorization = location(start);
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${op.issuer}/auth`);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('scope')).toBe('openid profile email');
    await expectSignedIn(callback, app, client);
    expect(await currentUser(client)).toMatchObject({
      name: 'Jane Doe',
      email: 'jane@example.com',
      image: 'https://lh3.googleusercontent.com/a/jane',
    });
    expect(op.requests).toEqual(
      expect.arrayContaining(['GET /.well-known/openid-configuration', 'POST /token', 'GET /jwks']),
    );
  });
});
