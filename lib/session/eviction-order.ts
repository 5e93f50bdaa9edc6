/**
 * The insertion order of a bounded `Map`, to find its oldest entry in constant time. A `Map`'s own
 * first key (`keys().next()`) is found by walking over every slot deleted before it, until the
 * table is rehashed: in a micro-benchmark of a map used as a queue (evict the oldest, insert a new
 * one) at 10,000 entries, up to about 10 µs per eviction; this, under 1 µs. (In the guard
 * benchmark's JWT 50k profile the eviction was a smaller share: the worst case is what this bounds.)
 *
 * Entries forgotten or replaced out of order stay queued, recognised as stale (the map holds
 * another value, or none, for the key) and skipped; the queue is compacted once it holds more than
 * twice the map's entries, so it stays bounded by the map's own bound.
 */
export class EvictionOrder<V> {
  private keys: (string | undefined)[] = [];
  private values: (V | undefined)[] = [];
  private head = 0;

  /** Records that `key` was just set to `value` in `map`. */
  push(key: string, value: V, map: ReadonlyMap<string, V>): void {
    this.keys.push(key);
    this.values.push(value);
    if (this.keys.length - this.head > 2 * map.size + 1024) this.compact(map);
  }

  /** The oldest key of `map` (whose value is still the one recorded), taken off the queue. */
  oldest(map: ReadonlyMap<string, V>): string | undefined {
    while (this.head < this.keys.length) {
      const key = this.keys[this.head]!;
      const value = this.values[this.head];
      this.keys[this.head] = undefined;
      this.values[this.head] = undefined;
      this.head++;
      if (map.get(key) === value) return key;
    }
    return undefined;
  }

  /** The oldest value `map` still holds for its key, left on the queue (stale keys before it are dropped). */
  peek(map: ReadonlyMap<string, V>): V | undefined {
    while (this.head < this.keys.length) {
      const value = this.values[this.head];
      if (map.get(this.keys[this.head]!) === value) return value;
      this.keys[this.head] = undefined;
      this.values[this.head] = undefined;
      this.head++;
    }
    return undefined;
  }

  /** Keeps only the entries `map` still holds, in order. */
  private compact(map: ReadonlyMap<string, V>): void {
    const keys: string[] = [];
    const values: V[] = [];
    for (let i = this.head; i < this.keys.length; i++) {
      const key = this.keys[i]!;
      const value = this.values[i] as V;
      if (map.get(key) === value) {
        keys.push(key);
        values.push(value);
      }
    }
    this.keys = keys;
    this.values = values;
    this.head = 0;
  }
}
