import { createHmac, randomBytes } from 'node:crypto';
import type { CryptoPlugin } from 'otplib';
import { constantTimeEqual } from '../../util/constant-time.js';
import { lazyModule } from '../../util/lazy-module.js';

/**
 * otplib's functional API, imported on the first code made or checked, never at start-up (it and its
 * noble/scure plugins take some 35 ms to load; an application without two-factor never needs them).
 */
const otplib = lazyModule(() => import('otplib/functional'));

/** The HMAC of a TOTP code (RFC 6238 allows SHA-1, SHA-256 and SHA-512; authenticator apps mostly read SHA-1). */
export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';
/** The length of a TOTP code. */
export type TotpDigits = 6 | 7 | 8;

/** How an application's TOTP codes are made, and the issuer an authenticator app shows. */
export interface TotpSettings {
  algorithm: TotpAlgorithm;
  digits: TotpDigits;
  /** Seconds per time step. */
  period: number;
  /** The name the authenticator app shows next to the account (no colon: the URI label uses one). */
  issuer: string;
}

/** What every authenticator app reads: SHA-1, six digits, thirty seconds. */
export const TOTP_DEFAULTS = { algorithm: 'sha1', digits: 6, period: 30 } as const satisfies Omit<
  TotpSettings,
  'issuer'
>;

/** Random bytes in a secret: 160 bits, the HMAC-SHA-1 block RFC 4226 recommends. */
export const TOTP_SECRET_BYTES = 20;
/** Steps accepted on each side of the current one when `window` is not given (clock drift, typing time). */
export const TOTP_DEFAULT_WINDOW = 1;
/** The widest `window` allowed: each step is an HMAC and a chance to guess. */
export const TOTP_MAX_WINDOW = 10;
/** Longest code input examined at all (spaces included); anything longer is malformed. */
const MAX_CODE_INPUT = 32;
/** Could be a base32 secret of up to 64 bytes (otplib then refuses one under 16 bytes), padded or not. */
const BASE32_SECRET = /^[A-Z2-7]{16,103}=*$/i;

const ALGORITHMS: readonly TotpAlgorithm[] = ['sha1', 'sha256', 'sha512'];

/**
 * otplib's crypto plugin on `node:crypto` (its default, `@noble/hashes`, is pure JavaScript; the
 * `@otplib/plugin-crypto-node` package is not a dependency). otplib normalises the algorithm name
 * against `algorithms` before calling `hmac`.
 */
const nodeCrypto: CryptoPlugin = {
  name: 'node',
  algorithms: ALGORITHMS,
  hmac(algorithm, key, data) {
    if (!ALGORITHMS.includes(algorithm)) throw new TypeError(`Unsupported TOTP algorithm: ${String(algorithm)}`);
    return new Uint8Array(createHmac(algorithm, key).update(data).digest());
  },
  randomBytes: (length) => new Uint8Array(randomBytes(length)),
  constantTimeEqual: (a, b) =>
    constantTimeEqual(
      typeof a === 'string' ? a : Buffer.from(a).toString('hex'),
      typeof b === 'string' ? b : Buffer.from(b).toString('hex'),
    ),
};

/** Options of the code's form: algorithm, digits, period (the defaults are {@link TOTP_DEFAULTS}). */
export interface TotpFormat {
  algorithm?: TotpAlgorithm;
  digits?: TotpDigits;
  period?: number;
}

export interface TotpCodeOptions extends TotpFormat {
  /** The time, epoch milliseconds (default: now). */
  now?: number;
}

export interface TotpVerifyOptions extends TotpCodeOptions {
  /** The step of the last accepted code: this step and every earlier one are refused (replay). */
  afterStep?: number | null;
  /** Steps accepted on each side of the current one (default 1, at most {@link TOTP_MAX_WINDOW}). */
  window?: number;
}

/** A new secret: {@link TOTP_SECRET_BYTES} random bytes, base32 (RFC 4648, unpadded, upper case). */
export function createTotpSecret(): string {
  return base32(randomBytes(TOTP_SECRET_BYTES));
}

/**
 * The `otpauth://totp/<issuer>:<label>?secret=…&issuer=…` URI an authenticator app scans (Key URI
 * Format), written as otplib's `generateURI` writes it (the spec compares the two) without loading
 * otplib. Colons are removed from the issuer and the label: the format separates them with one.
 * Algorithm, digits and period are written only when they differ from the defaults.
 * @throws TypeError when the issuer or the label is empty or the secret is not base32
 */
