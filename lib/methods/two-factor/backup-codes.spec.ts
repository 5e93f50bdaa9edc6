import { describe, expect, it } from '@jest/globals';
import {
  BACKUP_CODE_ALPHABET,
  BACKUP_CODE_LENGTH,
  backupCodeKey,
  backupCodeKeys,
  createBackupCodes,
  hashBackupCode,
  matchesBackupCode,
  normalizeBackupCode,
} from './backup-codes.js';

const OLD = 'old-secret-that-is-long-enough-0123456789';
const NEW = 'new-secret-that-is-long-enough-9876543210';

describe('createBackupCodes', () => {
  it('makes 10 distinct codes of the unambiguous alphabet, in dashed groups of four', () => {
    const codes = createBackupCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}$/);
    expect(createBackupCodes(3)).toHaveLength(3);
  });

  it('carries at least 50 bits per code, with none of 0 O 1 l I in the alphabet', () => {
    expect(BACKUP_CODE_LENGTH * Math.log2(BACKUP_CODE_ALPHABET.length)).toBeGreaterThanOrEqual(50);
    expect(BACKUP_CODE_ALPHABET).not.toMatch(/[01oOlIi]/);
    expect(new Set(BACKUP_CODE_ALPHABET).size).toBe(BACKUP_CODE_ALPHABET.length);
  });

  it('uses every symbol of the alphabet, in every position', () => {
    const codes = createBackupCodes(100).concat(createBackupCodes(100), createBackupCodes(100));
    const symbols = new Set(codes.join('').replace(/-/g, ''));
    expect(symbols.size).toBe(BACKUP_CODE_ALPHABET.length);
    const compact = codes.map((c) => c.replace(/-/g, ''));
    for (let i = 0; i < BACKUP_CODE_LENGTH; i++) expect(new Set(compact.map((c) => c[i])).size).toBeGreaterThan(15);
  });

  it('refuses an impossible count', () => {
    expect(() => createBackupCodes(0)).toThrow(RangeError);
    expect(() => createBackupCodes(1.5)).toThrow(RangeError);
    expect(() => createBackupCodes(1000)).toThrow(RangeError);
  });
});

describe('normalizeBackupCode', () => {
  it('round-trips a created code, as shown or as typed (upper case, spaces, no dashes)', () => {
    for (const code of createBackupCodes()) {
      const compact = code.replace(/-/g, '');
      expect(normalizeBackupCode(code)).toBe(compact);
      expect(normalizeBackupCode(code.toUpperCase())).toBe(compact);
      expect(normalizeBackupCode(` ${code.replace(/-/g, ' ')} `)).toBe(compact);
      expect(normalizeBackupCode(compact)).toBe(compact);
    }
    expect(normalizeBackupCode('K7M2 – P9XQ – 4RTZ')).toBe('k7m2p9xq4rtz');
    expect(normalizeBackupCode('ｋ７ｍ２-ｐ９ｘｑ-４ｒｔｚ')).toBe('k7m2p9xq4rtz');
  });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['too short', 'k7m2-p9xq-4rt'],
    ['too long', 'k7m2-p9xq-4rtzz'],
    ['a zero', 'k7m2-p9xq-4rt0'],
    ['an o', 'k7m2-p9xq-4rto'],
    ['a one', 'k7m2-p9xq-4rt1'],
    ['an l', 'k7m2-p9xq-4rtl'],
    ['an I', 'k7m2-p9xq-4rtI'],
    ['punctuation', 'k7m2_p9xq_4rtz'],
    ['a TOTP code', '123456'],
    ['a very long string', 'k7m2-'.repeat(10_000)],
    ['a number', 123456789012],
    ['null', null],
    ['an object', { toString: () => 'k7m2p9xq4rtz' }],
  ])('is null for what cannot be a code (%s)', (_name, input) => {
    expect(normalizeBackupCode(input)).toBeNull();
  });
});

describe('hashBackupCode / matchesBackupCode', () => {
  const [code] = createBackupCodes(1) as [string];

  it('is a keyed HMAC-SHA-256 (base64url) of the normalized code: same key same hash, other key other hash', () => {
    const key = backupCodeKey(OLD);
    const hash = hashBackupCode(code, key);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hashBackupCode(code.toUpperCase().replace(/-/g, ' '), key)).toBe(hash);
    expect(hashBackupCode(code, backupCodeKey(NEW))).not.toBe(hash);
    expect(hashBackupCode(createBackupCodes(1)[0]!, key)).not.toBe(hash);
    expect(hash).not.toContain(code.replace(/-/g, ''));
    expect(() => hashBackupCode('not a code', key)).toThrow(TypeError);
  });

  it('derives a 32-byte key per secret, stable, distinct from the secret and from other purposes', () => {
    expect(backupCodeKey(OLD)).toHaveLength(32);
    expect(Buffer.from(backupCodeKey(OLD))).toEqual(Buffer.from(backupCodeKey(OLD)));
    expect(Buffer.from(backupCodeKey(OLD))).not.toEqual(Buffer.from(backupCodeKey(NEW)));
    expect(backupCodeKeys([NEW, OLD]).map((k) => Buffer.from(k).toString('hex'))).toEqual(
      [NEW, OLD].map((s) => Buffer.from(backupCodeKey(s)).toString('hex')),
    );
  });

  it('matches the code as typed, and nothing else', () => {
    const keys = backupCodeKeys([OLD]);
    const stored = hashBackupCode(code, keys[0]!);
    expect(matchesBackupCode(code, stored, keys)).toBe(true);
    expect(matchesBackupCode(code.toUpperCase().replace(/-/g, ''), stored, keys)).toBe(true);
    expect(matchesBackupCode(createBackupCodes(1)[0], stored, keys)).toBe(false);
    expect(matchesBackupCode('', stored, keys)).toBe(false);
    expect(matchesBackupCode(null, stored, keys)).toBe(false);
    expect(matchesBackupCode(code, '', keys)).toBe(false);
    expect(matchesBackupCode(code, stored, [])).toBe(false);
  });

  it('rotation: a hash made under the old secret matches while it is listed, not once it is dropped', () => {
    const stored = hashBackupCode(code, backupCodeKey(OLD));
    expect(matchesBackupCode(code, stored, backupCodeKeys([NEW, OLD]))).toBe(true);
    expect(matchesBackupCode(code, stored, backupCodeKeys([OLD, NEW]))).toBe(true);
    expect(matchesBackupCode(code, stored, backupCodeKeys([NEW]))).toBe(false);
    const fresh = hashBackupCode(code, backupCodeKeys([NEW, OLD])[0]!);
    expect(matchesBackupCode(code, fresh, backupCodeKeys([NEW]))).toBe(true);
    expect(matchesBackupCode(code, fresh, backupCodeKeys([OLD]))).toBe(false);
  });
});
