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
import { followToApp, startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';

let op: TestOidcProvider;
let seq = 0;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(async () => {
  await op?.close();
});

function provider(id: string, clientId: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    type: 'oidc' as const,
    issuer: op.issuer,
    clientId,
    clientSecret: `${clientId}-secret`,
    ...extra,
  };
}

/** Signs in through the OP; returns the user id. */
async function signIn(app: TestApp, client: TestClient, providerId: string): Promise<string> {
  const csrfToken = await client.csrf();
  const start = await client.post(`/auth/signin/${providerId}`, { csrfToken, callbackUrl: `${app.url}/me` });
  expect(start.status).toBe(302);
  const back = await followToApp(client, start, app.url);
  const done = back.method === 'GET' ? await client.get(back.url.href) : await client.post(back.url.href, back.body);
  expect(done.status).toBe(302);
  const me = await client.get('/me');
  expect(me.status).toBe(200);
  return ((await me.json()) as { user: { id: string } }).user.id;
}

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
        providers: [provider('fed', fedId, { federated: true }), provider('local', localId)],
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
    const userId = await signIn(app, client, 'fed');
    const account = (await adapter.listAccountsByUserId(userId)).find((a) => a.provider === 'fed') as AdapterAccount;
    expect(account.id_token).toEqual(expect.any(String));
    // While the provider's session lasts, signing in again needs no login there.
    const before = interactions();
    await signIn(app, client, 'fed');
    expect(interactions()).toBe(before);

    const csrfToken = await client.csrf();
    const res = await client.post('/auth/signout', { csrfToken, callbackUrl: `${app.url}/bye` });
    expect(res.status).toBe(302);
    const target = location(res);
    expect(`${target.origin}${target.pathname}`).toBe(`${op.issuer}/session/end`);
    expect(target.searchParams.get('id_token_hint')).toBe(account.id_token);
    expect(target.searchParams.get('client_id')).toBe(fedId);
    expect(target.searchParams.get('post_logout_redirect_uri')).toBe(`${app.url}/bye`);
    // The app's session is gone already.
    expect((await client.get('/me')).status).toBe(401);

    const back = await followToApp(client, res, app.url);
    expect(back.url.href).toBe(`${app.url}/bye`);
    // The provider's session ended: the next sign-in logs in there again.
    const afterLogout = interactions();
    await signIn(app, client, 'fed');
    expect(interactions()).toBeGreaterThan(afterLogout);
  });

  it('an off-origin callbackUrl is not handed to the provider', async () => {
    const client = new TestClient(app.url);
    await signIn(app, client, 'fed');
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
      await signIn(app, client, 'local');
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
