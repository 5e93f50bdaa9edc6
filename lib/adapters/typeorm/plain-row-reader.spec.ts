import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { authEntities, defaultAuthEntities } from './auth-entities.js';
import { sqliteDatetimeMs } from './plain-row-reader.js';

/** The TypeORM way of reading a session's `expires` from better-sqlite3: what the fast path must equal. */
let dataSource: DataSource;
let typeormMs: (text: string) => number | undefined;

beforeAll(async () => {
  dataSource = new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [...authEntities],
    synchronize: true,
  });
  await dataSource.initialize();
  const column = dataSource.getMetadata(defaultAuthEntities.Session).findColumnWithPropertyName('expires')!;
  typeormMs = (text) => {
    const value = dataSource.driver.prepareHydratedValue(text, column) as unknown;
    return value instanceof Date ? value.getTime() : undefined;
  };
});
afterAll(() => dataSource.destroy());

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** Text in TypeORM's SQLite format from fields, valid or not. */
const text = (y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number) =>
  `${pad(y, 4)}-${pad(mo)}-${pad(d)} ${pad(h)}:${pad(mi)}:${pad(s)}.${pad(ms, 3)}`;

describe('sqliteDatetimeMs', () => {
  // promise: storage.sqlite-datetime
  it('reads what TypeORM writes to SQLite as TypeORM reads it, over random instants', async () => {
    // What the adapter stores: the row's own text.
    const expires = new Date(Date.UTC(2026, 10, 26, 17, 5, 9, 42));
    await dataSource.query(`INSERT INTO users (id, email) VALUES ('u1', 'u1@example.com')`);
    await dataSource.getRepository(defaultAuthEntities.Session).insert({ sessionToken: 't', userId: 'u1', expires });
    const [{ expires: stored }] = (await dataSource.query(`SELECT expires FROM sessions`)) as { expires: string }[];
    expect(sqliteDatetimeMs(stored)).toBe(expires.getTime());
    for (let i = 0; i < 20_000; i++) {
      const ms = Math.floor(Date.UTC(1000, 0, 1) + Math.random() * (Date.UTC(9999, 11, 31) - Date.UTC(1000, 0, 1)));
      const written = new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
      expect([written, sqliteDatetimeMs(written)]).toEqual([written, typeormMs(written)]);
    }
  });

  it('leaves to TypeORM every text it does not read exactly as TypeORM would', () => {
    const others = [
      text(2026, 2, 29, 0, 0, 0, 0), // not a leap year: V8 would roll it over to March 1st
      text(2026, 4, 31, 0, 0, 0, 0),
      text(2026, 13, 1, 0, 0, 0, 0),
      text(2026, 1, 0, 0, 0, 0, 0),
      text(2026, 1, 1, 24, 0, 0, 0), // V8 reads 24:00 as the next midnight
      text(2026, 1, 1, 23, 60, 0, 0),
      text(2026, 1, 1, 23, 59, 60, 0),
      text(999, 1, 1, 0, 0, 0, 0),
      text(99, 1, 1, 0, 0, 0, 0), // Date.UTC would read year 99 as 1999
      '2026-01-01T00:00:00.000Z',
      '2026-01-01 00:00:00',
      '2026-01-01 00:00:00.0000',
      '2026-01-01 0a:00:00.000',
      '2026-01-01 00:00:00,000',
      '+026-01-01 00:00:00.000',
      '2026-1-01 00:00:00.0000',
      '',
    ];
    for (const other of others) expect([other, sqliteDatetimeMs(other)]).toEqual([other, undefined]);
    expect(sqliteDatetimeMs(text(2024, 2, 29, 23, 59, 59, 999))).toBe(typeormMs(text(2024, 2, 29, 23, 59, 59, 999)));
    expect(sqliteDatetimeMs(text(2000, 2, 29, 0, 0, 0, 0))).toBe(Date.UTC(2000, 1, 29));
  });
});
