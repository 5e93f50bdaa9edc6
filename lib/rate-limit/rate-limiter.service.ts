import { Inject, Injectable } from '@nestjs/common';
import { RateLimited } from '../errors/auth.errors.js';
import { safeDurationMs } from '../util/instant.js';
import { RateLimitStore, type RateLimitRecord } from './rate-limit.store.js';

/** A limit: at most `limit` hits per key in a window of `windowSeconds`. */
export interface RateLimitRule {
  /** Hits allowed per window. */
  limit: number;
  /** Length of the window in seconds; it starts with the first hit. */
  windowSeconds: number;
}

/**
 * Fixed-window rate limits over the configured {@link RateLimitStore} (memory by default). Keys are
 * the caller's (e.g. `credentials:id:<hash>`, `email:ip:<ip>`); refusals are `RateLimited` with the
 * seconds until the window ends.
 */
@Injectable()
export class RateLimiterService {
  constructor(@Inject(RateLimitStore) private readonly store: RateLimitStore) {}

  /**
   * Counts one hit on `key`; throws `RateLimited(retryAfter)` when it is past the limit (the
   * `limit + 1`-th hit of a window and later). The hit is counted either way.
   */
  async hit(key: string, rule: RateLimitRule): Promise<void> {
    const { limit, windowMs } = normalise(rule);
    const record = trusted(await this.store.increment(key, windowMs), windowMs, limit);
    if (record.count > limit) throw limited(record);
  }

  /**
   * {@link hit} without a promise, when the store counts in this process (`incrementSync`): the
   * refusal to answer with (`RateLimited`), `null` within the limit, or `undefined` (nothing
   * counted) when the store must be awaited: call {@link hit}.
   */
  hitSync(key: string, rule: RateLimitRule): RateLimited | null | undefined {
    if (!this.store.incrementSync) return undefined;
    const { limit, windowMs } = normalise(rule);
    const record = trusted(this.store.incrementSync(key, windowMs), windowMs, limit);
    return record.count > limit ? limited(record) : null;
  }

  /**
   * Counts one hit on each key (e.g. per account and per IP) at once; if any is past its limit,
   * throws the `RateLimited` with the longest wait. Every hit is counted either way.
   */
  async hitAll(hits: ReadonlyArray<{ key: string } & RateLimitRule>): Promise<void> {
    const results = await Promise.allSettled(hits.map((h) => this.hit(h.key, h)));
    let refusal: RateLimited | undefined;
    for (const result of results) {
      if (result.status === 'fulfilled') continue;
      if (!(result.reason instanceof RateLimited)) throw result.reason;
      if (!refusal || result.reason.retryAfter > refusal.retryAfter) refusal = result.reason;
    }
    if (refusal) throw refusal;
  }

  /**
   * Throws `RateLimited(retryAfter)` when the next hit on `key` would be past the limit; counts
   * nothing.
   */
  async check(key: string, rule: RateLimitRule): Promise<void> {
    const { limit, windowMs } = normalise(rule);
    const raw = await this.store.get(key);
    const record = raw === null ? null : trusted(raw, windowMs, limit);
    if (record && record.count >= limit) throw limited(record);
  }

  /** The current count of `key` (0 when it has none) and the seconds until its window ends. */
  async status(key: string): Promise<{ count: number; retryAfter: number }> {
    const record = await this.store.get(key);
    if (!record) return { count: 0, retryAfter: 0 };
    // Without a rule there is no window to fall back on: a bad count or time reads as an hour-long refusal.
    const safe = trusted(record, 3_600_000, Number.MAX_SAFE_INTEGER - 1);
    return { count: safe.count, retryAfter: seconds(safe.msBeforeReset) };
  }

  /** Takes back one hit on `key` (e.g. a reserved attempt that turned out to be legitimate). */
  async release(key: string): Promise<void> {
    await this.store.decrement(key);
  }

  /** Forgets every hit on `key`. */
  async reset(key: string): Promise<void> {
    await this.store.reset(key);
  }
}

function normalise(rule: RateLimitRule): { limit: number; windowMs: number } {
  const { limit, windowSeconds } = rule ?? ({} as RateLimitRule);
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError('RateLimiterService: `limit` must be a positive integer.');
  if (typeof windowSeconds !== 'number' || !Number.isFinite(windowSeconds) || windowSeconds <= 0) {
    throw new RangeError('RateLimiterService: `windowSeconds` must be a positive number.');
  }
  return { limit, windowMs: Math.ceil(windowSeconds * 1000) };
}

/**
 * A record from the store, checked rather than trusted (a custom store, a corrupted Redis value):
 * a count that is not a whole number >= 0 counts as past the limit and a remaining time that is not
 * a sane duration as the whole window, so a bad answer refuses rather than lets through.
 */
function trusted(record: RateLimitRecord | null | undefined, windowMs: number, limit: number): RateLimitRecord {
  const count = record?.count;
  const validCount = typeof count === 'number' && Number.isSafeInteger(count) && count >= 0;
  return {
    count: validCount ? count : limit + 1,
    msBeforeReset: safeDurationMs(record?.msBeforeReset, windowMs, Math.max(windowMs, 1)),
  };
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function limited(record: RateLimitRecord): RateLimited {
  return new RateLimited(seconds(record.msBeforeReset));
}
