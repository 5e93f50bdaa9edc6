/**
 * Tokens for other services and API keys on real storage, two instances: two Nest apps on one
 * database (SQLite file, PostgreSQL, MariaDB) through the default TypeOrmAdapter, with a Redis
 * revocation bus between them. Both serve the same stored signing keys; a key rotated on A is in
 * B's JWKS before it signs, and B verifies what A signs with it; an API key revoked on A, which B
 * had looked up and cached, is refused by B within a second; a dump of every table holds no API key
 * and no signing key's private half in clear.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Controller, Get, UseGuards } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Redis } from 'ioredis';
import { decodeProtectedHeader } from 'jose';
import { DataSource } from 'typeorm';
import type { Adapter } from '../lib/adapters/adapter.interface.js';
import { RedisRevocationBus } from '../lib/bus/redis-revocation.bus.js';
import { AdapterService } from '../lib/core/adapter.service.js';
import { Auth } from '../lib/core/public.decorator.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { TestClient } from './setup/http-client.js';
import { REDIS_URL, redisAvailable } from './setup/redis.js';

const ISSUER = 'https://api.example.test/auth';
const PASSWORD = 'correct horse battery';
const PUBLISH_AHEAD = 4;

@Controller('keys')
@UseGuards(AuthGuard)
class KeysController {
  @Get()
  @Auth({ accept: ['apiKey', 'accessToken'] })
  ok() {
    return { ok: true };
  }
}

const targets = await databaseTargets(['sqlite', 'postgres', 'mariadb']);
const withRedis = await redisAvailable('service tokens across instances (Redis revocation bus)');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const target of targets) {
  (withRedis ? target.describe : describe.skip)(`tokens and API keys on ${target.name}, two instances`, () => {
    const channel = `nestjs_auth_keys_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    let db: TestDatabase | undefined;
    const apps: TestApp[] = [];
    const redis: Redis[] = [];
    let storage: Adapter | undefined;

    beforeAll(async () => {
      db = await createDatabase(target, 'service tokens');
      for (let i = 0; i < 2; i++) {
        const client = new Redis(REDIS_URL, { connectionName: `${channel}-${i}` });
        redis.push(client);
        apps.push(
          await createTestApp({
            controllers: [KeysController],
            imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: i === 0 })],
            auth: {
              session: { strategy: 'database' },
              logger: { error: () => undefined, warn: () => undefined },
              revocationBus: new RedisRevocationBus(client, { channel }),
              accessToken: { issuer: ISSUER, rotation: { every: 0, publishAhead: PUBLISH_AHEAD } },
              apiKeys: { cacheTtl: 60, rateLimit: false },
              providers: [
                Credentials({
                  credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
                  async authorize({ email, password }) {
                    const user = typeof email === 'string' ? await storage!.getUserByEmail!(email) : null;
                    return user && password === PASSWORD ? { id: user.id, email: user.email } : null;
                  },
                }),
              ],
            },
          }),
        );
      }
      storage = apps[0]!.app.get(AdapterService).raw as Adapter;
    });
    afterAll(async () => {
      for (const app of apps) await app.close();
      await Promise.all(redis.map((c) => c.quit()));
      await dropDatabase(db);
    });

    async function signedIn(t: TestApp) {
      const email = `${randomUUID()}@example.test`;
      const user = await storage!.createUser!({ email, emailVerified: null } as never);
      const browser = new TestClient(t.url);
      const csrfToken = await browser.csrf();
      await browser.post('/auth/callback/credentials', { csrfToken, email, password: PASSWORD });
      return { browser, userId: user.id };
    }
    async function token(t: TestApp, browser: TestClient): Promise<string> {
      const csrfToken = await browser.csrf();
      const res = await browser.post(
        '/auth/access-token',
        {},
        { json: true, headers: { 'x-csrf-token': csrfToken, origin: t.url } },
      );
      return ((await res.json()) as { access_token: string }).access_token;
    }
    const kids = async (t: TestApp) =>
      ((await (await fetch(`${t.url}/auth/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
    const call = (t: TestApp, credential: string) =>
      fetch(`${t.url}/keys`, { headers: { authorization: `Bearer ${credential}` } });

    // promise: service-tokens.rotation
    it('both instances serve the stored keys; a key rotated on A is in B before it signs', async () => {
      const [a, b] = apps as [TestApp, TestApp];
      expect(await kids(a)).toEqual(await kids(b));
      const { browser } = await signedIn(a);
      expect((await call(b, await token(a, browser))).status).toBe(200);
      const kid = await a.app.get(AuthService).rotateSigningKey();
      const start = Date.now();
      while (!(await kids(b)).includes(kid)) {
        expect(Date.now() - start).toBeLessThan(PUBLISH_AHEAD * 1000);
        await sleep(100);
      }
      await sleep(PUBLISH_AHEAD * 1000 - (Date.now() - start) + 300);
      const signed = await token(a, browser);
      expect(decodeProtectedHeader(signed).kid).toBe(kid);
      expect((await call(b, signed)).status).toBe(200);
    });

    // promise: api-keys.revocation
    it('an API key revoked on A is refused by B within a second', async () => {
      const [a, b] = apps as [TestApp, TestApp];
      const { userId } = await signedIn(a);
      const { key, apiKey } = await a.app.get(AuthService).createApiKey(userId, { name: 'ci' });
      expect((await call(b, key)).status).toBe(200); // B looks it up and caches it
      await a.app.get(AuthService).revokeApiKey(userId, apiKey.id);
      const revokedAt = Date.now();
      let refusedAfter = Infinity;
      while (Date.now() - revokedAt < 2000) {
        if ((await call(b, key)).status === 401) {
          refusedAfter = Date.now() - revokedAt;
          break;
        }
        await sleep(20);
      }
      expect(refusedAfter).toBeLessThanOrEqual(1000);
    });

    // promise: api-keys.stored-as-hash
    it('keeps no API key and no private signing key in clear: a dump of every table', async () => {
      const [a] = apps as [TestApp, TestApp];
      const { userId } = await signedIn(a);
      const { key } = await a.app.get(AuthService).createApiKey(userId, { name: 'dump' });
      const ds = a.app.get(DataSource);
      let dump = '';
      for (const meta of ds.entityMetadatas)
        dump += JSON.stringify(await ds.query(`SELECT * FROM ${ds.driver.escape(meta.tableName)}`));
      expect(dump).toContain('"dump"');
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(key.slice(4, 40));
      const rows = (await ds.query(`SELECT * FROM ${ds.driver.escape('signing_keys')}`)) as Array<
        Record<string, string>
      >;
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.privateKey).toMatch(/^enc\.v1\./);
    });
  });
}
