/**
 * `nestjs-auth/verify` (lib/verify.ts) against a real app: a token from the native-app flow
 * (`oauth4webapi` as the app, a cookie-keeping client as the system browser), verified by the entry
 * from the app's JWK Set URL over HTTP; the RFC 8725 cases each refused with its code, and by the
 * app's own guard too (the entry checks what the library checks); then the same entry bundled with
 * jose by esbuild (one ES module, platform neutral) verifying the same token inside Vercel's Edge
 * Runtime (`edge-runtime`'s EdgeVM) and inside Cloudflare's workerd (`miniflare`), each fetching
 * the JWK Set from the running app.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';
import { decodeJwt, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import * as oauth from 'oauth4webapi';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import {
  AccessTokenError,
  createAccessTokenVerifier,
  type AccessTokenVerifierOptions,
  type JSONWebKeySet,
  type VerifiedAccessToken,
} from '../lib/verify.js';
import { isStrictCi, STRICT_HINT } from './setup/ci.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';

const ISSUER = 'https://api.example.test/auth';
const PASSWORD = 'correct horse battery';
const REDIRECT = 'com.example.app:/oauth';

/**
 * A runtime package (a devDependency), or undefined when it is not installed: under CI that fails
 * the suite; elsewhere one line on stderr says what is skipped.
 */
async function optional<T>(name: string): Promise<T | undefined> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    if (isStrictCi())
      throw new Error(`${name} is not installed (CI=${process.env.CI}: verify.e2e-spec must run in it); run npm ci.`, {
        cause: error,
      });
    process.stderr.write(`[skipped] verify.e2e-spec in ${name}: the package is not installed (${STRICT_HINT})\n`);
    return undefined;
  }
}

const edgeRuntime = await optional<typeof import('edge-runtime')>('edge-runtime');
const miniflare = await optional<typeof import('miniflare')>('miniflare');

/** A private JWK of the app's signing keys (`accessToken.keys`), and the `kid` the app publishes it under. */
interface AppKey {
  alg: 'EdDSA' | 'ES256' | 'RS256';
  jwk: JWK &
    (
      | { kty: 'OKP' | 'EC'; crv: 'Ed25519' | 'P-256'; x: string; d: string }
      | { kty: 'RSA'; n: string; e: string; d: string; p: string; q: string; dp: string; dq: string; qi: string }
    );
  kid: string;
}

function privateJwk(type: 'ed25519' | 'p256' | 'rsa'): AppKey['jwk'] {
  const { privateKey } =
    type === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ format: 'jwk' }) as AppKey['jwk'];
}

/**
 * Runs `run` with the host's `setTimeout` unref'ing its timers. The Edge Runtime's timers are the
 * host's, and its `AbortSignal.timeout` (jose's 5 s limit on the JWK Set request) keeps a
 * referenced one that holds the test worker open for 5 s after the suite; Node's own unrefs it.
 * Inside the runtime nothing changes: the timers still fire.
 */
async function withUnrefTimers<T>(run: () => Promise<T>): Promise<T> {
  const original = globalThis.setTimeout;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => original(...args).unref()) as typeof setTimeout;
  try {
    return await run();
  } finally {
    globalThis.setTimeout = original;
  }
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

