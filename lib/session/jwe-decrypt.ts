import { createDecipheriv, type KeyObject } from 'node:crypto';
import type { JWT } from '../types/common.types.js';
import { CLOCK_SKEW_SECONDS, checkTimeClaims } from '../util/instant.js';
import { canonicalB64u } from '../util/base64url.js';
import { CbcHs512Key } from './cbc-hs512.js';

// The session JWT's decryption, written against `node:crypto` directly: it runs on every guarded
// request whose token is not in the session cache, and a generic JOSE library's async, WebCrypto-
// shaped path costs several times the route it guards. It reads exactly what Auth.js (and our
// encoder) mint: JWE compact serialization, `alg: "dir"`, `enc: "A256CBC-HS512"` or `"A256GCM"`,
// and applies the rules `jose`'s `jwtDecrypt` applies to such a token (checked against it in
// jwe-decrypt.spec.ts), plus two refusals of its own: `zip` (no compressed tokens, no decompression
// bombs) and non-canonical base64url.

/** The keys of one secret, as the decrypter needs them (see jwt.ts for their derivation). */
export interface JweSecretKeys {
  cbc: { kid: string; mac: KeyObject; aes: KeyObject };
  gcm: { kid: string; aes: KeyObject };
}

/** The outcome of a decryption: the claims, or why there are none. */
export type JweInspection = { status: 'valid'; payload: JWT } | { status: 'expired' | 'invalid' };

/**
 * Longest token looked at. Larger input is junk (a session cookie is chunked at ~4 KB per chunk and
 * browsers cap a host's cookies far below this), so it is refused before any parsing.
 */
export const MAX_JWE_LENGTH = 256 * 1024;
/** Distinct valid protected headers remembered per keyring (one per secret and `enc` in practice). */
const HEADER_CACHE_MAX = 16;

const INVALID: JweInspection = Object.freeze({ status: 'invalid' });
const EXPIRED: JweInspection = Object.freeze({ status: 'expired' });

/** Five base64url parts, the second (the encrypted key) empty as `alg: "dir"` requires. */
const COMPACT_DIR = /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A validated protected header: the content encryption, its key and the claims it replicates. */
interface HeaderPlan {
  gcm: boolean;
  /** A256CBC-HS512: the key that opens the token. */
  cbc?: CbcHs512Key;
  /** A256GCM: the AES key. */
  aes?: KeyObject;
  /** AAD length in bits, 64-bit big-endian (A256CBC-HS512's MAC input). */
  al?: Buffer;
  /** RFC 7519 section 5.3 claims the header repeats; they must equal the payload's. */
  replicated?: { iss?: unknown; sub?: unknown; aud?: unknown };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Decrypts session JWTs for one keyring (the secrets of one salt, first one first). Synchronous;
 * never throws; keeps the last few valid protected headers it parsed, so a token's header (the same
 * for every token of a secret) is parsed and checked once.
 */
export class JweDecrypter {
  private readonly headers = new Map<string, HeaderPlan>();
  /** The A256CBC-HS512 opener of each secret, built on the first token that needs it. */
  private readonly cbcKeys = new Map<JweSecretKeys, CbcHs512Key>();
  /** The header of the last token whose header was valid, and its plan. */
  private lastHeader = '';
  private lastPlan: HeaderPlan | undefined;

  constructor(private readonly keyring: readonly JweSecretKeys[]) {}

  /** The claims of `token` at `now` (ms), or `invalid` / `expired` (the latter only once it decrypted). */
  inspect(token: unknown, now: number): JweInspection {
    if (typeof token !== 'string' || token.length > MAX_JWE_LENGTH || !COMPACT_DIR.test(token)) return INVALID;
    const h = token.indexOf('.');
    const i = h + 2; // after the empty encrypted key
    const c = token.indexOf('.', i);
    const t = token.indexOf('.', c + 1);
    if (!canonicalB64u(token, i, c) || !canonicalB64u(token, c + 1, t) || !canonicalB64u(token, t + 1, token.length))
      return INVALID;
    const header = token.slice(0, h);
    // Tokens of one secret share their header: compared with the last one before any map lookup
    // (which would hash the new string's ~100 characters on every token).
    const plan = header === this.lastHeader ? this.lastPlan : (this.headers.get(header) ?? this.plan(header));
    if (plan) {
      this.lastHeader = header;
      this.lastPlan = plan;
    }
    if (!plan) return INVALID;
    let plaintext: Buffer | undefined;
    if (plan.cbc) {
      // RFC 7518 section 5.2.2.2: the tag is checked in constant time before anything is decrypted.
      plaintext = plan.cbc.open(token, h, i, c, t, plan.al!);
      if (!plaintext) return INVALID;
    } else {
      const iv = Buffer.from(token.slice(i, c), 'base64url');
      const ciphertext = Buffer.from(token.slice(c + 1, t), 'base64url');
      const tag = Buffer.from(token.slice(t + 1), 'base64url');
      if (iv.length !== 12 || tag.length !== 16) return INVALID;
      try {
        const decipher = createDecipheriv('aes-256-gcm', plan.aes!, iv, { authTagLength: 16 });
        decipher.setAAD(Buffer.from(header, 'latin1'));
        decipher.setAuthTag(tag);
        plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
      } catch {
        return INVALID;
      }
    }
    return claimsOf(plaintext, plan, now);
  }

