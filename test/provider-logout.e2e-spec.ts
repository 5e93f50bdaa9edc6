/**
 * Logging out everywhere (issue 22): federated sign-out (OpenID Connect RP-Initiated Logout) and
 * back-channel logout, against a real OpenID Provider (oidc-provider).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AccountTokensAdapter, AdapterAccount } from '../lib/adapters/adapter.interface.js';
import { Adapter } from '../lib/adapters/adapter.interface.js';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';
import { followToApp, useOidcProvider } from './setup/oidc-provider.js';
import { opProvider, signInThroughOp } from './setup/oidc-sign-in.js';

const op = useOidcProvider();
let seq = 0;

function interactions(): number {
  return op.requests.filter((r) => r.includes('/interaction/')).length;
}

describe('federated sign-out (RP-Initiated Logout)', () => {
  let app: TestApp;
  let adapter: Required<AccountTokensAdapter>;
  const fedId = `lo${++seq}-fed`;
  const localId = `lo${++seq}-local`;

  beforeAll(async () => {
    app = await createTestApp({
      auth: {
        adapter: MemoryAdapter,
        providers: [opProvider(op, 'fed', fedId, { federated: true }), opProvider(op, 'local', localId)],
      },
    });
    for (const [id, clientId] of [
      ['fed', fedId],
      ['local', localId],
    ] as const) {
      await op.addClient({
        client_id: clientId,
        client_secret: `${clientId}-secret`,
        redirect_uris: [`${app.url}/auth/callback/${id}`],
        post_logout_redirect_uris: [`${app.url}/bye`, app.url],
      });
    }
    adapter = app.app.get(Adapter) as unknown as Required<AccountTokensAdapter>;
  });
  afterAll(() => app?.close());

  it('signs out of the app, then of the provider, and comes back to callbackUrl', async () => {
    const client = new TestClient(app.url);
    const userId = await signInThroughOp(app, client, 'fed');
    const account = (await adapter.listAccountsByUserId(userId)).find((a) => a.provider === 'fed') as AdapterAccount;
    expect(account.id_token).toEqual(expect.any(String));
    // While the provider's session lasts, signing in again needs no login there.
    const before = interactions();
    await signInThroughOp(app, client, 'fed');
    expect(interactions()).toBe(before);
    // That sign-in stored its own tokens (an ID token issued within the same second may be the same
    // string): the hint is the newest ID token.
    const latest = (await adapter.listAccountsByUserId(userId)).find((a) => a.provider === 'fed') as AdapterAccount;
    expect(latest.id_token).toEqual(expect.any(String));

    const csrfToken = await client.csrf();
    const res = await client.post('/auth/signout', { csrfToken, callbackUrl: `${app.url}/bye` });
    expect(res.status).toBe(302);
    const target = location(res);
    expect(`${target.origin}${target.pathname}`).toBe(`${op.issuer}/session/end`);
    expect(target.searchParams.get('id_token_hint')).toBe(latest.id_token);
    expect(target.searchParams.get('client_id')).toBe(fedId);
    expect(target.searchParams.get('post_logout_redirect_uri')).toBe(`${app.url}/bye`);
    // The app's session is gone already.
    expect((await client.get('/me')).status).toBe(401);

    const back = await followToApp(client, res, app.url);
    expect(back.url.href).toBe(`${app.url}/bye`);
    // The provider's session ended: the next sign-in logs in there again.
    const afterLogout = interactions();
    await signInThroughOp(app, client, 'fed');
    expect(interactions()).toBeGreaterThan(afterLogout);
  });

  it('an off-origin callbackUrl is not handed to the provider', async () => {
    const client = new TestClient(app.url);
    await signInThroughOp(app, client, 'fed');
    const csrfToken = await client.csrf();
    const res = await client.post('/auth/signout', { csrfToken, callbackUrl: 'https://evil.example/steal' });
    expect(res.status).toBe(302);
    const returnTo = location(res).searchParams.get('post_logout_redirect_uri');
    expect(returnTo).not.toBeNull();
    expect(new URL(returnTo!).origin).toBe(app.url);
  });

  it('a provider without `federated` signs out of the app only', async () => {
    op.signInAs({ sub: 'local-user', email: 'local@example.com', email_verified: true, name: 'Local' });
    const client = new TestClient(app.url);
    try {
      await signInThroughOp(app, client, 'local');
    } finally {
      op.signInAs({ sub: 'user-1', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' });
    }
    const csrfToken = await client.csrf();
    const res = await client.post('/auth/signout', { csrfToken, callbackUrl: `${app.url}/bye` });
    expect(res.status).toBe(302);
    expect(location(res).href).toBe(`${app.url}/bye`);
    expect((await client.get('/me')).status).toBe(401);
  });
});

describe('back-channel logout', () => {
  let app: TestApp;
  const bcId = `lo${++seq}-bc`;
  const plainId = `lo${++seq}-plain`;
  const user = { sub: 'bc-user', email: 'bc@example.com', email_verified: true, name: 'Back Channel' };
  const ada = { sub: 'user-1', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' };

  beforeAll(async () => {
    app = await createTestApp({
      auth: {
        adapter: MemoryAdapter,
        providers: [
          opProvider(op, 'bc', bcId, { federated: true, backchannelLogout: true }),
          opProvider(op, 'plain', plainId),
        ],
      },
    });
    await op.addClient({
      client_id: bcId,
      client_secret: `${bcId}-secret`,
      redirect_uris: [`${app.url}/auth/callback/bc`],
      post_logout_redirect_uris: [`${app.url}/bye`],
      backchannel_logout_uri: `${app.url}/auth/backchannel-logout/bc`,
    });
    await op.addClient({
      client_id: plainId,
      client_secret: `${plainId}-secret`,
      redirect_uris: [`${app.url}/auth/callback/plain`],
    });
  });
  afterAll(() => app?.close());

  /** Two browsers signed in as the same provider user. */
  async function twoBrowsers(): Promise<[TestClient, TestClient]> {
    op.signInAs(user);
    try {
      const a = new TestClient(app.url);
      const b = new TestClient(app.url);
      await signInThroughOp(app, a, 'bc');
      await signInThroughOp(app, b, 'bc');
      return [a, b];
    } finally {
      op.signInAs(ada);
    }
  }

  function logoutToken(overrides: Record<string, unknown> = {}, options: { key?: CryptoKey; typ?: string } = {}) {
    const claims: Record<string, unknown> = {
      iss: op.issuer,
      aud: bcId,
      iat: Math.floor(Date.now() / 1000),
      jti: `jti-${Math.random().toString(36).slice(2)}`,
      sub: user.sub,
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      ...overrides,
    };
    for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
    return op.signJwt(claims, { typ: 'logout+jwt', ...options });
  }

  function post(token: string, providerId = 'bc'): Promise<Response> {
    return new TestClient(app.url).post(`/auth/backchannel-logout/${providerId}`, { logout_token: token });
  }

  it('a sign-out at the provider ends every session of that user in the app', async () => {
    const [a, b] = await twoBrowsers();
    const deliveries = op.backchannelDeliveries.length;
    const csrfToken = await a.csrf();
    const res = await a.post('/auth/signout', { csrfToken, callbackUrl: `${app.url}/bye` });
    await followToApp(a, res, app.url);
    expect(op.backchannelDeliveries.slice(deliveries)).toContain('success');
    // The other browser's session ended too: its next request is signed out.
    expect((await b.get('/me')).status).toBe(401);
  });

  it('a valid logout token is accepted once; the replay is refused', async () => {
    const [a] = await twoBrowsers();
    const token = await logoutToken();
    const res = await post(token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect((await a.get('/me')).status).toBe(401);
    const replay = await post(token);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'LogoutTokenError' });
  });

  it('forged and malformed logout tokens are refused with LogoutTokenError and end nothing', async () => {
    const [a] = await twoBrowsers();
    const { privateKey: strangerKey } = await crypto.subtle.generateKey(
      { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
      true,
      ['sign', 'verify'],
    );
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, Promise<string>, RegExp]> = [
      ['signed by a key not in the JWKS', logoutToken({}, { key: strangerKey }), /signature/i],
      ['another issuer', logoutToken({ iss: 'https://evil.example' }), /not from/i],
      ['another audience', logoutToken({ aud: 'someone-else' }), /not meant/i],
      ['too old', logoutToken({ iat: now - 3600 }), /issued/i],
      ['from the future', logoutToken({ iat: now + 3600 }), /issued/i],
      ['expired', logoutToken({ exp: now - 3600 }), /expired/i],
      ['no events claim', logoutToken({ events: undefined }), /event/i],
      ['the wrong event', logoutToken({ events: { 'urn:other': {} } }), /event/i],
      ['a nonce', logoutToken({ nonce: 'n' }), /nonce/i],
      ['no jti', logoutToken({ jti: undefined }), /jti/i],
      ['neither sub nor sid', logoutToken({ sub: undefined }), /neither/i],
      ['a sid that is not a string', logoutToken({ sid: 42 }), /sid that is not/i],
      ['an empty sub', logoutToken({ sub: '' }), /sub or sid that is not/i],
      ['typed as an ID token', logoutToken({}, { typ: 'JWT' }), /logout\+jwt/i],
      ['not a JWT', Promise.resolve('garbage'), /not a JWT/i],
    ];
    for (const [name, token, message] of cases) {
      const res = await post(await token);
      expect({ name, status: res.status }).toEqual({ name, status: 400 });
      const body = (await res.json()) as { error: string; message: string };
      expect({ name, error: body.error }).toEqual({ name, error: 'LogoutTokenError' });
      expect(body.message).toMatch(message);
    }
    const missing = await new TestClient(app.url).post('/auth/backchannel-logout/bc', {});
    expect(missing.status).toBe(400);
    // A provider that did not opt in refuses even a valid token.
    const notEnabled = await post(await logoutToken({ aud: plainId }), 'plain');
    expect(notEnabled.status).toBe(400);
    expect(await notEnabled.json()).toMatchObject({ error: 'InvalidProvider' });
    // None of them ended the session.
    expect((await a.get('/me')).status).toBe(200);
  });
});
