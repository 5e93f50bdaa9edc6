/**
 * Several instances (issue 21, item 8): a revocation on one instance reaches the other instances'
 * session caches within a second, over Redis pub/sub or PostgreSQL LISTEN/NOTIFY. Two real Nest
 * apps on one PostgreSQL database, each caching sessions for 60 s; a load loop of requests runs on
 * A while the session ends on B. Without a bus, the same test shows A serving the stale session.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { PostgresRevocationBus } from '../lib/bus/postgres-revocation.bus.js';
import { RedisRevocationBus } from '../lib/bus/redis-revocation.bus.js';
import type { AuthModuleExtras, AuthModuleOptions, SessionOptions } from '../lib/config/auth-options.interface.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { RevocationBroadcast } from '../lib/session/revocation-broadcast.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, POSTGRES_URL, type TestDatabase } from './setup/databases.js';
import { TestClient } from './setup/http-client.js';
import { readmeSnippet } from './setup/readme.js';
import { REDIS_URL, redisAvailable } from './setup/redis.js';

const COOKIE = 'authjs.session-token';
/**
 * The load loop runs until this long after the revocation, and at most this many requests after it
 * (a safety bound, far above what 1.5 s serves: a bound that also counted the requests before the
 * revocation ended the loop before 1 s had passed whenever the sign-out on B was slow and A fast).
 */
const MAX_REQUESTS = 20_000;
const OBSERVE_MS = 1500;
const CONCURRENCY = 4;

const credentials = {
  id: 'credentials',
  name: 'Password',
  type: 'credentials' as const,
  credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
  authorize: async (c: Partial<Record<string, unknown>>) =>
    c.password === 'correct horse' ? { id: `user-${String(c.username)}`, email: `${String(c.username)}@x.test` } : null,
};

async function signIn(client: TestClient, username: string): Promise<string> {
  const csrfToken = await client.csrf();
  await client.post('/auth/callback/credentials', {
    csrfToken,
    username,
    password: 'correct horse',
    callbackUrl: '/public',
  });
  return client.cookies.get(COOKIE)!;
}

const me = (app: TestApp, token: string) => fetch(`${app.url}/me`, { headers: { cookie: `${COOKIE}=${token}` } });

/**
 * Runs `revoke` while a load loop of `/me` requests runs on `a` (CONCURRENCY at a time, bounded in
 * count and time) and returns, for each request, when it started (relative to the end of `revoke`)
 * and its status.
 */
