import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { CacheAdmission, fingerprint } from './cache-admission.js';

describe('CacheAdmission', () => {
  it('admits a token on its second offer, then asks for two offers again', () => {
    const admission = new CacheAdmission(100);
    expect(admission.admits('token-a')).toBe(false);
    expect(admission.admits('token-b')).toBe(false);
    expect(admission.admits('token-a')).toBe(true);
    expect(admission.admits('token-a')).toBe(false);
    expect(admission.admits('token-b')).toBe(true);
  });

  it('forgets every first offer once it holds max of them: a token that comes back later is a first offer again', () => {
    const admission = new CacheAdmission(1000);
    const tokens = Array.from({ length: 5000 }, () => randomBytes(32).toString('base64url'));
    // A rotation longer than the window: no token is ever admitted.
    for (let round = 0; round < 2; round++) {
      let admitted = 0;
      for (const token of tokens) if (admission.admits(token)) admitted++;
      expect(admitted).toBeLessThan(10); // fingerprint collisions only
    }
    // Within the window: every token on its second offer.
    const fresh = new CacheAdmission(1000);
    const few = tokens.slice(0, 500);
    for (const token of few) fresh.admits(token);
    expect(few.filter((token) => fresh.admits(token)).length).toBe(500);
  });

  it('fingerprints JWEs and random tokens into 30 bits with next to no collisions', () => {
    const prints = new Set<number>();
    for (let i = 0; i < 20_000; i++) {
      const token = `eyJhbGciOiJkaXIifQ..${randomBytes(16).toString('base64url')}.${randomBytes(160).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
      const print = fingerprint(token);
      expect(print).toBeGreaterThanOrEqual(0);
      expect(print).toBeLessThan(2 ** 30);
      prints.add(print);
    }
    expect(prints.size).toBeGreaterThan(19_990);
    // Tokens differing only in their middle still differ in length or in a sampled character.
    expect(fingerprint('a'.repeat(100))).not.toBe(fingerprint('a'.repeat(101)));
  });
});
