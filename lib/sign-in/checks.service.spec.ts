import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { InvalidCheck } from '../errors/auth.errors.js';
import { ChecksService, type CheckKind } from './checks.service.js';
import { defaultCookies } from '../config/cookies.js';
import type { ResponseCookie } from '../types/http.types.js';
import { createJwtCodec, encode } from '../session/jwt.js';
import type { RequestContext } from '../core/request-context.js';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store.js';
import type { RateLimitStore } from '../rate-limit/rate-limit.store.js';
import { RedisRateLimitStore } from '../rate-limit/redis-rate-limit.store.js';
import { connectRedis, redisAvailable } from '../../test/setup/redis.js';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const SECRET = 'checks-secret-that-is-long-enough-0000000';
const OTHER = 'checks-other-secret-long-enough-111111111';

function service(secrets = [SECRET], store: RateLimitStore = new MemoryRateLimitStore()): ChecksService {
  return new ChecksService({ secrets } as ResolvedAuthConfig, store);
}

/** A request context carrying `requestCookies`, built by hand (the router builds the real one). */
function context(requestCookies: Record<string, string> = {}, secure = false): RequestContext {
  return {
    request: {
      method: 'GET',
      url: new URL('http://127.0.0.1/auth/callback/idp'),
      headers: {},
      cookies: requestCookies,
      query: {},
      body: {},
    },
    config: { secrets: [SECRET] } as ResolvedAuthConfig,
    origin: 'http://127.0.0.1',
    authUrl: 'http://127.0.0.1/auth',
    secure,
    cookies: defaultCookies(secure),
    callbackUrl: 'http://127.0.0.1/',
    csrfToken: 'csrf',
    csrfVerified: false,
    responseCookies: [],
  };
}

/** The cookies a browser would send back after a response set `set`. */
function jar(set: ResponseCookie[]): Record<string, string> {
  return Object.fromEntries(set.filter((c) => c.options.maxAge !== 0).map((c) => [c.name, c.value]));
}

async function sealed(
  kind: CheckKind,
  value: string,
  opts: Parameters<ChecksService['seal']>[3] = { provider: 'idp' },
  checks = service(),
) {
  const ctx = context();
  await checks.seal(ctx, kind, value, opts);
  return { ctx, cookie: ctx.responseCookies[0], cookies: jar(ctx.responseCookies) };
}

/** The InvalidCheck `fn` throws (fails the test when it resolves or throws something else). */
async function invalidCheck(fn: () => Promise<unknown>): Promise<InvalidCheck> {
  const error = await fn().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidCheck);
  expect((error as InvalidCheck).type).toBe('InvalidCheck');
  return error as InvalidCheck;
}

