import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { connectRedis, redisAvailable } from '../../test/setup/redis.js';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store.js';
import { RedisRateLimitStore } from '../rate-limit/redis-rate-limit.store.js';
import { sessionParts } from './fixtures/session.fixture.js';
import { JWT_REVOKED_MAX } from './jwt-revocation.js';

const HOUR = 3600;
const nowS = () => Math.floor(Date.now() / 1000);

describe('JwtRevocation (in this process)', () => {
  it('revokes by sid, else by jti; a token with neither cannot be revoked', async () => {
    const { revocation } = await sessionParts({ session: { jwtRevocation: true } });
    expect(revocation.idOf({ sid: 's1', jti: 'j1' })).toBe('sid:s1');
    expect(revocation.idOf({ jti: 'j1' })).toBe('jti:j1');
    expect(revocation.idOf({ sid: '', jti: '' })).toBeUndefined();
    await revocation.revoke({ sid: 's1', jti: 'j1' });
    await revocation.revoke({ sub: 'no-id' });
    const now = Date.now();
    // Every copy of the session (same sid, another jti) goes.
    expect(await revocation.isRevoked({ sid: 's1', jti: 'j2' }, now)).toBe(true);
    expect(await revocation.isRevoked({ sid: 's2', jti: 'j1' }, now)).toBe(false);
    expect(await revocation.isRevoked({ sub: 'no-id' }, now)).toBe(false);
    expect(revocation.clearedLocally('sid:s1', now)).toBe(false);
    expect(revocation.clearedLocally('sid:s2', now)).toBe(true);
    expect(revocation.clearedLocally(undefined, now)).toBe(true);
  });

  it('keeps a revocation for the later of the token expiry and now + jwt.maxAge', async () => {
    const { revocation } = await sessionParts({ session: { jwtRevocation: true }, jwt: { maxAge: HOUR } });
    const now = Date.now();
    await revocation.revoke({ sid: 'short', exp: nowS() + 60 });
    await revocation.revoke({ sid: 'long', exp: nowS() + 3 * HOUR });
    expect(revocation.clearedLocally('sid:short', now + HOUR * 1000 - 5_000)).toBe(false);
    expect(revocation.clearedLocally('sid:short', now + HOUR * 1000 + 5_000)).toBe(true);
    expect(revocation.clearedLocally('sid:long', now + 2 * HOUR * 1000)).toBe(false);
    expect(revocation.clearedLocally('sid:long', now + 3 * HOUR * 1000 + 5_000)).toBe(true);
  });

  it(`holds at most ${JWT_REVOKED_MAX} ids, dropping the oldest when full`, async () => {
    const { revocation } = await sessionParts({ session: { jwtRevocation: true } });
    for (let i = 0; i <= JWT_REVOKED_MAX; i++) await revocation.revoke({ sid: `s${i}` });
    const now = Date.now();
    expect(revocation.clearedLocally('sid:s0', now)).toBe(true);
    expect(revocation.clearedLocally('sid:s1', now)).toBe(false);
    expect(revocation.clearedLocally(`sid:s${JWT_REVOKED_MAX}`, now)).toBe(false);
  });

  it('does not share revocations through the in-memory store', async () => {
    const store = new MemoryRateLimitStore();
    const a = await sessionParts({ session: { jwtRevocation: true } }, { store });
    const b = await sessionParts({ session: { jwtRevocation: true } }, { store });
    await a.revocation.revoke({ sid: 's1' });
    expect(await b.revocation.isRevoked({ sid: 's1' }, Date.now())).toBe(false);
    expect(b.revocation.clearedLocally('sid:s1', Date.now())).toBe(true);
  });
});

const withRedis = await redisAvailable('JwtRevocation with a shared store');

(withRedis ? describe : describe.skip)('JwtRevocation with a shared store (real Redis)', () => {
  const clients: Redis[] = [];
  const prefix = `nestjs-auth-test:${randomUUID()}:`;

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) clients.push((await connectRedis())!);
  });

  afterAll(async () => {
    const keys = await clients[0].keys(`${prefix}*`);
    if (keys.length) await clients[0].del(...keys);
    await Promise.all(clients.slice(0, 2).map((c) => c.quit()));
  });

  it('lets every instance see a revocation, and never answers from memory alone', async () => {
    const [a, b] = await Promise.all(
      clients
        .slice(0, 2)
        .map((c) =>
          sessionParts({ session: { jwtRevocation: true } }, { store: new RedisRateLimitStore(c, { prefix }) }),
        ),
    );
    await a.revocation.revoke({ sid: 'shared', exp: nowS() + HOUR });
    expect(await b.revocation.isRevoked({ sid: 'shared' }, Date.now())).toBe(true);
    expect(await b.revocation.isRevoked({ sid: 'other' }, Date.now())).toBe(false);
    expect(b.revocation.clearedLocally('sid:other', Date.now())).toBe(false);
  });

  it('throws when the shared store cannot be read (the reader fails closed)', async () => {
    const broken = clients[2];
    const { revocation } = await sessionParts(
      { session: { jwtRevocation: true } },
      { store: new RedisRateLimitStore(broken, { prefix }) },
    );
    await broken.quit();
    await expect(revocation.isRevoked({ sid: 's1' }, Date.now())).rejects.toThrow();
  });
});
