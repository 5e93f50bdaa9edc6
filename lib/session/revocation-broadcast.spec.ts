import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { AdapterSession, AdapterUser } from '../adapters/adapter.interface.js';
import { Test } from '@nestjs/testing';
import { RedisRevocationBus } from '../bus/redis-revocation.bus.js';
import { RevocationBus } from '../bus/revocation-bus.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import { resolveConfig } from '../sign-in-methods.js';
import { RevocationBroadcast } from './revocation-broadcast.js';
import { connectRedis, REDIS_URL, redisAvailable } from '../../test/setup/redis.js';
import { sessionParts, type SessionParts } from './fixtures/session.fixture.js';
import { REVOKED_NOT_CACHED_MS, type CachedDb } from './session-cache.js';
import type { AuthUser } from './session.types.js';

function dbEntry(userId: string): CachedDb {
  const expires = new Date(Date.now() + 3_600_000);
  const user: AdapterUser = { id: userId, email: `${userId}@b.test`, emailVerified: null };
  const session: AdapterSession = { sessionToken: 'stored', userId, expires };
  const shaped = { id: userId, email: user.email, name: null, image: null } as AuthUser;
  return {
    session,
    user,
    until: Date.now() + 60_000,
    shaped: { user: shaped, session: { user: shaped, expires: expires.toISOString() } },
  };
}

async function until(check: () => boolean, ms = 5000): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
  return Date.now() - start;
}

const token = () => randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');

describe('RevocationBroadcast without a bus (the default)', () => {
  it('a provider that builds something else than a bus fails at bootstrap too', async () => {
    const config = resolveConfig({ secret: 'a-secret-that-is-long-enough-0123456789', providers: [] }, {}, null, {});
    await expect(
      Test.createTestingModule({
        providers: [
          { provide: AUTH_CONFIG, useValue: config },
          { provide: RevocationBus, useValue: { publish: () => undefined } },
          RevocationBroadcast,
        ],
      }).compile(),
    ).rejects.toThrow(/must have publish, subscribe and close/);
  });

  it('is live, publishes nothing and keeps the cache as before', async () => {
    const parts = await sessionParts({ session: { strategy: 'database', cacheTtl: 60 } });
    expect(parts.broadcast.enabled).toBe(false);
    expect(parts.broadcast.live).toBe(true);
    parts.cache.keepDb('t1', dbEntry('u1'));
    parts.cache.forgetDb('t1');
    // Without a bus nothing is held back: the same token may be cached again at once.
    parts.cache.keepDb('t1', dbEntry('u1'));
    expect(parts.cache.db('t1')).toBeDefined();
    expect(parts.broadcast.stats()).toMatchObject({ connected: true, published: 0, applied: 0 });
  });
});

const describeRedis = (await redisAvailable('RevocationBroadcast')) ? describe : describe.skip;

