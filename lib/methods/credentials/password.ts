import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Cost parameters of the scrypt password hash. The defaults meet OWASP's password-storage minimum
 * for scrypt with p=1 (N=2^17, r=8: 128 MiB and about 0.2 s per hash on a current server core).
 */
export interface PasswordHashOptions {
  /** log2 of the CPU/memory cost N. @default 17 (N = 131072) */
  ln?: number;
  /** Block size. @default 8 */
  r?: number;
  /** Parallelism. @default 1 */
  p?: number;
  /** Length of the derived key in bytes (16 to 64). @default 32 */
  keyLength?: number;
}

/** The scrypt parameters and defaults used by {@link hashPassword} (the docs quote them). */
export const PASSWORD_DEFAULTS: Readonly<Required<PasswordHashOptions>> & {
  saltLength: number;
  maxPasswordBytes: number;
} = Object.freeze({
  ln: 17,
  r: 8,
  p: 1,
  keyLength: 32,
  /** Bytes of random salt per hash. */
  saltLength: 16,
  /**
   * Longest accepted password, in UTF-8 bytes after NFKC normalisation: generous for passphrases,
   * small enough that a huge "password" cannot be used to burn CPU.
   */
  maxPasswordBytes: 1024,
});

/** Upper bounds accepted when verifying a stored hash, so a corrupted row cannot ask for gigabytes. */
const MAX_LN = 24;
const MAX_R = 32;
const MAX_P = 16;
const MAX_MEMORY = 1024 * 1024 * 1024;
const MIN_KEY = 16;
const MAX_KEY = 64;
const MIN_SALT = 16;
const MAX_SALT = 64;

const B64 = /^[A-Za-z0-9+/]+$/;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface ParsedHash {
  ln: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

/**
 * Hashes a password with scrypt and returns a PHC string that carries the parameters:
 * `$scrypt$ln=17,r=8,p=1$<salt, base64>$<key, base64>`. The password is NFKC-normalised first (so
 * the same passphrase typed as composed or decomposed Unicode verifies), and runs on libuv's thread
 * pool, not the event loop.
 *
 * Refuses (RangeError) an empty password, one longer than 1024 UTF-8 bytes, and parameters below
 * OWASP's scrypt minimums (p=1: ln ≥ 17; p=2: ln ≥ 16; p ≥ 3: ln ≥ 15; r ≥ 8 in every case).
 */
export async function hashPassword(password: string, options: PasswordHashOptions = {}): Promise<string> {
  if (typeof password !== 'string' || password.length === 0) {
    throw new RangeError('hashPassword: the password must be a non-empty string.');
  }
  const bytes = passwordBytes(password);
  if (!bytes) {
    throw new RangeError(`hashPassword: the password is longer than ${PASSWORD_DEFAULTS.maxPasswordBytes} bytes.`);
  }
  const params = targetParams(options);
  const salt = randomBytes(PASSWORD_DEFAULTS.saltLength);
  const key = await derive(bytes, salt, params.ln, params.r, params.p, params.keyLength);
  return encode({ ...params, salt, key });
}

/**
 * Checks a password against a hash from {@link hashPassword}, comparing in constant time. Never
 * throws: a malformed hash, a non-string password or one over the length bound gives `false`.
 *
 * Pass `null`/`undefined` as the hash when the user does not exist: the password is then checked
 * against an internal dummy hash with the default parameters, so an unknown user takes about as long
 * as a wrong password, and the answer is `false`.
 */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  try {
    if (hash === null || hash === undefined) {
      await verifyAgainst(typeof password === 'string' ? password : '', await dummyHash());
      return false;
    }
    if (typeof password !== 'string') return false;
    return await verifyAgainst(password, hash);
  } catch {
    return false;
  }
}

/**
 * True when `hash` should be replaced by a new {@link hashPassword} result: it is malformed, or its
 * parameters differ from `options` (the defaults when omitted). Call it after a successful
 * `verifyPassword` and store the new hash, so raising the cost reaches every user over time.
 */
export function needsRehash(hash: string, options: PasswordHashOptions = {}): boolean {
  const parsed = parse(hash);
  if (!parsed) return true;
  const target = targetParams(options);
  return (
    parsed.ln !== target.ln || parsed.r !== target.r || parsed.p !== target.p || parsed.key.length !== target.keyLength
  );
}

async function verifyAgainst(password: string, hash: string): Promise<boolean> {
  const parsed = parse(hash);
  if (!parsed) return false;
  const bytes = passwordBytes(password);
  if (!bytes) return false;
  const key = await derive(bytes, parsed.salt, parsed.ln, parsed.r, parsed.p, parsed.key.length);
  // Both buffers have the stored key's length, which timingSafeEqual requires.
  return timingSafeEqual(key, parsed.key);
}

