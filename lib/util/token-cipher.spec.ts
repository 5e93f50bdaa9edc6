import { describe, expect, it } from '@jest/globals';
import { ENCRYPTED_PREFIX, TokenCipher } from './token-cipher.js';

const OLD = 'old-secret-that-is-long-enough-0123456789';
const NEW = 'new-secret-that-is-long-enough-9876543210';

describe('TokenCipher', () => {
  it('round-trips, with a fresh IV each time and no plain text in the output', () => {
    const cipher = new TokenCipher([OLD]);
    const a = cipher.encrypt('refresh-token-value');
    const b = cipher.encrypt('refresh-token-value');
    expect(a.startsWith(ENCRYPTED_PREFIX)).toBe(true);
    expect(a).not.toBe(b);
    expect(a).not.toContain('refresh-token-value');
    expect(cipher.decrypt(a)).toBe('refresh-token-value');
    expect(cipher.decrypt(b)).toBe('refresh-token-value');
  });

  it('rotation: the new secret encrypts, the old one still decrypts; a dropped secret no longer does', () => {
    const before = new TokenCipher([OLD]).encrypt('t');
    const rotated = new TokenCipher([NEW, OLD]);
    expect(rotated.decrypt(before)).toBe('t');
    const after = rotated.encrypt('t');
    expect(new TokenCipher([NEW]).decrypt(after)).toBe('t');
    expect(new TokenCipher([OLD]).decrypt(after)).toBeUndefined();
    expect(new TokenCipher([NEW]).decrypt(before)).toBeUndefined();
  });

  it('fails closed on tampered, truncated or malformed values; plain values pass through', () => {
    const cipher = new TokenCipher([OLD]);
    const sealed = cipher.encrypt('secret-value');
    const last = sealed.at(-2) === 'A' ? 'B' : 'A';
    expect(cipher.decrypt(`${sealed.slice(0, -2)}${last}${sealed.at(-1)}`)).toBeUndefined();
    expect(cipher.decrypt(sealed.slice(0, -10))).toBeUndefined();
    expect(cipher.decrypt(`${ENCRYPTED_PREFIX}x`)).toBeUndefined();
    expect(cipher.decrypt(`${ENCRYPTED_PREFIX}${sealed.split('.')[2]}..`)).toBeUndefined();
    expect(cipher.decrypt('plain-token-from-before')).toBe('plain-token-from-before');
    expect(() => new TokenCipher([])).toThrow();
  });
});
