import { describe, expect, it } from '@jest/globals';
import type { EntitySchema } from 'typeorm';
import { resolveAuthSchema } from './schema-entities.js';
import { presetMapping } from './schema-mapping.js';

const columnsOf = (schema: EntitySchema) =>
  schema.options.columns as Record<string, { name?: string; nullable?: boolean; type?: unknown }>;

describe('schema mappings: the passkey name and last use (beyond SPEC)', () => {
  it('are absent from the Auth.js presets, so their tables stay as they are', () => {
    for (const preset of ['authjs-prisma', 'authjs-drizzle', 'authjs-typeorm'] as const) {
      const { entities } = resolveAuthSchema(preset, 'postgres');
      const columns = columnsOf(entities.Authenticator as unknown as EntitySchema);
      expect(Object.keys(columns)).not.toContain('name');
      expect(Object.keys(columns)).not.toContain('lastUsedAt');
    }
  });

  it('are mapped, nullable, when a mapping names their columns (dates stored as the mapping says)', () => {
    const base = presetMapping('authjs-prisma', 'sqlite');
    const mapping = {
      ...base,
      authenticator: { table: 'Authenticator', columns: { name: 'passkey_name', lastUsedAt: 'last_used_at' } },
    };
    const columns = columnsOf(resolveAuthSchema(mapping, 'sqlite').entities.Authenticator as unknown as EntitySchema);
    expect(columns.name).toMatchObject({ name: 'passkey_name', nullable: true, type: 'varchar' });
    expect(columns.lastUsedAt).toMatchObject({ name: 'last_used_at', nullable: true, type: 'bigint' }); // epoch-ms on SQLite
  });
});

describe("schema mappings: the session's amr (two-factor, beyond SPEC)", () => {
  it('is absent from the Auth.js presets, and mapped, nullable text, when a mapping names its column', () => {
    for (const preset of ['authjs-prisma', 'authjs-drizzle', 'authjs-typeorm'] as const) {
      const columns = columnsOf(resolveAuthSchema(preset, 'sqlite').entities.Session as unknown as EntitySchema);
      expect(Object.keys(columns)).not.toContain('amr');
    }
    const base = presetMapping('authjs-drizzle', 'postgres');
    const mapping = { ...base, session: { table: 'session', columns: { amr: 'auth_methods' } } };
    const columns = columnsOf(resolveAuthSchema(mapping, 'postgres').entities.Session as unknown as EntitySchema);
    expect(columns.amr).toMatchObject({ name: 'auth_methods', nullable: true, type: 'varchar' });
  });
});
