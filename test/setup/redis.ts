import { Redis } from 'ioredis';
import { isStrictCi } from './ci.js';

/** The Redis the tests use (the machine's, unless `REDIS_URL` says otherwise). */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Connects once with a short timeout; `null` when Redis is not there. */
export async function connectRedis(url = REDIS_URL): Promise<Redis | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch {
    client.disconnect();
    return null;
  }
}

/**
 * Whether Redis answers (the probe's connection is closed again: suites connect in their own
 * `beforeAll`, so a run that filters their tests out leaves no connection open). When it does not,
 * in strict CI (`isStrictCi`: any `CI` but empty, `false`, `0`) this throws (nothing may be skipped in CI); otherwise it prints one line saying
 * which suite is skipped and why.
 */
export async function redisAvailable(suite: string): Promise<boolean> {
  const probe = await connectRedis();
  if (probe) {
    await probe.quit();
    return true;
  }
  if (isStrictCi())
    throw new Error(`Redis is not reachable at ${REDIS_URL} (CI=${process.env.CI}: the ${suite} tests must run).`);
  console.warn(`Skipping ${suite} tests: Redis is not reachable at ${REDIS_URL}.`);
  return false;
}
