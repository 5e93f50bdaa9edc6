import { afterEach, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AdapterSession, AdapterUser } from '../adapters/adapter.interface.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { authEntities } from '../adapters/typeorm/auth-entities.js';
import { TypeOrmAdapter } from '../adapters/typeorm/typeorm.adapter.js';
import { COOKIE, sessionParts } from './fixtures/session.fixture.js';
import type { SessionState } from './session.types.js';

// promise: storage.sync-session-lookup
// The guard's synchronous database-session read: TypeORM on better-sqlite3 answers
// `getSessionAndUserSync`, and SessionReader.readCached decides without a promise.

const DAY_MS = 86_400_000;
const DATABASE = { session: { strategy: 'database' as const, maxAge: 30 * 86_400, updateAge: 86_400 } };

/** TypeOrmAdapter with its `updateSession` calls counted (its lookup untouched: still synchronous). */
class CountingAdapter extends TypeOrmAdapter {
  updates = 0;
  override async updateSession(session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'>) {
    this.updates++;
    return super.updateSession(session);
  }
}

const sources: DataSource[] = [];
afterEach(async () => {
  for (const ds of sources.splice(0)) await ds.destroy();
});

async function sqlite<A extends TypeOrmAdapter = CountingAdapter>(
  make: (ds: DataSource) => A = (ds) => new CountingAdapter(ds) as unknown as A,
  options: object = {},
) {
  const ds = new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [...authEntities],
    synchronize: true,
  });
  await ds.initialize();
  sources.push(ds);
  const adapter = make(ds);
  const parts = await sessionParts({ ...DATABASE, ...options }, { adapter: adapter as never });
  await adapter.createUser({ id: 'u1', email: 'a@b.test', name: 'A', image: null, emailVerified: null } as never);
  const session = async (token: string, expires: Date) => {
    await adapter.createSession({ sessionToken: token, userId: 'u1', expires });
    return { cookies: { [COOKIE]: token }, secure: false };
  };
  return { ds, ...parts, adapter, session };
}

