import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AdapterTwoFactor } from '../adapter.interface.js';
import { TWO_FACTOR_ADAPTER_METHODS } from '../adapter-extensions.js';
import { MissingAdapterMethods } from '../../errors/auth.errors.js';
import { authEntities } from './auth-entities.js';
import { authSchemaEntities } from './schema-entities.js';
import type { AuthSchemaPreset } from './schema-mapping.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';

// Whether a TypeOrmAdapter offers two-factor storage (TwoFactorAdapter) is told by its methods being
// functions, as the library detects every optional capability: Auth.js's tables have no two-factor
// table, so an adapter on them has none of the methods. The behaviour itself is the conformance
// suite's (test/typeorm-adapter.e2e-spec.ts, on SQLite, PostgreSQL and MariaDB).

const METHODS = TWO_FACTOR_ADAPTER_METHODS;

const kinds = (adapter: object) =>
  Object.fromEntries(METHODS.map((m) => [m, typeof (adapter as Record<string, unknown>)[m]]));
const all = (kind: string) => Object.fromEntries(METHODS.map((m) => [m, kind]));

let dataSource: DataSource;
beforeAll(async () => {
  dataSource = new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [...authEntities],
    synchronize: true,
  });
  await dataSource.initialize();
});
afterAll(() => dataSource.destroy());

describe('TypeOrmAdapter: two-factor storage as a capability', () => {
  it('has the seven methods on its own tables', () => {
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
      expect(authSchemaEntities(preset, 'sqlite').map((e) => e.options.tableName)).not.toContain('two_factors');
    },
  );

  it('has none of them with TwoFactor: undefined, or on a data source that does not list TwoFactorEntity', async () => {
    expect(kinds(new TypeOrmAdapter(dataSource, { TwoFactor: undefined }))).toEqual(all('undefined'));
    const without = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: authEntities.filter((e) => e.name !== 'TwoFactorEntity'),
      synchronize: true,
    });
    await without.initialize();
    try {
      const adapter = new TypeOrmAdapter(without);
      expect(kinds(adapter)).toEqual(all('undefined'));
      // Deleting an account does not reach for the missing table.
      await adapter.createUser({ id: 'u1', email: 'u1@example.com', emailVerified: null });
      expect(await adapter.deleteUserCascade('u1')).toMatchObject({ id: 'u1' });
    } finally {
      await without.destroy();
    }
  });

  it('a call reached anyway (through the prototype) is MissingAdapterMethods, never a SQL error', async () => {
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new TypeOrmAdapter(presetSource, {}, { schema: 'authjs-prisma' });
    const error = await TypeOrmAdapter.prototype.listTwoFactorsByUserId.call(adapter, 'u1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingAdapterMethods);
    expect((error as MissingAdapterMethods).methods).toEqual([...METHODS]);
    expect((error as Error).message).toMatch(/schema "authjs-prisma" has no two-factor table/);
  });

  it("keeps a subclass's own implementation on tables without one", () => {
    class OwnTwoFactors extends TypeOrmAdapter {
      override async listTwoFactorsByUserId(): Promise<AdapterTwoFactor[]> {
        return [];
      }
    }
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new OwnTwoFactors(presetSource, {}, { schema: 'authjs-prisma' });
    expect(typeof adapter.listTwoFactorsByUserId).toBe('function');
    expect(typeof adapter.createTwoFactor).toBe('undefined');
  });

  it('replaceTwoFactors refuses factors of another user or type before writing anything', async () => {
    const adapter = new TypeOrmAdapter(dataSource);
    await adapter.createUser({ id: 'u2', email: 'u2@example.com', emailVerified: null });
    const factor: AdapterTwoFactor = {
      id: 'f1',
      userId: 'u2',
      type: 'backup-code',
      name: null,
      secret: 'h',
      confirmedAt: null,
      createdAt: new Date(),
      lastUsedAt: null,
      lastUsedStep: null,
    };
    await adapter.createTwoFactor(factor);
    await expect(
      adapter.replaceTwoFactors('u2', 'backup-code', [{ ...factor, id: 'f2', type: 'totp' }]),
    ).rejects.toThrow(TypeError);
    expect((await adapter.listTwoFactorsByUserId('u2')).map((f) => f.id)).toEqual(['f1']);
  });
});
