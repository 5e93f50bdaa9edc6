/**
 * Back-channel logout tokens across instances (issue 22): a logout token's `jti` is remembered in
 * the shared `rateLimitStore` (Redis), so a token replayed to another instance of the app is refused
 * too. Without a shared store each instance remembers its own, which this suite also shows.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { RedisRateLimitStore } from '../lib/rate-limit/redis-rate-limit.store.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { TestClient } from './setup/http-client.js';
import { startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { opProvider } from './setup/oidc-sign-in.js';
import { REDIS_URL, redisAvailable } from './setup/redis.js';

const withRedis = await redisAvailable('back-channel logout replay across instances');

(withRedis ? describe : describe.skip)('back-channel logout tokens across two instances', () => {
  const clientId = `replay-${randomUUID().slice(0, 8)}`;
  const prefix = `nestjs-auth-test:${randomUUID()}:`;
  let op: TestOidcProvider;
  const shared: TestApp[] = [];
  const separate: TestApp[] = [];
  const clients: Redis[] = [];

  beforeAll(async () => {
    op = await startOidcProvider();
    // One MemoryAdapter object stands for the one database both instances use.
    const adapter = new MemoryAdapter();
    const providers = [opProvider(op, 'bc', clientId, { backchannelLogout: true })];
    for (let i = 0; i < 2; i++) {
      const client = new Redis(REDIS_URL);
      clients.push(client);
      shared.push(
        await createTestApp({
          auth: { adapter, providers, rateLimitStore: new RedisRateLimitStore(client, { prefix }) },
        }),
      );
      separate.push(await createTestApp({ auth: { adapter, providers } }));
    }
  });
  afterAll(async () => {
    for (const app of [...shared, ...separate]) await app.close();
    const keys = await clients[0]!.keys(`${prefix}*`);
    if (keys.length) await clients[0]!.del(...keys);
    await Promise.all(clients.map((c) => c.quit()));
    await op?.close();
  });

  const logoutToken = () =>
    op.signJwt(
      {
        iss: op.issuer,
        aud: clientId,
        iat: Math.floor(Date.now() / 1000),
        jti: randomUUID(),
        sub: 'someone',
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      },
      { typ: 'logout+jwt' },
    );
  const post = (app: TestApp, token: string) =>
    new TestClient(app.url).post('/auth/backchannel-logout/bc', { logout_token: token });

  // promise: oauth.shared-logout-jti
  it('a logout token used on instance A is refused on instance B (shared store)', async () => {
    const [a, b] = shared as [TestApp, TestApp];
    const token = await logoutToken();
    expect((await post(a, token)).status).toBe(200);
    const replay = await post(b, token);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({
      error: 'LogoutTokenError',
      message: expect.stringMatching(/already used/),
    });
    // Remembered in Redis for as long as the token could be accepted.
    const [key] = await clients[0]!.keys(`${prefix}logout-jti:*`);
    expect(await clients[0]!.pttl(key!)).toBeGreaterThan(300_000);
  });

  it('without a shared store, each instance remembers only its own (the replay to B is accepted)', async () => {
    const [a, b] = separate as [TestApp, TestApp];
    const token = await logoutToken();
    expect((await post(a, token)).status).toBe(200);
    expect((await post(a, token)).status).toBe(400);
    expect((await post(b, token)).status).toBe(200);
  });
});
