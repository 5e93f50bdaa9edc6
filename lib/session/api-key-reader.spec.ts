import { crc32 } from 'node:zlib';
import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { Adapter } from '../adapters/adapter.interface.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import type { AuthModuleOptions } from '../config/auth-options.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthEvents } from '../core/auth-events.js';
import { RevocationBus } from '../bus/revocation-bus.js';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store.js';
import { RateLimitStore, type RateLimitRecord } from '../rate-limit/rate-limit.store.js';
import { RateLimiterService } from '../rate-limit/rate-limiter.service.js';
import { resolveConfig } from '../sign-in-methods.js';
import { apiKeyHash, ApiKeyReader, newApiKey } from './api-keys.js';
import { SESSION_SERVICES } from './session.providers.js';
import { CREDENTIAL, type SessionState } from './session.types.js';

const SECRET = 'a-secret-that-is-long-enough-for-api-key-tests';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A store that counts only through a promise, as a shared (Redis) store does. */
class AwaitedStore implements RateLimitStore {
  private readonly inner = new MemoryRateLimitStore();
  increment(key: string, windowMs: number): Promise<RateLimitRecord> {
    return this.inner.increment(key, windowMs);
  }
  get(key: string) {
    return this.inner.get(key);
  }
  decrement(key: string) {
    return this.inner.decrement(key);
  }
  reset(key: string) {
    return this.inner.reset(key);
  }
}

/** The API-key reader as the module builds it, over a MemoryAdapter holding one user with one key. */
async function reader(apiKeys: AuthModuleOptions['apiKeys'] = {}, store: RateLimitStore = new MemoryRateLimitStore()) {
  const adapter = new MemoryAdapter();
  const config = resolveConfig({ secret: SECRET, providers: [], apiKeys }, {}, adapter, {});
  const moduleRef = await Test.createTestingModule({
    providers: [
      { provide: AUTH_CONFIG, useValue: config },
      { provide: Adapter, useValue: adapter },
      { provide: RateLimitStore, useValue: store },
      { provide: RevocationBus, useValue: null },
      AdapterService,
      AuthEvents,
      RateLimiterService,
      ...SESSION_SERVICES,
    ],
  }).compile();
  await adapter.createUser({ id: 'u1', email: 'a@b.test', emailVerified: null, name: 'Ada' } as never);
  const add = async (expires: Date | null = null) => {
    const { key, id, hint } = newApiKey(config.apiKeys!.prefix);
    await adapter.createApiKey({
      id,
      userId: 'u1',
      name: 'k',
      keyHash: apiKeyHash(key),
      hint,
      scopes: ['notes:read'],
      createdAt: new Date(),
      expires,
      lastUsedAt: null,
    });
    return { key, id };
  };
  return { reader: moduleRef.get(ApiKeyReader), adapter, add };
}

/**
 * The same key with one character of its secret changed and its checksum made right again: the
 * checksum is a public CRC-32 (base62), so anyone can make a look-alike that passes it.
 */
function forgedFrom(key: string, prefix: string): string {
  const body = key.slice(prefix.length + 1);
  const head = `${prefix}_${body.slice(0, 20)}${body[20] === 'A' ? 'B' : 'A'}${body.slice(21, 44)}`;
  let value = crc32(head);
  let sum = '';
  for (let i = 0; i < 6; i++) {
    sum = BASE62[value % 62] + sum;
    value = Math.floor(value / 62);
  }
  return head + sum;
}

const active = (state: SessionState | undefined) => {
  expect(state).toMatchObject({ status: 'active', strategy: 'api-key', user: { id: 'u1' } });
  return state as Extract<SessionState, { status: 'active' }>;
};

