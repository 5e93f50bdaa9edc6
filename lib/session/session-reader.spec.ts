import { describe, expect, it, jest } from '@jest/globals';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { defaultCallbacks } from '../config/defaults.js';
import { RedisRateLimitStore } from '../rate-limit/redis-rate-limit.store.js';
import { connectRedis, redisAvailable } from '../../test/setup/redis.js';
import { COOKIE, sessionParts } from './fixtures/session.fixture.js';
import { SIGNED_IN_AT_CLAIM } from './recent-sign-in.js';
import { DB_CACHE_MAX, JWT_CACHE_MAX } from './session-cache.js';

const MINUTE_MS = 60_000;
const withRedis = await redisAvailable('SessionReader fail-closed revocation');

describe('SessionReader: JWT sessions', () => {
  it('decodes a token once, without a promise (default decoder and callbacks); the next reads are cache hits', async () => {
    const { reader, codec, cache } = await sessionParts({ session: { strategy: 'jwt' } });
    const raw = await codec.encode(false, { sub: 'u1', email: 'a@b.test', name: 'A', picture: null });
    const lookup = { cookies: { [COOKIE]: raw }, secure: false };
    expect(cache.jwt(raw)).toBeUndefined();
    const first = reader.readCached(lookup);
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toMatchObject({ status: 'active', user: { id: 'u1', email: 'a@b.test', name: 'A', image: null } });
    expect(cache.jwt(raw)).toBeDefined();
    const state = await reader.read(lookup);
    expect(state).toMatchObject({
      status: 'active',
      strategy: 'jwt',
      bearer: false,
      user: { id: 'u1', email: 'a@b.test', name: 'A', image: null },
    });
    expect(reader.readCached(lookup)).toMatchObject({ status: 'active', user: { id: 'u1' } });
  });

  it('answers a token the full cache refuses as it answers a kept one, building no entry for it', async () => {
    const { reader, codec, cache } = await sessionParts({ session: { strategy: 'jwt' } });
    const claims = { sub: 'u1', email: 'a@b.test', name: 'A', picture: null, [SIGNED_IN_AT_CLAIM]: 1_700_000_000 };
    const kept = await codec.encode(false, claims);
    const refused = await codec.encode(false, claims);
    const keptState = reader.readCached({ cookies: { [COOKIE]: kept }, secure: false });
    // Full of current entries: a token's first offer is refused (sessions.cache-admission).
    const filler = cache.jwt(kept)!;
    for (let i = 1; i < JWT_CACHE_MAX; i++) cache.keepJwt(`filler-${i}`, filler);
    const stores = jest.spyOn(cache, 'storeJwt');
    const entries = jest.spyOn(reader as unknown as { entryOf: () => unknown }, 'entryOf');
    const refusedState = reader.readCached({ cookies: { [COOKIE]: refused }, secure: false });
    expect(entries).not.toHaveBeenCalled();
    expect(stores).not.toHaveBeenCalled();
    expect(cache.jwt(refused)).toBeUndefined();
    // The two tokens differ in their own claims (jti, and iat and exp if a second passed in between).
    const token = (refusedState as { token: { exp: number } }).token;
    expect(refusedState).toEqual({
      ...keptState,
      sessionToken: refused,
      token: expect.objectContaining({ sub: 'u1' }),
      session: {
        user: { id: 'u1', email: 'a@b.test', name: 'A', image: null },
        expires: new Date(token.exp * 1000).toISOString(),
      },
    });
    expect(refusedState).toMatchObject({
      signedInAt: new Date(1_700_000_000_000),
      session: { expires: expect.any(String) },
    });
    // Its second offer is taken, through the same path as any kept token.
    expect(reader.readCached({ cookies: { [COOKIE]: refused }, secure: false })).toEqual(refusedState);
    expect(entries).toHaveBeenCalledTimes(1);
    expect(stores).toHaveBeenCalledTimes(1);
    expect(cache.jwt(refused)).toBeDefined();
  });

  it('answers a cache miss synchronously only when nothing async can be involved', async () => {
    const revoking = await sessionParts({ session: { strategy: 'jwt', jwtRevocation: true } });
    const raw = await revoking.codec.encode(false, { sub: 'u1' });
    expect(revoking.reader.readCached({ cookies: { [COOKIE]: raw }, secure: false })).toBeUndefined();
    const custom = await sessionParts({
      session: { strategy: 'jwt' },
      jwt: { decode: async ({ token }: { token?: string }) => (token ? { sub: 'u1', exp: 4102444800 } : null) },
    } as never);
    expect(custom.reader.readCached({ cookies: { [COOKIE]: 'anything' }, secure: false })).toBeUndefined();
    expect(await custom.reader.read({ cookies: { [COOKIE]: 'anything' }, secure: false })).toMatchObject({
      status: 'active',
      user: { id: 'u1' },
    });
  });

  it('answers none without a token; invalid for junk, clearing the cookie, or nothing to clear for a bearer token', async () => {
    const { reader } = await sessionParts({ session: { strategy: 'jwt' } });
    expect(reader.readCached({ cookies: { [COOKIE]: 'junk' }, secure: false })).toMatchObject({
      status: 'invalid',
      clearCookies: [expect.objectContaining({ name: COOKIE })],
    });
    expect(reader.readCached({ cookies: {}, secure: false })).toEqual({ status: 'none' });
    expect(await reader.read({ cookies: { [COOKIE]: 'junk' }, secure: false })).toMatchObject({
      status: 'invalid',
      clearCookies: [expect.objectContaining({ name: COOKIE })],
    });
    expect(await reader.read({ cookies: {}, authorization: 'Bearer junk', secure: false })).toEqual({
      status: 'invalid',
      clearCookies: [],
    });
  });

  it('runs custom callbacks on every read (never a synchronous hit) and refuses when jwt returns null', async () => {
    let calls = 0;
    const { reader, codec } = await sessionParts({
      session: { strategy: 'jwt' },
      callbacks: {
        jwt: ({ token }) => (token.sub === 'banned' ? null : token),
        session: ({ session, token }) => ({
          ...session,
          user: { ...session.user, id: String(token.sub), role: `r${++calls}` },
        }),
      },
    });
    const lookup = { cookies: { [COOKIE]: await codec.encode(false, { sub: 'u1' }) }, secure: false };
    expect(await reader.read(lookup)).toMatchObject({ status: 'active', user: { id: 'u1', role: 'r1' } });
    expect(reader.readCached(lookup)).toBeUndefined();
    expect(await reader.read(lookup)).toMatchObject({ user: { role: 'r2' } });
    const banned = { cookies: { [COOKIE]: await codec.encode(false, { sub: 'banned' }) }, secure: false };
    expect(await reader.read(banned)).toMatchObject({
      status: 'invalid',
      clearCookies: [expect.objectContaining({ name: COOKIE })],
    });
  });

  it('with jwtRevocation, refuses a revoked session that was cached before', async () => {
    const { reader, codec, revocation } = await sessionParts({ session: { strategy: 'jwt', jwtRevocation: true } });
    const lookup = { cookies: { [COOKIE]: await codec.encode(false, { sub: 'u1', sid: 's1' }) }, secure: false };
    expect(await reader.read(lookup)).toMatchObject({ status: 'active' });
    await revocation.revoke({ sid: 's1' });
    expect(reader.readCached(lookup)).toBeUndefined();
    expect(await reader.read(lookup)).toMatchObject({
      status: 'invalid',
      clearCookies: [expect.objectContaining({ name: COOKIE })],
    });
  });

  (withRedis ? it : it.skip)(
    'fails closed when the shared revocation store is down: invalid, cookie kept, logged',
    async () => {
      const client = (await connectRedis())!;
      const { reader, codec, logs } = await sessionParts(
        { session: { strategy: 'jwt', jwtRevocation: true } },
        { store: new RedisRateLimitStore(client) },
      );
      await client.quit();
      const lookup = { cookies: { [COOKIE]: await codec.encode(false, { sub: 'u1', sid: 's1' }) }, secure: false };
      expect(await reader.read(lookup)).toEqual({ status: 'invalid', clearCookies: [] });
      expect(logs.error).toEqual(['SessionTokenError: The JWT revocation list could not be read (rateLimitStore).']);
    },
  );
});

