import { describe, expect, it } from '@jest/globals';
import { apiKeyHash, apiKeyId, newApiKey } from './api-keys.js';

describe('API key format', () => {
  it('is <prefix>_ and 50 base62 characters: a public id, a secret and a CRC-32 checksum', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { key, id, hint } = newApiKey('acme');
      expect(key).toMatch(/^acme_[0-9A-Za-z]{50}$/);
      expect(key.slice(5, 17)).toBe(id);
      expect(hint).toBe(key.slice(-4));
      expect(apiKeyId(key, 'acme')).toBe(id);
      seen.add(key);
    }
    expect(seen.size).toBe(200);
  });

  it('refuses, without a lookup, a key with a wrong checksum, another prefix or another length', () => {
    const { key } = newApiKey('acme');
    const last = key.at(-1)!;
    expect(apiKeyId(key.slice(0, -1) + (last === 'A' ? 'B' : 'A'), 'acme')).toBeNull();
    // One character of the secret changed: the checksum no longer matches.
    const mid = key[30] === 'x' ? 'y' : 'x';
    expect(apiKeyId(key.slice(0, 30) + mid + key.slice(31), 'acme')).toBeNull();
    expect(apiKeyId(key, 'other')).toBeNull();
    expect(apiKeyId(`${key}0`, 'acme')).toBeNull();
    expect(apiKeyId(key.slice(0, -1), 'acme')).toBeNull();
    expect(apiKeyId('acme_' + '-'.repeat(50), 'acme')).toBeNull();
  });

  it('stores a SHA-256 of the key, never the key', () => {
    const { key } = newApiKey('acme');
    const hash = apiKeyHash(key);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toContain(key.slice(5, 20));
    expect(apiKeyHash(key)).toBe(hash);
  });
});
