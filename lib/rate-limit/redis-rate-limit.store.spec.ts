import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { connectRedis as connect, redisAvailable } from '../../test/setup/redis.js';
import { RateLimited } from '../errors/auth.errors.js';
import { RateLimiterService } from './rate-limiter.service.js';
import { RedisRateLimitStore } from './redis-rate-limit.store.js';

const describeRedis = (await redisAvailable('RedisRateLimitStore')) ? describe : describe.skip;
/** The first instance's connection, also used to look at Redis directly. */
let probe: Redis | null = null;

/** Redis's clock (TIME), in milliseconds. */
async function redisNowMs(): Promise<number> {
  const [seconds, micros] = await probe!.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

describeRedis('RedisRateLimitStore (real Redis, several instances sharing it)', () => {
  const clients: Redis[] = [];
  let stores: RedisRateLimitStore[] = [];
  // A prefix per run: parallel runs and leftovers never mix.
  const prefix = `nestjs-auth-test:${randomUUID()}:`;

  beforeAll(async () => {
    probe = await connect();
    clients.push(probe!);
    for (let i = 0; i < 2; i++) {
      const c = await connect();
      clients.push(c!);
    }
    // Three "app instances": each its own connection and store, one shared Redis.
    stores = clients.map((c) => new RedisRateLimitStore(c, { prefix }));
  });

  afterAll(async () => {
    const keys = await probe!.keys(`${prefix}*`);
    if (keys.length) await probe!.del(...keys);
    await Promise.all(clients.map((c) => c.quit()));
  });

  it('counts concurrent hits from several instances exactly once each, and sets the window', async () => {
    const hits = await Promise.all(Array.from({ length: 150 }, (_, i) => stores[i % 3].increment('shared', 60_000)));
    const counts = hits.map((h) => h.count).sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    const ttl = await probe!.pttl(`${prefix}shared`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await stores[1].get('shared')).toMatchObject({ count: 150 });
    expect(hits.every((h) => h.msBeforeReset > 0 && h.msBeforeReset <= 60_000)).toBe(true);
  });

  it('keeps the window from the first hit, and the key expires with it', async () => {
    // No waiting: Redis's own clock (TIME) brackets the expiry the first hit set, and the test moves
    // the remaining time itself (PEXPIRE), as if the window had partly or wholly run out.
    const key = `${prefix}window`;
    const before = await redisNowMs();
    expect(await stores[0].increment('window', 150_000)).toMatchObject({ count: 1 });
    const after = await redisNowMs();
    const expiresAt = Number(await probe!.call('PEXPIRETIME', key));
    expect(expiresAt).toBeGreaterThanOrEqual(before + 150_000);
    expect(expiresAt).toBeLessThanOrEqual(after + 150_000);
    // 110 s later, as far as the key knows: a second hit counts in the same window, which keeps its end.
    await probe!.pexpire(key, 40_000);
    const second = await stores[1].increment('window', 150_000);
    expect(second.count).toBe(2);
    expect(second.msBeforeReset).toBeGreaterThan(0);
    expect(second.msBeforeReset).toBeLessThanOrEqual(40_000);
    expect(Number(await probe!.call('PEXPIRETIME', key))).toBeLessThanOrEqual(expiresAt);
    // The window ends (a non-positive PEXPIRE expires the key now): the count starts from zero.
    await probe!.pexpire(key, 0);
    expect(await stores[2].get('window')).toBeNull();
    expect(await probe!.exists(key)).toBe(0);
    expect(await stores[2].increment('window', 150_000)).toMatchObject({ count: 1 });
  });

  it('repairs a key left without expiry', async () => {
    await probe!.set(`${prefix}no-ttl`, '7');
    const record = await stores[0].increment('no-ttl', 5_000);
    expect(record.count).toBe(8);
    expect(await probe!.pttl(`${prefix}no-ttl`)).toBeGreaterThan(0);
  });

  it('decrements (never below zero) and resets for every instance', async () => {
    await stores[0].increment('d', 60_000);
    await stores[1].increment('d', 60_000);
    await stores[2].decrement('d');
    expect((await stores[0].get('d'))?.count).toBe(1);
    await stores[0].decrement('d');
    await stores[0].decrement('d');
    expect((await stores[1].get('d'))?.count).toBe(0);
    expect(await probe!.pttl(`${prefix}d`)).toBeGreaterThan(0);
    await stores[1].decrement('never-hit');
    expect(await probe!.exists(`${prefix}never-hit`)).toBe(0);
    await stores[2].reset('d');
    expect(await stores[0].get('d')).toBeNull();
  });

  it('enforces one limit across instances through RateLimiterService', async () => {
    const limiters = stores.map((s) => new RateLimiterService(s));
    const rule = { limit: 5, windowSeconds: 30 };
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => limiters[i % 3].hit('login:alice', rule)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(7);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(RateLimited);
      expect((r.reason as RateLimited).retryAfter).toBeGreaterThan(0);
      expect((r.reason as RateLimited).retryAfter).toBeLessThanOrEqual(30);
    }
    await expect(limiters[2].check('login:alice', rule)).rejects.toBeInstanceOf(RateLimited);
    await limiters[1].reset('login:alice');
    await limiters[0].check('login:alice', rule);
  });

  it('refuses a client without eval', () => {
    expect(() => new RedisRateLimitStore({} as never)).toThrow(/eval/);
  });
});