async function underLoad(a: TestApp, token: string, revoke: () => Promise<unknown>) {
  const samples: Array<{ at: number; status: number }> = [];
  let revokedAt = Infinity;
  let after = 0;
  let stop = false;
  const worker = async () => {
    while (!stop) {
      const at = Date.now();
      const res = await me(a, token);
      await res.arrayBuffer();
      samples.push({ at, status: res.status });
      if (at >= revokedAt) after += 1;
      if (at > revokedAt + OBSERVE_MS || after >= MAX_REQUESTS) stop = true;
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, worker);
  await new Promise((r) => setTimeout(r, 100));
  await revoke();
  revokedAt = Date.now();
  await Promise.all(workers);
  return samples.map((s) => ({ at: s.at - revokedAt, status: s.status }));
}

/** How long after the revocation A still answered 200 (the start of its last 200), in ms. */
function staleFor(samples: Array<{ at: number; status: number }>): number {
  const ok = samples.filter((s) => s.status === 200).map((s) => s.at);
  return ok.length ? Math.max(...ok) : -Infinity;
}

/** The README's snippet, as written (only `from 'nestjs-auth'` pointed at the sources). */
async function importSnippet(name: string): Promise<Record<string, unknown>> {
  const out = join(process.cwd(), 'test-output', 'readme-snippets');
  mkdirSync(out, { recursive: true });
  const file = join(out, `${name}.ts`);
  writeFileSync(file, readmeSnippet(name).code.replace(/from 'nestjs-auth'/g, "from '../../lib/index.js'"));
  return (await import(file)) as Record<string, unknown>;
}
const snippet = (await importSnippet('revocation-bus')) as {
  sessions: SessionOptions;
  redisBus: (redis: Redis) => AuthModuleExtras['revocationBus'];
  postgresBus: AuthModuleExtras['revocationBus'];
};

/** Which bus: ours with a channel per suite, the README snippet's (default channel), or none. */
type Bus = 'redis' | 'postgres' | 'none' | 'readme redis' | 'readme postgres';
const [postgres] = await databaseTargets(['postgres']);
const withRedis = await redisAvailable('revocation bus (Redis)');
const VARIANTS: Array<['database' | 'jwt', Bus]> = [
  ['database', 'redis'],
  ['database', 'postgres'],
  ['database', 'none'],
  ['database', 'readme redis'],
  ['database', 'readme postgres'],
  ['jwt', 'redis'],
  ['jwt', 'postgres'],
  ['jwt', 'none'],
];

// promise: sessions.revocation-bus
for (const [strategy, bus] of VARIANTS) {
  const runs = postgres!.available && (!bus.endsWith('redis') || withRedis);
  (runs ? describe : describe.skip)(`revocation across two instances: ${strategy} sessions, bus: ${bus}`, () => {
    const channel = `nestjs_auth_e2e_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    let db: TestDatabase | undefined;
    const apps: TestApp[] = [];
    const redis: Redis[] = [];

    /** The session options and module settings of one instance. */
    function settings(): Partial<AuthModuleOptions> & AuthModuleExtras {
      const session: AuthModuleOptions['session'] =
        strategy === 'database' ? { strategy, cacheTtl: 60 } : { strategy, jwtRevocation: true };
      if (bus === 'readme redis') {
        const client = new Redis(REDIS_URL);
        redis.push(client);
        return { session: snippet.sessions, revocationBus: snippet.redisBus(client) };
      }
      if (bus === 'readme postgres') return { session, revocationBus: snippet.postgresBus };
      if (bus === 'redis') {
        // Named, so a test finds its subscriber connection; reconnects after 400 ms.
        const client = new Redis(REDIS_URL, { connectionName: `${channel}-${redis.length}`, retryStrategy: () => 400 });
        redis.push(client);
        return { session, revocationBus: new RedisRevocationBus(client, { channel }) };
      }
      if (bus === 'postgres' && strategy === 'database') {
        // The app's TypeORM DataSource, injected: the bus listens on one of its pooled connections.
        const revocationBus = {
          useFactory: (ds: DataSource) => new PostgresRevocationBus(ds, { channel }),
          inject: [DataSource],
        };
        return { session, revocationBus };
      }
      if (bus === 'postgres') return { session, revocationBus: new PostgresRevocationBus(POSTGRES_URL, { channel }) };
      return { session };
    }

    beforeAll(async () => {
      if (strategy === 'database') db = await createDatabase(postgres!, `revocation ${bus}`);
      for (let i = 0; i < 2; i++) {
        apps.push(
          await createTestApp({
            auth: { providers: [credentials], ...settings() },
            imports: db ? [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: i === 0 })] : [],
          }),
        );
      }
    });
    afterAll(async () => {
      for (const app of apps) await app.close();
      await Promise.all(redis.map((c) => c.quit()));
      await dropDatabase(db);
    });

    it(`signed out on B while A is under load: ${bus === 'none' ? 'A keeps serving its stale cache' : 'A refuses within 1 s'}`, async () => {
      const [a, b] = apps as [TestApp, TestApp];
      expect(a.app.get(RevocationBroadcast).stats().connected).toBe(true);
      const onA = new TestClient(a.url);
      const token = await signIn(onA, 'alice');
      expect((await me(a, token)).status).toBe(200);
      expect((await me(b, token)).status).toBe(200);
      const onB = new TestClient(b.url);
      onB.cookies.set(COOKIE, token);
      const samples = await underLoad(a, token, async () => {
        // (The first GET /csrf without a CSRF cookie answers a token bound to no one: ask twice.)
        await onB.csrf();
        const csrfToken = await onB.csrf();
        const out = await onB.post('/auth/signout', { csrfToken, callbackUrl: '/public' });
        expect(out.headers.get('location')).toBe(`${b.url}/public`);
      });
      // The loop ran before and well after the revocation, within its bounds.
      expect(samples.filter((s) => s.at >= 0).length).toBeLessThanOrEqual(MAX_REQUESTS + CONCURRENCY);
      expect(samples.some((s) => s.at < 0 && s.status === 200)).toBe(true);
      expect(samples.some((s) => s.at > 1000)).toBe(true);
      const stale = staleFor(samples);
      process.stderr.write(
        `[revocation ${strategy}/${bus}] ${samples.length} requests on A; last 200 started ${stale} ms after the sign-out on B\n`,
      );
      if (bus === 'none') {
        // The proof that the bus matters: without it, A serves the cached session long after.
        expect(stale).toBeGreaterThan(1000);
        expect(samples.filter((s) => s.at > 1000).every((s) => s.status === 200)).toBe(true);
      } else {
        expect(stale).toBeLessThan(1000);
        expect(samples.filter((s) => s.at > 1000).every((s) => s.status === 401)).toBe(true);
      }
      // B itself refuses at once in every case.
      expect((await me(b, token)).status).toBe(401);
    });

    if (strategy === 'database' && bus === 'redis') {
      // promise: sessions.revocation-bus-failsafe
      it("with A's bus connection killed, the sign-out on B is missed by A, and A refuses all the same", async () => {
        const [a, b] = apps as [TestApp, TestApp];
        const token = await signIn(new TestClient(a.url), 'dora');
        expect((await me(a, token)).status).toBe(200);
        expect((await me(b, token)).status).toBe(200);
        const broadcast = a.app.get(RevocationBroadcast);
        const before = broadcast.stats();
        const list = (await redis[0]!.client('LIST')) as string;
        const id = list
          .split('\n')
          .find((line) => line.includes(` name=${channel}-0 `) && / sub=[1-9]/.test(line))
          ?.match(/^id=(\d+)/)?.[1];
        await redis[0]!.client('KILL', 'ID', id!);
        while (broadcast.stats().disconnects === before.disconnects) await new Promise((r) => setTimeout(r, 2));
        expect(await b.app.get(AuthService).signOutEverywhere('user-dora')).toBe(1);
        // Disconnected: the cache is not used, the database answers.
        expect((await me(a, token)).status).toBe(401);
        while (!broadcast.live) await new Promise((r) => setTimeout(r, 10));
        // Subscribed again: the cache started empty, the missed revocation cannot be served stale.
        expect((await me(a, token)).status).toBe(401);
        expect(broadcast.stats()).toMatchObject({ disconnects: before.disconnects + 1, applied: before.applied });
      });
    }

    if (strategy === 'database' && bus !== 'none') {
      it("ending all of a user's sessions on B (signOutEverywhere) reaches A's cache within 1 s", async () => {
        const [a, b] = apps as [TestApp, TestApp];
        const tokens = [await signIn(new TestClient(a.url), 'bob'), await signIn(new TestClient(a.url), 'bob')];
        const other = await signIn(new TestClient(a.url), 'carol');
        for (const t of [...tokens, other]) expect((await me(a, t)).status).toBe(200);
        const samples = await underLoad(a, tokens[0]!, async () => {
          expect(await b.app.get(AuthService).signOutEverywhere('user-bob')).toBe(2);
        });
        expect(staleFor(samples)).toBeLessThan(1000);
        expect((await me(a, tokens[1]!)).status).toBe(401);
        expect((await me(a, other)).status).toBe(200);
      });
    }
  });
}
