import { describe, expect, it } from '@jest/globals';
import type { AdapterSession, AdapterUser } from '../adapters/adapter.interface.js';
import { sessionParts } from './fixtures/session.fixture.js';
import {
  CACHE_MAX_BYTES,
  DB_CACHE_MAX,
  JWT_CACHE_MAX,
  dbEntryBytes,
  jwtEntryBytes,
  type CachedDb,
  type CachedJwt,
} from './session-cache.js';
import type { AuthUser } from './session.types.js';

const HOUR_MS = 3_600_000;
/** Bytes enough for the default entry bound of small test entries: the entry bound is reached first. */
const ROOMY = { cacheMaxBytes: 64 * 1024 * 1024 };

function jwtEntry(overrides: Partial<CachedJwt> = {}): CachedJwt {
  const expMs = Date.now() + HOUR_MS;
  return {
    token: { sub: 'u1', email: 'a@b.test' },
    expMs,
    expires: new Date(expMs).toISOString(),
    user: { id: 'u1', name: null, email: 'a@b.test', image: null },
    signedInAt: null,
    ...overrides,
  };
}

function dbEntry(userId = 'u1', overrides: Partial<CachedDb> = {}): CachedDb {
  const expires = new Date(Date.now() + HOUR_MS);
  const user: AdapterUser = { id: userId, email: `${userId}@b.test`, emailVerified: null };
  const session: AdapterSession = { sessionToken: `t-${userId}`, userId, expires };
  const shaped = { id: userId, email: user.email, name: null, image: null } as AuthUser;
  return {
    session,
    user,
    until: Date.now() + 60_000,
    shaped: { user: shaped, session: { user: shaped, expires: expires.toISOString() } },
    ...overrides,
  };
}