describe('ChecksService', () => {
  let checks: ChecksService;
  beforeEach(() => {
    checks = service();
  });

  it.each([
    ['pkceCodeVerifier', 'authjs.pkce.code_verifier'],
    ['state', 'authjs.state'],
    ['nonce', 'authjs.nonce'],
    ['webauthnChallenge', 'authjs.challenge'],
  ] as const)('seals %s into the %s cookie, encrypted, for 900 s', async (kind, name) => {
    const before = Date.now();
    const { cookie } = await sealed(kind, 'the-secret-value', { provider: 'idp' }, checks);
    expect(cookie.name).toBe(name);
    expect(cookie.value.split('.')).toHaveLength(5);
    expect(cookie.value).not.toContain('the-secret-value');
    expect(cookie.options).toMatchObject({ httpOnly: true, sameSite: 'lax', path: '/', secure: false, maxAge: 900 });
    const expires = (cookie.options.expires as Date).valueOf();
    expect(expires).toBeGreaterThanOrEqual(before + 899_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 900_000);
  });

  it('uses the secure cookie names and options of the request', async () => {
    const ctx = context({}, true);
    await checks.seal(ctx, 'state', 'v', { provider: 'idp', maxAge: 60 });
    expect(ctx.responseCookies[0]).toMatchObject({
      name: '__Secure-authjs.state',
      options: { secure: true, maxAge: 60 },
    });
  });

  it('sets SameSite=None; Secure for form_post callbacks', async () => {
    const { cookie } = await sealed('nonce', 'n', { provider: 'idp', sameSiteNone: true }, checks);
    expect(cookie.options).toMatchObject({ sameSite: 'none', secure: true });
  });

  it('opens the value and data for the provider that minted it, and deletes the cookie', async () => {
    const { cookies } = await sealed(
      'webauthnChallenge',
      'challenge-1',
      { provider: 'passkey', data: { action: 'register', user: { email: 'a@b.c' } } },
      checks,
    );
    const ctx = context(cookies);
    expect(await checks.open(ctx, 'webauthnChallenge', 'passkey')).toEqual({
      value: 'challenge-1',
      data: { action: 'register', user: { email: 'a@b.c' } },
    });
    expect(ctx.responseCookies).toEqual([
      {
        name: 'authjs.challenge',
        value: '',
        options: { httpOnly: true, sameSite: 'lax', path: '/', secure: false, maxAge: 0 },
      },
    ]);
    // Without consume, a second open (e.g. a retried request) still works.
    expect(await checks.open(context(cookies), 'webauthnChallenge', 'passkey')).toEqual({
      value: 'challenge-1',
      data: { action: 'register', user: { email: 'a@b.c' } },
    });
  });

  it('refuses a missing cookie', async () => {
    const error = await invalidCheck(() => checks.open(context(), 'pkceCodeVerifier', 'idp'));
    expect(error.message).toMatch(/PKCE code_verifier cookie was missing/);
  });

  it('refuses a cookie minted for another provider, and deletes it', async () => {
    const { cookies } = await sealed('state', 'state-value', { provider: 'github' }, checks);
    const ctx = context(cookies);
    const error = await invalidCheck(() => checks.open(ctx, 'state', 'idp'));
    expect(error.message).toMatch(/state cookie was minted for another provider than "idp"/);
    expect(error.message).not.toContain('state-value');
    expect(ctx.responseCookies).toMatchObject([{ name: 'authjs.state', value: '', options: { maxAge: 0 } }]);
  });

  it('refuses a tampered cookie, one sealed with another secret, and junk', async () => {
    const { cookie } = await sealed('pkceCodeVerifier', 'verifier', { provider: 'idp' }, checks);
    const parts = cookie.value.split('.');
    parts[3] = (parts[3][0] === 'A' ? 'B' : 'A') + parts[3].slice(1);
    for (const value of [parts.join('.'), 'x'.repeat(10_240), '%E0%A4%A', 'a.b.c.d.e']) {
      const error = await invalidCheck(() => checks.open(context({ [cookie.name]: value }), 'pkceCodeVerifier', 'idp'));
      expect(error.message).toMatch(/could not be decrypted/);
    }
    const foreign = await sealed('pkceCodeVerifier', 'verifier', { provider: 'idp' }, service([OTHER]));
    await invalidCheck(() => checks.open(context(foreign.cookies), 'pkceCodeVerifier', 'idp'));
  });

  it('opens values sealed before a secret rotation', async () => {
    const before = await sealed('nonce', 'n-1', { provider: 'idp' }, service([OTHER]));
    expect(await service([SECRET, OTHER]).open(context(before.cookies), 'nonce', 'idp')).toEqual({ value: 'n-1' });
  });

  it('refuses an expired cookie, saying so', async () => {
    const value = await encode({
      token: { value: 'v', provider: 'idp', kind: 'state' },
      secret: SECRET,
      salt: 'authjs.state',
      maxAge: -60,
    });
    const error = await invalidCheck(() => checks.open(context({ 'authjs.state': value }), 'state', 'idp'));
    expect(error.message).toMatch(/state cookie has expired/);
  });

  it('refuses a value of one check pasted into another check cookie', async () => {
    const { cookie } = await sealed('state', 'state-value', { provider: 'idp' }, checks);
    // Another cookie name is another key: it does not even decrypt.
    await invalidCheck(() => checks.open(context({ 'authjs.nonce': cookie.value }), 'nonce', 'idp'));
    // Same key (a renamed cookie), other kind: refused by the sealed kind.
    const crafted = await encode({
      token: { value: 'v', provider: 'idp', kind: 'state' },
      secret: SECRET,
      salt: 'authjs.nonce',
      maxAge: 60,
    });
    const error = await invalidCheck(() => checks.open(context({ 'authjs.nonce': crafted }), 'nonce', 'idp'));
    expect(error.message).toMatch(/does not hold a nonce value/);
  });

  it('never lets a check cookie pass for a session (CVE-2023-48309)', async () => {
    const { cookie } = await sealed('pkceCodeVerifier', 'verifier', { provider: 'idp' }, checks);
    expect(await createJwtCodec([SECRET], 'authjs.session-token', 60).decode(cookie.value)).toBeNull();
  });

  it('with consume, refuses the same sealed value a second time (replay), but not another one', async () => {
    const first = await sealed('state', 'same-value', { provider: 'idp' }, checks);
    const second = await sealed('state', 'same-value', { provider: 'idp' }, checks);
    expect(await checks.open(context(first.cookies), 'state', 'idp', { consume: true })).toEqual({
      value: 'same-value',
    });
    const error = await invalidCheck(() => checks.open(context(first.cookies), 'state', 'idp', { consume: true }));
    expect(error.message).toMatch(/state cookie was replayed/);
    expect(await checks.open(context(second.cookies), 'state', 'idp', { consume: true })).toEqual({
      value: 'same-value',
    });
  });

  it('with consume, lets exactly one of many concurrent opens of the same cookie through', async () => {
    const { cookies } = await sealed('pkceCodeVerifier', 'v', { provider: 'idp' }, checks);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => checks.open(context(cookies), 'pkceCodeVerifier', 'idp', { consume: true })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(InvalidCheck);
  });

  it('consume uses up a check opened with keep, without opening it again: once, replays refused either way', async () => {
    const { cookies } = await sealed('twoFactor', 'user-1', { provider: 'two-factor', data: { a: 1 } }, checks);
    const ctx = context(cookies);
    const opened = await checks.open(ctx, 'twoFactor', 'two-factor', { keep: true });
    expect(ctx.responseCookies).toEqual([]);
    await checks.consume(ctx, 'twoFactor', opened);
    expect(ctx.responseCookies).toEqual([expect.objectContaining({ name: ctx.cookies.twoFactor.name, value: '' })]);
    // The same cookie again: refused by consume and by open with consume alike.
    const again = context(cookies);
    const reopened = await checks.open(again, 'twoFactor', 'two-factor', { keep: true });
    expect((await invalidCheck(() => checks.consume(again, 'twoFactor', reopened))).message).toMatch(/replayed/);
    expect(
      (await invalidCheck(() => checks.open(context(cookies), 'twoFactor', 'two-factor', { consume: true }))).message,
    ).toMatch(/replayed/);
    // Only what open returned, for its own kind.
    await expect(checks.consume(context(cookies), 'twoFactor', { value: 'user-1' })).rejects.toThrow(TypeError);
    await expect(checks.consume(context(cookies), 'state', reopened)).rejects.toThrow(TypeError);
  });

  it('consume of a check that expired since it was opened is refused, saying so', async () => {
    const { cookies } = await sealed('twoFactor', 'user-2', { provider: 'two-factor', maxAge: 1 }, checks);
    const ctx = context(cookies);
    const opened = await checks.open(ctx, 'twoFactor', 'two-factor', { keep: true });
    const realNow = Date.now;
    Date.now = () => realNow() + 2_000;
    try {
      expect((await invalidCheck(() => checks.consume(ctx, 'twoFactor', opened))).message).toMatch(/expired/);
    } finally {
      Date.now = realNow;
    }
  });

  it('refuses to seal an empty value or without a provider', async () => {
    await expect(checks.seal(context(), 'state', '', { provider: 'idp' })).rejects.toThrow(TypeError);
    await expect(checks.seal(context(), 'state', 'v', { provider: '' })).rejects.toThrow(TypeError);
  });
});

