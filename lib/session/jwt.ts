import { createHash, createSecretKey, hkdfSync, randomUUID, type KeyObject } from 'node:crypto';
import type { JWTDecodeParams, JWTEncodeParams } from '../config/auth-options.interface.js';
import { MissingSecret } from '../errors/auth.errors.js';
import type { JWT } from '../types/common.types.js';
import { JweDecrypter, type JweInspection } from './jwe-decrypt.js';
import { encryptJwe, sessionClaims } from './jwe-encrypt.js';

/** Seconds a token lives when no `maxAge` is given: 30 days, as in Auth.js. */
const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60;
/** How many (secret, salt) key sets are kept; each costs two HKDF runs and two hashes to rebuild. */
const KEY_CACHE_MAX = 64;

/** The keys derived from one secret for one salt, one per content encryption algorithm. */
interface SecretKeys {
  /** 64-byte key for A256CBC-HS512 (MAC key, then AES key), with its JWK thumbprint (the `kid`). */
  cbc: { kid: string; mac: KeyObject; aes: KeyObject };
  /** 32-byte key for A256GCM, with its JWK thumbprint. */
  gcm: { kid: string; aes: KeyObject };
}

/** An encoder/decoder with its keys derived once; see {@link createJwtCodec}. */
export interface JwtCodec {
  /**
   * Encrypts `payload` with the first secret. `iat`, `exp` (now + maxAge) and a fresh `jti` are
   * set on every call, replacing any the payload carries.
   */
  encode(payload: JWT): Promise<string>;
  /**
   * Decrypts a token minted by this library or by Auth.js with the same secret and salt.
   * Returns `null` for anything that is not a valid, unexpired token; never throws.
   */
  decode(token: string): Promise<JWT | null>;
  /**
   * Like `decode`, but says why a token was refused: `expired` (decrypted fine, `exp` passed) or
   * `invalid` (anything else). Never throws.
   */
  inspect(token: string): Promise<JwtInspection>;
  /** {@link inspect} without a promise: the decryption is synchronous (`node:crypto`). */
  inspectSync(token: string, now?: number): JwtInspection;
}

/** The outcome of {@link JwtCodec.inspect}. */
export type JwtInspection = JweInspection;

// Derived keys are cached because decode runs on every guarded request. The cache key holds the
// secret itself; the derived keys it maps to are just as sensitive, and both stay in this process.
const keyCache = new Map<string, SecretKeys>();

function secretKeys(secret: string, salt: string): SecretKeys {
  const cacheKey = `${salt}\u0000${secret}`;
  let keys = keyCache.get(cacheKey);
  if (!keys) {
    keys = deriveSecretKeys(secret, salt);
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(cacheKey, keys);
  }
  return keys;
}

function deriveSecretKeys(secret: string, salt: string): SecretKeys {
  const info = `Auth.js Generated Encryption Key (${salt})`;
  const cbc = new Uint8Array(hkdfSync('sha256', secret, salt, info, 64));
  const gcm = new Uint8Array(hkdfSync('sha256', secret, salt, info, 32));
  return {
    // RFC 7518 section 5.2.2.1: the first half authenticates (HMAC-SHA-512), the second encrypts.
    cbc: {
      kid: thumbprint(cbc),
      mac: createSecretKey(cbc.subarray(0, 32)),
      aes: createSecretKey(cbc.subarray(32)),
    },
    gcm: { kid: thumbprint(gcm), aes: createSecretKey(gcm) },
  };
}

/**
 * The `kid` Auth.js puts in the header: the RFC 7638 thumbprint of the key as an `oct` JWK (its
 * required members `k` and `kty` in lexicographic order, hashed with SHA-512 for the 64-byte key and
 * SHA-256 for the 32-byte one), computed here without a promise.
 */
export function thumbprint(key: Uint8Array): string {
  const jwk = `{"k":"${Buffer.from(key).toString('base64url')}","kty":"oct"}`;
  return createHash(key.byteLength === 64 ? 'sha512' : 'sha256')
    .update(jwk)
    .digest('base64url');
}

function normalizeSecrets(secret: string | string[] | undefined): string[] {
  const secrets = (Array.isArray(secret) ? secret : [secret]).filter(
    (s): s is string => typeof s === 'string' && s.length > 0,
  );
  if (secrets.length === 0) throw new MissingSecret('A JWT needs a secret: set `secret` or AUTH_SECRET.');
  return secrets;
}