describe('SessionCache: JWT sessions', () => {
  it('answers a kept JWT synchronously, with a copy of the user per hit', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'jwt' } });
    expect(cache.hit('raw', false)).toBeUndefined();
    cache.keepJwt('raw', jwtEntry());
    const first = cache.hit('raw', true);
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toMatchObject({
      status: 'active',
      strategy: 'jwt',
      sessionToken: 'raw',
      bearer: true,
      user: { id: 'u1', email: 'a@b.test' },
    });
    if (first?.status !== 'active') throw new Error('expected a hit');
    first.user.name = 'changed by a handler';
    expect(cache.hit('raw', false)).toMatchObject({ user: { name: null }, session: { user: { name: null } } });
  });

  it('misses an expired JWT, one without a shaped user (custom callbacks), and a forgotten one', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'jwt' } });
    cache.keepJwt('expired', jwtEntry({ expMs: Date.now() - 1 }));
    cache.keepJwt('unshaped', jwtEntry({ user: undefined }));
    cache.keepJwt('forgotten', jwtEntry());
    cache.forgetJwt('forgotten');
    for (const raw of ['expired', 'unshaped', 'forgotten']) expect(cache.hit(raw, false)).toBeUndefined();
    expect(cache.jwt('expired')).toBeDefined();
  });

  it('with jwtRevocation, misses a JWT whose id was revoked here', async () => {
    const { cache, revocation } = await sessionParts({ session: { strategy: 'jwt', jwtRevocation: true } });
    cache.keepJwt('a', jwtEntry({ revocationId: 'sid:a' }));
    cache.keepJwt('b', jwtEntry({ revocationId: 'sid:b' }));
    await revocation.revoke({ sid: 'a' });
    expect(cache.hit('a', false)).toBeUndefined();
    expect(cache.hit('b', false)).toMatchObject({ status: 'active' });
  });

  it(`keeps at most ${JWT_CACHE_MAX} JWTs, the oldest going first; once full, a token on its second offer`, async () => {
    const { cache } = await sessionParts({ session: { strategy: 'jwt', ...ROOMY } });
    const entry = jwtEntry();
    for (let i = 0; i < JWT_CACHE_MAX; i++) cache.keepJwt(`raw${i}`, entry);
    expect(cache.usage().jwts).toBe(JWT_CACHE_MAX);
    // promise: sessions.cache-admission
    // Full of current entries: a token offered once (a one-off visitor) evicts nothing.
    cache.keepJwt(`raw${JWT_CACHE_MAX}`, entry);
    expect(cache.jwt(`raw${JWT_CACHE_MAX}`)).toBeUndefined();
    expect(cache.jwt('raw0')).toBe(entry);
    // Offered again (the same visitor's next request): kept, and the oldest goes.
    cache.keepJwt(`raw${JWT_CACHE_MAX}`, entry);
    expect(cache.jwt(`raw${JWT_CACHE_MAX}`)).toBe(entry);
    expect(cache.jwt('raw0')).toBeUndefined();
    expect(cache.jwt('raw1')).toBe(entry);
    expect(cache.usage().jwts).toBe(JWT_CACHE_MAX);
  });

  it('admits a new token at once when the entry it evicts has expired', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'jwt', ...ROOMY } });
    cache.keepJwt('expired', jwtEntry({ expMs: Date.now() - 1 }));
    const entry = jwtEntry();
    for (let i = 1; i < JWT_CACHE_MAX; i++) cache.keepJwt(`raw${i}`, entry);
    cache.keepJwt('new', entry);
    expect(cache.jwt('new')).toBe(entry);
    expect(cache.jwt('expired')).toBeUndefined();
  });

  it('answers only the exact token, though it finds entries by their last characters', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'jwt' } });
    const ending = 'e'.repeat(40);
    const [first, second] = [`a.${ending}`, `b.${ending}`];
    const [one, two] = [jwtEntry(), jwtEntry()];
    cache.keepJwt(first, one);
    expect(cache.jwt(first)).toBe(one);
    expect(cache.jwt(second)).toBeUndefined();
    expect(cache.hit(second, false)).toBeUndefined();
    // A token ending as another does replaces it; forgetting the replaced one leaves it be.
    cache.keepJwt(second, two);
    expect(cache.jwt(first)).toBeUndefined();
    cache.forgetJwt(first);
    expect(cache.jwt(second)).toBe(two);
    expect(cache.usage()).toMatchObject({ jwts: 1, jwtBytes: jwtEntryBytes(second) });
    cache.forgetJwt(second);
    expect(cache.usage()).toMatchObject({ jwts: 0, jwtBytes: 0 });
  });

  it('is bounded by memory too: large (chunked) tokens evict the oldest before the entry limit', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'jwt' } });
    const entry = jwtEntry();
    const big = (i: number) => `${'x'.repeat(16_000)}${String(i).padStart(6, '0')}`;
    const fits = Math.floor(CACHE_MAX_BYTES / jwtEntryBytes(big(0)));
    expect(fits).toBeLessThan(JWT_CACHE_MAX);
    for (let i = 0; i <= fits; i++) {
      cache.keepJwt(big(i), entry);
      // Once full, a token is kept on its second offer (see the entry limit above).
      if (i === fits) cache.keepJwt(big(i), entry);
    }
    const usage = cache.usage();
    expect(usage.jwts).toBe(fits);
    expect(usage.jwtBytes).toBeLessThanOrEqual(CACHE_MAX_BYTES);
    expect(cache.jwt(big(0))).toBeUndefined();
    expect(cache.jwt(big(fits))).toBe(entry);
    // Forgetting and re-keeping a token counts it once.
    cache.keepJwt(big(fits), entry);
    cache.forgetJwt(big(1));
    expect(cache.usage()).toMatchObject({ jwts: fits - 1, jwtBytes: (fits - 1) * jwtEntryBytes(big(0)) });
  });
});

