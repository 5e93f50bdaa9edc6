/** A counter in a {@link RateLimitStore}: how many hits in the current window, and how long it lasts. */
export interface RateLimitRecord {
  /** Hits counted in the current window. */
  count: number;
  /** Milliseconds until the window ends and the count starts again from zero. */
  msBeforeReset: number;
}

/**
 * Where rate-limit counters live: fixed windows of hits per key. The default is an in-memory store
 * (one process); several instances behind a load balancer must share one store, e.g.
 * `RedisRateLimitStore`, given to `AuthModule` as the `rateLimitStore` setting.
 *
 * This interface is also the DI token (as `@nestjs/throttler` does with `ThrottlerStorage`).
 */
export interface RateLimitStore {
  /**
   * Adds one hit to `key` and returns the new count. The first hit of a window starts it: the
   * window then lasts `windowMs`, whatever hits follow. Must be atomic across processes.
   */
  increment(key: string, windowMs: number): Promise<RateLimitRecord>;
  /** The current count of `key`, or `null` when it has none (never hit, or its window ended). */
  get(key: string): Promise<RateLimitRecord | null>;
  /** Takes back one hit (never below zero); the window's end does not move. */
  decrement(key: string): Promise<void>;
  /** Forgets `key`. */
  reset(key: string): Promise<void>;
  /**
   * Optional: {@link increment} without a promise, for a store that counts in this process (the
   * memory store). Where it exists, a cached API key is counted and answered without waiting; a
   * shared store leaves it out and is awaited.
   */
  incrementSync?(key: string, windowMs: number): RateLimitRecord;
}

/** DI token of the rate-limit store (same name as the interface). */
export const RateLimitStore: unique symbol = Symbol('nestjs-auth:RateLimitStore');
