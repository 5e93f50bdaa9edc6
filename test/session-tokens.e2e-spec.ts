/**
 * Provider tokens kept in the JWT session (`session.tokens`, issue 22 item 2) against a real OpenID
 * Provider (oidc-provider) that rotates refresh tokens and revokes the grant when a used refresh
 * token comes back. No adapter: the session cookie is the only place the tokens live.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Req, UseGuards } from '@nestjs/common';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { ProviderAccessToken } from '../lib/guard/provider-access-token.decorator.js';
import type { HttpRequestLike } from '../lib/http/auth-request.factory.js';
import { decode, encode } from '../lib/session/jwt.js';
import type { JWT } from '../lib/types/common.types.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { TestClient } from './setup/http-client.js';
import { startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { opProvider, signInThroughOp } from './setup/oidc-sign-in.js';

const COOKIE = 'authjs.session-token';

@Controller()
class ApiController {
  constructor(private readonly auth: AuthService) {}

  @Get('idp-token')
  @UseGuards(AuthGuard)
  token(@ProviderAccessToken('idp') token: string) {
    return { token };
  }

  @Get('idp-token-service')
  @UseGuards(AuthGuard)
  async viaService(@Req() req: HttpRequestLike) {
    return { token: await this.auth.getAccessToken(req, 'idp') };
  }
}

type Entry = { access_token: string; refresh_token?: string; expires_at?: number; providerAccountId?: string };

let op: TestOidcProvider;
let app: TestApp;
const clientId = 'st1-idp';
const events: unknown[] = [];
const logged: string[] = [];

beforeAll(async () => {
  op = await startOidcProvider();
  const log = (...args: unknown[]) =>
    void logged.push(JSON.stringify(args, (_k, v) => (v instanceof Error ? String(v) : v)));
  app = await createTestApp({
    auth: {
      session: { strategy: 'jwt', tokens: true },
      providers: [opProvider(op, 'idp', clientId)],
      events: { refreshTokenError: (message) => void events.push(message) },
      debug: true,
      logger: { debug: log, warn: log, error: log },
    },
    controllers: [ApiController],
  });
  await op.addClient({
    client_id: clientId,
    client_secret: `${clientId}-secret`,
    redirect_uris: [`${app.url}/auth/callback/idp`],
    grant_types: ['authorization_code', 'refresh_token'],
  });
});
afterAll(async () => {
  await app?.close();
  await op?.close();
});

async function claims(value: string): Promise<JWT> {
  const token = await decode({ token: value, secret: TEST_SECRET, salt: COOKIE });
  if (!token) throw new Error('the session cookie does not decode');
  return token;
}

/** Every provider token the tests saw, checked against the logs at the end. */
const seen = new Set<string>();

function entryOf(token: JWT): Entry | undefined {
  const entry = (token.providerTokens as Record<string, Entry> | undefined)?.idp;
  if (entry?.access_token) seen.add(entry.access_token);
  if (entry?.refresh_token) seen.add(entry.refresh_token);
  return entry;
}

/** The client's session cookie re-encoded with the idp entry changed (as time passing would expire it). */
async function rewrite(client: TestClient, changes: Partial<Entry>): Promise<{ before: Entry; cookie: string }> {
  const token = await claims(client.cookies.get(COOKIE)!);
  const before = entryOf(token)!;
  const next = { ...token, providerTokens: { idp: { ...before, ...changes } } };
  const cookie = await encode({ token: next, secret: TEST_SECRET, salt: COOKIE });
  client.cookies.set(COOKIE, cookie);
  return { before, cookie };
}

function sessionCookies(res: Response): string[] {
  return res.headers
    .getSetCookie()
    .filter((line) => line.startsWith(`${COOKIE}=`))
    .map((line) => line.slice(COOKIE.length + 1).split(';')[0]!);
}

async function opAccepts(token: string): Promise<boolean> {
  const res = await fetch(`${op.issuer}/me`, { headers: { authorization: `Bearer ${token}` } });
  return res.status === 200;
}

