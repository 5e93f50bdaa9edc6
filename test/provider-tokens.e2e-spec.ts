/**
 * Provider access tokens (issue 22): `AuthService.getAccessToken` and `@ProviderAccessToken()`
 * against a real OpenID Provider (oidc-provider) that rotates refresh tokens and revokes the grant
 * when a used refresh token comes back. The OP counts the refresh requests it receives.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, UseGuards } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AccountTokensAdapter, AdapterAccount } from '../lib/adapters/adapter.interface.js';
import { Adapter } from '../lib/adapters/adapter.interface.js';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { AdapterService } from '../lib/core/adapter.service.js';
import { RefreshTokenError } from '../lib/errors/auth.errors.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { ProviderAccessToken } from '../lib/guard/provider-access-token.decorator.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { TestClient } from './setup/http-client.js';
import { useOidcProvider } from './setup/oidc-provider.js';
import { opProvider, signInThroughOp } from './setup/oidc-sign-in.js';

@Controller()
class ApiController {
  @Get('idp-token')
  @UseGuards(AuthGuard)
  token(@ProviderAccessToken('idp') token: string) {
    return { token };
  }
}

const op = useOidcProvider();
let seq = 0;

type TokensAdapter = Required<AccountTokensAdapter>;

/** A provider of the test OP for `apps` (each app's callback registered), with refresh tokens. */
async function oidcClient(apps: TestApp[], providerId: string, clientId: string) {
  await op.addClient({
    client_id: clientId,
    client_secret: `${clientId}-secret`,
    redirect_uris: apps.map((a) => `${a.url}/auth/callback/${providerId}`),
    grant_types: ['authorization_code', 'refresh_token'],
  });
}

async function account(adapter: TokensAdapter, userId: string, providerId: string): Promise<AdapterAccount> {
  const found = (await adapter.listAccountsByUserId(userId)).find((a) => a.provider === providerId);
  if (!found) throw new Error(`no ${providerId} account`);
  return found;
}

/** Makes the stored access token expired (as time passing would), keeping the refresh token. */
async function expire(adapter: TokensAdapter, stored: AdapterAccount, changes: Record<string, unknown> = {}) {
  const updated = await adapter.updateAccountTokens(
    {
      provider: stored.provider,
      providerAccountId: stored.providerAccountId,
      refresh_token: stored.refresh_token ?? null,
      expires_at: stored.expires_at ?? null,
    },
    { expires_at: Math.floor(Date.now() / 1000) - 10, ...changes } as never,
  );
  expect(updated).not.toBeNull();
}

/** The OP accepts the access token (its userinfo endpoint answers 200). */
async function opAccepts(token: string): Promise<boolean> {
  const res = await fetch(`${op.issuer}/me`, { headers: { authorization: `Bearer ${token}` } });
  return res.status === 200;
}

async function rejection(promise: Promise<unknown>): Promise<RefreshTokenError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RefreshTokenError);
  return error as RefreshTokenError;
}

