import type { RateLimitRecord, RateLimitStore } from './rate-limit.store.js';

/**
 * The part of a Redis client the store uses: `eval` with ioredis's signature
 * (`eval(script, numKeys, ...keysAndArgs)`). An `ioredis` `Redis` or `Cluster` instance fits; the
 * library does not depend on ioredis.
 */
export interface RedisEvalClient {
  /** Runs a Lua script on the server (Redis `EVAL`). */
  eval(script: string, numKeys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
}

/** Options of {@link RedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** Prefix of every key the store writes. @default 'nestjs-auth:rl:' */
  prefix?: string;
}

// Each script touches one key, so it is atomic and works on Redis Cluster.
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }`;

const GET = `
local count = redis.call('GET', KEYS[1])
if not count then return false end
return { tonumber(count), redis.call('PTTL', KEYS[1]) }`;

const DECREMENT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

const RESET = `return redis.call('DEL', KEYS[1])`;

/**
 * Rate-limit counters in Redis, shared by every instance of the app: INCR and PEXPIRE run in one
 * Lua script, so concurrent hits from several processes are counted exactly and every window ends.
 *
 * ```ts
 * import Redis from 'ioredis';
 * AuthModule.forRoot({ ..., rateLimitStore: new RedisRateLimitStore(new Redis(process.env.REDIS_URL)) })
 * ```
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly prefix: string;

  constructor(
    private readonly client: RedisEvalClient,
    options: RedisRateLimitStoreOptions = {},
  ) {
    if (!client || typeof client.eval !== 'function') {
      throw new TypeError(
        'RedisRateLimitStore needs a Redis client with an ioredis-style `eval` (e.g. `new Redis()` from ioredis).',
      );
    }
    this.prefix = options.prefix ?? 'nestjs-auth:rl:';
  }

  async increment(key: string, windowMs: number): Promise<RateLimitRecord> {
    const window = Math.max(1, Math.ceil(windowMs));
    const reply = await this.client.eval(INCREMENT, 1, this.prefix + key, window);
    return toRecord(reply) ?? { count: 1, msBeforeReset: window };
  }

  async get(key: string): Promise<RateLimitRecord | null> {
    return toRecord(await this.client.eval(GET, 1, this.prefix + key));
  }

  async decrement(key: string): Promise<void> {
    await this.client.eval(DECREMENT, 1, this.prefix + key);
  }

  async reset(key: string): Promise<void> {
    await this.client.eval(RESET, 1, this.prefix + key);
  }
}

function toRecord(reply: unknown): RateLimitRecord | null {
  if (!Array.isArray(reply) || reply.length < 2) return null;
  const count = Number(reply[0]);
  const ttl = Number(reply[1]);
  if (!Number.isFinite(count)) return null;
  // PTTL is -1/-2 for a key without expiry / already gone: treat as "ends now".
  return { count, msBeforeReset: Number.isFinite(ttl) && ttl > 0 ? ttl : 0 };
}
