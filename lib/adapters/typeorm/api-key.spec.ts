import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AdapterApiKey } from '../adapter.interface.js';
import { API_KEY_ADAPTER_METHODS } from '../adapter-extensions.js';
import { AdapterConflictError, MissingAdapterMethods } from '../../errors/auth.errors.js';
import { authEntities } from './auth-entities.js';
import { assertAuthEntities } from './typeorm-adapter.provider.js';
import { authSchemaEntities } from './schema-entities.js';
import type { AuthSchemaPreset } from './schema-mapping.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';

// Whether a TypeOrmAdapter offers API key storage (ApiKeyAdapter) is told by its methods being
// functions, as the library detects every optional capability: Auth.js's tables have no API key
// table, so an adapter on them has none of the methods. The behaviour itself is the conformance
// suite's (test/typeorm-adapter.e2e-spec.ts, on SQLite, PostgreSQL and MariaDB).

const METHODS = API_KEY_ADAPTER_METHODS;

const kinds = (adapter: object) =>
  Object.fromEntries(METHODS.map((m) => [m, typeof (adapter as Record<string, unknown>)[m]]));
const all = (kind: string) => Object.fromEntries(METHODS.map((m) => [m, kind]));

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

describe('TypeOrmAdapter: API key storage as a capability', () => {
  it('has the six methods on its own tables', () => {
    expect(kinds(new TypeOrmAdapter(dataSource))).toEqual(all('function'));
  });

  it.each<AuthSchemaPreset>(['authjs-prisma', 'authjs-drizzle', 'authjs-typeorm'])(
    'has none of them on the tables of the %s preset, which stay as they are',
    (preset) => {
      const presetSource = new DataSource({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: authSchemaEntities(preset, 'sqlite'),
      });
      expect(kinds(new TypeOrmAdapter(presetSource, {}, { schema: preset }))).toEqual(all('undefined'));
      expect(authSchemaEntities(preset, 'sqlite').map((e) => e.options.tableName)).not.toContain('api_keys');
    },
  );

  it('has none of them with ApiKey: undefined, or on a data source that does not list ApiKeyEntity', async () => {
    const withoutKeys = new TypeOrmAdapter(dataSource, { ApiKey: undefined });
    expect(kinds(withoutKeys)).toEqual(all('undefined'));
    // The other capabilities stay: each is told by its own table.
    expect(typeof withoutKeys.createTwoFactor).toBe('function');
    expect(typeof withoutKeys.createSigningKey).toBe('function');
    const without = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: authEntities.filter((e) => e.name !== 'ApiKeyEntity'),
      synchronize: true,
    });
    await without.initialize();
    try {
      const adapter = new TypeOrmAdapter(without);
      expect(kinds(adapter)).toEqual(all('undefined'));
      // The default adapter's bootstrap check lets such a data source through (the table is optional).
      expect(() => assertAuthEntities(without)).not.toThrow();
      // Deleting an account does not reach for the missing table, nor does the housekeeping.
      await adapter.createUser({ id: 'u9', email: 'u9@example.com', emailVerified: null });
      expect(await adapter.deleteUserCascade('u9')).toMatchObject({ id: 'u9' });
      expect(await adapter.deleteExpired()).toMatchObject({ apiKeys: 0 });
    } finally {
      await without.destroy();
    }
  });

  it('a call reached anyway (through the prototype) is MissingAdapterMethods, never a SQL error', async () => {
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new TypeOrmAdapter(presetSource, {}, { schema: 'authjs-prisma' });
    const error = await TypeOrmAdapter.prototype.getApiKey.call(adapter, 'k1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingAdapterMethods);
    expect((error as MissingAdapterMethods).methods).toEqual([...METHODS]);
    expect((error as Error).message).toMatch(/schema "authjs-prisma" has no API key table/);
  });

  it("keeps a subclass's own implementation on tables without one", () => {
    class OwnKeys extends TypeOrmAdapter {
      override async getApiKey(): Promise<AdapterApiKey | null> {
        return null;
      }
    }
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new OwnKeys(presetSource, {}, { schema: 'authjs-prisma' });
    expect(typeof adapter.getApiKey).toBe('function');
    expect(typeof adapter.createApiKey).toBe('undefined');
  });

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
});