describeRedis('RevocationBroadcast over a real Redis: two instances', () => {
  const channel = `nestjs-auth-test-${randomUUID()}`;
  const names = [`ia-${randomUUID().slice(0, 8)}`, `ib-${randomUUID().slice(0, 8)}`];
  const clients: Redis[] = [];
  let admin: Redis;
  let tap: Redis;
  const heard: string[] = [];
  let a: SessionParts;
  let b: SessionParts;

  beforeAll(async () => {
    admin = (await connectRedis())!;
    // What an eavesdropper on the bus sees.
    tap = (await connectRedis())!;
    tap.on('message', (_channel: string, message: string) => heard.push(message));
    await tap.subscribe(channel);
    const parts: SessionParts[] = [];
    for (const name of names) {
      const client = new Redis(REDIS_URL, { connectionName: name });
      client.on('error', () => undefined);
      clients.push(client);
      parts.push(
        await sessionParts(
          { session: { strategy: 'database', cacheTtl: 60, jwtRevocation: true } },
          { bus: new RedisRevocationBus(client, { channel }) },
        ),
      );
    }
    [a, b] = parts as [SessionParts, SessionParts];
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([...clients, admin, tap].map((c) => c?.quit()));
  });

  // promise: sessions.revocation-bus-messages
  it('a session forgotten on B leaves A within a second; B ignores its own message', async () => {
    expect([a.broadcast.live, b.broadcast.live]).toEqual([true, true]);
    const raw = token();
    a.cache.keepDb(raw, dbEntry('u1'));
    b.cache.keepDb(raw, dbEntry('u1'));
    expect(a.cache.hit(raw, false)).toMatchObject({ status: 'active' });
    const before = { a: a.broadcast.stats(), b: b.broadcast.stats() };
    b.cache.forgetDb(raw);
    expect(b.cache.db(raw)).toBeUndefined();
    expect(await until(() => a.cache.db(raw) === undefined)).toBeLessThan(1000);
    expect(a.cache.hit(raw, false)).toBeUndefined();
    await until(() => b.broadcast.stats().own === before.b.own + 1);
    expect(b.broadcast.stats().applied).toBe(before.b.applied);
    expect(a.broadcast.stats().applied).toBe(before.a.applied + 1);
    expect(b.broadcast.stats().published).toBe(before.b.published + 1);
  });

  it("forgetUser on B drops every cached session of that user on A, and no one else's", async () => {
    const [t1, t2, t3] = [token(), token(), token()];
    a.cache.keepDb(t1, dbEntry('carol'));
    a.cache.keepDb(t2, dbEntry('carol'));
    a.cache.keepDb(t3, dbEntry('dave'));
    b.cache.forgetUser('carol');
    await until(() => a.cache.db(t1) === undefined && a.cache.db(t2) === undefined);
    expect(a.cache.db(t3)).toBeDefined();
  });

  it('a token or user revoked a moment ago is not cached again (a lookup may still find the row)', async () => {
    const raw = token();
    const applied = a.broadcast.stats().applied;
    b.cache.forgetDb(raw);
    b.cache.forgetUser('erin');
    await until(() => a.broadcast.stats().applied === applied + 2);
    for (const parts of [a, b]) {
      parts.cache.keepDb(raw, dbEntry('u9'));
      expect(parts.cache.db(raw)).toBeUndefined();
      const other = token();
      parts.cache.keepDb(other, dbEntry('erin'));
      expect(parts.cache.db(other)).toBeUndefined();
    }
    expect(REVOKED_NOT_CACHED_MS).toBeLessThanOrEqual(10_000);
  });

  it('a JWT revoked on A is refused on B within a second (B keeps no shared store)', async () => {
    const sid = randomUUID();
    expect(b.revocation.clearedLocally(`sid:${sid}`, Date.now())).toBe(true);
    await a.revocation.revoke({ sid, exp: Math.floor(Date.now() / 1000) + 3600 });
    expect(await until(() => !b.revocation.clearedLocally(`sid:${sid}`, Date.now()))).toBeLessThan(1000);
    expect(await b.revocation.isRevoked({ sid, jti: 'another copy' }, Date.now())).toBe(true);
    expect(await b.revocation.isRevoked({ sid: randomUUID() }, Date.now())).toBe(false);
    // By id (how a session index ends a JWT session): the same way.
    const other = randomUUID();
    await b.revocation.revokeId(`sid:${other}`, Date.now() + 60_000);
    await until(() => !a.revocation.clearedLocally(`sid:${other}`, Date.now()));
  });

  // promise: sessions.revocation-bus-messages
  it('messages carry neither the token, nor the user id, nor the JWT id', async () => {
    const raw = token();
    const sid = randomUUID();
    const count = heard.length;
    b.cache.forgetDb(raw);
    b.cache.forgetUser('user-with-a-name');
    await b.revocation.revoke({ sid });
    await until(() => heard.length === count + 3);
    for (const message of heard.slice(count)) {
      expect(message).not.toContain(raw.slice(0, 12));
      expect(message).not.toContain('user-with-a-name');
      expect(message).not.toContain(sid.slice(0, 8));
      expect(message).toMatch(/^1\.[\w-]{22}\.[suj]\.[\w-]{43}(\.\d+)?$/);
    }
  });

  // promise: sessions.revocation-bus-messages
  it('malformed messages are counted and ignored', async () => {
    const raw = token();
    a.cache.keepDb(raw, dbEntry('u2'));
    const before = a.broadcast.stats();
    for (const junk of ['', 'hello', `1.x.s.${raw}`, '{"kind":"s"}', 'x'.repeat(10_000)])
      await admin.publish(channel, junk);
    await until(() => a.broadcast.stats().malformed === before.malformed + 5);
    expect(a.broadcast.stats().applied).toBe(before.applied);
    expect(a.cache.db(raw)).toBeDefined();
  });

  // promise: sessions.revocation-bus-failsafe
  it('while its subscriber connection is down, A serves no database session from its cache; resubscribed, it starts empty', async () => {
    const raw = token();
    a.cache.keepDb(raw, dbEntry('u3'));
    expect(a.cache.hit(raw, false)).toBeDefined();
    const list = (await admin.client('LIST')) as string;
    const id = list
      .split('\n')
      .find((line) => line.includes(` name=${names[0]} `) && / sub=[1-9]/.test(line))
      ?.match(/^id=(\d+)/)?.[1];
    expect(id).toBeDefined();
    const disconnects = a.broadcast.stats().disconnects;
    await admin.client('KILL', 'ID', id!);
    await until(() => !a.broadcast.live);
    expect(a.broadcast.stats()).toMatchObject({ connected: false, disconnects: disconnects + 1 });
    expect(a.cache.hit(raw, false)).toBeUndefined();
    expect(a.cache.db(raw)).toBeUndefined();
    a.cache.keepDb(raw, dbEntry('u3'));
    expect(a.cache.db(raw)).toBeUndefined();
    expect(a.cache.hit(raw, false)).toBeUndefined();
    expect(a.cache.usage().dbs).toBe(0);
    await until(() => a.broadcast.live);
    // Revocations published while it was away were missed: nothing from before is served.
    expect(a.cache.db(raw)).toBeUndefined();
    a.cache.keepDb(raw, dbEntry('u3'));
    expect(a.cache.db(raw)).toBeDefined();
    b.cache.forgetDb(raw);
    await until(() => a.cache.db(raw) === undefined);
  });

  it('a failed publication is counted; the revocation still applies here', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    dead.on('error', () => undefined);
    const c = await sessionParts(
      { session: { strategy: 'database', cacheTtl: 60 } },
      { bus: new RedisRevocationBus(dead, { channel, connectTimeout: 200 }) },
    );
    try {
      expect(c.broadcast.live).toBe(false);
      expect(c.logs.warn).toContain('revocation_bus_not_connected');
      c.cache.forgetDb('t-dead');
      await until(() => c.broadcast.stats().publishFailures === 1);
      expect(c.logs.warn).toContain('revocation_bus_publish_failed');
    } finally {
      await c.close();
      // (ioredis keeps a 2 s timer when a connection that already ended is disconnected.)
      if (dead.status !== 'end') dead.disconnect();
    }
  });
});
