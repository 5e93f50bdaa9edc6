import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AdapterTwoFactor } from '../adapter.interface.js';
import { authEntities } from './auth-entities.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';

// The two-factor table's own checks (what it refuses, how it stores); whether an adapter has the
// capability at all is optional-tables.spec.ts', the behaviour the conformance suite's.

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

describe('TypeOrmAdapter: two-factor storage', () => {
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
