/**
 * Native apps on real storage and several instances: two Nest apps on one database (SQLite file,
 * PostgreSQL, MariaDB) through the default TypeOrmAdapter, with a Redis revocation bus between
 * them. 50 concurrent refreshes with one token, split across both instances, mint one pair; a spent
 * token replayed after the reuse window on one instance ends the family, and the other instance,
 * which had the access token verified and cached, refuses it within a second; a dump of every table
 * holds no refresh token, access token or code in clear.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Redis } from 'ioredis';
import * as oauth from 'oauth4webapi';
import { DataSource } from 'typeorm';
import type { Adapter } from '../lib/adapters/adapter.interface.js';
import { RedisRevocationBus } from '../lib/bus/redis-revocation.bus.js';
import { AdapterService } from '../lib/core/adapter.service.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { location, TestClient } from './setup/http-client.js';
import { REDIS_URL, redisAvailable } from './setup/redis.js';

const ISSUER = 'https://api.example.test/auth';
const PASSWORD = 'correct horse battery';
const REDIRECT = 'com.example.app:/oauth';
// Long enough for 50 refreshes across two instances on a loaded machine to land inside it.
const REUSE_WINDOW = 4;
const insecure = { [oauth.allowInsecureRequests]: true } as const;

const targets = await databaseTargets(['sqlite', 'postgres', 'mariadb']);
const withRedis = await redisAvailable('native apps across instances (Redis revocation bus)');

for (const target of targets) {
  (withRedis ? target.describe : describe.skip)(`native apps on ${target.name}, two instances`, () => {
    const channel = `nestjs_auth_native_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    let db: TestDatabase | undefined;
    const apps: TestApp[] = [];
    const redis: Redis[] = [];
    let storage: Adapter | undefined;

    beforeAll(async () => {
      db = await createDatabase(target, 'native apps');
      for (let i = 0; i < 2; i++) {
        const client = new Redis(REDIS_URL, { connectionName: `${channel}-${i}` });
        redis.push(client);
        apps.push(
          await createTestApp({
            imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: i === 0 })],
            auth: {
              session: { strategy: 'database' },
              logger: { error: () => undefined, warn: () => undefined },
              revocationBus: new RedisRevocationBus(client, { channel }),
              accessToken: { issuer: ISSUER },
              nativeApps: { clients: [{ clientId: 'ios', redirectUris: [REDIRECT] }], reuseWindow: REUSE_WINDOW },
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

    function appOf(t: TestApp) {
      const as: oauth.AuthorizationServer = {
        issuer: ISSUER,
        authorization_endpoint: `${t.url}/auth/authorize`,
        token_endpoint: `${t.url}/auth/token`,
        authorization_response_iss_parameter_supported: true,
      };
      return { as, client: { client_id: 'ios' } as oauth.Client };
    }

    /** A user signed in on instance A through the browser; the app's first pair and what it saw. */
    async function signIn() {
      const [a] = apps as [TestApp, TestApp];
      const email = `${randomUUID()}@example.test`;
      await storage!.createUser!({ email, emailVerified: null } as never);
      const { as, client } = appOf(a);
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: 'ios',
        redirect_uri: REDIRECT,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      }))
        url.searchParams.set(k, v);
      const browser = new TestClient(a.url);
      await browser.get(location(await browser.get(url.href)).href);
      const csrfToken = await browser.csrf();
      const back = location(await browser.post('/auth/callback/credentials', { csrfToken, email, password: PASSWORD }));
      const redirect = location(await browser.get(back.href));
      const code = redirect.searchParams.get('code')!;
      const params = oauth.validateAuthResponse(as, client, redirect, state);
      const res = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        REDIRECT,
        verifier,
        insecure,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
      return { tokens: tokens as { access_token: string; refresh_token: string }, code, browser };
    }

    const refresh = (t: TestApp, token: string) =>
      fetch(`${t.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'ios', refresh_token: token }),
      });
    const me = (t: TestApp, token: string) => fetch(`${t.url}/me`, { headers: { authorization: `Bearer ${token}` } });

    it('50 concurrent refreshes with one token across both instances mint one pair', async () => {
      const [a, b] = apps as [TestApp, TestApp];
      const { tokens } = await signIn();
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => refresh(i % 2 ? b : a, tokens.refresh_token)),
      );
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<{
        access_token: string;
        refresh_token: string;
      }>;
      expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
      expect(new Set(bodies.map((x) => x.refresh_token)).size).toBe(1);
      expect(new Set(bodies.map((x) => x.access_token)).size).toBe(1);
      expect((await me(b, bodies[0]!.access_token)).status).toBe(200);
    });

    // promise: native-apps.revocation
    it('a replay after the window on A ends the family; B refuses the cached access token within 1 s', async () => {
      const [a, b] = apps as [TestApp, TestApp];
      const { tokens } = await signIn();
      const next = (await (await refresh(a, tokens.refresh_token)).json()) as {
        access_token: string;
        refresh_token: string;
      };
      // B verifies (and caches) the newest access token.
      expect((await me(b, next.access_token)).status).toBe(200);
      // The window counts from the rotation, whose stored time is rounded down to its second: + 2 s.
      await new Promise((r) => setTimeout(r, (REUSE_WINDOW + 2) * 1000));
      const replay = await refresh(a, tokens.refresh_token);
      const endedAt = Date.now();
      expect(replay.status).toBe(400);
      let refusedAfter = Infinity;
      while (Date.now() - endedAt < 2000) {
        if ((await me(b, next.access_token)).status === 401) {
          refusedAfter = Date.now() - endedAt;
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(refusedAfter).toBeLessThanOrEqual(1000);
      expect((await refresh(b, next.refresh_token)).status).toBe(400);
    });

    // promise: native-apps.rotation
    it('keeps no refresh token, access token or code in clear: a dump of every table', async () => {
      const { tokens, code } = await signIn();
      const next = (await (await refresh(apps[0]!, tokens.refresh_token)).json()) as {
        access_token: string;
        refresh_token: string;
      };
      const ds = apps[0]!.app.get(DataSource);
      let dump = '';
      for (const meta of ds.entityMetadatas) {
        const table = ds.driver.escape(meta.tableName);
        dump += JSON.stringify(await ds.query(`SELECT * FROM ${table}`));
      }
      expect(dump).toContain('refresh'); // the families are there…
      for (const secret of [tokens.refresh_token, next.refresh_token, tokens.access_token, next.access_token, code]) {
        expect(dump).not.toContain(secret); // …but none of the tokens,
        expect(dump).not.toContain(secret.split('.').pop()!); // nor their MAC or signature part.
      }
    });
  });
}
