import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import type { AdapterSession, AdapterUser } from '../adapters/adapter.interface.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { sessionParts } from './fixtures/session.fixture.js';

const DAY_S = 86_400;
const DATABASE = { session: { strategy: 'database' as const, maxAge: 30 * DAY_S, updateAge: DAY_S } };

async function withSession(adapter: MemoryAdapter, expires: Date, token = 'tok-1') {
  const user = await adapter.createUser({ id: 'u1', email: 'a@b.test', emailVerified: null });
  await adapter.createSession({ sessionToken: token, userId: user.id, expires });
  return { user, token };
}

describe('DatabaseSessionStore.find', () => {
  it('finds a session with its user, and answers missing for an unknown token', async () => {
    const { store, adapter } = await sessionParts(DATABASE);
    const expires = new Date(Date.now() + 29 * DAY_S * 1000 + 60_000);
    await withSession(adapter, expires);
    expect(await store.find('tok-1', Date.now())).toMatchObject({
      status: 'found',
      session: { sessionToken: 'tok-1', expires },
      user: { id: 'u1' },
    });
    expect(await store.find('unknown', Date.now())).toEqual({ status: 'missing' });
  });

  it('deletes an expired row, and one whose expiry is not a valid Date, answering expired', async () => {
    const { store, adapter } = await sessionParts(DATABASE);
    await withSession(adapter, new Date(Date.now() - 1));
    expect(await store.find('tok-1', Date.now())).toEqual({ status: 'expired' });
    expect(await adapter.getSessionAndUser('tok-1')).toBeNull();
    await adapter.createSession({ sessionToken: 'tok-2', userId: 'u1', expires: new Date(Number.NaN) });
    expect(await store.find('tok-2', Date.now())).toEqual({ status: 'expired' });
    expect(await adapter.getSessionAndUser('tok-2')).toBeNull();
  });

  it('extends the expiry once updateAge has passed since it was set, not before', async () => {
    const { store, adapter } = await sessionParts(DATABASE);
    const now = Date.now();
    const fresh = new Date(now + 30 * DAY_S * 1000 - 60_000);
    await withSession(adapter, fresh);
    expect(await store.find('tok-1', now)).toMatchObject({ status: 'found', session: { expires: fresh } });
    const due = new Date(now + 29 * DAY_S * 1000 - 60_000);
    await adapter.updateSession({ sessionToken: 'tok-1', expires: due });
    const found = await store.find('tok-1', now);
    expect(found).toMatchObject({ status: 'found', session: { expires: new Date(now + 30 * DAY_S * 1000) } });
    expect((await adapter.getSessionAndUser('tok-1'))!.session.expires).toEqual(new Date(now + 30 * DAY_S * 1000));
  });

  it('answers missing when the session is deleted between the lookup and the extension', async () => {
    class SignedOutElsewhere extends MemoryAdapter {
      override async getSessionAndUser(token: string) {
        const found = await super.getSessionAndUser(token);
        await this.deleteSession(token);
        return found;
      }
    }
    const adapter = new SignedOutElsewhere();
    const { store } = await sessionParts(DATABASE, { adapter });
    await withSession(adapter, new Date(Date.now() + DAY_S * 1000));
    expect(await store.find('tok-1', Date.now())).toEqual({ status: 'missing' });
  });

  it('treats a row without a user (or a user without an id) as missing', async () => {
    class Broken extends MemoryAdapter {
      override async getSessionAndUser(token: string) {
        const session: AdapterSession = { sessionToken: token, userId: 'u1', expires: new Date(Date.now() + 60_000) };
        return token === 'no-user'
          ? { session, user: null as unknown as AdapterUser }
          : { session, user: { email: 'a@b.test' } as AdapterUser };
      }
    }
    const { store } = await sessionParts(DATABASE, { adapter: new Broken() });
    expect(await store.find('no-user', Date.now())).toEqual({ status: 'missing' });
    expect(await store.find('no-id', Date.now())).toEqual({ status: 'missing' });
  });

  it('answers failed when the adapter throws, logging an AdapterError without the token', async () => {
    class Down extends MemoryAdapter {
      override async getSessionAndUser(): Promise<null> {
        throw new Error('connection refused for tok-secret-1');
      }
    }
    const { store, logs } = await sessionParts(DATABASE, { adapter: new Down() });
    expect(await store.find('tok-secret-1', Date.now())).toEqual({ status: 'failed' });
    expect(logs.error).toHaveLength(1);
    expect(logs.error[0]).toMatch(/^AdapterError: The adapter's getSessionAndUser failed/);
    expect(logs.error[0]).not.toContain('tok-secret-1');
  });
});

describe('DatabaseSessionStore.create and delete', () => {
  it('stores a new token for the user and gives it back for the cookie', async () => {
    const { store, adapter } = await sessionParts(DATABASE);
    await adapter.createUser({ id: 'u1', email: 'a@b.test', emailVerified: null });
    const expires = new Date(Date.now() + 60_000);
    const created = await store.create('u1', expires);
    expect(created.expires).toEqual(expires);
    expect((await adapter.getSessionAndUser(created.value))?.user.id).toBe('u1');
    expect(await store.delete(created.value)).toMatchObject({ sessionToken: created.value });
    expect(await adapter.getSessionAndUser(created.value)).toBeNull();
  });

  it('with hashTokens, stores only the SHA-256 of the token and finds and deletes by the token', async () => {
    const { store, adapter } = await sessionParts({ session: { ...DATABASE.session, hashTokens: true } });
    await adapter.createUser({ id: 'u1', email: 'a@b.test', emailVerified: null });
    const { value } = await store.create('u1', new Date(Date.now() + 60_000));
    const hash = createHash('sha256').update(value).digest('hex');
    expect(await adapter.getSessionAndUser(value)).toBeNull();
    expect((await adapter.getSessionAndUser(hash))?.user.id).toBe('u1');
    expect(await store.find(value, Date.now())).toMatchObject({ status: 'found', user: { id: 'u1' } });
    await store.delete(value);
    expect(await adapter.getSessionAndUser(hash)).toBeNull();
  });
});
