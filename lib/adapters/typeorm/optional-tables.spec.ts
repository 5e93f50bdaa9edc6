import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import {
  API_KEY_ADAPTER_METHODS,
  REFRESH_TOKEN_ADAPTER_METHODS,
  SIGNING_KEY_ADAPTER_METHODS,
  TWO_FACTOR_ADAPTER_METHODS,
} from '../adapter-extensions.js';
import { MissingAdapterMethods } from '../../errors/auth.errors.js';
import { authEntities } from './auth-entities.js';
import { assertAuthEntities } from './typeorm-adapter.provider.js';
import { authSchemaEntities } from './schema-entities.js';
import type { AuthSchemaPreset } from './schema-mapping.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';

// Each capability beyond Auth.js's tables (two-factor, refresh-token families, API keys, signing
// keys) is told by its methods being functions, as the library detects every optional capability,
// and has a table of its own: Auth.js's schema presets have none, so an adapter on them has none of
// the methods. The behaviour itself is the conformance suite's (test/typeorm-adapter.e2e-spec.ts,
// on SQLite, PostgreSQL and MariaDB); each table's own checks are in <name>.spec.ts.

type Adapter = TypeOrmAdapter & Record<string, unknown>;

/** One optional table: its methods, entity, the method a prototype call reaches, and the message. */
interface OptionalTable {
  label: string;
  methods: readonly string[];
  option: 'TwoFactor' | 'RefreshFamily' | 'ApiKey' | 'SigningKey';
  entity: string;
  table: string;
  /** A reading method and its arguments. */
  read: [string, unknown[]];
  /** A writing method (absent with the table, even when a subclass implements `read`). */
  write: string;
  missing: RegExp;
}

const TABLES: OptionalTable[] = [
  {
    label: 'two-factor',
    methods: TWO_FACTOR_ADAPTER_METHODS,
    option: 'TwoFactor',
    entity: 'TwoFactorEntity',
    table: 'two_factors',
    read: ['listTwoFactorsByUserId', ['u1']],
    write: 'createTwoFactor',
    missing: /schema "authjs-prisma" has no two-factor table/,
  },
  {
    label: 'refresh-token family',
    methods: REFRESH_TOKEN_ADAPTER_METHODS,
    option: 'RefreshFamily',
    entity: 'RefreshFamilyEntity',
    table: 'refresh_token_families',
    read: ['getRefreshFamily', ['f1']],
    write: 'createRefreshFamily',
    missing: /schema "authjs-prisma" has no refresh-token family table/,
  },
  {
    label: 'API key',
    methods: API_KEY_ADAPTER_METHODS,
    option: 'ApiKey',
    entity: 'ApiKeyEntity',
    table: 'api_keys',
    read: ['getApiKey', ['k1']],
    write: 'createApiKey',
    missing: /schema "authjs-prisma" has no API key table/,
  },
  {
    label: 'signing-key',
    methods: SIGNING_KEY_ADAPTER_METHODS,
    option: 'SigningKey',
    entity: 'SigningKeyEntity',
    table: 'signing_keys',
    read: ['listSigningKeys', []],
    write: 'createSigningKey',
    missing: /schema "authjs-prisma" has no signing-key table/,
  },
];

const PRESETS: AuthSchemaPreset[] = ['authjs-prisma', 'authjs-drizzle', 'authjs-typeorm'];

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

describe.each(TABLES)('TypeOrmAdapter: $label storage as a capability', (t) => {
  const kinds = (adapter: object) => Object.fromEntries(t.methods.map((m) => [m, typeof (adapter as Adapter)[m]]));
  const all = (kind: string) => Object.fromEntries(t.methods.map((m) => [m, kind]));

  it('has its methods on its own tables', () => {
    expect(kinds(new TypeOrmAdapter(dataSource))).toEqual(all('function'));
  });

  it.each(PRESETS)('has none of them on the tables of the %s preset, which stay as they are', (preset) => {
    const presetSource = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: authSchemaEntities(preset, 'sqlite'),
    });
    expect(kinds(new TypeOrmAdapter(presetSource, {}, { schema: preset }))).toEqual(all('undefined'));
    expect(authSchemaEntities(preset, 'sqlite').map((e) => e.options.tableName)).not.toContain(t.table);
  });

  it('has none of them without its entity (option undefined, or a data source that does not list it); the others stay', async () => {
    const withoutOption = new TypeOrmAdapter(dataSource, { [t.option]: undefined });
    expect(kinds(withoutOption)).toEqual(all('undefined'));
    // Each capability is told by its own table.
    for (const other of TABLES.filter((o) => o !== t))
      expect(typeof (withoutOption as Adapter)[other.write]).toBe('function');
    const without = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: authEntities.filter((e) => e.name !== t.entity),
      synchronize: true,
    });
    await without.initialize();
    try {
      const adapter = new TypeOrmAdapter(without);
      expect(kinds(adapter)).toEqual(all('undefined'));
      // The default adapter's bootstrap check lets such a data source through (the table is optional).
      expect(() => assertAuthEntities(without)).not.toThrow();
      // Deleting an account and the housekeeping do not reach for the missing table.
      await adapter.createUser({ id: 'u9', email: 'u9@example.com', emailVerified: null });
      expect(await adapter.deleteUserCascade('u9')).toMatchObject({ id: 'u9' });
      await expect(adapter.deleteExpired()).resolves.toBeTruthy();
    } finally {
      await without.destroy();
    }
  });

  it('a call reached anyway (through the prototype) is MissingAdapterMethods, never a SQL error', async () => {
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new TypeOrmAdapter(presetSource, {}, { schema: 'authjs-prisma' });
    const [method, args] = t.read;
    const call = (TypeOrmAdapter.prototype as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[
      method
    ]!;
    const error = await call.apply(adapter, args).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingAdapterMethods);
    expect((error as MissingAdapterMethods).methods).toEqual([...t.methods]);
    expect((error as Error).message).toMatch(t.missing);
  });

  it("keeps a subclass's own implementation on tables without one", () => {
    const [method] = t.read;
    class Own extends TypeOrmAdapter {}
    Object.defineProperty(Own.prototype, method, { value: async () => null, configurable: true });
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new Own(presetSource, {}, { schema: 'authjs-prisma' }) as unknown as Adapter;
    expect(typeof adapter[method]).toBe('function');
    expect(typeof adapter[t.write]).toBe('undefined');
  });
});
