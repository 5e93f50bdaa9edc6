import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AdapterRefreshFamily } from '../adapter.interface.js';
import { REFRESH_TOKEN_ADAPTER_METHODS } from '../adapter-extensions.js';
import { MissingAdapterMethods } from '../../errors/auth.errors.js';
import { authEntities } from './auth-entities.js';
import { assertAuthEntities } from './typeorm-adapter.provider.js';
import { authSchemaEntities } from './schema-entities.js';
import type { AuthSchemaPreset } from './schema-mapping.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';

// Whether a TypeOrmAdapter offers refresh-token storage (RefreshTokenAdapter) is told by its methods
// being functions, as the library detects every optional capability: Auth.js's tables have no
// refresh-token family table, so an adapter on them has none of the methods. The behaviour itself is
// the conformance suite's (test/typeorm-adapter.e2e-spec.ts, on SQLite, PostgreSQL and MariaDB).

const METHODS = REFRESH_TOKEN_ADAPTER_METHODS;

const kinds = (adapter: object) =>
  Object.fromEntries(METHODS.map((m) => [m, typeof (adapter as Record<string, unknown>)[m]]));
const all = (kind: string) => Object.fromEntries(METHODS.map((m) => [m, kind]));

const family = (overrides: Partial<AdapterRefreshFamily> = {}): AdapterRefreshFamily => ({
  id: 'f'.repeat(43),
  userId: 'u1',
  clientId: 'app',
  generation: 0,
  tokenHash: 'h'.repeat(43),
  rotatedAt: new Date(),
  expires: new Date(Date.now() + 60_000),
  authTime: new Date(),
  amr: ['pwd'],
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

describe('TypeOrmAdapter: refresh-token storage as a capability', () => {
  it('has the five methods on its own tables', () => {
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
      expect(authSchemaEntities(preset, 'sqlite').map((e) => e.options.tableName)).not.toContain(
        'refresh_token_families',
      );
    },
  );

  it('has none of them with RefreshFamily: undefined, or on a data source that does not list RefreshFamilyEntity', async () => {
    const withoutFamilies = new TypeOrmAdapter(dataSource, { RefreshFamily: undefined });
    expect(kinds(withoutFamilies)).toEqual(all('undefined'));
    // The other capability stays: each is told by its own table.
    expect(typeof withoutFamilies.createTwoFactor).toBe('function');
    const without = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: authEntities.filter((e) => e.name !== 'RefreshFamilyEntity'),
      synchronize: true,
    });
    await without.initialize();
    try {
      const adapter = new TypeOrmAdapter(without);
      expect(kinds(adapter)).toEqual(all('undefined'));
      // The default adapter's bootstrap check lets such a data source through (the table is optional).
      expect(() => assertAuthEntities(without)).not.toThrow();
      // Deleting an account does not reach for the missing table.
      await adapter.createUser({ id: 'u9', email: 'u9@example.com', emailVerified: null });
      expect(await adapter.deleteUserCascade('u9')).toMatchObject({ id: 'u9' });
    } finally {
      await without.destroy();
    }
  });

  it('a call reached anyway (through the prototype) is MissingAdapterMethods, never a SQL error', async () => {
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new TypeOrmAdapter(presetSource, {}, { schema: 'authjs-prisma' });
    const error = await TypeOrmAdapter.prototype.getRefreshFamily.call(adapter, 'f1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingAdapterMethods);
    expect((error as MissingAdapterMethods).methods).toEqual([...METHODS]);
    expect((error as Error).message).toMatch(/schema "authjs-prisma" has no refresh-token family table/);
  });

  it("keeps a subclass's own implementation on tables without one", () => {
    class OwnFamilies extends TypeOrmAdapter {
      override async getRefreshFamily(): Promise<AdapterRefreshFamily | null> {
        return null;
      }
    }
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new OwnFamilies(presetSource, {}, { schema: 'authjs-prisma' });
    expect(typeof adapter.getRefreshFamily).toBe('function');
    expect(typeof adapter.createRefreshFamily).toBe('undefined');
  });

  it('refuses a family or a rotation whose fields are not of their types before writing anything', async () => {
    const adapter = new TypeOrmAdapter(dataSource);
    await expect(adapter.createRefreshFamily(family({ generation: -1 }))).rejects.toThrow(TypeError);
    await expect(adapter.createRefreshFamily(family({ expires: new Date(Number.NaN) }))).rejects.toThrow(TypeError);
    expect(await adapter.getRefreshFamily('f'.repeat(43))).toBeNull();
    const stored = await adapter.createRefreshFamily(family());
    const next = { tokenHash: 'n', rotatedAt: new Date(), expires: new Date(Number.NaN) };
    await expect(adapter.rotateRefreshFamily(stored.id, 0, next)).rejects.toThrow(TypeError);
    // A `from` no family can be at: false, nothing written.
    const valid = { ...next, expires: new Date(Date.now() + 60_000) };
    for (const from of [-1, 0.5, Number.NaN, Number.MAX_SAFE_INTEGER])
      expect(await adapter.rotateRefreshFamily(stored.id, from, valid)).toBe(false);
    expect(await adapter.getRefreshFamily(stored.id)).toEqual(stored);
  });

  it('stores amr space-separated, as sessions.amr (NULL when empty)', async () => {
    const adapter = new TypeOrmAdapter(dataSource);
    const withAmr = await adapter.createRefreshFamily(family({ id: 'a'.repeat(43), amr: ['pwd', 'otp', 'mfa'] }));
    const without = await adapter.createRefreshFamily(family({ id: 'b'.repeat(43), amr: [] }));
    const raw = (id: string) =>
      dataSource.query('SELECT "amr" FROM "refresh_token_families" WHERE "id" = ?', [id]) as Promise<
        { amr: unknown }[]
      >;
    expect(await raw(withAmr.id)).toEqual([{ amr: 'pwd otp mfa' }]);
    expect(await raw(without.id)).toEqual([{ amr: null }]);
    expect((await adapter.getRefreshFamily(withAmr.id))?.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect((await adapter.getRefreshFamily(without.id))?.amr).toEqual([]);
  });
});