let dummy: Promise<string> | undefined;

/**
 * Makes the dummy hash ahead of time (CredentialsService does it at bootstrap), so the first
 * unknown-user check does not take two derivations. Never rejects.
 */
export async function prepareDummyHash(): Promise<void> {
  await dummyHash().catch(() => undefined);
}

/** A hash of a random password, made once per process with the default parameters. */
function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64')).catch((error: unknown) => {
    dummy = undefined;
    throw error;
  });
  return dummy;
}

/** The NFKC-normalised UTF-8 bytes of the password, or `null` when it is over the length bound. */
function passwordBytes(password: string): Buffer | null {
  // A cheap check first: normalising megabytes of input would itself cost time.
  if (password.length > PASSWORD_DEFAULTS.maxPasswordBytes) return null;
  const bytes = Buffer.from(password.normalize('NFKC'), 'utf8');
  return bytes.length > PASSWORD_DEFAULTS.maxPasswordBytes ? null : bytes;
}

function targetParams(options: PasswordHashOptions): Required<PasswordHashOptions> {
  const { ln, r, p, keyLength } = { ...PASSWORD_DEFAULTS, ...stripUndefined(options) };
  const ints: Array<[string, number]> = [
    ['ln', ln],
    ['r', r],
    ['p', p],
    ['keyLength', keyLength],
  ];
  for (const [name, value] of ints) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`hashPassword: ${name} must be a positive integer.`);
  }
  const minLn = p === 1 ? 17 : p === 2 ? 16 : 15;
  if (ln < minLn || r < 8) {
    throw new RangeError(
      `hashPassword: scrypt ln=${ln}, r=${r}, p=${p} is below the OWASP minimum (p=1: ln ≥ 17; p=2: ln ≥ 16; p ≥ 3: ln ≥ 15; r ≥ 8).`,
    );
  }
  if (ln > MAX_LN || r > MAX_R || p > MAX_P || memory(ln, r, p) > MAX_MEMORY) {
    throw new RangeError(
      `hashPassword: scrypt ln=${ln}, r=${r}, p=${p} needs more than ${MAX_MEMORY / 1024 / 1024} MiB.`,
    );
  }
  if (keyLength < MIN_KEY || keyLength > MAX_KEY)
    throw new RangeError(`hashPassword: keyLength must be between ${MIN_KEY} and ${MAX_KEY}.`);
  return { ln, r, p, keyLength };
}

function stripUndefined(options: PasswordHashOptions): PasswordHashOptions {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([, v]) => v !== undefined));
}

/** Bytes scrypt allocates: 128·r·N for V plus 128·r·p for B (and a little more, hence the margin). */
function memory(ln: number, r: number, p: number): number {
  return 128 * r * 2 ** ln + 128 * r * p;
}

function derive(password: Buffer, salt: Buffer, ln: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  // Node's default maxmem (32 MiB) is below N=2^17, r=8 (128 MiB): raise it to what these parameters need.
  const options: ScryptOptions = { N: 2 ** ln, r, p, maxmem: memory(ln, r, p) + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function encode(h: ParsedHash): string {
  return `$scrypt$ln=${h.ln},r=${h.r},p=${h.p}$${b64(h.salt)}$${b64(h.key)}`;
}

/** Parses a PHC scrypt string; `null` for anything malformed or outside the accepted bounds. */
function parse(hash: unknown): ParsedHash | null {
  if (typeof hash !== 'string' || hash.length > 512) return null;
  const m = PHC.exec(hash);
  if (!m) return null;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 1 || ln > MAX_LN || r < 1 || r > MAX_R || p < 1 || p > MAX_P || memory(ln, r, p) > MAX_MEMORY) return null;
  const salt = unb64(m[4]);
  const key = unb64(m[5]);
  if (!salt || !key) return null;
  if (salt.length < MIN_SALT || salt.length > MAX_SALT || key.length < MIN_KEY || key.length > MAX_KEY) return null;
  return { ln, r, p, salt, key };
}

/** Unpadded standard base64, as PHC strings use. */
function b64(buffer: Buffer): string {
  return buffer.toString('base64').replace(/=+$/, '');
}

/** Strict decoding: Node's decoder skips invalid characters, so the result must re-encode identically. */
function unb64(text: string): Buffer | null {
  if (!B64.test(text)) return null;
  const buffer = Buffer.from(text, 'base64');
  return b64(buffer) === text ? buffer : null;
}