  /** Parses and checks a protected header; remembers it when valid. */
  private plan(header: string): HeaderPlan | undefined {
    if (!canonicalB64u(header, 0, header.length)) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(strictUtf8.decode(Buffer.from(header, 'base64url')));
    } catch {
      return undefined;
    }
    if (!isPlainObject(parsed)) return undefined;
    // No critical extension is understood, and compressed tokens are not accepted.
    if (parsed.crit !== undefined || parsed.zip !== undefined) return undefined;
    if (parsed.alg !== 'dir') return undefined;
    const gcm = parsed.enc === 'A256GCM';
    if (!gcm && parsed.enc !== 'A256CBC-HS512') return undefined;
    // Tokens without a kid predate rotation: Auth.js tries the first secret only, and so do we.
    const keys =
      parsed.kid === undefined
        ? this.keyring[0]
        : this.keyring.find((k) => (gcm ? k.gcm.kid : k.cbc.kid) === parsed.kid);
    if (!keys) return undefined;
    const plan: HeaderPlan = gcm ? { gcm, aes: keys.gcm.aes } : { gcm, cbc: this.cbcKeyOf(keys) };
    if (!gcm) {
      plan.al = Buffer.alloc(8);
      plan.al.writeBigUInt64BE(BigInt(header.length * 8));
    }
    if (parsed.iss !== undefined || parsed.sub !== undefined || parsed.aud !== undefined)
      plan.replicated = { iss: parsed.iss, sub: parsed.sub, aud: parsed.aud };
    if (this.headers.size >= HEADER_CACHE_MAX) this.headers.delete(this.headers.keys().next().value!);
    this.headers.set(header, plan);
    return plan;
  }

  private cbcKeyOf(keys: JweSecretKeys): CbcHs512Key {
    let opener = this.cbcKeys.get(keys);
    if (!opener) {
      opener = new CbcHs512Key(keys.cbc.mac, keys.cbc.aes);
      this.cbcKeys.set(keys, opener);
    }
    return opener;
  }
}

/** The JWT claims of a decrypted payload, with the checks `jwtDecrypt` makes and ours on top. */
function claimsOf(plaintext: Buffer, plan: HeaderPlan, now: number): JweInspection {
  let payload: unknown;
  try {
    payload = JSON.parse(strictUtf8.decode(plaintext));
  } catch {
    return INVALID;
  }
  if (!isPlainObject(payload)) return INVALID;
  const { iat, nbf, exp } = payload;
  // NumericDate claims must be numbers; `exp` is required (a token without it would never expire).
  if (iat !== undefined && typeof iat !== 'number') return INVALID;
  if (nbf !== undefined && typeof nbf !== 'number') return INVALID;
  if (typeof exp !== 'number') return INVALID;
  const seconds = Math.floor(now / 1000);
  if (nbf !== undefined && nbf > seconds + CLOCK_SKEW_SECONDS) return INVALID;
  if (exp <= seconds - CLOCK_SKEW_SECONDS) return EXPIRED;
  const replicated = plan.replicated;
  if (replicated) {
    if (replicated.iss !== undefined && replicated.iss !== payload.iss) return INVALID;
    if (replicated.sub !== undefined && replicated.sub !== payload.sub) return INVALID;
    if (replicated.aud !== undefined && JSON.stringify(replicated.aud) !== JSON.stringify(payload.aud)) return INVALID;
  }
  // The range (an `exp` no Date can hold, an `iat` in the future) is checked here, so a token
  // minted with the secret and odd claims is invalid.
  const verdict = checkTimeClaims(payload, now, CLOCK_SKEW_SECONDS * 1000);
  if (verdict.status !== 'valid') return verdict.status === 'expired' ? EXPIRED : INVALID;
  return { status: 'valid', payload: payload as JWT };
}
