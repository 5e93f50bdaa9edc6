import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { connectRedis, redisAvailable } from '../../../test/setup/redis.js';
import { MemoryRateLimitStore } from '../../rate-limit/memory-rate-limit.store.js';
import { RedisRateLimitStore } from '../../rate-limit/redis-rate-limit.store.js';
import { LogoutReplayMemory } from './logout-replay.js';

const TTL = 360_000;

describe('LogoutReplayMemory in one process (in-memory store)', () => {
  it('accepts a jti once, even when two uses race', async () => {
    const memory = new LogoutReplayMemory(new MemoryRateLimitStore());
    const results = await Promise.all([memory.firstUse('k1', TTL), memory.firstUse('k1', TTL)]);
    expect(results.sort()).toEqual([false, true]);
    expect(await memory.firstUse('k1', TTL)).toBe(false);
    expect(await memory.firstUse('k2', TTL)).toBe(true);
  });

  it('does not share through the in-memory store: each process remembers its own', async () => {
    const store = new MemoryRateLimitStore();
    const [a, b] = [new LogoutReplayMemory(store), new LogoutReplayMemory(store)];
    expect(await a.firstUse('k', TTL)).toBe(true);
    expect(await b.firstUse('k', TTL)).toBe(true);
  });
});

const describeRedis = (await redisAvailable('LogoutReplayMemory')) ? describe : describe.skip;

describeRedis('LogoutReplayMemory with a shared Redis store (several instances)', () => {
  const prefix = `nestjs-auth-test:${randomUUID()}:`;
  const clients: Redis[] = [];
  let dead: Redis;
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) clients.push((await connectRedis())!);
    dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    dead.on('error', () => undefined);
  });
  afterAll(async () => {
    const keys = await clients[0]!.keys(`${prefix}*`);
    if (keys.length) await clients[0]!.del(...keys);
    await Promise.all(clients.map((c) => c.quit()));
    if (dead.status !== 'end') dead.disconnect();
  });

  // promise: oauth.shared-logout-jti
  it('a jti used on instance A is a replay on instance B, and exactly one of racing uses wins', async () => {
    const [a, b] = clients.map((c) => new LogoutReplayMemory(new RedisRateLimitStore(c, { prefix }))) as [
      LogoutReplayMemory,
      LogoutReplayMemory,
    ];
    expect(await a.firstUse('jti-1', TTL)).toBe(true);
    expect(await b.firstUse('jti-1', TTL)).toBe(false);
    const raced = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).firstUse('jti-2', TTL)));
    expect(raced.filter(Boolean)).toHaveLength(1);
    // Remembered in Redis for the token's lifetime.
    const ttl = await clients[0]!.pttl(`${prefix}logout-jti:jti-1`);
    expect(ttl).toBeGreaterThan(TTL - 10_000);
  });

  it('throws when the shared store does not answer, and remembers nothing (the same token may come again)', async () => {
    const broken = new LogoutReplayMemory(new RedisRateLimitStore(dead, { prefix }));
    await expect(broken.firstUse('jti-3', TTL)).rejects.toThrow();
    await expect(broken.firstUse('jti-3', TTL)).rejects.toThrow();
    const working = new LogoutReplayMemory(new RedisRateLimitStore(clients[0]!, { prefix }));
    expect(await working.firstUse('jti-3', TTL)).toBe(true);
  });
});
