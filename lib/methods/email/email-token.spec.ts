import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { generateEmailToken, hashEmailToken, isPlausibleToken } from './email-token.js';

describe('email tokens', () => {
  it('are 32 random bytes in base64url (43 characters), never repeated', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateEmailToken()));
    expect(tokens.size).toBe(1000);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    }
  });

  it('are stored as a keyed hash bound to the secret and the identifier', () => {
    const secret = 'a'.repeat(32);
    const hash = hashEmailToken(secret, 'alice@example.com', 'tok');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain('tok');
    expect(hashEmailToken(secret, 'alice@example.com', 'tok')).toBe(hash);
    expect(hashEmailToken('b'.repeat(32), 'alice@example.com', 'tok')).not.toBe(hash);
    expect(hashEmailToken(secret, 'bob@example.com', 'tok')).not.toBe(hash);
    expect(hashEmailToken(secret, 'alice@example.com', 'tok2')).not.toBe(hash);
    // No ambiguity between where the identifier ends and the token starts.
    expect(hashEmailToken(secret, 'a', 'bc')).not.toBe(hashEmailToken(secret, 'ab', 'c'));
  });

  it("with tokenHash 'authjs' are stored as Auth.js stores them: SHA-256 of the token and the secret", () => {
    const secret = 'a'.repeat(32);
    // Auth.js: createHash('sha256').update(`${token}${secret}`).digest('hex')
    const expected = createHash('sha256').update(`tok${secret}`).digest('hex');
    expect(hashEmailToken(secret, 'alice@example.com', 'tok', 'authjs')).toBe(expected);
    expect(hashEmailToken(secret, 'alice@example.com', 'tok', 'authjs')).not.toBe(
      hashEmailToken(secret, 'alice@example.com', 'tok'),
    );
  });

  it('isPlausibleToken accepts bounded strings only', () => {
    expect(isPlausibleToken(generateEmailToken())).toBe(true);
    for (const value of ['', 'x'.repeat(513), 'a\nb', 42, null, undefined, ['x'], { x: 1 }])
      expect(isPlausibleToken(value)).toBe(false);
  });
});
