import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { mysqlAuthTables, pgAuthTables, sqliteAuthTables, type DrizzleAuthTables } from '../../lib/drizzle.js';
import { and, eq } from 'drizzle-orm';
import type { ConformanceDb } from '../../lib/adapters/testing/conformance-context.js';
import type { DatabaseName, TestDatabase } from './databases.js';
import { DRIZZLE_DDL } from './drizzle-ddl.js';

// A Drizzle database on a test database (see `createDatabase`), with the tables of `DrizzleAdapter`
// created by their DDL, for the Drizzle e2e suites.

export const TABLES: Record<DatabaseName, DrizzleAuthTables> = {
  sqlite: sqliteAuthTables,
  postgres: pgAuthTables,
  mariadb: mysqlAuthTables,
};

/** A Drizzle database on a test database, with its DDL run, and how to close it. */
export interface DrizzleTestDb {
  db: any;
  tables: any;
  name: DatabaseName;
  /** A raw statement (no Drizzle table involved), for corrupting rows behind the adapter's back. */
  exec(statement: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/** `import()` of a package that ships no type declarations. */
function importUntyped(name: string): Promise<any> {
  return import(name);
}

/** Opens the database with the driver the adapter documents and creates the tables (`ddl`). */
export async function openDrizzle(test: TestDatabase, ddl = DRIZZLE_DDL[test.target.name]): Promise<DrizzleTestDb> {
  const name = test.target.name;
  const tables = TABLES[name];
  if (name === 'sqlite') {
    const { default: Database } = await importUntyped('better-sqlite3');
    const client = new Database(test.name);
    client.pragma('journal_mode = WAL');
    for (const statement of ddl) client.exec(statement);
    return {
      db: drizzleSqlite({ client }),
      tables,
      name,
      exec: async (statement, params = []) => void client.prepare(statement).run(...params),
      close: async () => void client.close(),
    };
  }
  const url = (test.options as { url: string }).url;
  if (name === 'postgres') {
    const { default: pg } = await importUntyped('pg');
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    for (const statement of ddl) await pool.query(statement);
    return {
      db: drizzlePg({ client: pool }),
      tables,
      name,
      exec: async (statement, params = []) => void (await pool.query(statement, params)),
      close: () => pool.end(),
    };
  }
  const mysql = await import('mysql2/promise');
  const pool = mysql.createPool({ uri: url, connectionLimit: 10 });
  // Byte-for-byte keys, as mysqlAuthTables' documentation asks.
  await pool.query(`ALTER DATABASE \`${test.name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  for (const statement of ddl) await pool.query(statement);
  return {
    // Not `drizzle({ client, mode })`: drizzle-orm 0.45's isConfig() refuses any object with `mode`.
    db: drizzleMysql(pool as never, { mode: 'default' }),
    tables,
    name,
    exec: async (statement, params = []) => void (await pool.query(statement, params)),
    close: () => pool.end(),
  };
}

/** The dialect's placeholder for the `n`th parameter of a raw statement. */
function param(t: DrizzleTestDb, n: number): string {
  return t.name === 'postgres' ? `$${n}` : '?';
}

/** `name` quoted for the dialect. */
function q(t: DrizzleTestDb, name: string): string {
  return t.name === 'mariadb' ? `\`${name}\`` : `"${name}"`;
}

/** Stores a value that is no date in a date column (SQLite: text; PostgreSQL: infinity; MariaDB: a zero date). */
async function storeNoDate(t: DrizzleTestDb, table: string, column: string, id: string): Promise<void> {
  if (t.name === 'sqlite') return t.exec(`UPDATE "${table}" SET "${column}" = 'not a date' WHERE "id" = ?`, [id]);
  if (t.name === 'postgres') return t.exec(`UPDATE "${table}" SET "${column}" = 'infinity' WHERE "id" = $1`, [id]);
  // One connection for the three statements: the relaxed sql_mode is the session's.
  const pool = t.db.$client;
  const connection = await pool.getConnection();
  try {
    await connection.query("SET SESSION sql_mode = ''");
    await connection.query(`UPDATE \`${table}\` SET \`${column}\` = '0000-00-00 00:00:00' WHERE \`id\` = ?`, [id]);
  } finally {
    await connection.query('SET SESSION sql_mode = DEFAULT');
    connection.release();
  }
}

/** The first row of `table` matching `keys`, read with Drizzle but not through the adapter. */
async function rawRow(t: DrizzleTestDb, table: any, keys: Record<string, string>): Promise<object | null> {
  const where = and(...Object.entries(keys).map(([k, v]) => eq(table[k], v)));
  const rows = (await t.db.select().from(table).where(where)) as object[];
  return rows[0] ?? null;
}

/**
 * The conformance suite's raw reads and corruptors of a Drizzle test database (`t()`: the database
 * the suite's setup opened): rows read with Drizzle but not through the adapter.
 */
export function conformanceDb(t: () => DrizzleTestDb): ConformanceDb {
  return {
    user: (id) => rawRow(t(), t().tables.users, { id }),
    account: (provider, providerAccountId) => rawRow(t(), t().tables.accounts, { provider, providerAccountId }),
    session: (sessionToken) => rawRow(t(), t().tables.sessions, { sessionToken }),
    verificationToken: (identifier, token) => rawRow(t(), t().tables.verificationTokens, { identifier, token }),
    authenticator: (credentialID) => rawRow(t(), t().tables.authenticators, { credentialID }),
    twoFactor: (id) => rawRow(t(), t().tables.twoFactors, { id }),
    refreshFamily: (id) => rawRow(t(), t().tables.refreshTokenFamilies, { id }),
    corruptRefreshFamily: async (id, field) => {
      if (field === 'expires') return storeNoDate(t(), 'refresh_token_families', 'expires', id);
      const table = q(t(), 'refresh_token_families');
      await t().exec(`UPDATE ${table} SET ${q(t(), 'generation')} = -1 WHERE ${q(t(), 'id')} = ${param(t(), 1)}`, [id]);
    },
    apiKey: (id) => rawRow(t(), t().tables.apiKeys, { id }),
    corruptApiKey: async (id, field) => {
      if (field === 'expires') return storeNoDate(t(), 'api_keys', 'expires', id);
      const value = field === 'keyHash' ? '' : 'read  write';
      await t().exec(
        `UPDATE ${q(t(), 'api_keys')} SET ${q(t(), field)} = ${param(t(), 1)} WHERE ${q(t(), 'id')} = ${param(t(), 2)}`,
        [value, id],
      );
    },
    signingKey: (id) => rawRow(t(), t().tables.signingKeys, { id }),
    corruptSigningKey: async (id, field) => {
      if (field === 'activatesAt') return storeNoDate(t(), 'signing_keys', 'activatesAt', id);
      const set =
        field === 'slot' ? `${q(t(), 'slot')} = -1 - ${q(t(), 'slot')}` : `${q(t(), 'publicJwk')} = 'not json'`;
      await t().exec(`UPDATE ${q(t(), 'signing_keys')} SET ${set} WHERE ${q(t(), 'id')} = ${param(t(), 1)}`, [id]);
    },
  };
}
