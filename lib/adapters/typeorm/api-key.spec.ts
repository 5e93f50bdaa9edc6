import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AdapterApiKey } from '../adapter.interface.js';
import { AdapterConflictError } from '../../errors/auth.errors.js';
import { authEntities } from './auth-entities.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { storedApiKey } from '../memory-store.helpers.js';

// The API key table's own checks (what it refuses, how it stores); whether an adapter has the
// capability at all is optional-tables.spec.ts', the behaviour the conformance suite's.

const apiKey = (overrides: Partial<AdapterApiKey> = {}): AdapterApiKey => ({
  id: 'k1AbCdEfGh23',
  userId: 'u1',
  name: 'CI',
  keyHash: 'h'.repeat(43),
  hint: 'wxyz',
  scopes: ['read'],
  createdAt: new Date(),
  expires: null,
  lastUsedAt: null,
  ...overrides,
});

let dataSource: DataSource;
beforeAll(async () => {
  dataSource = new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [...authEntities],
    synchronize: true,
  });
  await dataSource.initialize();
  await new TypeOrmAdapter(dataSource).createUser({ id: 'u1', email: 'u1@example.com', emailVerified: null });
});
afterAll(() => dataSource.destroy());

describe('TypeOrmAdapter: API key storage', () => {
  it('refuses a key or a patch whose fields are not of their types (or too long for the columns) before writing anything', async () => {
    const adapter = new TypeOrmAdapter(dataSource);
    for (const overrides of [
      { keyHash: '' },
      { createdAt: new Date(Number.NaN) },
      { scopes: ['two words'] },
      { id: 'k'.repeat(33) },
      { name: 'n'.repeat(101) },
      { scopes: Array.from({ length: 200 }, (_, i) => `scope-${i}`) },
    ])
      await expect(adapter.createApiKey(apiKey(overrides))).rejects.toThrow(TypeError);
    expect(await adapter.getApiKey('k1AbCdEfGh23')).toBeNull();
    const stored = await adapter.createApiKey(apiKey());
    await expect(adapter.updateApiKey(stored.id, 'u1', { lastUsedAt: new Date(Number.NaN) })).rejects.toThrow(
      TypeError,
    );
    await expect(adapter.updateApiKey(stored.id, 'u1', { name: 'n'.repeat(101) })).rejects.toThrow(TypeError);
    expect(await adapter.getApiKey(stored.id)).toEqual(stored);
    // A second key with its id: AdapterConflictError naming the rule, not the value.
    const error = await adapter.createApiKey(apiKey()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterConflictError);
    expect((error as AdapterConflictError).conflict).toBe('apiKey');
    expect((error as Error).message).not.toContain(stored.id);
    await adapter.deleteApiKey(stored.id, 'u1');
  });

  it('stores scopes space-separated, as sessions.amr (NULL when empty)', async () => {
    const adapter = new TypeOrmAdapter(dataSource);
    const withScopes = await adapter.createApiKey(apiKey({ id: 'scopes000001', scopes: ['read', 'write:all'] }));
    const without = await adapter.createApiKey(apiKey({ id: 'scopes000002', scopes: [] }));
    const raw = (id: string) =>
      dataSource.query('SELECT "scopes" FROM "api_keys" WHERE "id" = ?', [id]) as Promise<{ scopes: unknown }[]>;
    expect(await raw(withScopes.id)).toEqual([{ scopes: 'read write:all' }]);
    expect(await raw(without.id)).toEqual([{ scopes: null }]);
    expect((await adapter.getApiKey(withScopes.id))?.scopes).toEqual(['read', 'write:all']);
    expect((await adapter.getApiKey(without.id))?.scopes).toEqual([]);
  });

  it("reads a key and writes its lastUsedAt (the guard's path) without the query builder, to the same rows it reads", async () => {
    const adapter = new TypeOrmAdapter(dataSource);
    const stored = await adapter.createApiKey(apiKey({ id: 'plain0000001', scopes: ['read', 'write'] }));
    const built = jest.spyOn(dataSource, 'createQueryBuilder');
    try {
      const read = await adapter.getApiKey(stored.id);
      const lastUsedAt = new Date('2026-11-28T12:00:00.123Z');
      const touched = await adapter.updateApiKey(stored.id, 'u1', { lastUsedAt });
      expect(await adapter.getApiKey('plain0000404')).toBeNull();
      expect(await adapter.updateApiKey(stored.id, 'someone-else', { lastUsedAt })).toBeNull();
      expect(built).not.toHaveBeenCalled();
      expect(read).toEqual(stored);
      expect(touched).toEqual({ ...stored, lastUsedAt });
    } finally {
      built.mockRestore();
    }
    // What the query builder reads of the same row.
    const row = await dataSource
      .getRepository(ApiKeyEntity)
      .createQueryBuilder('k')
      .where('k.id = :id', { id: stored.id })
      .getOne();
    expect(await adapter.getApiKey(stored.id)).toEqual(storedApiKey(row!));
  });
});
