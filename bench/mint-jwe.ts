// Mints session JWTs for the benchmark's 50,000-cookie scenario without a promise per token: the
// library's own synchronous encryption (lib/session/jwe-encrypt.ts) under the key lib/session/jwt.ts
// derives (HKDF, thumbprint `kid`), with `iat`/`exp`/`jti` as `encode` sets them. The guard decrypts
// these like any other session (the server's first token comes from `encode` itself, and a refused
// token would fail the run).
import { createSecretKey, hkdfSync, randomUUID } from 'node:crypto';
import { encryptJwe, sessionClaims } from '../lib/session/jwe-encrypt.js';
import { encode, thumbprint } from '../lib/session/jwt.js';

export function jweMinter(secret: string, salt: string, maxAge = 30 * 24 * 3600): (claims: object) => string {
  const key = new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, 64));
  const encryption = {
    kid: thumbprint(key),
    mac: createSecretKey(key.subarray(0, 32)),
    aes: createSecretKey(key.subarray(32)),
  };
  return (claims) => {
    const now = Math.floor(Date.now() / 1000);
    return encryptJwe(encryption, sessionClaims(claims, { iat: now, exp: now + maxAge, jti: randomUUID() }));
  };
}

/** The session cookie's name (http): the salt of its JWE key. */
export const BENCH_COOKIE_NAME = 'authjs.session-token';

/**
 * Cookie headers of `count` JWT sessions, each another user's (`bench-user-<i>`) with the claims a
 * password sign-in writes (its time and assurance): the first through the library's `encode` (jose),
 * the rest through {@link jweMinter}, 50,000 in a second or two.
 */
export async function mintSessionCookies(secret: string, count: number): Promise<string[]> {
  const claims = (i: number) => ({
    sub: `bench-user-${i}`,
    name: `Bench User ${i}`,
    email: `bench-${i}@example.com`,
    picture: null,
    auth_time: Math.floor(Date.now() / 1000),
    amr: ['pwd'],
    acr: 'aal1',
  });
  const name = BENCH_COOKIE_NAME;
  const cookies = [`${name}=${await encode({ token: claims(0), secret, salt: name })}`];
  const mint = jweMinter(secret, name);
  for (let i = 1; i < count; i++) cookies.push(`${name}=${mint(claims(i))}`);
  return cookies;
}
