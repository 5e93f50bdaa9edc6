/**
 * Tokens other services verify, API keys and one guard for every credential, over HTTP on a real
 * app: an access token a signed-in user gets (`POST /auth/access-token`, `AuthService.
 * issueAccessToken`) verified by `jose` from the JWKS alone, for this API or another service's
 * audience, limited by scope, revoked with the session it came from; `@Auth({ accept, scopes })`
 * refusing a wrong kind (401) and a missing scope (403); API keys (format, checksum, one-time
 * display, scopes, the per-key limit answering 429 with Retry-After, revocation, rotation, nothing
 * in clear in storage); the stored signing keys rotated on demand (published before first use, the
 * old one verifying until its tokens expired, then gone). Two instances on real databases with a
 * revocation bus are in service-tokens-storage.e2e-spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Controller, Get, UseGuards } from '@nestjs/common';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Auth } from '../lib/core/public.decorator.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { AuthSession, CurrentUser } from '../lib/guard/current-user.decorator.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import type { AuthUser, CredentialInfo } from '../lib/session/session.types.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { TestClient } from './setup/http-client.js';

const ISSUER = 'https://api.example.test/auth';
const BILLING = 'https://billing.example.test';
const PASSWORD = 'correct horse battery';
const LIMIT = 5;
const MAX_AGE = 6;
const PUBLISH_AHEAD = 2;
const GRACE = 1;

@Controller('notes')
@UseGuards(AuthGuard)
class NotesController {
  @Get() list(@CurrentUser() user: AuthUser, @AuthSession('credential') credential: CredentialInfo) {
    return { user: user.email, credential };
  }
  @Get('read')
  @Auth({ accept: ['session', 'accessToken', 'apiKey'], scopes: ['notes:read'] })
  read(@AuthSession('credential') credential: CredentialInfo) {
    return { credential };
  }
  @Get('keys')
  @Auth({ accept: ['apiKey'] })
  keys(@CurrentUser('email') email: string) {
    return { email };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('tokens for other services, API keys, and one guard for every credential', () => {
  let adapter: MemoryAdapter;
  let t: TestApp;
  let auth: AuthService;

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    t = await createTestApp({
      controllers: [NotesController],
      auth: {
        adapter,
        session: { strategy: 'database' },
        logger: { error: () => undefined, warn: () => undefined },
        accessToken: {
          issuer: ISSUER,
          maxAge: MAX_AGE,
          audiences: [BILLING],
          scopes: ['notes:read', 'notes:write'],
          rotation: { every: 0, publishAhead: PUBLISH_AHEAD, grace: GRACE },
        },
        apiKeys: { prefix: 'acme', rateLimit: { limit: LIMIT, window: 60 } },
        providers: [
          Credentials({
            credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
            async authorize({ email, password }) {
              const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
              return user && password === PASSWORD ? { id: user.id, email: user.email } : null;
            },
          }),
        ],
      },
    });
    auth = t.app.get(AuthService);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A new user signed in through the credentials form: the browser and the user's id. */
  async function signedIn(): Promise<{ browser: TestClient; userId: string; email: string }> {
    const email = `${randomUUID()}@example.test`;
    const user = await adapter.createUser({ email, emailVerified: null } as never);
    const browser = new TestClient(t.url);
    const csrfToken = await browser.csrf();
    await browser.post('/auth/callback/credentials', { csrfToken, email, password: PASSWORD });
    return { browser, userId: user.id, email };
  }

  /** `POST /auth/access-token` as a single-page app sends it (cookie, CSRF header, JSON body). */
  async function tokenFor(browser: TestClient, body: Record<string, unknown> = {}) {
    const csrfToken = await browser.csrf();
    const res = await browser.post('/auth/access-token', body, {
      json: true,
      headers: { 'x-csrf-token': csrfToken, origin: t.url },
    });
    return {
      res,
      body: (await res.json()) as { access_token: string; expires_in: number; scope?: string; error?: string },
    };
  }

  const bearer = (token: string, path = '/notes') =>
    fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  // promise: service-tokens.issue
  it('gives a signed-in user an access token that jose verifies from the JWKS alone, and the guard takes', async () => {
    const { browser, email } = await signedIn();
    const { res, body } = await tokenFor(browser);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('no-store');
    const jwks = createRemoteJWKSet(new URL(`${t.url}/auth/jwks`));
    const { payload } = await jwtVerify(body.access_token, jwks, { issuer: ISSUER, audience: ISSUER, typ: 'at+jwt' });
    expect(payload).toMatchObject({
      sub: expect.any(String),
      client_id: 'session',
      sid: expect.any(String),
      email,
      amr: ['pwd'],
    });
    // AuthService.jwks() is the route's set (for /.well-known/jwks.json).
    expect(auth.jwks()).toEqual(await (await fetch(`${t.url}/auth/jwks`)).json());
    const notes = await bearer(body.access_token);
    expect(notes.status).toBe(200);
    expect(await notes.json()).toEqual({
      user: email,
      credential: { kind: 'accessToken', scopes: null, clientId: 'session' },
    });
    // A token cannot be made from a token.
    const again = await fetch(`${t.url}/auth/access-token`, {
      method: 'POST',
      headers: { authorization: `Bearer ${body.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(again.status).toBe(401);
    // Without the CSRF token, a cookie session gets none.
    const noCsrf = await browser.post('/auth/access-token', {}, { json: true, headers: { origin: t.url } });
    expect(noCsrf.status).toBe(400);
    expect(await noCsrf.json()).toMatchObject({ error: 'MissingCSRF' });
  });

  it("limits a token to the scopes asked for, and to another service's audience", async () => {
    const { browser } = await signedIn();
    const reader = (await tokenFor(browser, { scope: 'notes:read' })).body;
    expect(reader.scope).toBe('notes:read');
    expect((await bearer(reader.access_token, '/notes/read')).status).toBe(200);
    const writer = (await tokenFor(browser, { scope: 'notes:write' })).body;
    const refused = await bearer(writer.access_token, '/notes/read');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'InsufficientScope' });
    const billing = (await tokenFor(browser, { audience: BILLING })).body;
    const jwks = createRemoteJWKSet(new URL(`${t.url}/auth/jwks`));
    await expect(jwtVerify(billing.access_token, jwks, { issuer: ISSUER, audience: BILLING })).resolves.toBeTruthy();
    // This API is not its audience.
    expect((await bearer(billing.access_token)).status).toBe(401);
    expect((await tokenFor(browser, { audience: 'https://evil.example' })).res.status).toBe(400);
    expect((await tokenFor(browser, { scope: 'admin' })).res.status).toBe(400);
    expect((await tokenFor(browser, { scope: ['<script>'] })).res.status).toBe(400);
  });

  // promise: service-tokens.revocation
  it('revokes the tokens a session gave when it ends (sign-out, endSession)', async () => {
    const { browser } = await signedIn();
    const { body } = await tokenFor(browser);
    expect((await bearer(body.access_token)).status).toBe(200);
    const csrfToken = await browser.csrf();
    await browser.post('/auth/signout', { csrfToken }, { headers: { origin: t.url } });
    expect((await bearer(body.access_token)).status).toBe(401);
  });

  // promise: api-keys.lifecycle
  it('makes API keys: shown once, recognisable, refused where not accepted, limited by scope and rate', async () => {
    const { userId, email } = await signedIn();
    const { key, apiKey } = await auth.createApiKey(userId, { name: 'CI deploy', scopes: ['notes:read'] });
    expect(key).toMatch(/^acme_[0-9A-Za-z]{50}$/);
    expect(apiKey).toMatchObject({ name: 'CI deploy', hint: key.slice(-4), scopes: ['notes:read'], expires: null });
    expect(JSON.stringify(await auth.listApiKeys(userId))).not.toContain(key.slice(5, 40));
    // Only the hash is stored.
    const stored = await adapter.getApiKey(apiKey.id);
    expect(JSON.stringify(stored)).not.toContain(key.slice(5, 49));
    // A key is refused where the route does not say it takes one; taken where it does.
    const plain = await bearer(key);
    expect(plain.status).toBe(401);
    expect(await plain.json()).toMatchObject({ error: 'CredentialNotAccepted' });
    const keys = await bearer(key, '/notes/keys');
    expect(keys.status).toBe(200);
    expect(await keys.json()).toEqual({ email });
    const read = await bearer(key, '/notes/read');
    expect(await read.json()).toEqual({ credential: { kind: 'apiKey', scopes: ['notes:read'], keyId: apiKey.id } });
    // The limit per key: 429 with Retry-After, never 401.
    let last: Response | undefined;
    for (let i = 0; i < LIMIT; i++) last = await bearer(key, '/notes/keys');
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await last!.json()).toMatchObject({ error: 'RateLimited' });
    // Another key of the same user has its own count.
    const other = await auth.createApiKey(userId, { name: 'other' });
    expect((await bearer(other.key, '/notes/keys')).status).toBe(200);
    expect((await bearer(other.key, '/notes/read')).status).toBe(403);
  });

  it('refuses a key with a wrong checksum, another prefix, one revoked, one replaced, one expired', async () => {
    const { userId } = await signedIn();
    const { key, apiKey } = await auth.createApiKey(userId, { name: 'k' });
    const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    for (const bad of [flipped, `other_${key.slice(5)}`, `${key}x`, 'acme_', 'acme_'.padEnd(4000, 'a')])
      expect({ bad: bad.slice(0, 12), status: (await bearer(bad, '/notes/keys')).status }).toMatchObject({
        status: 401,
      });
    const rotated = await auth.rotateApiKey(userId, apiKey.id);
    expect((await bearer(key, '/notes/keys')).status).toBe(401);
    expect((await bearer(rotated.key, '/notes/keys')).status).toBe(200);
    await auth.revokeApiKey(userId, rotated.apiKey.id);
    expect((await bearer(rotated.key, '/notes/keys')).status).toBe(401);
    await expect(auth.revokeApiKey(userId, rotated.apiKey.id)).rejects.toMatchObject({ type: 'InvalidRequest' });
    const soon = await auth.createApiKey(userId, { name: 'soon', expires: new Date(Date.now() + 1500) });
    expect((await bearer(soon.key, '/notes/keys')).status).toBe(200);
    await sleep(1600);
    expect((await bearer(soon.key, '/notes/keys')).status).toBe(401);
    await expect(auth.createApiKey(userId, { name: '' })).rejects.toMatchObject({ type: 'InvalidRequest' });
    await expect(auth.createApiKey(userId, { name: 'x', scopes: ['admin'] })).rejects.toMatchObject({
      type: 'InvalidRequest',
    });
    await expect(auth.createApiKey(userId, { name: 'x', expires: '2001-01-01' })).rejects.toMatchObject({
      type: 'InvalidRequest',
    });
  });

  it('manages keys through the account API: never with an API key, a new key only after a recent sign-in', async () => {
    const { browser } = await signedIn();
    const csrfToken = await browser.csrf();
    const headers = { 'x-csrf-token': csrfToken, origin: t.url };
    const created = await browser.post(
      '/auth/account/api-keys/create',
      { name: 'from the API', scopes: 'notes:read' },
      { json: true, headers },
    );
    expect(created.status).toBe(200);
    const { key, apiKey } = (await created.json()) as { key: string; apiKey: { id: string } };
    const listed = (await (await browser.get('/auth/account/api-keys', { accept: 'application/json' })).json()) as {
      apiKeys: unknown[];
    };
    expect(listed.apiKeys).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(key);
    // The key itself cannot use the account API (it would make itself more keys).
    const byKey = await fetch(`${t.url}/auth/account/api-keys`, {
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
    });
    expect(byKey.status).toBe(401);
    const revoked = await browser.post('/auth/account/api-keys/revoke', { id: apiKey.id }, { json: true, headers });
    expect(revoked.status).toBe(200);
    expect((await bearer(key, '/notes/keys')).status).toBe(401);
  });

  // promise: service-tokens.rotation
  it('rotates the signing key: the new one is published before it signs, the old one verifies until its tokens expire', async () => {
    const { browser } = await signedIn();
    const jwksKids = async () =>
      ((await (await fetch(`${t.url}/auth/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
    const before = (await tokenFor(browser)).body.access_token;
    const oldKid = decodeProtectedHeader(before).kid!;
    const newKid = await auth.rotateSigningKey();
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, newKid]));
    // Published, not signing yet.
    expect(decodeProtectedHeader((await tokenFor(browser)).body.access_token).kid).toBe(oldKid);
    await sleep((PUBLISH_AHEAD + 0.5) * 1000);
    const after = (await tokenFor(browser)).body.access_token;
    expect(decodeProtectedHeader(after).kid).toBe(newKid);
    expect((await bearer(after)).status).toBe(200);
    // The old key verifies what it signed until that expires (plus grace), then it is gone.
    const oldToken = (await tokenFor(browser)).body.access_token;
    expect(decodeProtectedHeader(oldToken).kid).toBe(newKid);
    await sleep((MAX_AGE + GRACE + 1.5) * 1000);
    await t.app
      .get(AuthService)
      .rotateSigningKey()
      .then(() => undefined); // any refresh sweeps
    expect(await jwksKids()).not.toContain(oldKid);
    expect((await bearer(before)).status).toBe(401);
  });
});