/** Lets the writes queued after a synchronous answer finish (event-loop turns, not time). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('Database sessions read synchronously (TypeORM on better-sqlite3)', () => {
  it('answers an uncached session without a promise, as the asynchronous read does', async () => {
    const { reader, session } = await sqlite();
    const lookup = await session('tok-1', new Date(Date.now() + 30 * DAY_MS - 60_000));
    const state = reader.readCached(lookup);
    expect(state).not.toBeUndefined();
    expect(state).not.toBeInstanceOf(Promise);
    const expected = {
      status: 'active',
      strategy: 'database',
      user: { id: 'u1', name: 'A', email: 'a@b.test', image: null },
    };
    expect(state).toMatchObject(expected);
    // The same answer as the promise's (which runs the default session callback itself).
    const viaPromise = await reader.read(lookup);
    expect(viaPromise).toMatchObject(expected);
    const sync = state as Extract<SessionState, { status: 'active' }>;
    const async = viaPromise as Extract<SessionState, { status: 'active' }>;
    expect({ user: sync.user, session: sync.session }).toEqual({ user: async.user, session: async.session });
    expect(Object.keys(sync.user)).toEqual(Object.keys(async.user));
    expect(reader.readCached({ cookies: { [COOKIE]: 'unknown' }, secure: false })).toMatchObject({
      status: 'invalid',
      clearCookies: [expect.objectContaining({ name: COOKIE })],
    });
  });

  it('fails closed on an expired row, and deletes it after answering', async () => {
    const { reader, session, adapter } = await sqlite();
    const lookup = await session('tok-1', new Date(Date.now() - 1));
    expect(reader.readCached(lookup)).toMatchObject({
      status: 'expired',
      clearCookies: [expect.objectContaining({ name: COOKIE })],
    });
    await settle();
    expect(await adapter.getSessionAndUser('tok-1')).toBeNull();
  });

  it('fails closed on an expiry that is not a valid date', async () => {
    const { reader, session, ds, adapter } = await sqlite();
    const lookup = await session('tok-1', new Date(Date.now() + DAY_MS));
    await ds.query(`UPDATE sessions SET expires = 'not a date' WHERE "sessionToken" = 'tok-1'`);
    expect(reader.readCached(lookup)).toMatchObject({ status: 'expired' });
    await settle();
    expect(await adapter.getSessionAndUser('tok-1')).toBeNull();
  });

  it('fails closed on a session whose user is missing', async () => {
    const { reader, session, ds } = await sqlite();
    const lookup = await session('tok-1', new Date(Date.now() + DAY_MS));
    await ds.query('PRAGMA foreign_keys = OFF');
    await ds.query(`DELETE FROM users WHERE id = 'u1'`);
    expect(reader.readCached(lookup)).toMatchObject({ status: 'invalid' });
  });

  it('writes a due updateAge extension once, after answering, whatever the number of reads', async () => {
    const { reader, session, adapter } = await sqlite();
    const due = new Date(Date.now() + 29 * DAY_MS - 60_000);
    const lookup = await session('tok-1', due);
    for (let i = 0; i < 3; i++) expect(reader.readCached(lookup)).toMatchObject({ status: 'active' });
    await settle();
    expect(adapter.updates).toBe(1);
    const stored = (await adapter.getSessionAndUser('tok-1'))!.session.expires.getTime();
    expect(stored).toBeGreaterThan(Date.now() + 30 * DAY_MS - 60_000);
    expect(reader.readCached(lookup)).toMatchObject({ status: 'active' });
    await settle();
    expect(adapter.updates).toBe(1);
  });

  it('honours a sign-out between reads, and an extension in flight does not bring the session back', async () => {
    const { reader, session, store, adapter } = await sqlite();
    const lookup = await session('tok-1', new Date(Date.now() + 29 * DAY_MS - 60_000));
    expect(reader.readCached(lookup)).toMatchObject({ status: 'active' });
    await store.delete('tok-1');
    expect(reader.readCached(lookup)).toMatchObject({ status: 'invalid' });
    await settle();
    expect(adapter.updates).toBe(1);
    expect(await adapter.getSessionAndUser('tok-1')).toBeNull();
    expect(reader.readCached(lookup)).toMatchObject({ status: 'invalid' });
  });

  it('serves a later read from the cache with cacheTtl, and a sign-out forgets it', async () => {
    const { reader, session, cache, store } = await sqlite(undefined, {
      session: { ...DATABASE.session, cacheTtl: 60 },
    });
    const lookup = await session('tok-1', new Date(Date.now() + 30 * DAY_MS - 60_000));
    expect(reader.readCached(lookup)).toMatchObject({ status: 'active' });
    expect(cache.db('tok-1')).toBeDefined();
    cache.forgetDb('tok-1');
    await store.delete('tok-1');
    expect(reader.readCached(lookup)).toMatchObject({ status: 'invalid' });
  });

  it('leaves the read to the promise with custom callbacks, or when a subclass overrides getSessionAndUser', async () => {
    const custom = await sqlite(undefined, { callbacks: { session: ({ session }: { session: object }) => session } });
    expect(custom.reader.readCached(await custom.session('tok-1', new Date(Date.now() + DAY_MS)))).toBeUndefined();
    class Banning extends TypeOrmAdapter {
      override async getSessionAndUser(token: string) {
        const found = await super.getSessionAndUser(token);
        return found?.user.email === 'a@b.test' ? null : found;
      }
    }
    const banning = await sqlite((ds) => new Banning(ds));
    const lookup = await banning.session('tok-1', new Date(Date.now() + DAY_MS));
    expect(banning.adapter.getSessionAndUserSync('tok-1')).toBeUndefined();
    expect(banning.reader.readCached(lookup)).toBeUndefined();
    expect(await banning.reader.read(lookup)).toMatchObject({ status: 'invalid' });
  });
});

describe('getSessionAndUserSync answers are checked, not trusted', () => {
  /** A MemoryAdapter whose synchronous lookup answers `answer`. */
  async function answering(answer: () => unknown) {
    const adapter = Object.assign(new MemoryAdapter(), { getSessionAndUserSync: answer });
    return sessionParts(DATABASE, { adapter });
  }
  const lookup = { cookies: { [COOKIE]: 'tok-1' }, secure: false };
  const user: AdapterUser = { id: 'u1', email: 'a@b.test', emailVerified: null };
  const session = (expires: unknown) => ({ sessionToken: 'tok-1', userId: 'u1', expires }) as AdapterSession;

  it.each([
    ['no user', () => ({ session: session(new Date(Date.now() + DAY_MS)), user: null }), 'invalid'],
    [
      'a user without an id',
      () => ({ session: session(new Date(Date.now() + DAY_MS)), user: { ...user, id: null } }),
      'invalid',
    ],
    ['no session object', () => ({ session: null, user }), 'invalid'],
    ['an expiry that is a string', () => ({ session: session('2999-01-01T00:00:00Z'), user }), 'expired'],
    ['an invalid Date', () => ({ session: session(new Date(Number.NaN)), user }), 'expired'],
  ])('%s fails closed', async (_, answer, status) => {
    const { reader } = await answering(answer);
    expect(reader.readCached(lookup)).toMatchObject({ status });
  });

  it('a lookup that throws refuses the request, keeps the cookie and logs', async () => {
    const { reader, logs } = await answering(() => {
      throw new Error('disk I/O error');
    });
    expect(reader.readCached(lookup)).toEqual({ status: 'invalid', clearCookies: [] });
    expect(logs.error).toEqual([expect.stringContaining('The session lookup failed')]);
  });

  it('undefined (cannot answer now) leaves the read to getSessionAndUser', async () => {
    const { reader, adapter } = await answering(() => undefined);
    await adapter.createUser({ ...user });
    await adapter.createSession({ sessionToken: 'tok-1', userId: 'u1', expires: new Date(Date.now() + DAY_MS) });
    expect(reader.readCached(lookup)).toBeUndefined();
    expect(await reader.read(lookup)).toMatchObject({ status: 'active', user: { id: 'u1' } });
  });
});