export function totpUri(params: {
  issuer: string;
  label: string;
  secret: string;
  algorithm?: TotpAlgorithm;
  digits?: TotpDigits;
  period?: number;
}): string {
  const { algorithm, digits, period } = format(params);
  const issuer = params.issuer.replace(/:/g, '').trim();
  const label = params.label.replace(/:/g, '').trim();
  if (!issuer || !label) throw new TypeError('A TOTP URI needs an issuer and a label.');
  if (!BASE32_SECRET.test(params.secret)) throw new TypeError('A TOTP secret is base32.');
  const query = [`secret=${encodeURIComponent(params.secret)}`, `issuer=${encodeURIComponent(issuer)}`];
  if (algorithm !== TOTP_DEFAULTS.algorithm) query.push(`algorithm=${algorithm.toUpperCase()}`);
  if (digits !== TOTP_DEFAULTS.digits) query.push(`digits=${digits}`);
  if (period !== TOTP_DEFAULTS.period) query.push(`period=${period}`);
  return `otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(label)}?${query.join('&')}`;
}

/**
 * The code of `secret` at `opts.now` (default: now). For tests and end-to-end suites; a server
 * verifies codes, it never needs to make one.
 * @throws when the secret is not base32 of at least 16 bytes
 */
export async function totpCode(secret: string, opts: TotpCodeOptions = {}): Promise<string> {
  const { algorithm, digits, period } = format(opts);
  const epoch = epochOf(opts.now);
  const { generate } = await otplib.load();
  return generate({ secret, algorithm, digits, period, epoch, crypto: nodeCrypto });
}

/**
 * Checks a code typed by the user: the step it matched, or `null`. Codes of the `window` steps
 * either side of now are accepted, except any step at or before `afterStep` (store the step returned
 * and pass it next time: a code is good once). Spaces in the code are ignored ("123 456"). Anything
 * malformed (not a string, not digits, wrong length, a secret that is not base32) is `null`, never a
 * throw; only options that cannot be right (a window out of range, an unknown algorithm) throw.
 * @throws RangeError on an impossible `window`, `digits`, `period`, `algorithm` or `now`
 */
export async function verifyTotp(
  secret: unknown,
  code: unknown,
  opts: TotpVerifyOptions = {},
): Promise<{ step: number } | null> {
  const { algorithm, digits, period } = format(opts);
  const window = opts.window ?? TOTP_DEFAULT_WINDOW;
  if (!Number.isSafeInteger(window) || window < 0 || window > TOTP_MAX_WINDOW) {
    throw new RangeError(`window must be an integer from 0 to ${TOTP_MAX_WINDOW}.`);
  }
  if (typeof secret !== 'string' || !BASE32_SECRET.test(secret)) return null;
  if (typeof code !== 'string' || code.length > MAX_CODE_INPUT) return null;
  const token = code.replace(/\s+/g, '');
  if (token.length !== digits || !/^[0-9]+$/.test(token)) return null;

  const epoch = epochOf(opts.now);
  const current = Math.floor(epoch / period);
  let afterTimeStep: number | undefined;
  if (opts.afterStep != null) {
    if (typeof opts.afterStep !== 'number' || Number.isNaN(opts.afterStep)) return null; // fail closed
    const after = Math.floor(opts.afterStep);
    // Every step of the window is at or before the last one used (a clock set back): nothing to accept.
    if (after >= current + window) return null;
    if (after >= 0) afterTimeStep = after;
  }
  const { verify } = await otplib.load();
  try {
    const result = await verify({
      secret,
      token,
      algorithm,
      digits,
      period,
      epoch,
      epochTolerance: window * period,
      ...(afterTimeStep !== undefined ? { afterTimeStep } : {}),
      crypto: nodeCrypto,
    });
    return result.valid && 'timeStep' in result ? { step: result.timeStep } : null;
  } catch {
    // A secret that base32 cannot decode, or one too short or too long for otplib.
    return null;
  }
}

/** The form options with their defaults, checked. */
function format(opts: TotpFormat): Required<TotpFormat> {
  const algorithm = opts.algorithm ?? TOTP_DEFAULTS.algorithm;
  const digits = opts.digits ?? TOTP_DEFAULTS.digits;
  const period = opts.period ?? TOTP_DEFAULTS.period;
  if (!ALGORITHMS.includes(algorithm)) throw new RangeError(`algorithm must be one of ${ALGORITHMS.join(', ')}.`);
  if (digits !== 6 && digits !== 7 && digits !== 8) throw new RangeError('digits must be 6, 7 or 8.');
  if (!Number.isSafeInteger(period) || period < 1 || period > 3600) {
    throw new RangeError('period must be a whole number of seconds from 1 to 3600.');
  }
  return { algorithm, digits, period };
}

/** Epoch seconds of a time in milliseconds (default: now). */
function epochOf(now: number | undefined): number {
  const ms = now ?? Date.now();
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError('now must be a non-negative time in milliseconds.');
  return Math.floor(ms / 1000);
}

/** RFC 4648 base32, upper case, unpadded (what authenticator apps read). */
function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let value = 0;
  let bits = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += alphabet[(value >>> bits) & 31];
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}
