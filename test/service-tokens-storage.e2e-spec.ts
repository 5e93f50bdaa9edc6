/**
 * Tokens for other services and API keys on real storage, two instances: two Nest apps on one
 * database (SQLite file, PostgreSQL, MariaDB) through the default TypeOrmAdapter, with a Redis
 * revocation bus between them. Both serve the same stored signing keys; a key rotated on A is in
 * B's JWKS before it signs, and B (and `nestjs-auth/verify`, from B's JWKS) verifies what A signs
 * with it; an API key revoked on A, which B had looked up and cached, is refused by B within a
 * second; a dump of every table holds no API key and no signing key's private half in clear. The
 * same on SQLite with RSA keys (`accessToken.algorithm: 'RS256'`), and an app on SQLite switched
 * from EdDSA to RS256 over its stored keys.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Controller, Get, UseGuards } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Redis } from 'ioredis';
import { decodeProtectedHeader } from 'jose';
import { DataSource } from 'typeorm';
import type { AccessTokenAlgorithm } from '../lib/config/auth-options.interface.js';
import type { Adapter } from '../lib/adapters/adapter.interface.js';
import { RedisRevocationBus } from '../lib/bus/redis-revocation.bus.js';
import { AdapterService } from '../lib/core/adapter.service.js';
import { Auth } from '../lib/core/public.decorator.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { createAccessTokenVerifier } from '../lib/verify.js';
import { createTestApp, type TestApp } from './setup/app.js';
import {
  createDatabase,
  databaseTargets,
  dropDatabase,
  type DatabaseTarget,
  type TestDatabase,
} from './setup/databases.js';
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
const sqlite = targets.find((t) => t.name === 'sqlite')!;

/** The credentials sign-in, its users read from `storage`. */
const credentials = (storage: () => Adapter | undefined) =>
  Credentials({
    credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
    async authorize({ email, password }) {
      const user = typeof email === 'string' ? await storage()!.getUserByEmail!(email) : null;
      return user && password === PASSWORD ? { id: user.id, email: user.email } : null;
    },
  });
/** A new user of `storage`, signed in on `t`: the browser and the user's id. */
async function signedIn(t: TestApp, storage: Adapter) {
  const email = `${randomUUID()}@example.test`;
  const user = await storage.createUser!({ email, emailVerified: null } as never);
  const browser = new TestClient(t.url);
  const csrfToken = await browser.csrf();
  await browser.post('/auth/callback/credentials', { csrfToken, email, password: PASSWORD });
  return { browser, userId: user.id };
}
/** An access token for the signed-in user (`POST /auth/access-token`). */
async function token(t: TestApp, browser: TestClient): Promise<string> {
  const csrfToken = await browser.csrf();
  const res = await browser.post(
    '/auth/access-token',
    {},
    { json: true, headers: { 'x-csrf-token': csrfToken, origin: t.url } },
  );
  return ((await res.json()) as { access_token: string }).access_token;
}
const jwksOf = async (t: TestApp) =>
  (await (await fetch(`${t.url}/auth/jwks`)).json()) as { keys: Array<{ kid: string; kty: string; alg: string }> };
const kids = async (t: TestApp) => (await jwksOf(t)).keys.map((k) => k.kid);
/** The guarded route, with a bearer credential. */
const call = (t: TestApp, credential: string) =>
  fetch(`${t.url}/keys`, { headers: { authorization: `Bearer ${credential}` } });
/** `nestjs-auth/verify` with `t`'s JWK Set URL. */
const verifierOf = (t: TestApp) =>
  createAccessTokenVerifier({ jwksUrl: `${t.url}/auth/jwks`, issuer: ISSUER, audience: ISSUER });

/** Every database with the default algorithm; SQLite with RS256 too. */
const runs: Array<[DatabaseTarget, AccessTokenAlgorithm]> = [
  ...targets.map((target): [DatabaseTarget, AccessTokenAlgorithm] => [target, 'EdDSA']),
  [sqlite, 'RS256'],
];

