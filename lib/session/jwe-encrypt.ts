import { createCipheriv, createHmac, randomBytes, type KeyObject } from 'node:crypto';

// The session JWT's encryption, written against `node:crypto` directly so that signing in with a
// JWT session never loads a JOSE library (start-up loads nothing it does not need). It writes what
// Auth.js's encoder writes, byte for byte but for the random IV and `jti`: JWE compact
// serialization, `alg: "dir"`, `enc: "A256CBC-HS512"` (RFC 7516; RFC 7518 section 5.2.2.1), the
// protected header `{"alg":"dir","enc":"A256CBC-HS512","kid":…}` in that order and the claims in
// the order Auth.js's `jose` builder leaves them. jwe-encrypt.spec.ts checks both against `jose`
// and `@auth/core`; jwe-decrypt.ts reads it back.

/** The A256CBC-HS512 key of one secret (see jwt.ts): the first 32 bytes MAC, the last 32 encrypt. */
export interface CbcHs512EncryptionKey {
  kid: string;
  mac: KeyObject;
  aes: KeyObject;
}

/** The registered claims every session JWT gets (seconds since the epoch, and a unique id). */
export interface IssuedClaims {
  iat: number;
  exp: number;
  jti: string;
}

/**
 * The claims set: a copy of `payload` with `iat`, `exp` and `jti` set in that order, a claim the
 * payload already has keeping its place. The copy is a structured clone, as the builder Auth.js
 * uses makes it, so the same payload serializes the same way (a class instance is copied as a
 * plain object, a function is refused).
 *
 * @throws TypeError when `iat` or `exp` is not a finite number, `jti` not a string, or the
 *   payload's `nbf` a number that is not finite (JSON would silently turn it into null)
 */
export function sessionClaims(payload: object | undefined, issued: IssuedClaims): Record<string, unknown> {
  if (!Number.isFinite(issued.iat)) throw new TypeError('Invalid setIssuedAt input');
  if (!Number.isFinite(issued.exp)) throw new TypeError('Invalid setExpirationTime input');
  if (typeof issued.jti !== 'string') throw new TypeError('"jti" claim must be a string');
  const claims = structuredClone({ ...(payload ?? {}) }) as Record<string, unknown>;
  claims.iat = issued.iat;
  claims.exp = issued.exp;
  claims.jti = issued.jti;
  if (typeof claims.nbf === 'number' && !Number.isFinite(claims.nbf))
    throw new TypeError('"nbf" claim must be a finite number');
  return claims;
}

/**
 * `claims` as a JWE (compact serialization, `dir`, A256CBC-HS512) under `key`: a random 16-byte
 * IV, AES-256-CBC with PKCS #7 padding, and as tag the first 32 bytes of HMAC-SHA-512 over the
 * AAD (the encoded protected header, as ASCII), the IV, the ciphertext and the AAD's length in
 * bits as a 64-bit big-endian number.
 */
export function encryptJwe(key: CbcHs512EncryptionKey, claims: Record<string, unknown>): string {
  const header = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256CBC-HS512', kid: key.kid })).toString('base64url');
  const aadBits = Buffer.alloc(8);
  aadBits.writeBigUInt64BE(BigInt(header.length * 8));
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key.aes, iv);
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(JSON.stringify(claims), 'utf8')), cipher.final()]);
  const tag = createHmac('sha512', key.mac)
    .update(header)
    .update(iv)
    .update(ciphertext)
    .update(aadBits)
    .digest()
    .subarray(0, 32);
  return `${header}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${tag.toString('base64url')}`;
}
