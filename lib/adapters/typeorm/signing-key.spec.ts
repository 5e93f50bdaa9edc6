import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AdapterSigningKey } from '../adapter.interface.js';
import { AdapterConflictError } from '../../errors/auth.errors.js';
import { authEntities } from './auth-entities.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';

// The signing-key table's own checks (what it refuses, how it stores); whether an adapter has the
// capability at all is optional-tables.spec.ts', the behaviour the conformance suite's.

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

describe('TypeOrmAdapter: signing-key storage', () => {
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
