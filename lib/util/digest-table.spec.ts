import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { DIGEST_SLOT_BYTES, DigestTable } from './digest-table.js';

const NOW = 1_800_000_000;
const tokenLike = () => `eyJ${randomBytes(40).toString('base64url')}.${randomBytes(200).toString('base64url')}`;
/** The whole table, as its slots' 32-bit words (private: allocated on the first add). */
const wordsOf = (table: DigestTable) => (table as unknown as { table?: Uint32Array }).table;

describe('DigestTable', () => {
  it('answers as a Set of the strings added would, while no bucket overflows', () => {
    const table = new DigestTable(4 * 1024 * 1024);
    const set = new Set<string>();
    const added = Array.from({ length: 2_000 }, tokenLike);
    for (const value of added) {
      table.add(value, NOW + 600, NOW);
      set.add(value);
    }
    const others = Array.from({ length: 2_000 }, tokenLike);
    // A string one character away from an added one (the last character of its signature changed).
    const nearMisses = added.slice(0, 500).map((v) => v.slice(0, -1) + (v.endsWith('A') ? 'B' : 'A'));
    for (const value of [...added, ...others, ...nearMisses]) expect(table.has(value, NOW)).toBe(set.has(value));
  });

  it('answers for each string by its own digest when lookups and adds of other strings interleave', () => {
    const table = new DigestTable(1024 * 1024);
    table.add(tokenLike(), NOW + 600, NOW);
    for (let i = 0; i < 200; i++) {
      const [looked, added] = [tokenLike(), tokenLike()];
      expect(table.has(looked, NOW)).toBe(false);
      table.add(added, NOW + 600, NOW);
      expect(table.has(added, NOW)).toBe(true);
      expect(table.has(looked, NOW)).toBe(false);
    }
    // The same characters in another string are the same digest.
    const value = tokenLike();
    expect(table.has(value, NOW)).toBe(false);
    table.add(value, NOW + 600, NOW);
    expect(table.has(` ${value}`.slice(1), NOW)).toBe(true);
  });

  it('addLastLookedUp holds the string the last has looked up, the very first one included', () => {
    const table = new DigestTable(1024 * 1024);
    // Nothing added yet (no table allocated): the lookup still hashed its string.
    const first = tokenLike();
    expect(table.has(first, NOW)).toBe(false);
    table.addLastLookedUp(NOW + 600, NOW);
    expect(table.has(first, NOW)).toBe(true);
    for (let i = 0; i < 200; i++) {
      const [kept, other] = [tokenLike(), tokenLike()];
      expect(table.has(kept, NOW)).toBe(false);
      table.addLastLookedUp(NOW + 600, NOW);
      expect(table.has(other, NOW)).toBe(false);
      expect(table.has(kept, NOW)).toBe(true);
    }
    // Before any lookup it holds nothing.
    const fresh = new DigestTable(1024 * 1024);
    fresh.addLastLookedUp(NOW + 600, NOW);
    expect(wordsOf(fresh)).toBeUndefined();
  });

  it('forgets a string when it expires, and keeps none that has', () => {
    const table = new DigestTable(1024);
    table.add('token-a', NOW + 10, NOW);
    expect(table.has('token-a', NOW + 9)).toBe(true);
    expect(table.has('token-a', NOW + 10)).toBe(false);
    table.add('token-b', NOW, NOW);
    table.add('token-c', NOW - 5, NOW);
    expect(wordsOf(table)!.filter((w, i) => i % 5 === 4 && w !== 0)).toHaveLength(1);
    expect(table.has('token-b', NOW - 1)).toBe(false);
  });

  it('when a bucket is full, puts a new digest in the place of the one that expires first, or an expired one', () => {
    // One bucket of 4 slots: every string lands in it.
    const table = new DigestTable(4 * DIGEST_SLOT_BYTES);
    expect(table.capacity).toBe(4);
    const values = ['a', 'b', 'c', 'd'];
    values.forEach((v, i) => table.add(v, NOW + 100 + i, NOW));
    table.add('e', NOW + 50, NOW);
    expect(['a', 'b', 'c', 'd', 'e'].map((v) => table.has(v, NOW))).toEqual([false, true, true, true, true]);
    // At NOW + 60, 'e' has expired: the next new string takes its slot, not a live one.
    table.add('f', NOW + 500, NOW + 60);
    expect(['b', 'c', 'd', 'e', 'f'].map((v) => table.has(v, NOW + 60))).toEqual([true, true, true, false, true]);
  });

  it('adds a string held already in its own slot again, with the new expiry', () => {
    const table = new DigestTable(4 * DIGEST_SLOT_BYTES);
    for (const v of ['a', 'b', 'c']) table.add(v, NOW + 100, NOW);
    table.add('a', NOW + 300, NOW);
    table.add('d', NOW + 200, NOW);
    expect(['a', 'b', 'c', 'd'].map((v) => table.has(v, NOW + 150))).toEqual([true, false, false, true]);
    expect(table.has('a', NOW + 250)).toBe(true);
  });

  it('takes the memory it is given, in whole buckets, and only once something is added', () => {
    const table = new DigestTable(1_000_000);
    expect(table.capacity).toBe(Math.floor(1_000_000 / (4 * DIGEST_SLOT_BYTES)) * 4);
    expect(wordsOf(table)).toBeUndefined();
    expect(table.has('x', NOW)).toBe(false);
    table.add('x', NOW + 1, NOW);
    expect(wordsOf(table)!.byteLength).toBe(table.capacity * DIGEST_SLOT_BYTES);
    expect(wordsOf(table)!.byteLength).toBeLessThanOrEqual(1_000_000);
  });

  it('keeps nothing, and throws nothing, when the memory it is given cannot be had', () => {
    const table = new DigestTable(2 ** 53);
    expect(() => table.add('x', NOW + 100, NOW)).not.toThrow();
    expect(table.has('x', NOW)).toBe(false);
    expect(table.capacity).toBe(0);
  });

  it('keeps nothing when given less than a bucket, and forgets everything on clear', () => {
    const none = new DigestTable(4 * DIGEST_SLOT_BYTES - 1);
    none.add('x', NOW + 100, NOW);
    expect(none.capacity).toBe(0);
    expect(none.has('x', NOW)).toBe(false);
    const table = new DigestTable(1024);
    table.add('x', NOW + 100, NOW);
    table.clear();
    expect(table.has('x', NOW)).toBe(false);
  });
});