describe('SessionCache: database sessions', () => {
  it('answers a kept session within its time synchronously, with copies of user and session', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'database' } });
    const entry = dbEntry();
    cache.keepDb('raw', entry);
    const hit = cache.hit('raw', false);
    expect(hit).toMatchObject({
      status: 'active',
      strategy: 'database',
      stored: entry.session,
      sessionToken: 'raw',
      user: { id: 'u1' },
    });
    if (hit?.status !== 'active') throw new Error('expected a hit');
    expect(hit.session.user).toBe(hit.user);
    hit.user.email = 'changed';
    expect(entry.shaped!.user.email).toBe('u1@b.test');
  });

  it('misses a session past its cacheTtl, one whose stored expiry passed or is not a Date, and one not shaped', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'database' } });
    cache.keepDb('stale', dbEntry('u1', { until: Date.now() - 1 }));
    cache.keepDb(
      'expired',
      dbEntry('u2', { session: { sessionToken: 't', userId: 'u2', expires: new Date(Date.now() - 1) } }),
    );
    cache.keepDb(
      'bad-date',
      dbEntry('u3', { session: { sessionToken: 't', userId: 'u3', expires: 'tomorrow' as never } }),
    );
    cache.keepDb('unshaped', dbEntry('u4', { shaped: undefined }));
    for (const raw of ['stale', 'expired', 'bad-date', 'unshaped']) expect(cache.hit(raw, false)).toBeUndefined();
  });

  it('forgets one token, or every session of a user', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'database' } });
    cache.keepDb('a1', dbEntry('a'));
    cache.keepDb('a2', dbEntry('a'));
    cache.keepDb('b1', dbEntry('b'));
    cache.keepDb('b2', dbEntry('b'));
    cache.forgetUser('a');
    cache.forgetDb('b2');
    expect([cache.db('a1'), cache.db('a2'), cache.db('b2')]).toEqual([undefined, undefined, undefined]);
    expect(cache.hit('b1', false)).toMatchObject({ status: 'active', user: { id: 'b' } });
  });

  it(`keeps at most ${DB_CACHE_MAX} sessions, the oldest going first; once full, a token on its second offer`, async () => {
    // promise: sessions.cache-admission
    const { cache } = await sessionParts({ session: { strategy: 'database', ...ROOMY } });
    const entry = dbEntry();
    for (let i = 0; i <= DB_CACHE_MAX; i++) cache.keepDb(`raw${i}`, entry);
    expect(cache.db(`raw${DB_CACHE_MAX}`)).toBeUndefined();
    expect(cache.db('raw0')).toBe(entry);
    cache.keepDb(`raw${DB_CACHE_MAX}`, entry);
    expect(cache.db('raw0')).toBeUndefined();
    expect(cache.db(`raw${DB_CACHE_MAX}`)).toBe(entry);
  });

  it('takesJwt and takesDb answer before an entry exists, counting as the offer; store* keeps what they took', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'database', ...ROOMY } });
    const jwt = jwtEntry();
    const db = dbEntry();
    expect(cache.takesJwt('j0')).toBe(true);
    cache.storeJwt('j0', jwt);
    for (let i = 1; i < JWT_CACHE_MAX; i++) cache.keepJwt(`j${i}`, jwt);
    for (let i = 0; i < DB_CACHE_MAX; i++) cache.keepDb(`d${i}`, db);
    // Full of current entries: a first offer is refused and leaves the caches as they were.
    expect([cache.takesJwt('new'), cache.takesDb('new')]).toEqual([false, false]);
    expect(cache.usage()).toMatchObject({ jwts: JWT_CACHE_MAX, dbs: DB_CACHE_MAX });
    expect([cache.takesJwt('new'), cache.takesDb('new')]).toEqual([true, true]);
    cache.storeJwt('new', jwt);
    cache.storeDb('new', db);
    expect([cache.jwt('new'), cache.db('new')]).toEqual([jwt, db]);
    expect([cache.jwt('j0'), cache.db('d0')]).toEqual([undefined, undefined]);
    // A token's own entry is dropped when it is offered again (a new lookup answers for it), which
    // leaves room for the new one.
    expect(cache.takesDb('d1')).toBe(true);
    expect(cache.db('d1')).toBeUndefined();
    expect(cache.usage()).toMatchObject({ jwts: JWT_CACHE_MAX, dbs: DB_CACHE_MAX - 1 });
  });

  it('admits a new session at once when the entry it evicts is past its cache time', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'database', ...ROOMY } });
    cache.keepDb('stale', dbEntry('u0', { until: Date.now() - 1 }));
    const entry = dbEntry();
    for (let i = 1; i < DB_CACHE_MAX; i++) cache.keepDb(`raw${i}`, entry);
    cache.keepDb('new', entry);
    expect(cache.db('new')).toBe(entry);
    expect(cache.usage().dbs).toBe(DB_CACHE_MAX);
  });
});