describe('getAccessToken against oidc-provider (MemoryAdapter)', () => {
  let app: TestApp;
  let auth: AuthService;
  let adapter: TokensAdapter;
  const clientId = `pt${++seq}-idp`;
  const flakyId = `pt${++seq}-flaky`;
  /** How many of the next token requests of the `flaky` provider go to a port nothing listens on. */
  let failNextTokenRequests = 0;
  const events: unknown[] = [];

  beforeAll(async () => {
    app = await createTestApp({
      auth: {
        adapter: MemoryAdapter,
        providers: [
          opProvider(op, 'idp', clientId),
          opProvider(op, 'flaky', flakyId, {
            // A real network failure: the request goes to a closed port instead of the OP.
            customFetch: (url: string, init: RequestInit) => {
              if (url.endsWith('/token') && failNextTokenRequests > 0) {
                failNextTokenRequests--;
                return fetch('http://127.0.0.1:1/token', init);
              }
              return fetch(url, init);
            },
          }),
        ],
        events: { refreshTokenError: (message) => void events.push(message) },
      },
      controllers: [ApiController],
    });
    await oidcClient([app], 'idp', clientId);
    await oidcClient([app], 'flaky', flakyId);
    auth = app.app.get(AuthService);
    adapter = app.app.get(Adapter) as unknown as TokensAdapter;
  });
  afterAll(() => app?.close());

  it('returns the stored token while it is valid, without calling the provider', async () => {
    const userId = await signInThroughOp(app, new TestClient(app.url), 'idp');
    const stored = await account(adapter, userId, 'idp');
    expect(stored.refresh_token).toEqual(expect.any(String));
    const before = op.refreshRequests();
    expect(await auth.getAccessToken(userId, 'idp')).toBe(stored.access_token);
    expect(op.refreshRequests()).toBe(before);
  });

  it('50 concurrent calls on an expired token make exactly one refresh, and all get the new token', async () => {
    const userId = await signInThroughOp(app, new TestClient(app.url), 'idp');
    const stored = await account(adapter, userId, 'idp');
    await expire(adapter, stored);
    const before = op.refreshRequests();
    const tokens = await Promise.all(Array.from({ length: 50 }, () => auth.getAccessToken(userId, 'idp')));
    expect(op.refreshRequests() - before).toBe(1);
    expect(op.tokenGrants.at(-1)).toBe('refresh_token 200');
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(stored.access_token);
    expect(await opAccepts(tokens[0]!)).toBe(true);
    // The rotated refresh token replaced the old one; the new expiry is in the future.
    const after = await account(adapter, userId, 'idp');
    expect(after.access_token).toBe(tokens[0]);
    expect(after.refresh_token).toEqual(expect.any(String));
    expect(after.refresh_token).not.toBe(stored.refresh_token);
    expect(after.expires_at).toBeGreaterThan(Date.now() / 1000);
    // The next call uses it: no second refresh.
    expect(await auth.getAccessToken(userId, 'idp')).toBe(tokens[0]);
    expect(op.refreshRequests() - before).toBe(1);
    // And the rotated refresh token works for the next refresh.
    await expire(adapter, after);
    const third = await auth.getAccessToken(userId, 'idp');
    expect(third).not.toBe(tokens[0]);
    expect(op.tokenGrants.at(-1)).toBe('refresh_token 200');
    expect(await opAccepts(third)).toBe(true);
  });

  it('@ProviderAccessToken injects the token (refreshed) into a guarded route', async () => {
    const client = new TestClient(app.url);
    const userId = await signInThroughOp(app, client, 'idp');
    const stored = await account(adapter, userId, 'idp');
    await expire(adapter, stored);
    const before = op.refreshRequests();
    const res = await client.get('/idp-token');
    expect(res.status).toBe(200);
    const { token } = (await res.json()) as { token: string };
    expect(token).not.toBe(stored.access_token);
    expect(op.refreshRequests() - before).toBe(1);
    expect(await opAccepts(token)).toBe(true);
    // Without a session the guard answers 401 before any lookup.
    expect((await new TestClient(app.url).get('/idp-token')).status).toBe(401);
  });

  it('invalid_grant clears the tokens, fires refreshTokenError and throws InvalidGrant; then NoRefreshToken', async () => {
    const userId = await signInThroughOp(app, new TestClient(app.url), 'idp');
    const stored = await account(adapter, userId, 'idp');
    await expire(adapter, stored, { refresh_token: 'not-a-refresh-token-the-op-issued' });
    events.length = 0;
    const error = await rejection(auth.getAccessToken(userId, 'idp'));
    expect(error.type).toBe('RefreshTokenError');
    expect(error.reason).toBe('InvalidGrant');
    expect(error.message).not.toContain('not-a-refresh-token');
    expect(op.tokenGrants.at(-1)).toBe('refresh_token 400');
    const after = await account(adapter, userId, 'idp');
    expect(after.refresh_token ?? null).toBeNull();
    expect(after.access_token ?? null).toBeNull();
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([
      { userId, provider: 'idp', providerAccountId: stored.providerAccountId, error: 'invalid_grant' },
    ]);
    expect((await rejection(auth.getAccessToken(userId, 'idp'))).reason).toBe('NoRefreshToken');
  });

  // promise: provider-tokens.sign-in-restores
  it('signing in with the provider again after invalid_grant stores the new tokens: getAccessToken works again', async () => {
    const userId = await signInThroughOp(app, new TestClient(app.url), 'idp');
    const stored = await account(adapter, userId, 'idp');
    await expire(adapter, stored, { refresh_token: 'not-a-refresh-token-the-op-issued' });
    expect((await rejection(auth.getAccessToken(userId, 'idp'))).reason).toBe('InvalidGrant');
    expect((await rejection(auth.getAccessToken(userId, 'idp'))).reason).toBe('NoRefreshToken');

    // The same provider account signs in again: the same user, the new tokens on that account.
    expect(await signInThroughOp(app, new TestClient(app.url), 'idp')).toBe(userId);
    const restored = await account(adapter, userId, 'idp');
    expect(restored).toMatchObject({
      userId,
      providerAccountId: stored.providerAccountId,
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      id_token: expect.any(String),
      token_type: 'bearer',
    });
    expect(restored.expires_at).toBeGreaterThan(Date.now() / 1000);
    const before = op.refreshRequests();
    const token = await auth.getAccessToken(userId, 'idp');
    expect(token).toBe(restored.access_token);
    expect(op.refreshRequests()).toBe(before);
    expect(await opAccepts(token)).toBe(true);
    // Its refresh token works too.
    await expire(adapter, restored);
    const refreshed = await auth.getAccessToken(userId, 'idp');
    expect(op.refreshRequests() - before).toBe(1);
    expect(op.tokenGrants.at(-1)).toBe('refresh_token 200');
    expect(await opAccepts(refreshed)).toBe(true);
  });

  it('@ProviderAccessToken answers 403 RefreshTokenError (not a 500) when the user must sign in again', async () => {
    const client = new TestClient(app.url);
    const userId = await signInThroughOp(app, client, 'idp');
    const stored = await account(adapter, userId, 'idp');
    await expire(adapter, stored, { refresh_token: null });
    const res = await client.get('/idp-token');
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'RefreshTokenError', reason: 'NoRefreshToken' });
  });

  it('network errors are retried with backoff; when they persist the stored tokens are untouched', async () => {
    const previous = op.user;
    op.signInAs({ sub: 'flaky-user', email: 'flaky@example.com', email_verified: true, name: 'Flaky' });
    const userId = await signInThroughOp(app, new TestClient(app.url), 'flaky').finally(() => op.signInAs(previous));
    const stored = await account(adapter, userId, 'flaky');
    await expire(adapter, stored);
    const expired = await account(adapter, userId, 'flaky');

    // Every attempt fails: ProviderUnavailable, and the row is as it was (lease released).
    failNextTokenRequests = 100;
    const before = op.refreshRequests();
    const error = await rejection(auth.getAccessToken(userId, 'flaky'));
    expect(error.reason).toBe('ProviderUnavailable');
    expect(op.refreshRequests()).toBe(before);
    expect(await account(adapter, userId, 'flaky')).toEqual(expired);

    // Two failures, then the OP answers: one refresh, a working token.
    failNextTokenRequests = 2;
    const token = await auth.getAccessToken(userId, 'flaky');
    expect(failNextTokenRequests).toBe(0);
    expect(op.refreshRequests() - before).toBe(1);
    expect(await opAccepts(token)).toBe(true);
    failNextTokenRequests = 0;
  });

  it('refuses an unknown provider, a provider the user has no account at, and a non-OAuth provider', async () => {
    const userId = await signInThroughOp(app, new TestClient(app.url), 'idp');
    await expect(auth.getAccessToken(userId, 'nope')).rejects.toMatchObject({ type: 'InvalidProvider' });
    expect((await rejection(auth.getAccessToken(userId, 'flaky'))).reason).toBe('NoAccount');
    expect((await rejection(auth.getAccessToken('no-such-user', 'idp'))).reason).toBe('NoAccount');
  });
});

