import { describe, expect, it } from '@jest/globals';
import { RateLimited } from '../errors/auth.errors.js';
import { MemoryRateLimitStore } from './memory-rate-limit.store.js';
import { RateLimiterService } from './rate-limiter.service.js';

/** A clock the test moves by hand: windows end exactly when the test says, with no waiting. */
function manualClock(start = 1_700_000_000_000) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

describe('MemoryRateLimitStore', () => {
  it('counts hits in a window that starts with the first hit and ends exactly windowMs later', async () => {
    const clock = manualClock();
    const store = new MemoryRateLimitStore({ now: clock.now });
    expect(await store.get('k')).toBeNull();
    expect(await store.increment('k', 80)).toEqual({ count: 1, msBeforeReset: 80 });
    clock.advance(30);
    // Later hits do not move the window's end.
    expect(await store.increment('k', 80)).toEqual({ count: 2, msBeforeReset: 50 });
    clock.advance(49);
    expect(await store.get('k')).toEqual({ count: 2, msBeforeReset: 1 });
    clock.advance(1);
    expect(await store.get('k')).toBeNull();
    expect(await store.increment('k', 80)).toEqual({ count: 1, msBeforeReset: 80 });
  });

  it('uses Date.now without a clock, and refuses a clock that is not one', async () => {
    const before = Date.now();
    const record = await new MemoryRateLimitStore().increment('k', 60_000);
    expect(record.count).toBe(1);
    // The window ends windowMs after some instant between `before` and now.
    expect(record.msBeforeReset).toBeLessThanOrEqual(60_000);
    expect(record.msBeforeReset).toBeGreaterThanOrEqual(60_000 - (Date.now() - before));
    expect(() => new MemoryRateLimitStore({ now: 5 as never })).toThrow(TypeError);
    const broken = new MemoryRateLimitStore({ now: () => Number.NaN });
    await expect(broken.increment('k', 1000)).rejects.toThrow(TypeError);
    await expect(broken.get('k')).rejects.toThrow(TypeError);
  });

  it('decrements without going below zero and resets keys', async () => {
    const store = new MemoryRateLimitStore();
    await store.increment('a', 10_000);
    await store.increment('a', 10_000);
    await store.decrement('a');
    expect((await store.get('a'))?.count).toBe(1);
    await store.decrement('a');
    await store.decrement('a');
    expect((await store.get('a'))?.count).toBe(0);
    await store.decrement('missing');
    expect(await store.get('missing')).toBeNull();
    await store.reset('a');
    expect(await store.get('a')).toBeNull();
  });

  it('stays bounded: expired keys go first, then the oldest', async () => {
    const clock = manualClock();
    const store = new MemoryRateLimitStore({ maxKeys: 100, now: clock.now });
    for (let i = 0; i < 50; i++) await store.increment(`short-${i}`, 20);
    clock.advance(20);
    for (let i = 0; i < 60; i++) await store.increment(`long-${i}`, 60_000);
    // The 50 expired keys were swept to make room, the live ones kept.
    expect(store.size).toBe(60);
    expect((await store.get('long-0'))?.count).toBe(1);
    for (let i = 60; i < 1000; i++) await store.increment(`long-${i}`, 60_000);
    // Each time it is full, the oldest tenth (10 keys) goes: 940 more inserts past 100 keys.
    expect(store.size).toBe(100);
    expect((await store.get('long-999'))?.count).toBe(1);
    expect((await store.get('long-900'))?.count).toBe(1);
    expect(await store.get('long-0')).toBeNull();
    expect(() => new MemoryRateLimitStore({ maxKeys: 0 })).toThrow(RangeError);
  });
});

describe('RateLimiterService (memory store)', () => {
  it('lets `limit` hits through per window, refuses the next with RateLimited(retryAfter)', async () => {
    const clock = manualClock();
    const limiter = new RateLimiterService(new MemoryRateLimitStore({ now: clock.now }));
    const rule = { limit: 3, windowSeconds: 60 };
    for (let i = 0; i < 3; i++) {
      await limiter.check('ip:1', rule);
      await limiter.hit('ip:1', rule);
    }
    await expect(limiter.check('ip:1', rule)).rejects.toBeInstanceOf(RateLimited);
    const error = await limiter.hit('ip:1', rule).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimited);
    expect((error as RateLimited).type).toBe('RateLimited');
    expect((error as RateLimited).retryAfter).toBe(60);
    // Other keys are independent.
    await limiter.hit('ip:2', rule);
    expect(await limiter.status('ip:2')).toEqual({ count: 1, retryAfter: 60 });
    await limiter.reset('ip:1');
    await limiter.hit('ip:1', rule);
  });

  it('release takes back one hit', async () => {
    const limiter = new RateLimiterService(new MemoryRateLimitStore());
    const rule = { limit: 1, windowSeconds: 60 };
    await limiter.hit('k', rule);
    await limiter.release('k');
    await limiter.hit('k', rule);
    await expect(limiter.hit('k', rule)).rejects.toBeInstanceOf(RateLimited);
  });

  it('opens again exactly when the window ends, with retryAfter counting down', async () => {
    const clock = manualClock();
    const limiter = new RateLimiterService(new MemoryRateLimitStore({ now: clock.now }));
    const rule = { limit: 1, windowSeconds: 10 };
    await limiter.hit('k', rule);
    await expect(limiter.hit('k', rule)).rejects.toMatchObject({ retryAfter: 10 });
    clock.advance(5_500);
    await expect(limiter.check('k', rule)).rejects.toMatchObject({ retryAfter: 5 });
    clock.advance(4_499);
    await expect(limiter.check('k', rule)).rejects.toMatchObject({ retryAfter: 1 });
    clock.advance(1);
    await limiter.check('k', rule);
    await limiter.hit('k', rule);
    expect(await limiter.status('k')).toEqual({ count: 1, retryAfter: 10 });
  });

  it('refuses nonsensical rules', async () => {
    const limiter = new RateLimiterService(new MemoryRateLimitStore());
    await expect(limiter.hit('k', { limit: 0, windowSeconds: 1 })).rejects.toThrow(RangeError);
    await expect(limiter.hit('k', { limit: 1.5, windowSeconds: 1 })).rejects.toThrow(RangeError);
    await expect(limiter.check('k', { limit: 1, windowSeconds: 0 })).rejects.toThrow(RangeError);
    await expect(limiter.hit('k', { limit: 1, windowSeconds: Number.NaN })).rejects.toThrow(RangeError);
  });
});

describe('RateLimiterService.hitAll', () => {
  it('counts every key and refuses with the longest wait when any is over', async () => {
    const limiter = new RateLimiterService(new MemoryRateLimitStore());
    const hits = [
      { key: 'account', limit: 1, windowSeconds: 10 },
      { key: 'ip', limit: 2, windowSeconds: 100 },
    ];
    await limiter.hitAll(hits);
    await expect(limiter.hitAll(hits)).rejects.toMatchObject({ retryAfter: 10 });
    const error = await limiter.hitAll(hits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimited);
    expect((error as RateLimited).retryAfter).toBe(100);
    expect(await limiter.status('account')).toMatchObject({ count: 3 });
    expect(await limiter.status('ip')).toMatchObject({ count: 3 });
    await limiter.hitAll([]);
  });
});
