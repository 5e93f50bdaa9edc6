import { describe, expect, it } from '@jest/globals';
import { EvictionOrder } from './eviction-order.js';

describe('EvictionOrder', () => {
  it('gives the oldest key still held, skipping keys forgotten or set again since', () => {
    const map = new Map<string, object>();
    const order = new EvictionOrder<object>();
    const set = (key: string) => {
      const value = {};
      map.set(key, value);
      order.push(key, value, map);
    };
    for (const key of ['a', 'b', 'c', 'd']) set(key);
    map.delete('a');
    map.delete('b');
    set('b'); // set again: now the newest
    // `peek` shows the oldest held value and leaves it queued.
    expect(order.peek(map)).toBe(map.get('c'));
    expect(order.peek(map)).toBe(map.get('c'));
    expect(order.oldest(map)).toBe('c');
    map.delete('c');
    expect(order.oldest(map)).toBe('d');
    map.delete('d');
    expect(order.oldest(map)).toBe('b');
    map.delete('b');
    expect(order.oldest(map)).toBeUndefined();
    expect(order.peek(map)).toBeUndefined();
  });

  it('stays bounded when entries are replaced without ever being evicted', () => {
    const map = new Map<string, object>();
    const order = new EvictionOrder<object>();
    for (let i = 0; i < 100_000; i++) {
      const key = `k${i % 10}`;
      const value = {};
      map.set(key, value);
      order.push(key, value, map);
    }
    expect((order as unknown as { keys: unknown[] }).keys.length).toBeLessThanOrEqual(2 * map.size + 1025);
    // The order survives compaction: k0..k9 were last set in that order.
    const evicted: string[] = [];
    for (let key = order.oldest(map); key !== undefined; key = order.oldest(map)) {
      evicted.push(key);
      map.delete(key);
    }
    expect(evicted).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`));
  });

  it('keeps a bounded map as a queue in constant time per eviction (10,000 entries, 50,000 insertions)', () => {
    const map = new Map<string, number>();
    const order = new EvictionOrder<number>();
    for (let i = 0; i < 60_000; i++) {
      if (map.size >= 10_000) map.delete(order.oldest(map)!);
      map.set(`t${i}`, i);
      order.push(`t${i}`, i, map);
    }
    expect(map.size).toBe(10_000);
    expect([...map.keys()][0]).toBe('t50000');
    expect(order.oldest(map)).toBe('t50000');
  });
});
