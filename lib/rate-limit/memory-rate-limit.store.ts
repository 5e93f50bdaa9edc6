import type { RateLimitRecord, RateLimitStore } from './rate-limit.store.js';

/** Options of {@link MemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * Most keys kept. When full, expired keys are dropped first, then the oldest: memory stays
   * bounded whatever keys clients make up. @default 100000
   */
  maxKeys?: number;
  /**
   * The clock, in milliseconds since the epoch: windows start and end by it. Tests pass a clock they
   * move by hand, so a window's end is exact rather than waited for. @default Date.now
   */
  now?: () => number;
}

interface Entry {
  count: number;
  resetAt: number;
}

/**
 * Rate-limit counters in this process's memory: the default store. Bounded (`maxKeys`), windows
 * expire lazily (no timers). Counters are per process: with several instances, use a shared store
 * such as `RedisRateLimitStore`.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 100_000;
    if (!Number.isInteger(maxKeys) || maxKeys < 1)
      throw new RangeError('MemoryRateLimitStore: maxKeys must be a positive integer.');
    this.maxKeys = maxKeys;
    const now = options.now ?? Date.now;
    if (typeof now !== 'function') throw new TypeError('MemoryRateLimitStore: now must be a function.');
    this.now = now;
  }

  /** Number of keys held (expired ones included until they are swept). */
  get size(): number {
    return this.entries.size;
  }

  async increment(key: string, windowMs: number): Promise<RateLimitRecord> {
    return this.incrementSync(key, windowMs);
  }

  /** {@link increment} without a promise: this store counts in memory (the guard's cached paths use it). */
  incrementSync(key: string, windowMs: number): RateLimitRecord {
    const now = this.clock();
    let entry = this.live(key, now);
    if (!entry) {
      this.makeRoom(now);
      entry = { count: 0, resetAt: now + windowMs };
      this.entries.set(key, entry);
    }
    entry.count += 1;
    return { count: entry.count, msBeforeReset: entry.resetAt - now };
  }

  async get(key: string): Promise<RateLimitRecord | null> {
    const now = this.clock();
    const entry = this.live(key, now);
    return entry ? { count: entry.count, msBeforeReset: entry.resetAt - now } : null;
  }

  async decrement(key: string): Promise<void> {
    const entry = this.live(key, this.clock());
    if (entry && entry.count > 0) entry.count -= 1;
  }

  async reset(key: string): Promise<void> {
    this.entries.delete(key);
  }

  /** Forgets every key (e.g. between tests). */
  clear(): void {
    this.entries.clear();
  }

  /** The injected clock's reading; one that is not a finite number fails closed (throws). */
  private clock(): number {
    const now = this.now();
    if (typeof now !== 'number' || !Number.isFinite(now))
      throw new TypeError('MemoryRateLimitStore: the clock returned no finite number.');
    return now;
  }

  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.resetAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private makeRoom(now: number): void {
    if (this.entries.size < this.maxKeys) return;
    for (const [key, entry] of this.entries) if (entry.resetAt <= now) this.entries.delete(key);
    // Still full: drop the oldest windows (Map keeps insertion order), a tenth at a time so a
    // flood does not pay a sweep per insert.
    if (this.entries.size >= this.maxKeys) {
      let drop = Math.max(1, Math.ceil(this.maxKeys / 10));
      for (const key of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(key);
      }
    }
  }
}
