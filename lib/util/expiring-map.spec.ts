import { describe, expect, it } from '@jest/globals';
import { ExpiringMap } from './expiring-map.js';

describe('ExpiringMap', () => {
  it('answers live entries and forgets expired ones', () => {
    const map = new ExpiringMap<string, number>(10);
    map.set('a', 1, 1_000, 0);
    expect(map.get('a', 999)).toBe(1);
    expect(map.get('a', 1_000)).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it('keeps nothing with a bound of 0 entries', () => {
    const map = new ExpiringMap<string, number>(0, { max: 1_000, of: () => 10 });
    map.set('a', 1, 1_000, 0);
    expect(map.get('a', 0)).toBeUndefined();
    expect([map.size, map.heldBytes]).toEqual([0, 0]);
  });

  it('treats a NaN expiry as expired (fails closed)', () => {
    const map = new ExpiringMap<string, number>(10);
    map.set('a', 1, Number.NaN, 0);
    expect(map.get('a', 0)).toBeUndefined();
  });

  it('remembers a key once until it expires', () => {
    const map = new ExpiringMap<string, true>(10);
    expect(map.remember('jti', true, 100, 0)).toBe(true);
    expect(map.remember('jti', true, 100, 50)).toBe(false);
    expect(map.remember('jti', true, 200, 100)).toBe(true);
  });

  it('stays bounded: sweeps expired entries first, then drops the oldest', () => {
    const map = new ExpiringMap<number, number>(3);
    map.set(1, 1, 10, 0);
    map.set(2, 2, 1_000, 0);
    map.set(3, 3, 1_000, 0);
    map.set(4, 4, 1_000, 20); // 1 has expired: swept, nothing live dropped
    expect([map.get(2, 20), map.get(3, 20), map.get(4, 20)]).toEqual([2, 3, 4]);
    map.set(5, 5, 1_000, 20); // full of live entries: the oldest (2) goes
    expect(map.get(2, 20)).toBeUndefined();
    expect(map.size).toBe(3);
  });

  it('sweeps an expired entry that is not the oldest before dropping a live one', () => {
    const map = new ExpiringMap<number, number>(3);
    map.set(1, 1, 1_000, 0);
    map.set(2, 2, 10, 0);
    map.set(3, 3, 1_000, 0);
    map.set(4, 4, 1_000, 20); // the oldest (1) is live, 2 has expired: a sweep takes 2
    expect([map.get(1, 20), map.get(3, 20), map.get(4, 20)]).toEqual([1, 3, 4]);
    expect(map.get(2, 20)).toBeUndefined();
  });

  it('a full map of live entries sweeps nothing: no entry can have expired yet', () => {
    const map = new ExpiringMap<number, number>(100);
    for (let i = 0; i < 100; i++) map.set(i, i, 1_000, 0);
    for (let i = 100; i < 300; i++) map.set(i, i, 1_000, 1);
    expect(map.size).toBe(100);
    // The newest 100 stay, in order: each insert dropped exactly the oldest.
    expect(map.get(199, 1)).toBeUndefined();
    expect(map.get(200, 1)).toBe(200);
    expect(map.get(299, 1)).toBe(299);
  });

  it('replacing a key does not evict another', () => {
    const map = new ExpiringMap<number, number>(2);
    map.set(1, 1, 1_000, 0);
    map.set(2, 2, 1_000, 0);
    map.set(2, 22, 1_000, 0);
    expect([map.get(1, 0), map.get(2, 0)]).toEqual([1, 22]);
  });
  describe('with a byte bound', () => {
    const sized = (maxBytes: number, max = 100) =>
      new ExpiringMap<string, string>(max, { max: maxBytes, of: (key, value) => key.length + value.length });

    it('drops the oldest while the bytes would pass the bound, and counts what it holds', () => {
      const map = sized(30);
      map.set('a', 'x'.repeat(9), 1_000, 0); // 10
      map.set('b', 'x'.repeat(9), 1_000, 0); // 20
      map.set('c', 'x'.repeat(9), 1_000, 0); // 30
      expect(map.heldBytes).toBe(30);
      map.set('d', 'x'.repeat(14), 1_000, 0); // 15: a and b go
      expect([map.get('a', 0), map.get('b', 0)]).toEqual([undefined, undefined]);
      expect(map.get('c', 0)).toBeDefined();
      expect(map.heldBytes).toBe(25);
    });

    it('keeps no entry larger than the whole bound, and replacing or deleting a key gives its bytes back', () => {
      const map = sized(30);
      map.set('a', 'x'.repeat(9), 1_000, 0);
      map.set('big', 'x'.repeat(40), 1_000, 0);
      expect(map.get('big', 0)).toBeUndefined();
      expect(map.get('a', 0)).toBeDefined();
      map.set('a', 'x'.repeat(4), 1_000, 0);
      expect(map.heldBytes).toBe(5);
      map.delete('a');
      expect(map.heldBytes).toBe(0);
      map.set('e', 'x', 10, 0);
      expect(map.get('e', 20)).toBeUndefined(); // expired on read: its bytes go too
      expect(map.heldBytes).toBe(0);
      map.set('f', 'x', 1_000, 0);
      map.clear();
      expect([map.size, map.heldBytes]).toEqual([0, 0]);
    });

    it('says when a new entry would push out a live one, by entries or by bytes', () => {
      const map = sized(30, 3);
      map.set('a', 'x'.repeat(9), 1_000, 0);
      expect(map.evictsLive(0, 'b', 'x'.repeat(9))).toBe(false);
      expect(map.evictsLive(0, 'b', 'x'.repeat(29))).toBe(true);
      map.set('b', 'x', 1_000, 0);
      map.set('c', 'x', 1_000, 0);
      expect(map.evictsLive(0, 'd', 'x')).toBe(true); // 3 entries: full
      expect(map.evictsLive(2_000, 'd', 'x')).toBe(false); // the oldest has expired
    });
  });
});