function assertSalt(salt: unknown): asserts salt is string {
  if (typeof salt !== 'string' || salt.length === 0) {
    throw new TypeError('A JWT needs a salt: the name of the cookie it is stored in (e.g. "authjs.session-token").');
  }
}

async function encryptWith(keys: SecretKeys, payload: JWT | undefined, maxAge: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  // Always A256CBC-HS512, Auth.js's choice (A256GCM is only read).
  return encryptJwe(keys.cbc, sessionClaims(payload, { iat: now, exp: now + maxAge, jti: randomUUID() }));
}

function payloadOf(result: JwtInspection): JWT | null {
  return result.status === 'valid' ? result.payload : null;
}

/**
 * Encrypts a JWT exactly as Auth.js does: JWE compact serialization, `alg: "dir"`,
 * `enc: "A256CBC-HS512"`, key = HKDF-SHA256(secret, salt, "Auth.js Generated Encryption Key
 * (<salt>)", 64 bytes), `kid` = the key's JWK thumbprint, claims `iat`, `exp` = now + `maxAge`
 * and a fresh `jti`. With several secrets, the first encrypts.
 *
 * The `salt` of a session is the session cookie's name (`authjs.session-token`, or
 * `__Secure-authjs.session-token` over https).
 *
 * @throws MissingSecret when no secret is given; TypeError when the salt is missing
 */
export async function encode(params: JWTEncodeParams): Promise<string> {
  const secrets = normalizeSecrets(params.secret);
  assertSalt(params.salt);
  const maxAge = params.maxAge ?? DEFAULT_MAX_AGE;
  return encryptWith(secretKeys(secrets[0], params.salt), params.token, maxAge);
}

/**
 * Decrypts a JWT minted by {@link encode} or by Auth.js with the same secret and salt. Accepts
 * `A256CBC-HS512` and `A256GCM`; with several secrets, the one whose key matches the token's `kid`
 * decrypts (a token without `kid` is tried with the first secret only). Expiry is checked with
 * 15 seconds of clock tolerance; an `exp` no `Date` can hold, or an `iat`/`nbf` more than 15 seconds
 * in the future, makes the token invalid.
 *
 * Unlike Auth.js's `decode`, this never throws on bad input: a missing, malformed, tampered,
 * expired or foreign token yields `null`. Decryption uses `node:crypto` directly (see
 * jwe-decrypt.ts): compressed (`zip`) tokens, `crit` headers and non-canonical base64url are refused.
 *
 * @throws MissingSecret when no secret is given; TypeError when the salt is missing
 */
export async function decode(params: JWTDecodeParams): Promise<JWT | null> {
  const secrets = normalizeSecrets(params.secret);
  assertSalt(params.salt);
  if (!params.token) return null;
  const keyring = secrets.map((secret) => secretKeys(secret, params.salt));
  return payloadOf(new JweDecrypter(keyring).inspect(params.token, Date.now()));
}

/**
 * An encoder/decoder bound to one secret list, salt and lifetime, with its keys derived once:
 * the session service and check cookies use it on every request. Same format and rules as
 * {@link encode} and {@link decode}.
 *
 * @param secrets the first encrypts, any decrypts
 * @param salt the cookie name the token is stored in
 * @param maxAge seconds until `exp` @default 2592000 (30 days) when not a positive number
 * @throws MissingSecret when `secrets` is empty; TypeError when the salt is missing
 */
export function createJwtCodec(secrets: string[], salt: string, maxAge: number): JwtCodec {
  const list = normalizeSecrets(secrets);
  assertSalt(salt);
  const lifetime = Number.isFinite(maxAge) && maxAge > 0 ? maxAge : DEFAULT_MAX_AGE;
  // Keys are derived on first use (start-up creates several codecs, most used later or never), then
  // kept here: the shared cache may evict them, the codec must not re-derive.
  let keyring: SecretKeys[] | undefined;
  let decrypter: JweDecrypter | undefined;
  const keys = () => (keyring ??= list.map((secret) => secretKeys(secret, salt)));
  const opener = () => (decrypter ??= new JweDecrypter(keys()));
  return {
    encode: (payload) => encryptWith(keys()[0], payload, lifetime),
    decode: (token) => Promise.resolve(payloadOf(opener().inspect(token, Date.now()))),
    inspect: (token) => Promise.resolve(opener().inspect(token, Date.now())),
    inspectSync: (token, now = Date.now()) => opener().inspect(token, now),
  };
}