describe('getAccessToken with encryptAccountTokens', () => {
  let app: TestApp;
  let auth: AuthService;
  let raw: TokensAdapter & { getAccount(id: string, provider: string): Promise<AdapterAccount | null> };
  const clientId = `pt${++seq}-enc`;

  beforeAll(async () => {
    app = await createTestApp({
      auth: { adapter: MemoryAdapter, encryptAccountTokens: true, providers: [opProvider(op, 'idp', clientId)] },
    });
    await oidcClient([app], 'idp', clientId);
    auth = app.app.get(AuthService);
    // The adapter itself: what the table holds, not what the module reads through it.
    raw = app.app.get(Adapter) as unknown as typeof raw;
  });
  afterAll(() => app?.close());

  it('stores the tokens encrypted, hands them out decrypted, and refreshes with the decrypted refresh token', async () => {
    const userId = await signInThroughOp(app, new TestClient(app.url), 'idp');
    const stored = await account(raw, userId, 'idp');
    for (const column of ['access_token', 'refresh_token', 'id_token'] as const)
      expect(stored[column]).toMatch(/^enc\.v1\./);
    const token = await auth.getAccessToken(userId, 'idp');
    expect(token).not.toMatch(/^enc\./);
    expect(await opAccepts(token)).toBe(true);

    await expire(raw, stored);
    const before = op.refreshRequests();
    const fresh = await auth.getAccessToken(userId, 'idp');
    expect(op.tokenGrants.at(-1)).toBe('refresh_token 200');
    expect(op.refreshRequests() - before).toBe(1);
    expect(await opAccepts(fresh)).toBe(true);
    const after = await account(raw, userId, 'idp');
    expect(after.access_token).toMatch(/^enc\.v1\./);
    expect(after.refresh_token).toMatch(/^enc\.v1\./);
    expect(after.access_token).not.toContain(fresh);
  });

  it('fails closed on a stored value no secret opens: no request with it, NoRefreshToken', async () => {
    const userId = await signInThroughOp(app, new TestClient(app.url), 'idp');
    const stored = await account(raw, userId, 'idp');
    await expire(raw, stored, { refresh_token: `${stored.refresh_token!.slice(0, -4)}AAAA` });
    const before = op.refreshRequests();
    expect((await rejection(auth.getAccessToken(userId, 'idp'))).reason).toBe('NoRefreshToken');
    expect(op.refreshRequests()).toBe(before);
  });
});

