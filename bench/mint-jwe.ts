// Mints session JWTs for the benchmark's 50,000-cookie scenario without a promise per token: the
// library's own synchronous encryption (lib/session/jwe-encrypt.ts) under the key lib/session/jwt.ts
// derives (HKDF, thumbprint `kid`), with `iat`/`exp`/`jti` as `encode` sets them. The guard decrypts
// these like any other session (the server's first token comes from `encode` itself, and a refused
// token would fail the run).
import { createSecretKey, hkdfSync, randomUUID } from 'node:crypto';
import { encryptJwe, sessionClaims } from '../lib/session/jwe-encrypt.js';
import { thumbprint } from '../lib/session/jwt.js';

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