// promise: service-tokens.verify
describe('nestjs-auth/verify', () => {
  let adapter: MemoryAdapter;
  let t: TestApp;
  let jwksUrl: string;
  /** The app's keys: the Ed25519 one signs, the P-256 and RSA ones are published too. */
  let ed: AppKey;
  let p256: AppKey;
  let rsa: AppKey;
  /** An access token from the native-app flow, and its claims. */
  let token: string;
  let claims: JWTPayload;
  let userId: string;

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    const edJwk = privateJwk('ed25519');
    const p256Jwk = privateJwk('p256');
    const rsaJwk = privateJwk('rsa');
    t = await createTestApp({
      auth: {
        adapter,
        session: { strategy: 'database' },
        logger: { error: () => undefined, warn: () => undefined },
        accessToken: { issuer: ISSUER, keys: [edJwk, p256Jwk, rsaJwk] },
        nativeApps: { clients: [{ clientId: 'ios', name: 'Acme for iOS', redirectUris: [REDIRECT] }] },
        providers: [
          Credentials({
            credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
            async authorize({ email, password }) {
              const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
              return user && password === PASSWORD ? { id: user.id, email: user.email, name: user.name ?? null } : null;
            },
          }),
        ],
      },
    });
    jwksUrl = `${t.url}/auth/jwks`;
    const published = (await (await fetch(jwksUrl)).json()) as { keys: Array<{ kty: string; kid: string }> };
    const kidOf = (kty: string) => published.keys.find((k) => k.kty === kty)!.kid;
    ed = { alg: 'EdDSA', jwk: edJwk, kid: kidOf('OKP') };
    p256 = { alg: 'ES256', jwk: p256Jwk, kid: kidOf('EC') };
    rsa = { alg: 'RS256', jwk: rsaJwk, kid: kidOf('RSA') };

    // The native-app flow: authorization request with PKCE, sign-in in the browser, code exchange.
    const email = `${randomUUID()}@example.test`;
    userId = (await adapter.createUser({ email, emailVerified: null, name: 'App User' } as never)).id;
    const as: oauth.AuthorizationServer = {
      issuer: ISSUER,
      authorization_endpoint: `${t.url}/auth/authorize`,
      token_endpoint: `${t.url}/auth/token`,
    };
    const client: oauth.Client = { client_id: 'ios' };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: 'ios',
      redirect_uri: REDIRECT,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    }))
      url.searchParams.set(k, v);
    const browser = new TestClient(t.url);
    const signIn = location(await browser.get(url.href));
    expect(signIn.pathname).toBe('/auth/signin');
    await browser.get(signIn.href);
    const csrfToken = await browser.csrf();
    const back = location(await browser.post('/auth/callback/credentials', { csrfToken, email, password: PASSWORD }));
    expect(back.pathname).toBe('/auth/authorize');
    const redirect = location(await browser.get(back.href));
    expect(redirect.protocol).toBe('com.example.app:');
    const params = oauth.validateAuthResponse(as, client, redirect, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    token = (await oauth.processAuthorizationCodeResponse(as, client, response)).access_token;
    claims = decodeJwt(token);
  });

  afterAll(async () => {
    await t?.close();
  });

  const verifierOf = (extra: Partial<AccessTokenVerifierOptions> = {}) =>
    createAccessTokenVerifier({ jwksUrl, issuer: ISSUER, audience: ISSUER, ...extra });

  /** A token signed with `key` (the app's Ed25519 key by default): the real token's claims and header, changed. */
  async function forge(
    change: { header?: Record<string, unknown>; claims?: Record<string, unknown> } = {},
    key: AppKey = ed,
  ): Promise<string> {
    const header = { alg: key.alg, typ: 'at+jwt', kid: key.kid, ...change.header };
    const payload = { ...claims, ...change.claims };
    for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
    return new SignJWT(payload)
      .setProtectedHeader(header as never)
      .sign(await importJWK(key.jwk, header.alg as string));
  }

  /** What a verifier makes of a token: its result, or its refusal (code and message). */
  async function outcome(
    verify: (token: string) => Promise<VerifiedAccessToken>,
    raw: string,
  ): Promise<VerifiedAccessToken | { code: string; message: string }> {
    try {
      return await verify(raw);
    } catch (error) {
      if (error instanceof AccessTokenError) return { code: error.code, message: error.message };
      throw error;
    }
  }

  /** The app's own guard on a token: the status of `GET /me`. */
  const guard = async (raw: string) =>
    (await fetch(`${t.url}/me`, { headers: { authorization: `Bearer ${raw}` } })).status;

  it('verifies a token from the native-app flow against the JWK Set URL, as the guard accepts it', async () => {
    const verified = await verifierOf()(token);
    expect(verified).toEqual({
      sub: userId,
      scopes: [],
      clientId: 'ios',
      sessionId: claims.sid,
      authTime: claims.auth_time,
      amr: ['pwd'],
      acr: 'aal1',
      claims,
    });
    expect(verified.authTime).toBeGreaterThan(now() - 60);
    expect(await guard(token)).toBe(200);
    // The same with the keys given inline (createLocalJWKSet), and with the URL as a URL.
    const jwks = (await (await fetch(jwksUrl)).json()) as JSONWebKeySet;
    expect(await createAccessTokenVerifier({ jwks, issuer: ISSUER, audience: ISSUER })(token)).toEqual(verified);
    expect(await verifierOf({ jwksUrl: new URL(jwksUrl) })(token)).toEqual(verified);
    // Tokens the app's P-256 key (ES256) and RSA key (RS256) sign are the other algorithms accepted.
    for (const key of [p256, rsa]) {
      const other = await forge({}, key);
      expect(await verifierOf()(other)).toEqual(verified);
      expect(await guard(other)).toBe(200);
    }
  });

  it('refuses what RFC 8725 says to refuse, with the code and a message that names the problem, as the guard does', async () => {
    const stranger = privateJwk('ed25519');
    const [h, p] = token.split('.') as [string, string, string];
    const cases: Array<[string, string, 'invalid_token' | 'expired_token', RegExp]> = [
      [
        'alg none, unsigned',
        `${b64({ alg: 'none', typ: 'at+jwt', kid: ed.kid })}.${p}.`,
        'invalid_token',
        /not a compact JWS/,
      ],
      [
        'alg none, with a signature part',
        `${b64({ alg: 'none', typ: 'at+jwt', kid: ed.kid })}.${p}.${token.split('.')[2]}`,
        'invalid_token',
        /alg must be EdDSA, RS256 or ES256/,
      ],
      [
        'HS256 keyed with the public key bytes',
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: ed.kid })
          .sign(Buffer.from(ed.jwk.x!, 'base64url')),
        'invalid_token',
        /alg must be EdDSA, RS256 or ES256/,
      ],
      [
        'ES256 under the Ed25519 key’s kid (the key decides the alg)',
        await forge({ header: { kid: ed.kid } }, p256),
        'invalid_token',
        /no key of the JWK Set matches its kid and alg/,
      ],
      [
        'RS256 under the Ed25519 key’s kid',
        await forge({ header: { kid: ed.kid } }, rsa),
        'invalid_token',
        /no key of the JWK Set matches its kid and alg/,
      ],
      [
        'EdDSA under the RSA key’s kid',
        await forge({ header: { kid: rsa.kid } }, ed),
        'invalid_token',
        /no key of the JWK Set matches its kid and alg/,
      ],
      [
        'another RSA key’s signature under the app’s RSA kid',
        await forge({}, { alg: 'RS256', jwk: privateJwk('rsa'), kid: rsa.kid }),
        'invalid_token',
        /signature does not verify/,
      ],
      ['typ JWT', await forge({ header: { typ: 'JWT' } }), 'invalid_token', /typ must be at\+jwt/],
      ['no typ', await forge({ header: { typ: undefined } }), 'invalid_token', /typ must be at\+jwt/],
      ['crit', await forge({ header: { crit: ['b64'], b64: true } }), 'invalid_token', /crit/],
      [
        'another audience',
        await forge({ claims: { aud: 'https://other.example.test' } }),
        'invalid_token',
        /aud does not include "https:\/\/api\.example\.test\/auth"/,
      ],
      [
        'another issuer',
        await forge({ claims: { iss: 'https://evil.example.test/auth' } }),
        'invalid_token',
        /iss is not "https:\/\/api\.example\.test\/auth"/,
      ],
      ['expired', await forge({ claims: { iat: now() - 700, exp: now() - 60 } }), 'expired_token', /expired/],
      [
        'issued in the future',
        await forge({ claims: { iat: now() + 120, exp: now() + 720 } }),
        'invalid_token',
        /issued in the future/,
      ],
      [
        'an unknown kid',
        await forge({ header: { kid: 'unknown-kid' } }, { alg: 'EdDSA', jwk: stranger, kid: 'unknown-kid' }),
        'invalid_token',
        /no key of the JWK Set matches its kid/,
      ],
      [
        'another key’s signature under the app’s kid',
        await forge({}, { alg: 'EdDSA', jwk: stranger, kid: ed.kid }),
        'invalid_token',
        /signature does not verify/,
      ],
      [
        'a huge token (signed by the app’s key)',
        await forge({ claims: { name: 'x'.repeat(8000) } }),
        'invalid_token',
        /longer than 4096 characters/,
      ],
      ['no sid', await forge({ claims: { sid: undefined } }), 'invalid_token', /sid claim/],
      ['an empty client_id', await forge({ claims: { client_id: '' } }), 'invalid_token', /client_id claim/],
      ['auth_time not a number', await forge({ claims: { auth_time: 'yesterday' } }), 'invalid_token', /auth_time/],
      [
        'a tampered payload',
        `${h}.${b64({ ...claims, sub: 'admin' })}.${token.split('.')[2]}`,
        'invalid_token',
        /signature/,
      ],
      ['not a JWT', 'Bearer nonsense', 'invalid_token', /not a compact JWS/],
    ];
    const verify = verifierOf();
    for (const [name, raw, code, message] of cases) {
      const got = await outcome(verify, raw);
      expect({ name, got }).toEqual({ name, got: { code, message: expect.stringMatching(message) } });
      // The message names the problem, never the token.
      expect((got as { message: string }).message).not.toContain(raw.split('.')[2] || raw);
      expect({ name, guard: await guard(raw) }).toEqual({ name, guard: 401 });
    }
    // The clock tolerance: a token expired 2 s ago passes with the default 5 s, not with 0.
    const justExpired = await forge({ claims: { exp: now() - 2 } });
    expect(await outcome(verifierOf(), justExpired)).toMatchObject({ sub: userId });
    expect(await outcome(verifierOf({ clockTolerance: 0 }), justExpired)).toMatchObject({ code: 'expired_token' });
  });

  it('requires scopes of a token limited to scopes (insufficient_scope); one without a scope claim has every scope, as the guard says', async () => {
    const scoped = await forge({ claims: { scope: 'orders:read profile' } });
    expect(await verifierOf({ requiredScopes: ['orders:read'] })(scoped)).toMatchObject({
      sub: userId,
      scopes: ['orders:read', 'profile'],
    });
    expect(await outcome(verifierOf({ requiredScopes: ['orders:read', 'orders:write'] }), scoped)).toEqual({
      code: 'insufficient_scope',
      message: 'Access token refused: it lacks the scope orders:write.',
    });
    expect(await outcome(verifierOf({ requiredScopes: ['admin', 'orders:write'] }), scoped)).toMatchObject({
      code: 'insufficient_scope',
      message: expect.stringContaining('scopes admin, orders:write'),
    });
    // The native app's token has no scope claim: not limited (AuthRouteOptions.scopes).
    expect(await verifierOf({ requiredScopes: ['orders:write'] })(token)).toMatchObject({ scopes: [] });
    expect(await outcome(verifierOf(), await forge({ claims: { scope: 7 } }))).toMatchObject({
      code: 'invalid_token',
      message: expect.stringContaining('scope claim'),
    });
  });

  it('refuses options it cannot honour at creation', () => {
    const base = { issuer: ISSUER, audience: ISSUER };
    expect(() => createAccessTokenVerifier(base)).toThrow(/jwksUrl or jwks/);
    expect(() => createAccessTokenVerifier({ ...base, jwksUrl, jwks: { keys: [] } })).toThrow(/jwksUrl or jwks/);
    expect(() => createAccessTokenVerifier({ ...base, jwksUrl: 'not a url' })).toThrow(/absolute URL/);
    expect(() => createAccessTokenVerifier({ ...base, jwks: {} as never })).toThrow(/JWK Set/);
    expect(() => createAccessTokenVerifier({ ...base, jwksUrl, issuer: '' })).toThrow(/issuer/);
    expect(() => createAccessTokenVerifier({ ...base, jwksUrl, clockTolerance: -1 })).toThrow(/clockTolerance/);
    expect(() => createAccessTokenVerifier({ ...base, jwksUrl, requiredScopes: ['a b'] })).toThrow(/requiredScopes/);
  });

  it('lets a JWK Set that cannot be fetched through as it is, not as a refusal of the token', async () => {
    const verify = createAccessTokenVerifier({ jwksUrl: `${t.url}/public`, issuer: ISSUER, audience: ISSUER });
    const error = await verify(token).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(AccessTokenError);
  });

  describe('bundled with jose by esbuild (one ES module, platform neutral)', () => {
    let bundle: string;
    /** The module of an edge function or a worker: verifies the bearer token of a request. */
    let handler: string;

    beforeAll(async () => {
      const out = await build({
        entryPoints: [join(import.meta.dirname, '..', 'lib', 'verify.ts')],
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        target: 'es2022',
        write: false,
        logLevel: 'silent',
      });
      bundle = out.outputFiles[0]!.text;
      handler = `import { AccessTokenError, createAccessTokenVerifier } from './verify.mjs';
const verify = createAccessTokenVerifier(${JSON.stringify({ jwksUrl, issuer: ISSUER, audience: ISSUER })});
const json = (status, body) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
export async function handle(request) {
  const runtime = typeof EdgeRuntime === 'string' ? 'edge-runtime' : globalThis.navigator?.userAgent;
  const token = (request.headers.get('authorization') ?? '').replace(/^Bearer /, '');
  try {
    const { sub, clientId, sessionId, authTime, amr, acr, scopes } = await verify(token);
    return json(200, { runtime, sub, clientId, sessionId, authTime, amr, acr, scopes });
  } catch (error) {
    if (error instanceof AccessTokenError) return json(401, { runtime, code: error.code, message: error.message });
    return json(500, { runtime, error: String(error) });
  }
}
`;
    });

    it('is one self-contained module: jose inside, no import, no Node built-in', () => {
      expect(bundle).not.toMatch(/^\s*import\b|\brequire\(|from\s*["']node:/m);
      expect(bundle).toMatch(/export\s*\{[^}]*createAccessTokenVerifier/);
      expect(bundle).toContain('createRemoteJWKSet');
    });

    /** What a runtime answers for the real token, an expired one and one for another audience. */
    async function answers(send: (token: string) => Promise<Response>) {
      const read = async (raw: string) => {
        const res = await send(raw);
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      return {
        good: await read(token),
        expired: await read(await forge({ claims: { iat: now() - 700, exp: now() - 60 } })),
        otherAudience: await read(await forge({ claims: { aud: 'https://other.example.test' } })),
      };
    }

    const expected = (runtime: string | RegExp) => ({
      good: {
        status: 200,
        body: {
          runtime: typeof runtime === 'string' ? runtime : expect.stringMatching(runtime),
          sub: userId,
          clientId: 'ios',
          sessionId: claims.sid,
          authTime: claims.auth_time,
          amr: ['pwd'],
          acr: 'aal1',
          scopes: [],
        },
      },
      expired: { status: 401, body: expect.objectContaining({ code: 'expired_token' }) },
      otherAudience: {
        status: 401,
        body: expect.objectContaining({ code: 'invalid_token', message: expect.stringMatching(/aud/) }),
      },
    });

    (edgeRuntime ? it : it.skip)(
      "runs in Vercel's Edge Runtime (EdgeVM), fetching the JWK Set from the app over HTTP",
      () =>
        withUnrefTimers(async () => {
          // The edge runtime's fetch reaches 127.0.0.1, so the keys come from the running app's URL.
          // EdgeVM evaluates scripts; the bundle stays an ES module, linked in the VM's own context.
          const runtime = new edgeRuntime!.EdgeRuntime();
          const context = runtime.context as unknown as vm.Context;
          const verifyModule = new vm.SourceTextModule(bundle, { context, identifier: 'verify.mjs' });
          const fn = new vm.SourceTextModule(
            `${handler}addEventListener('fetch', (event) => event.respondWith(handle(event.request)));\n`,
            { context, identifier: 'edge-function.mjs' },
          );
          await fn.link((specifier) => {
            if (specifier === './verify.mjs') return verifyModule;
            throw new Error(`no module ${specifier} in the edge function`);
          });
          await fn.evaluate();
          const result = await answers(async (raw) => {
            const res = await runtime.dispatchFetch('https://edge.example.test/orders', {
              headers: { authorization: `Bearer ${raw}` },
            });
            await res.waitUntil();
            return res as unknown as Response;
          });
          expect(result).toEqual(expected('edge-runtime'));
        }),
    );

    (miniflare ? it : it.skip)(
      "runs in Cloudflare's workerd (miniflare), fetching the JWK Set from the app over HTTP",
      async () => {
        // workerd's outbound fetch reaches 127.0.0.1 too: the keys come from the running app's URL.
        const mf = new miniflare!.Miniflare({
          compatibilityDate: '2025-01-01',
          modules: [
            { type: 'ESModule', path: 'worker.mjs', contents: `${handler}export default { fetch: handle };\n` },
            { type: 'ESModule', path: 'verify.mjs', contents: bundle },
          ],
        });
        try {
          const result = await answers(
            async (raw) =>
              (await mf.dispatchFetch('https://worker.example.test/orders', {
                headers: { authorization: `Bearer ${raw}` },
              })) as unknown as Response,
          );
          expect(result).toEqual(expected(/^Cloudflare-Workers/));
        } finally {
          await mf.dispose();
        }
      },
    );
  });
});