for (const [target, algorithm] of runs) {
  const named = `tokens and API keys on ${target.name}, two instances${algorithm === 'RS256' ? ', RS256 keys' : ''}`;
  (withRedis ? target.describe : describe.skip)(named, () => {
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
              accessToken: { issuer: ISSUER, algorithm, rotation: { every: 0, publishAhead: PUBLISH_AHEAD } },
              apiKeys: { cacheTtl: 60, rateLimit: false },
              providers: [credentials(() => storage)],
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

    // promise: service-tokens.rotation
    it(`both instances serve the stored ${algorithm} keys; a key rotated on A is in B before it signs`, async () => {
      const [a, b] = apps as [TestApp, TestApp];
      expect(await kids(a)).toEqual(await kids(b));
      expect((await jwksOf(a)).keys.map((k) => k.alg)).toEqual([algorithm]);
      const { browser, userId } = await signedIn(a, storage!);
      const first = await token(a, browser);
      expect(decodeProtectedHeader(first).alg).toBe(algorithm);
      expect((await call(b, first)).status).toBe(200);
      const kid = await a.app.get(AuthService).rotateSigningKey();
      const start = Date.now();
      while (!(await kids(b)).includes(kid)) {
        expect(Date.now() - start).toBeLessThan(PUBLISH_AHEAD * 1000);
        await sleep(100);
      }
      await sleep(PUBLISH_AHEAD * 1000 - (Date.now() - start) + 300);
      const signed = await token(a, browser);
      expect(decodeProtectedHeader(signed)).toMatchObject({ kid, alg: algorithm });
      expect((await call(b, signed)).status).toBe(200);
      // Another service verifies both, from B's JWKS, with nothing but nestjs-auth/verify.
      const verify = verifierOf(b);
      for (const t of [first, signed]) expect(await verify(t)).toMatchObject({ sub: userId, clientId: 'session' });
    });

    // promise: api-keys.revocation
    it('an API key revoked on A is refused by B within a second', async () => {
      const [a, b] = apps as [TestApp, TestApp];
      const { userId } = await signedIn(a, storage!);
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
      const { userId } = await signedIn(a, storage!);
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
      for (const row of rows)
        expect(row).toMatchObject({ alg: algorithm, privateKey: expect.stringMatching(/^enc\.v1\./) });
    });
  });
}

sqlite.describe('an app on sqlite switched from EdDSA to RS256 (accessToken.algorithm), over its stored keys', () => {
  let db: TestDatabase | undefined;
  let t: TestApp | undefined;
  let storage: Adapter | undefined;

  beforeAll(async () => {
    db = await createDatabase(sqlite, 'rs256 switch');
  });
  afterAll(async () => {
    await t?.close();
    await dropDatabase(db);
  });

  /** The app on the suite's database, signing with `algorithm` (one instance: no revocation bus). */
  async function start(algorithm: AccessTokenAlgorithm, synchronize: boolean): Promise<TestApp> {
    const app = await createTestApp({
      controllers: [KeysController],
      imports: [TypeOrmModule.forRoot({ ...db!.options, autoLoadEntities: true, synchronize })],
      auth: {
        session: { strategy: 'database' },
        logger: { error: () => undefined, warn: () => undefined },
        accessToken: { issuer: ISSUER, algorithm, rotation: { every: 0, publishAhead: PUBLISH_AHEAD } },
        providers: [credentials(() => storage)],
      },
    });
    storage = app.app.get(AdapterService).raw as Adapter;
    return app;
  }

  // promise: service-tokens.rotation
  it('keeps verifying the Ed25519 key, signs RS256 once the RSA key is published ahead, and nestjs-auth/verify takes both', async () => {
    t = await start('EdDSA', true);
    const before = await token(t, (await signedIn(t, storage!)).browser);
    expect(decodeProtectedHeader(before).alg).toBe('EdDSA');
    await t.close();

    // The deployment restarts with algorithm 'RS256': same database, same secret.
    t = await start('RS256', false);
    const { browser, userId } = await signedIn(t, storage!);
    const rows = (await t.app.get(DataSource).query('SELECT * FROM signing_keys ORDER BY slot')) as Array<
      Record<string, string>
    >;
    expect(rows.map((r) => r.alg)).toEqual(['EdDSA', 'RS256']);
    for (const row of rows) expect(row.privateKey).toMatch(/^enc\.v1\./);
    const rsaKid = rows[1]!.id;
    expect((await jwksOf(t)).keys.map((k) => [k.kty, k.alg])).toEqual([
      ['OKP', 'EdDSA'],
      ['RSA', 'RS256'],
    ]);
    // The Ed25519 key still verifies what it signed, and signs until the RSA key's time comes.
    expect((await call(t, before)).status).toBe(200);
    expect(decodeProtectedHeader(await token(t, browser)).alg).toBe('EdDSA');
    await sleep(new Date(rows[1]!.activatesAt!).getTime() - Date.now() + 300);
    const after = await token(t, browser);
    expect(decodeProtectedHeader(after)).toMatchObject({ alg: 'RS256', kid: rsaKid });
    expect(after.split('.')[2]).toHaveLength(342);
    expect((await call(t, after)).status).toBe(200);
    expect((await call(t, before)).status).toBe(200);
    // Another service, from the JWKS alone: the RS256 token, and the Ed25519 one while it lives.
    const verify = verifierOf(t);
    expect(await verify(after)).toMatchObject({ sub: userId, clientId: 'session' });
    expect(await verify(before)).toMatchObject({ clientId: 'session' });
    // A rotation now makes another RSA key; the first still verifies what it signed.
    const next = await t.app.get(AuthService).rotateSigningKey({ immediately: true });
    const rotated = await token(t, browser);
    expect(decodeProtectedHeader(rotated)).toMatchObject({ alg: 'RS256', kid: next });
    expect((await call(t, after)).status).toBe(200);
    // (A key signing at once is not in a verifier's cached JWKS for up to 30 s: publishAhead is for that.)
    expect(await verifierOf(t)(rotated)).toMatchObject({ sub: userId });
  });
});