const [postgres] = await databaseTargets(['postgres']);

postgres!.describe('getAccessToken: two app instances on one PostgreSQL', () => {
  let db: TestDatabase;
  let apps: TestApp[] = [];
  const clientId = `pt${++seq}-shared`;

  beforeAll(async () => {
    db = await createDatabase(postgres!, 'provider_tokens');
    for (let i = 0; i < 2; i++) {
      apps.push(
        await createTestApp({
          auth: { providers: [opProvider(op, 'idp', clientId)] },
          imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: i === 0 })],
        }),
      );
    }
    await oidcClient(apps, 'idp', clientId);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    apps = [];
    if (db) await dropDatabase(db);
  });

  it('50 concurrent calls split over both instances make one refresh between them', async () => {
    const [a, b] = apps as [TestApp, TestApp];
    const userId = await signInThroughOp(a, new TestClient(a.url), 'idp');
    const adapter = a.app.get(Adapter) as unknown as TokensAdapter;
    const stored = await account(adapter, userId, 'idp');
    await expire(adapter, stored);
    const before = op.refreshRequests();
    const authA = a.app.get(AuthService);
    const authB = b.app.get(AuthService);
    const tokens = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? authA : authB).getAccessToken(userId, 'idp')),
    );
    expect(op.refreshRequests() - before).toBe(1);
    expect(new Set(tokens).size).toBe(1);
    expect(await opAccepts(tokens[0]!)).toBe(true);
    const after = await account(b.app.get(Adapter) as unknown as TokensAdapter, userId, 'idp');
    // The library's own tables: tokens encrypted at rest by default (promise: storage.tokens-encrypted-by-default).
    expect(after.access_token).toMatch(/^enc\.v1\./);
    expect(b.app.get(AdapterService).openAccount(after).access_token).toBe(tokens[0]);
    expect(after.refresh_token).not.toBe(stored.refresh_token);
    expect(after.expires_at).toBeGreaterThan(Date.now() / 1000);
  });
});