describe('session.tokens: provider tokens in the JWT session', () => {
  it('keeps the tokens of the sign-in in the encrypted session, never in /auth/session', async () => {
    const client = new TestClient(app.url);
    await signInThroughOp(app, client, 'idp');
    const entry = entryOf(await claims(client.cookies.get(COOKIE)!));
    expect(entry).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      expires_at: expect.any(Number),
      providerAccountId: op.user.sub,
    });
    expect(client.cookies.get(COOKIE)).not.toContain(entry!.access_token);
    const session = await (await client.get('/auth/session')).text();
    expect(session).not.toContain(entry!.access_token);
    expect(session).not.toContain(entry!.refresh_token);
    // A valid token is handed out as it is: no refresh, no cookie.
    const before = op.refreshRequests();
    const res = await client.get('/idp-token');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ token: entry!.access_token });
    expect(sessionCookies(res)).toEqual([]);
    expect(op.refreshRequests()).toBe(before);
  });

  it('50 concurrent guarded requests of one expired session make one refresh and get one rewritten cookie', async () => {
    // promise: provider-tokens.session-refresh-once
    const client = new TestClient(app.url);
    await signInThroughOp(app, client, 'idp');
    const { before: old, cookie: oldCookie } = await rewrite(client, {
      expires_at: Math.floor(Date.now() / 1000) - 10,
    });
    const refreshes = op.refreshRequests();
    const answers = await Promise.all(Array.from({ length: 50 }, () => client.get('/idp-token')));
    expect(op.refreshRequests() - refreshes).toBe(1);
    expect(op.tokenGrants.at(-1)).toBe('refresh_token 200');
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    const tokens = await Promise.all(answers.map(async (r) => ((await r.json()) as { token: string }).token));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(old.access_token);
    expect(await opAccepts(tokens[0]!)).toBe(true);
    // Every answer carries the session's new cookie, encoded once for the refresh.
    const written = answers.flatMap(sessionCookies);
    expect(written).toHaveLength(50);
    expect(new Set(written).size).toBe(1);
    const fresh = entryOf(await claims(written[0]!))!;
    expect(fresh.access_token).toBe(tokens[0]);
    expect(fresh.refresh_token).toEqual(expect.any(String));
    expect(fresh.refresh_token).not.toBe(old.refresh_token);
    expect(fresh.expires_at).toBeGreaterThan(Date.now() / 1000);

    // With the new cookie: the new token, nothing refreshed or written.
    const next = await client.get('/idp-token');
    expect(await next.json()).toEqual({ token: tokens[0] });
    expect(sessionCookies(next)).toEqual([]);
    // A request that still carries the old cookie gets the new tokens, not a second refresh with the
    // rotated refresh token (which the OP would take as a replay and answer by revoking the grant).
    const late = await fetch(`${app.url}/idp-token`, { headers: { cookie: `${COOKIE}=${oldCookie}` } });
    expect(await late.json()).toEqual({ token: tokens[0] });
    expect(sessionCookies(late)).toEqual([written[0]]);
    expect(op.refreshRequests() - refreshes).toBe(1);

    // The rotated refresh token works for the next refresh, through AuthService.getAccessToken(req).
    await rewrite(client, { expires_at: Math.floor(Date.now() / 1000) - 10 });
    const third = await client.get('/idp-token-service');
    expect(third.status).toBe(200);
    const { token } = (await third.json()) as { token: string };
    expect(token).not.toBe(tokens[0]);
    expect(op.tokenGrants.at(-1)).toBe('refresh_token 200');
    expect(await opAccepts(token)).toBe(true);
    expect(entryOf(await claims(sessionCookies(third)[0]!))!.access_token).toBe(token);
  });

  it('invalid_grant drops the tokens from the session, fires refreshTokenError and answers 403', async () => {
    // promise: provider-tokens.session-invalid-grant
    const client = new TestClient(app.url);
    await signInThroughOp(app, client, 'idp');
    await rewrite(client, {
      expires_at: Math.floor(Date.now() / 1000) - 10,
      refresh_token: 'not-a-refresh-token-the-op-issued',
    });
    events.length = 0;
    const res = await client.get('/idp-token');
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'RefreshTokenError', reason: 'InvalidGrant' });
    expect(op.tokenGrants.at(-1)).toBe('refresh_token 400');
    const [cookie] = sessionCookies(res);
    const token = await claims(cookie!);
    expect(token.providerTokens).toBeUndefined();
    expect(token.sub).toEqual(expect.any(String));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([
      { userId: token.sub, provider: 'idp', providerAccountId: op.user.sub, error: 'invalid_grant' },
    ]);
    // Still signed in to the app; the provider's tokens are gone until the next sign-in with it.
    expect((await client.get('/me')).status).toBe(200);
    const again = await client.get('/idp-token');
    expect(again.status).toBe(403);
    expect(await again.json()).toMatchObject({ reason: 'NoAccount' });
    expect(logged.join('\n')).not.toContain('not-a-refresh-token');
  });

  it('getAccessToken(request) without a valid session: RefreshTokenError NoSession; a user id without an adapter: NoAccount', async () => {
    const auth = app.app.get(AuthService);
    await expect(auth.getAccessToken({ headers: {} }, 'idp')).rejects.toMatchObject({ reason: 'NoSession' });
    await expect(auth.getAccessToken({ headers: { cookie: `${COOKIE}=not-a-session` } }, 'idp')).rejects.toMatchObject({
      reason: 'NoSession',
    });
    await expect(auth.getAccessToken(op.user.sub, 'idp')).rejects.toMatchObject({ reason: 'NoAccount' });
  });

  it('never logs a token (debug on)', () => {
    const log = logged.join('\n');
    expect(log).toContain('refresh_token_invalid_grant');
    expect(seen.size).toBeGreaterThan(6);
    for (const token of seen) expect(log).not.toContain(token);
  });
});
