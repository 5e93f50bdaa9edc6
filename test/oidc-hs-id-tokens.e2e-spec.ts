import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeProtectedHeader } from 'jose';
import { createTestApp, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';
import { followToApp, startOidcProvider, type TestOidcClient, type TestOidcProvider } from './setup/oidc-provider.js';

/**
 * HS256/384/512 ID tokens (OIDC Core 10.1: MACed with the client secret, for clients that
 * registered that algorithm), from a real OpenID Provider (oidc-provider) that signs them for
 * clients registered with `id_token_signed_response_alg: 'HS…'`. Accepted only when the provider
 * config declares the token's very algorithm and has a client secret at least as long as the MAC's
 * key (32 bytes for HS256, 48 for HS384, 64 for HS512); every other HS* token is refused.
 */

const SESSION_COOKIE = 'authjs.session-token';
/** Secrets of exactly the sizes that matter. */
const SECRET_32 = 'hs256-secret-of-exactly-32-bytes';
const SECRET_64 = 'hs512-secret-that-is-exactly-sixty-four-bytes-long-0123456789abc';
const SECRET_48 = 'hs384-secret-that-is-exactly-48-bytes-long-01234';
const SECRET_31 = 'hs256-secret-one-byte-too-short';
const SECRET_40 = 'hs512-secret-of-40-bytes-is-too-short-!!';

interface Case {
  id: string;
  /** The client as registered at the OP (what it signs ID tokens with). */
  registered: { alg: string; secret: string; method?: TestOidcClient['token_endpoint_auth_method'] };
  /** The provider config in the app. */
  configured: { alg?: string; secret?: string; method?: string };
}

const accepted: Case[] = [
  { id: 'hs256', registered: { alg: 'HS256', secret: SECRET_32 }, configured: { alg: 'HS256', secret: SECRET_32 } },
  { id: 'hs512', registered: { alg: 'HS512', secret: SECRET_64 }, configured: { alg: 'HS512', secret: SECRET_64 } },
];

const refused: Array<Case & { why: string; message: RegExp }> = [
  {
    why: 'undeclared (the provider config names no id_token_signed_response_alg)',
    id: 'undeclared',
    registered: { alg: 'HS256', secret: SECRET_32 },
    configured: { secret: SECRET_32 },
    message: /MACed with HS256, which is accepted only when .*id_token_signed_response_alg.* declares HS256\.$/,
  },
  {
    why: 'another HS alg than the declared one',
    id: 'other-hs',
    registered: { alg: 'HS384', secret: SECRET_48 },
    configured: { alg: 'HS256', secret: SECRET_48 },
    message: /unexpected JWT "alg" header parameter/,
  },
  {
    why: 'an HS token for a client that declared RS256',
    id: 'declared-rs256',
    registered: { alg: 'HS256', secret: SECRET_32 },
    configured: { alg: 'RS256', secret: SECRET_32 },
    message: /unexpected JWT "alg" header parameter/,
  },
  {
    why: 'declared, but no client secret configured',
    id: 'no-secret',
    registered: { alg: 'HS256', secret: SECRET_32, method: 'none' },
    configured: { alg: 'HS256', method: 'none' },
    message: /MACed with the client secret \(HS256\), but no `clientSecret` is configured/,
  },
  {
    why: 'declared, with a secret shorter than 32 bytes (HS256)',
    id: 'short-256',
    registered: { alg: 'HS256', secret: SECRET_31 },
    configured: { alg: 'HS256', secret: SECRET_31 },
    message: /client secret is too short to verify HS256 ID tokens: it must be at least 32 bytes/,
  },
  {
    why: 'declared, with a secret shorter than 64 bytes (HS512)',
    id: 'short-512',
    registered: { alg: 'HS512', secret: SECRET_40 },
    configured: { alg: 'HS512', secret: SECRET_40 },
    message: /client secret is too short to verify HS512 ID tokens: it must be at least 64 bytes/,
  },
];

let op: TestOidcProvider;
let app: TestApp;
const logged: string[] = [];
/** The ID token of each successful sign-in, per provider (to check what the OP really sent). */
const idTokens = new Map<string, string>();

beforeAll(async () => {
  expect([SECRET_31, SECRET_32, SECRET_40, SECRET_48, SECRET_64].map((s) => Buffer.byteLength(s))).toEqual([
    31, 32, 40, 48, 64,
  ]);
  op = await startOidcProvider({ idTokenSigningAlgs: ['RS256', 'HS256', 'HS384', 'HS512'] });
  const all = [...accepted, ...refused];
  app = await createTestApp({
    auth: {
      providers: all.map(({ id, configured }) => ({
        id,
        name: id,
        type: 'oidc' as const,
        issuer: op.issuer,
        clientId: `hs-${id}`,
        clientSecret: configured.secret,
        checks: ['pkce', 'state', 'nonce'],
        client: {
          ...(configured.alg ? { id_token_signed_response_alg: configured.alg } : {}),
          ...(configured.method ? { token_endpoint_auth_method: configured.method } : {}),
        },
      })) as never,
      callbacks: {
        signIn: ({ account }) => {
          if (account && typeof account.id_token === 'string') idTokens.set(account.provider, account.id_token);
          return true;
        },
      },
      logger: {
        error: (error: Error) => void logged.push(`${error.name}: ${error.message}`),
        // Refused callbacks are the client's or the provider's doing: logged as `[Type] message` warnings.
        warn: (line: string) => void logged.push(line.replace(/^\[(\w+)\] /, '$1: ')),
        debug: () => undefined,
      },
    },
  });
  await op.addClient(
    ...all.map(({ id, registered }) => ({
      client_id: `hs-${id}`,
      client_secret: registered.secret,
      token_endpoint_auth_method: registered.method ?? 'client_secret_basic',
      id_token_signed_response_alg: registered.alg,
      redirect_uris: [`${app.url}/auth/callback/${id}`],
    })),
  );
});
afterAll(async () => {
  await app?.close();
  await op?.close();
});

async function signIn(client: TestClient, providerId: string): Promise<Response> {
  const csrfToken = await client.csrf();
  const start = await client.post(`/auth/signin/${providerId}`, { csrfToken, callbackUrl: `${app.url}/me` });
  expect(start.status).toBe(302);
  const back = await followToApp(client, start, app.url);
  return back.method === 'GET' ? client.get(back.url.href) : client.post(back.url.href, back.body);
}

// promise: oauth.hs-id-tokens
describe('HS* ID tokens from a real OpenID Provider', () => {
  it.each(accepted)(
    'accepted: $registered.alg declared in client.id_token_signed_response_alg, with a long enough secret ($id)',
    async ({ id, registered }) => {
      op.signInAs({ sub: `user-${id}`, email: `${id}@example.com`, email_verified: true, name: id });
      const client = new TestClient(app.url);
      const res = await signIn(client, id);
      expect(res.status).toBe(302);
      expect(location(res).href).toBe(`${app.url}/me`);
      expect(client.cookies.has(SESSION_COOKIE)).toBe(true);
      // The OP really MACed it with the client secret.
      expect(decodeProtectedHeader(idTokens.get(id)!).alg).toBe(registered.alg);
      const me = await client.get('/me');
      expect(me.status).toBe(200);
      expect(((await me.json()) as { user: { email?: string } }).user.email).toBe(`${id}@example.com`);
    },
  );

  it.each(refused)('refused: $why', async ({ id, message }) => {
    op.signInAs({ sub: `user-${id}`, email: `${id}@example.com`, email_verified: true, name: id });
    logged.length = 0;
    const client = new TestClient(app.url);
    const res = await signIn(client, id);
    expect(res.status).toBe(302);
    expect(location(res).searchParams.get('error')).toBe('OAuthCallbackError');
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(message);
    // The message names the rule, never the secret.
    for (const secret of [SECRET_31, SECRET_32, SECRET_40, SECRET_48, SECRET_64])
      expect(logged[0]).not.toContain(secret);
  });
});
