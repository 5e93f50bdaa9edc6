import { Inject, Injectable } from '@nestjs/common';
import { MemoryRateLimitStore } from '../../rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from '../../rate-limit/rate-limit.store.js';
import { ExpiringMap } from '../../util/expiring-map.js';

/** Logout token ids remembered in this process at most; past it the oldest is forgotten. */
export const LOGOUT_REPLAY_MAX = 50_000;

/**
 * The back-channel logout tokens already used (by a hash of provider and `jti`): in this process
 * and, when `rateLimitStore` is shared (e.g. `RedisRateLimitStore`), in that store too, so a token
 * replayed to another instance is refused as well (the store's atomic increment decides which use
 * is the first).
 */
@Injectable()
export class LogoutReplayMemory {
  private readonly seen = new ExpiringMap<string, true>(LOGOUT_REPLAY_MAX);
  /** The shared store, or null (the in-memory store: this process only). */
  private readonly store: RateLimitStore | null;

  constructor(@Inject(RateLimitStore) store: RateLimitStore) {
    this.store = store instanceof MemoryRateLimitStore ? null : store;
  }

  /**
   * True the first time `key` is used within `ttlMs` (across instances with a shared store); false
   * for a replay. Throws when the shared store does not answer (nothing is remembered then, so the
   * same token may be sent again).
   */
  async firstUse(key: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    if (this.seen.get(key, now) !== undefined) return false;
    if (this.store) {
      const record = await this.store.increment(`logout-jti:${key}`, ttlMs);
      if (record.count !== 1) {
        this.seen.set(key, true, now + ttlMs, now);
        return false;
      }
    }
    return this.seen.remember(key, true, now + ttlMs, now);
  }
}
