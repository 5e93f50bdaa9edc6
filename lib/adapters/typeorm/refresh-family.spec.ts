import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AdapterRefreshFamily } from '../adapter.interface.js';
import { authEntities } from './auth-entities.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';

// The refresh-token family table's own checks (what it refuses, how it stores); whether an adapter has the
// capability at all is optional-tables.spec.ts', the behaviour the conformance suite's.

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

describe('TypeOrmAdapter: refresh-token storage', () => {
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