describe('ApiKeyReader: the cached path', () => {
  it('answers a key seen before without waiting, counted against the rate limit in the same turn', async () => {
    const { reader: keys, add } = await reader({ rateLimit: { limit: 3, window: 60 } });
    const { key } = await add();
    // Never looked up: the reader must wait for storage.
    expect(keys.readSync(key)).toBeUndefined();
    active(await keys.read(key)); // hit 1
    active(keys.readSync(key)); // hit 2
    active(keys.readSync(key)); // hit 3
    expect(keys.readSync(key)).toMatchObject({ status: 'limited', retryAfter: expect.any(Number) });
    expect(await keys.read(key)).toMatchObject({ status: 'limited' });
  });

  it('with a store that must be awaited, leaves the counting to read (nothing counted twice)', async () => {
    const { reader: keys, add } = await reader({ rateLimit: { limit: 2, window: 60 } }, new AwaitedStore());
    const { key } = await add();
    active(await keys.read(key)); // hit 1
    expect(keys.readSync(key)).toBeUndefined();
    active(await keys.read(key)); // hit 2
    expect(await keys.read(key)).toMatchObject({ status: 'limited' });
  });

  it('refuses a look-alike of a cached key (same id, right checksum, another secret) on every path', async () => {
    const { reader: keys, add } = await reader({ rateLimit: false });
    const { key } = await add();
    active(await keys.read(key));
    active(keys.readSync(key));
    const forged = forgedFrom(key, 'nak');
    expect(forged).not.toBe(key);
    expect(forged.length).toBe(key.length);
    expect(keys.readSync(forged)).toEqual({ status: 'invalid', clearCookies: [] });
    expect(await keys.read(forged)).toEqual({ status: 'invalid', clearCookies: [] });
    // The real key still works after the look-alike.
    active(keys.readSync(key));
  });

  it('refuses a cached key with a character whose low byte is the right one (whole characters are compared)', async () => {
    const { reader: keys, add } = await reader({ rateLimit: false });
    const { key } = await add();
    active(await keys.read(key));
    // Each character of the secret in turn, raised by 0x100 (same low byte: 'A' becomes 'Ł'). The
    // id stays, so every one reaches the comparison with the cached key.
    for (let i = 'nak_'.length + 12; i < key.length; i++) {
      const lookAlike = key.slice(0, i) + String.fromCharCode(key.charCodeAt(i) + 0x100) + key.slice(i + 1);
      expect(keys.readSync(lookAlike)).toEqual({ status: 'invalid', clearCookies: [] });
      expect(await keys.read(lookAlike)).toEqual({ status: 'invalid', clearCookies: [] });
    }
    active(keys.readSync(key));
  });

  it('gives each request its own copy: a handler that edits the user or the scopes changes nothing for the next', async () => {
    const { reader: keys, add } = await reader({ rateLimit: false });
    const { key } = await add();
    const first = active(await keys.read(key));
    first.user.name = 'Mallory';
    (first.session as unknown as Record<symbol, { scopes: string[] }>)[CREDENTIAL].scopes.push('admin');
    (first.session as unknown as { user: { id: string } }).user.id = 'u2';
    const next = active(keys.readSync(key));
    expect(next.user.name).toBe('Ada');
    expect((next.session as unknown as Record<symbol, { scopes: string[] }>)[CREDENTIAL].scopes).toEqual([
      'notes:read',
    ]);
    expect((next.session as unknown as { user: { id: string } }).user.id).toBe('u1');
  });

  it("writes a key's lastUsedAt at most once a minute, on the cached path too, never waited for", async () => {
    const { reader: keys, adapter, add } = await reader({ rateLimit: false, cacheTtl: 300 });
    const { key, id } = await add();
    const writes = jest.spyOn(adapter, 'updateApiKey');
    const t0 = Date.now();
    active(await keys.read(key, t0));
    active(keys.readSync(key, t0 + 1_000));
    active(keys.readSync(key, t0 + 59_000));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveBeenCalledTimes(1);
    expect((await adapter.getApiKey(id))!.lastUsedAt).toEqual(new Date(t0));
    active(keys.readSync(key, t0 + 61_000));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveBeenCalledTimes(2);
    expect((await adapter.getApiKey(id))!.lastUsedAt).toEqual(new Date(t0 + 61_000));
  });

  it('refuses a cached key once it expires, and a revoked one at once', async () => {
    const { reader: keys, add } = await reader({ rateLimit: false });
    const soon = await add(new Date(Date.now() + 10_000));
    active(await keys.read(soon.key));
    expect(keys.readSync(soon.key, Date.now() + 11_000)).toMatchObject({ status: 'expired' });
    const { key, id } = await add();
    active(await keys.read(key));
    await keys.forget(id);
    expect(keys.readSync(key)).toBeUndefined();
  });
});