describe('SessionReader: database sessions', () => {
  async function signedIn(options: { cacheTtl?: number } = {}, adapter = new MemoryAdapter()) {
    const parts = await sessionParts({ session: { strategy: 'database', ...options } }, { adapter });
    await parts.adapter.createUser({ id: 'u1', email: 'a@b.test', emailVerified: null });
    await parts.adapter.createSession({
      sessionToken: 'tok-1',
      userId: 'u1',
      expires: new Date(Date.now() + 10 * MINUTE_MS),
    });
    return { ...parts, lookup: { cookies: { [COOKIE]: 'tok-1' }, secure: false } };
  }

  it('without cacheTtl, asks the store on every read', async () => {
    const { reader, adapter, lookup } = await signedIn();
    expect(await reader.read(lookup)).toMatchObject({
      status: 'active',
      strategy: 'database',
      user: { id: 'u1' },
      stored: { sessionToken: 'tok-1' },
    });
    expect(reader.readCached(lookup)).toBeUndefined();
    await adapter.deleteSession('tok-1');
    expect(await reader.read(lookup)).toMatchObject({
      status: 'invalid',
      clearCookies: [expect.objectContaining({ name: COOKIE })],
    });
  });

  it("gives a looked-up session the default `session` callback's shape without calling it; a custom callback is called", async () => {
    const users = [
      { id: 'u2', email: 'c@d.test', emailVerified: null, name: 'C', image: 'https://img.test/c.png' },
      { id: 'u3', email: 'e@f.test', emailVerified: null },
    ];
    for (const cacheTtl of [0, 60]) {
      const { reader, adapter } = await signedIn({ cacheTtl });
      for (const user of users) {
        await adapter.createUser(user);
        const expires = new Date(Date.now() + 10 * MINUTE_MS);
        await adapter.createSession({ sessionToken: `tok-${user.id}`, userId: user.id, expires });
        const state = await reader.read({ cookies: { [COOKIE]: `tok-${user.id}` }, secure: false });
        // As stored after the read (a session this young is extended on its first lookup).
        const stored = (await adapter.getSessionAndUser(`tok-${user.id}`))!;
        const byCallback = await defaultCallbacks.session({
          session: { ...stored.session, user: stored.user, expires: stored.session.expires.toISOString() } as never,
          user: stored.user,
          token: undefined as never,
        });
        expect(byCallback.user).toMatchObject({ id: user.id, name: user.name ?? null, image: user.image ?? null });
        expect(state).toMatchObject({ status: 'active', user: byCallback.user });
        expect((state as { session: unknown }).session).toEqual(byCallback);
      }
    }
    const session = jest.fn(defaultCallbacks.session);
    const custom = await sessionParts({ session: { strategy: 'database' }, callbacks: { session } });
    await custom.adapter.createUser({ id: 'u1', email: 'a@b.test', emailVerified: null });
    await custom.adapter.createSession({
      sessionToken: 'tok-1',
      userId: 'u1',
      expires: new Date(Date.now() + 10 * MINUTE_MS),
    });
    const lookup = { cookies: { [COOKIE]: 'tok-1' }, secure: false };
    expect(await custom.reader.read(lookup)).toMatchObject({ status: 'active', user: { id: 'u1' } });
    await custom.reader.read(lookup);
    expect(session).toHaveBeenCalledTimes(2);
  });

  it('with cacheTtl, serves the session from memory; fresh asks the store and refreshes the entry', async () => {
    const { reader, adapter, lookup } = await signedIn({ cacheTtl: 60 });
    await reader.read(lookup);
    await adapter.deleteSession('tok-1');
    expect(reader.readCached(lookup)).toMatchObject({ status: 'active', user: { id: 'u1' } });
    expect(await reader.read(lookup)).toMatchObject({ status: 'active' });
    expect(await reader.read(lookup, { fresh: true })).toMatchObject({ status: 'invalid' });
    expect(reader.readCached(lookup)).toBeUndefined();
  });

  it('with cacheTtl, answers a session the full cache refuses without building an entry for it', async () => {
    const { reader, adapter, cache, lookup } = await signedIn({ cacheTtl: 60 });
    await adapter.createSession({
      sessionToken: 'tok-2',
      userId: 'u1',
      expires: new Date(Date.now() + 10 * MINUTE_MS),
    });
    await reader.read(lookup);
    const filler = cache.db('tok-1')!;
    for (let i = 1; i < DB_CACHE_MAX; i++) cache.keepDb(`filler-${i}`, filler);
    const takes = jest.spyOn(cache, 'takesDb');
    const stores = jest.spyOn(cache, 'storeDb');
    const other = { cookies: { [COOKIE]: 'tok-2' }, secure: false };
    expect(await reader.read(other)).toMatchObject({
      status: 'active',
      user: { id: 'u1' },
      stored: { sessionToken: 'tok-2' },
    });
    // Asked before the entry is built, and refused: none is built.
    expect(takes.mock.results).toEqual([{ type: 'return', value: false }]);
    expect(stores).not.toHaveBeenCalled();
    expect(cache.db('tok-2')).toBeUndefined();
    // Its second offer is taken.
    await reader.read(other);
    expect(stores).toHaveBeenCalledTimes(1);
    expect(reader.readCached(other)).toMatchObject({ status: 'active', stored: { sessionToken: 'tok-2' } });
  });

  it('answers expired (cookie cleared) for an expired row, and invalid with the cookie kept when the store fails', async () => {
    class Flaky extends MemoryAdapter {
      down = false;
      override async getSessionAndUser(token: string) {
        if (this.down) throw new Error('timeout');
        return super.getSessionAndUser(token);
      }
    }
    const adapter = new Flaky();
    const { reader, lookup, logs } = await signedIn({}, adapter);
    adapter.down = true;
    expect(await reader.read(lookup)).toEqual({ status: 'invalid', clearCookies: [] });
    expect(logs.error).toHaveLength(1);
    adapter.down = false;
    await adapter.updateSession({ sessionToken: 'tok-1', expires: new Date(Date.now() - 1) });
    expect(await reader.read(lookup)).toMatchObject({
      status: 'expired',
      clearCookies: [expect.objectContaining({ name: COOKIE })],
    });
  });

  it('answers a bearer token without cookies to clear', async () => {
    const { reader } = await signedIn();
    expect(await reader.read({ cookies: {}, authorization: 'Bearer tok-1', secure: false })).toMatchObject({
      status: 'active',
      bearer: true,
    });
    expect(await reader.read({ cookies: {}, authorization: 'Bearer tok-2', secure: false })).toEqual({
      status: 'invalid',
      clearCookies: [],
    });
  });
});