const withRedis = await redisAvailable('ChecksService replay across instances');

(withRedis ? describe : describe.skip)(
  'ChecksService with a shared store (real Redis): replay refused across instances',
  () => {
    const prefix = `nestjs-auth-test:${randomUUID()}:`;
    const clients: Redis[] = [];
    let redis: Redis;
    let instances: ChecksService[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 3; i++) clients.push((await connectRedis())!);
      redis = clients[0]!;
      // Three app instances: each its own connection and store, one Redis.
      instances = clients.map((client) => service([SECRET], new RedisRateLimitStore(client, { prefix })));
    });
    afterAll(async () => {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await Promise.all(clients.map((c) => c.quit()));
    });

    it('a check opened on one instance is refused on the others, until it expires', async () => {
      const [a, b, c] = instances;
      const { cookies } = await sealed('webauthnChallenge', 'challenge', { provider: 'passkey' }, a);
      expect(await a!.open(context(cookies), 'webauthnChallenge', 'passkey', { consume: true })).toEqual({
        value: 'challenge',
      });
      for (const other of [b!, c!, a!]) {
        const error = await invalidCheck(() =>
          other.open(context(cookies), 'webauthnChallenge', 'passkey', { consume: true }),
        );
        expect(error.message).toMatch(/WebAuthn challenge cookie was replayed/);
      }
      // Remembered in Redis for the check's own lifetime (15 minutes by default), then forgotten.
      const [key] = await redis.keys(`${prefix}check:webauthnChallenge:*`);
      expect(await redis.pttl(key!)).toBeGreaterThan(14 * 60_000);
    });

    it('of 30 concurrent opens of one cookie spread over three instances, exactly one succeeds', async () => {
      const { cookies } = await sealed('state', 'racy', { provider: 'idp' }, instances[0]);
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          instances[i % 3]!.open(context(cookies), 'state', 'idp', { consume: true }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results.filter((r) => r.status === 'rejected'))
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(InvalidCheck);
    });

    it('a store that does not answer refuses the check (InvalidCheck), never lets it through', async () => {
      // A real client whose server is gone: nothing listens on this port.
      expect(await connectRedis('redis://127.0.0.1:1')).toBeNull();
      const dead = new Redis('redis://127.0.0.1:1', {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        enableOfflineQueue: false,
      });
      dead.on('error', () => undefined);
      const checks = service([SECRET], new RedisRateLimitStore(dead, { prefix }));
      const { cookies } = await sealed('nonce', 'n', { provider: 'idp' }, checks);
      const error = await invalidCheck(() => checks.open(context(cookies), 'nonce', 'idp', { consume: true }));
      expect(error.message).toMatch(/could not be checked for replay/);
      dead.disconnect();
    });
  },
);
