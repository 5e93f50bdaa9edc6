import { createHmac, hkdfSync, randomInt } from 'node:crypto';
import { constantTimeEqual } from '../../util/constant-time.js';

/**
 * The symbols of a backup code: digits and lower-case letters without the ones read alike
 * (0/o, 1/l/i). 31 symbols, 4.95 bits each.
 */
export const BACKUP_CODE_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
/** Symbols in a code: 12, 59 bits (ten symbols of this alphabet would fall just short of 50). */
export const BACKUP_CODE_LENGTH = 12;
/** Symbols between dashes in the displayed form (`k7m2-p9xq-4rtz`). */
const GROUP = 4;
/** Longest input examined at all (spaces and dashes included); anything longer is not a code. */
const MAX_INPUT = 64;
const CODE = new RegExp(`^[${BACKUP_CODE_ALPHABET}]{${BACKUP_CODE_LENGTH}}$`);

/**
 * `count` new codes (distinct), for the user to print or store: `k7m2-p9xq-4rtz`. Store only their
 * {@link hashBackupCode} hashes.
 */
export function createBackupCodes(count = 10): string[] {
  if (!Number.isSafeInteger(count) || count < 1 || count > 100) {
    throw new RangeError('count must be an integer from 1 to 100.');
  }
  const codes = new Set<string>();
  while (codes.size < count) {
    let code = '';
    for (let i = 0; i < BACKUP_CODE_LENGTH; i++) {
      if (i > 0 && i % GROUP === 0) code += '-';
      code += BACKUP_CODE_ALPHABET[randomInt(BACKUP_CODE_ALPHABET.length)];
    }
    codes.add(code);
  }
  return [...codes];
}

/**
 * A code as typed, in the form that is hashed (lower case, no spaces or dashes, full-width
 * characters folded), or `null` for anything that cannot be a code.
 */
export function normalizeBackupCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > MAX_INPUT) return null;
  const code = input
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\-\u2010-\u2015\u2212]+/g, '');
  return CODE.test(code) ? code : null;
}

/**
 * The key of backup-code hashes for one secret of the configuration (HKDF-SHA-256, the library's
 * salt, its own info: not a key used for anything else).
 */
export function backupCodeKey(secret: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'nestjs-auth', 'two-factor backup codes v1', 32));
}

/** The keys of every configured secret, in order: the first hashes new codes, any one matches (rotation). */
export function backupCodeKeys(secrets: readonly string[]): Uint8Array[] {
  return secrets.map(backupCodeKey);
}

/**
 * What is stored for a code: HMAC-SHA-256 of its normalized form under `key` (base64url, 43
 * characters). A keyed hash: a leaked table cannot be checked against guesses without the secret.
 * @throws TypeError when `code` is not a backup code
 */
export function hashBackupCode(code: string, key: Uint8Array): string {
  const normalized = normalizeBackupCode(code);
  if (normalized === null) throw new TypeError('Not a backup code.');
  return createHmac('sha256', key).update(normalized).digest('base64url');
}

/**
 * Whether a typed code is the one `storedHash` was made from, under any of `keys` (see
 * {@link backupCodeKeys}). Compares in constant time and tries every key whatever the outcome.
 */
export function matchesBackupCode(code: unknown, storedHash: string, keys: readonly Uint8Array[]): boolean {
  const normalized = normalizeBackupCode(code);
  if (normalized === null || typeof storedHash !== 'string') return false;
  let match = false;
  for (const key of keys) {
    const hash = createHmac('sha256', key).update(normalized).digest('base64url');
    match = constantTimeEqual(hash, storedHash) || match;
  }
  return match;
}
