import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AdapterSigningKey } from '../adapter.interface.js';
import { SIGNING_KEY_ADAPTER_METHODS } from '../adapter-extensions.js';
import { AdapterConflictError, MissingAdapterMethods } from '../../errors/auth.errors.js';
import { authEntities } from './auth-entities.js';
import { assertAuthEntities } from './typeorm-adapter.provider.js';
import { authSchemaEntities } from './schema-entities.js';
import type { AuthSchemaPreset } from './schema-mapping.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';

// Whether a TypeOrmAdapter offers signing-key storage (SigningKeyAdapter) is told by its methods
// being functions, as the library detects every optional capability: Auth.js's tables have no
// signing-key table, so an adapter on them has none of the methods. The behaviour itself is the
// conformance suite's (test/typeorm-adapter.e2e-spec.ts, on SQLite, PostgreSQL and MariaDB).

const METHODS = SIGNING_KEY_ADAPTER_METHODS;

const kinds = (adapter: object) =>
  Object.fromEntries(METHODS.map((m) => [m, typeof (adapter as Record<string, unknown>)[m]]));
const all = (kind: string) => Object.fromEntries(METHODS.map((m) => [m, kind]));

const signingKey = (overrides: Partial<AdapterSigningKey> = {}): AdapterSigningKey => ({
  id: 't'.repeat(43),
  alg: 'EdDSA',
  publicJwk: '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}',
  privateKey: 'sealed',
  slot: 20_000,
  createdAt: new Date(),
  activatesAt: new Date(),
  removesAt: null,
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
});
afterAll(() => dataSource.destroy());

describe('TypeOrmAdapter: signing-key storage as a capability', () => {
  it('has the four methods on its own tables', () => {
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
      expect(authSchemaEntities(preset, 'sqlite').map((e) => e.options.tableName)).not.toContain('signing_keys');
    },
  );

  it('has none of them with SigningKey: undefined, or on a data source that does not list SigningKeyEntity', async () => {
    const withoutKeys = new TypeOrmAdapter(dataSource, { SigningKey: undefined });
    expect(kinds(withoutKeys)).toEqual(all('undefined'));
    // The other capabilities stay: each is told by its own table.
    expect(typeof withoutKeys.createApiKey).toBe('function');
    expect(typeof withoutKeys.createRefreshFamily).toBe('function');
    const without = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: authEntities.filter((e) => e.name !== 'SigningKeyEntity'),
      synchronize: true,
    });
    await without.initialize();
    try {
      expect(kinds(new TypeOrmAdapter(without))).toEqual(all('undefined'));
      // The default adapter's bootstrap check lets such a data source through (the table is optional).
      expect(() => assertAuthEntities(without)).not.toThrow();
    } finally {
      await without.destroy();
    }
  });

  it('a call reached anyway (through the prototype) is MissingAdapterMethods, never a SQL error', async () => {
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new TypeOrmAdapter(presetSource, {}, { schema: 'authjs-prisma' });
    const error = await TypeOrmAdapter.prototype.listSigningKeys.call(adapter).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingAdapterMethods);
    expect((error as MissingAdapterMethods).methods).toEqual([...METHODS]);
    expect((error as Error).message).toMatch(/schema "authjs-prisma" has no signing-key table/);
  });

  it("keeps a subclass's own implementation on tables without one", () => {
    class OwnKeys extends TypeOrmAdapter {
      override async listSigningKeys(): Promise<AdapterSigningKey[]> {
        return [];
      }
    }
    const presetSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    const adapter = new OwnKeys(presetSource, {}, { schema: 'authjs-prisma' });
    expect(typeof adapter.listSigningKeys).toBe('function');
    expect(typeof adapter.createSigningKey).toBe('undefined');
  });

  it('refuses a key or a patch whose fields are not of their types before writing anything', async () => {
    const adapter = new TypeOrmAdapter(dataSource);
    for (const overrides of [
      { slot: -1 },
      { slot: 2 ** 53 },
      { publicJwk: 'not json' },
      { publicJwk: 'null' },
      { activatesAt: new Date(Number.NaN) },
      { alg: 'A'.repeat(17) },
      { id: 'i'.repeat(65) },
    ])
      await expect(adapter.createSigningKey(signingKey(overrides))).rejects.toThrow(TypeError);
    expect(await adapter.listSigningKeys()).toEqual([]);
    const stored = await adapter.createSigningKey(signingKey());
    await expect(adapter.updateSigningKey(stored.id, { activatesAt: null as unknown as Date })).rejects.toThrow(
      TypeError,
    );
    await expect(adapter.updateSigningKey(stored.id, { removesAt: new Date(Number.NaN) })).rejects.toThrow(TypeError);
    expect(await adapter.listSigningKeys()).toEqual([stored]);
    await adapter.deleteSigningKey(stored.id);
  });

  it('a second key for a slot, or with an id, is AdapterConflictError signingKey, naming neither', async () => {
    const adapter = new TypeOrmAdapter(dataSource);
    const first = await adapter.createSigningKey(signingKey({ id: 'a'.repeat(43), slot: 31_337 }));
    for (const duplicate of [signingKey({ id: 'b'.repeat(43), slot: 31_337 }), signingKey({ id: first.id, slot: 1 })]) {
      const error = await adapter.createSigningKey(duplicate).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AdapterConflictError);
      expect((error as AdapterConflictError).conflict).toBe('signingKey');
      expect((error as Error).message).not.toMatch(/31337|aaaa/);
    }
    expect(await adapter.listSigningKeys()).toEqual([first]);
    await adapter.deleteSigningKey(first.id);
  });

  it('stores the slot as a bigint: a slot past 2^32 comes back as the same number', async () => {
    const adapter = new TypeOrmAdapter(dataSource);
    const big = await adapter.createSigningKey(signingKey({ slot: 2 ** 40 + 7 }));
    expect((await adapter.listSigningKeys()).map((k) => k.slot)).toEqual([2 ** 40 + 7]);
    await adapter.deleteSigningKey(big.id);
  });
});
