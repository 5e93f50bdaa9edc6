import { describe, expect, it } from '@jest/globals';
import { ENCRYPTED_PREFIX, TokenCipher } from '../../util/token-cipher.js';
import { openTotpSecret, sealTotpSecret } from './totp-secret.js';
import { createTotpSecret } from './totp.js';

const OLD = 'old-secret-that-is-long-enough-0123456789';
const NEW = 'new-secret-that-is-long-enough-9876543210';

describe('sealTotpSecret / openTotpSecret', () => {
  it('round-trips, with a fresh IV each time and no clear secret in the output', () => {
    const secret = createTotpSecret();
    const a = sealTotpSecret(secret, [OLD]);
    const b = sealTotpSecret(secret, [OLD]);
    expect(a.startsWith(ENCRYPTED_PREFIX)).toBe(true);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret);
    expect(a.toUpperCase()).not.toContain(secret);
    expect(openTotpSecret(a, [OLD])).toBe(secret);
    expect(openTotpSecret(b, [OLD])).toBe(secret);
  });

  it('rotation: the first secret seals, any listed one opens; a dropped secret no longer does', () => {
    const secret = createTotpSecret();
    const before = sealTotpSecret(secret, [OLD]);
    expect(openTotpSecret(before, [NEW, OLD])).toBe(secret);
    const after = sealTotpSecret(secret, [NEW, OLD]);
    expect(openTotpSecret(after, [NEW])).toBe(secret);
    expect(openTotpSecret(after, [OLD])).toBeNull();
    expect(openTotpSecret(before, [NEW])).toBeNull();
  });

  it('never opens a provider token, and a sealed TOTP secret never opens as one (distinct keys)', () => {
    const secret = createTotpSecret();
    const providerToken = new TokenCipher([OLD]).encrypt(secret);
    expect(openTotpSecret(providerToken, [OLD])).toBeNull();
    const sealed = sealTotpSecret(secret, [OLD]);
    expect(new TokenCipher([OLD]).decrypt(sealed)).toBeUndefined();
    // Not even the key ids coincide.
    expect(sealed.split('.')[2]).not.toBe(providerToken.split('.')[2]);
  });

  it('is null, never a throw, for anything that does not open', () => {
    const sealed = sealTotpSecret(createTotpSecret(), [OLD]);
    const last = sealed.at(-2) === 'A' ? 'B' : 'A';
    for (const value of [
      `${sealed.slice(0, -2)}${last}${sealed.at(-1)}`,
      sealed.slice(0, -10),
      `${ENCRYPTED_PREFIX}x`,
      `${ENCRYPTED_PREFIX}${sealed.split('.')[2]}..`,
      'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', // a clear secret is not a sealed one
      '',
      null,
      undefined,
      42,
      { sealed },
    ]) {
      expect(openTotpSecret(value, [OLD])).toBeNull();
    }
    expect(openTotpSecret(sealed, [])).toBeNull();
    expect(openTotpSecret(sealed, [null as unknown as string])).toBeNull();
    expect(() => sealTotpSecret('x', [])).toThrow();
  });
});
