import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { mysqlAuthTables, pgAuthTables, sqliteAuthTables, type DrizzleAuthTables } from '../../lib/drizzle.js';
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
