/**
 * Run only by `test/ci-strict.spec.ts`, in a child jest with a missing server: probes the server
 * named by `STRICT_PROBE` (`databases`, `redis` or `chromium`) the way the suites do, then has one
 * test that passes. A strict run must fail before that test; a non-strict one skips and passes.
 */
import { describe, expect, it } from '@jest/globals';
import { chromiumAvailable } from './ci.js';
import { databaseTargets } from './databases.js';
import { redisAvailable } from './redis.js';

const probe = process.env.STRICT_PROBE;
let available: boolean;
if (probe === 'databases') available = (await databaseTargets(['postgres', 'mariadb'])).every((t) => t.available);
else if (probe === 'redis') available = await redisAvailable('strict probe');
else if (probe === 'chromium') available = chromiumAvailable('strict probe');
else throw new Error(`STRICT_PROBE must be databases, redis or chromium, not ${String(probe)}`);

describe('strict probe', () => {
  it(`ran with ${probe} ${available ? 'available' : 'missing'}`, () => {
    expect(available).toBe(false);
  });
});
