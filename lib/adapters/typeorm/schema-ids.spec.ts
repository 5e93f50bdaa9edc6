import { describe, expect, it } from '@jest/globals';
import { cuidLike, SchemaIds } from './schema-ids.js';
import { presetMapping } from './schema-mapping.js';

describe('ids under a schema mapping', () => {
  it('cuid-like ids are c + 24 base-36 characters, never repeated', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => cuidLike()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^c[0-9a-z]{24}$/);
  });

  it('SERIAL ids: made by the database; only positive 32-bit integers can match a row', () => {
    const ids = new SchemaIds(presetMapping('authjs-pg', 'postgres'));
    expect(ids.newUserId('5a0b6f0e-0000-4000-8000-000000000000')).toBeUndefined();
    expect(ids.validUserId('42')).toBe(true);
    for (const bad of ['', '0', '-1', '1.5', '2147483648', 'abc', '42 ', '٤٢', undefined])
      expect({ bad, valid: ids.validUserId(bad) }).toEqual({ bad, valid: false });
    expect(ids.rowId('account')).toEqual({});
  });

  it('uuid columns: the given UUID is kept, anything else is replaced, and only UUIDs can match', () => {
    const ids = new SchemaIds(presetMapping('authjs-typeorm', 'postgres'));
    const given = '5a0b6f0e-1234-4abc-8def-0123456789ab';
    expect(ids.newUserId(given)).toBe(given);
    const replaced = ids.newUserId('credentials-user-7');
    expect(replaced).not.toBe('credentials-user-7');
    expect(ids.validUserId(replaced)).toBe(true);
    expect(ids.validUserId("1' OR '1'='1")).toBe(false);
    expect(Object.values(ids.rowId('session'))[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('prisma: a cuid-like id whatever is given; text columns take any non-empty id', () => {
    const ids = new SchemaIds(presetMapping('authjs-prisma', 'sqlite'));
    expect(ids.newUserId('5a0b6f0e-1234-4abc-8def-0123456789ab')).toMatch(/^c[0-9a-z]{24}$/);
    expect(ids.validUserId('anything')).toBe(true);
    expect(ids.validUserId('')).toBe(false);
  });
});