describe('SessionCache: its bounds (session.cacheMaxEntries, session.cacheMaxBytes)', () => {
  // Tokens of one length count alike: 1,000 characters, a JWT entry 2,750 bytes, a database one 3,600.
  // Their ends differ: the JWT map finds an entry by its token's last characters.
  const token = (i: number) => `${'t'.repeat(994)}${String(i).padStart(6, '0')}`;

  it('evicts the oldest JWTs when the counted bytes would pass cacheMaxBytes, before the entry bound', async () => {
    const per = jwtEntryBytes(token(0));
    const { cache } = await sessionParts({ session: { strategy: 'jwt', cacheMaxBytes: 3 * per + per / 2 } });
    const entry = jwtEntry();
    for (let i = 0; i < 3; i++) cache.keepJwt(token(i), entry);
    expect(cache.usage()).toEqual({ jwts: 3, jwtBytes: 3 * per, dbs: 0, dbBytes: 0 });
    // A fourth would pass the bound: on its second offer it is kept and the oldest goes.
    cache.keepJwt(token(3), entry);
    expect(cache.jwt(token(3))).toBeUndefined();
    cache.keepJwt(token(3), entry);
    expect(cache.jwt(token(3))).toBe(entry);
    expect(cache.jwt(token(0))).toBeUndefined();
    expect(cache.usage()).toMatchObject({ jwts: 3, jwtBytes: 3 * per });
  });

  it('evicts the oldest database sessions by bytes the same way', async () => {
    const per = dbEntryBytes(token(0));
    const { cache } = await sessionParts({ session: { strategy: 'database', cacheMaxBytes: 2 * per } });
    cache.keepDb(token(0), dbEntry('a'));
    cache.keepDb(token(1), dbEntry('b'));
    expect(cache.usage()).toMatchObject({ dbs: 2, dbBytes: 2 * per });
    cache.keepDb(token(2), dbEntry('c'));
    cache.keepDb(token(2), dbEntry('c'));
    expect([cache.db(token(0)), cache.db(token(1))?.user.id, cache.db(token(2))?.user.id]).toEqual([
      undefined,
      'b',
      'c',
    ]);
    expect(cache.usage()).toMatchObject({ dbs: 2, dbBytes: 2 * per });
  });

  it('keeps no entry larger than the whole bound, and drops the one it had for that token', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'jwt', cacheMaxBytes: 2000 } });
    expect(jwtEntryBytes('short')).toBeLessThanOrEqual(2000);
    expect(jwtEntryBytes(token(0))).toBeGreaterThan(2000);
    cache.keepJwt('short', jwtEntry());
    // Offered twice (past the admission check): still not kept, and the small entry stays.
    cache.keepJwt(token(0), jwtEntry());
    cache.keepJwt(token(0), jwtEntry());
    expect(cache.takesJwt(token(0))).toBe(false);
    cache.storeJwt(token(0), jwtEntry());
    expect(cache.jwt(token(0))).toBeUndefined();
    expect(cache.usage()).toMatchObject({ jwts: 1, jwtBytes: jwtEntryBytes('short') });
    // A database session too.
    const db = await sessionParts({ session: { strategy: 'database', cacheTtl: 60, cacheMaxBytes: 2000 } });
    expect(db.cache.takesDb(token(0))).toBe(false);
    db.cache.storeDb(token(0), dbEntry());
    expect(db.cache.usage()).toMatchObject({ dbs: 0, dbBytes: 0 });
  });

  it('keeps nothing with cacheMaxEntries: 0 or cacheMaxBytes: 0', async () => {
    for (const bound of [{ cacheMaxEntries: 0 }, { cacheMaxBytes: 0 }]) {
      const { cache } = await sessionParts({ session: { strategy: 'jwt', ...bound } });
      cache.keepJwt('a', jwtEntry());
      cache.keepJwt('a', jwtEntry());
      cache.storeJwt('b', jwtEntry());
      cache.keepDb('c', dbEntry());
      cache.storeDb('d', dbEntry());
      expect(cache.usage()).toEqual({ jwts: 0, jwtBytes: 0, dbs: 0, dbBytes: 0 });
    }
  });

  it('keeps at most cacheMaxEntries entries', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'jwt', cacheMaxEntries: 2 } });
    const entry = jwtEntry();
    for (const raw of ['a', 'b', 'c', 'c']) cache.keepJwt(raw, entry);
    expect([cache.jwt('a'), cache.jwt('b'), cache.jwt('c')]).toEqual([undefined, entry, entry]);
    expect(cache.usage()).toMatchObject({ jwts: 2, jwtBytes: jwtEntryBytes('b') + jwtEntryBytes('c') });
  });

  it('counts exactly through replacing, forgetting, expiry and eviction: the bytes are those of the entries held', async () => {
    const jwt = await sessionParts({ session: { strategy: 'jwt', cacheMaxEntries: 50 } });
    const db = await sessionParts({ session: { strategy: 'database', cacheTtl: 60, cacheMaxEntries: 50 } });
    const held = new Map<string, number>();
    const dbHeld = new Map<string, number>();
    // Tokens of many lengths, kept, kept again (replaced), forgotten, expired and replaced, evicted.
    for (let i = 0; i < 400; i++) {
      const raw = `${i % 120}:${'x'.repeat(i % 37)}`;
      const expired = i % 7 === 0;
      jwt.cache.keepJwt(raw, jwtEntry(expired ? { expMs: Date.now() - 1 } : {}));
      db.cache.keepDb(raw, dbEntry(`u${i % 9}`, expired ? { until: Date.now() - 1 } : {}));
      if (i % 5 === 0) jwt.cache.forgetJwt(`${(i * 7) % 120}:${'x'.repeat((i * 7) % 37)}`);
      if (i % 6 === 0) db.cache.dropDb(`${(i * 5) % 120}:${'x'.repeat((i * 5) % 37)}`);
      if (i % 50 === 0) db.cache.forgetUser(`u${i % 9}`);
    }
    for (let i = 0; i < 120; i++)
      for (let n = 0; n < 37; n++) {
        const raw = `${i}:${'x'.repeat(n)}`;
        if (jwt.cache.jwt(raw)) held.set(raw, jwtEntryBytes(raw));
        if (db.cache.db(raw)) dbHeld.set(raw, dbEntryBytes(raw));
      }
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    expect(jwt.cache.usage()).toMatchObject({ jwts: held.size, jwtBytes: sum(held) });
    expect(db.cache.usage()).toMatchObject({ dbs: dbHeld.size, dbBytes: sum(dbHeld) });
    expect(held.size).toBeGreaterThan(0);
    expect(dbHeld.size).toBeGreaterThan(0);
    // Storing a token's session again without asking first replaces it, counted once.
    const fresh = await sessionParts({ session: { strategy: 'database', cacheTtl: 60 } });
    fresh.cache.storeDb('again', dbEntry());
    fresh.cache.storeDb('again', dbEntry());
    expect(fresh.cache.usage()).toMatchObject({ dbs: 1, dbBytes: dbEntryBytes('again') });
  });

  it('keeps its own copy of a token read out of a longer header, and answers the same token', async () => {
    const { cache } = await sessionParts({ session: { strategy: 'jwt' } });
    const header = `other=${'o'.repeat(2000)}; authjs.session-token=${token(7)}`;
    const raw = header.slice(header.indexOf('authjs.session-token=') + 'authjs.session-token='.length);
    cache.keepJwt(raw, jwtEntry());
    expect(cache.hit(token(7), false)).toMatchObject({ status: 'active', sessionToken: token(7) });
    expect(cache.usage().jwtBytes).toBe(jwtEntryBytes(token(7)));
  });
});

describe('SessionCache.shapes', () => {
  it('is true with the default callbacks only', async () => {
    expect((await sessionParts()).cache.shapes).toBe(true);
    expect((await sessionParts({ callbacks: { session: ({ session }) => session } })).cache.shapes).toBe(false);
    expect((await sessionParts({ callbacks: { jwt: ({ token }) => token } })).cache.shapes).toBe(false);
  });
});
