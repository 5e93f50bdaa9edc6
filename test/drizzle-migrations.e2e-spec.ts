/**
 * The Drizzle docs' migration path, as a user runs it: a schema that re-exports the package's
 * tables (`nestjs-auth/drizzle`, compiled into a throwaway app's node_modules), `drizzle-kit
 * generate` for each dialect, the migrations applied with drizzle-orm's migrator to a new database,
 * and the conformance suite over the tables they made, every extension included, on SQLite,
 * PostgreSQL and MariaDB.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migrateMysql } from 'drizzle-orm/mysql2/migrator';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import { runAdapterConformanceTests } from '../lib/adapters/testing/adapter-conformance.js';
import { DrizzleAdapter } from '../lib/drizzle.js';
import {
  createDatabase,
  databaseTargets,
  dropDatabase,
  type DatabaseName,
  type TestDatabase,
} from './setup/databases.js';
import { conformanceDb, openDrizzle, type DrizzleTestDb } from './setup/drizzle-db.js';
import { packedApp } from './setup/packed-app.js';
import { ALL_EXTENSIONS } from './setup/conformance-extensions.js';

const DIALECTS: Record<DatabaseName, { dialect: string; tables: string }> = {
  postgres: { dialect: 'postgresql', tables: 'pgAuthTables' },
  mariadb: { dialect: 'mysql', tables: 'mysqlAuthTables' },
  sqlite: { dialect: 'sqlite', tables: 'sqliteAuthTables' },
};

const targets = await databaseTargets();
let app: string | undefined;
/** The migrations folder drizzle-kit wrote, per database. */
const folders = new Map<DatabaseName, string>();

beforeAll(() => {
  ({ dir: app } = packedApp('nestjs-auth-drizzle-kit-', { pack: false }));
  const kit = join(app, 'node_modules', 'drizzle-kit', 'bin.cjs');
  for (const [name, { dialect, tables }] of Object.entries(DIALECTS) as [
    DatabaseName,
    (typeof DIALECTS)[DatabaseName],
  ][]) {
    // The docs' schema file: the package's tables, re-exported by name.
    const schema = join(app, `schema-${name}.ts`);
    writeFileSync(
      schema,
      `import { ${tables} } from 'nestjs-auth/drizzle';\n` +
        `export const { users, accounts, sessions, verificationTokens, authenticators, twoFactors, refreshTokenFamilies, apiKeys, signingKeys } = ${tables};\n`,
    );
    const out = join(app, `drizzle-${name}`);
    execFileSync('node', [kit, 'generate', '--dialect', dialect, '--schema', schema, '--out', out], {
      cwd: app,
      stdio: 'pipe',
    });
    folders.set(name, out);
  }
}, 240_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe('drizzle-kit generate over the package tables', () => {
  it('writes one migration per dialect that creates the nine tables', () => {
    for (const [name, folder] of folders) {
      const files = readdirSync(folder).filter((file) => file.endsWith('.sql'));
      expect({ name, files: files.length }).toEqual({ name, files: 1 });
      const sql = readFileSync(join(folder, files[0]!), 'utf8');
      expect({ name, tables: sql.match(/CREATE TABLE/gi)?.length }).toEqual({ name, tables: 9 });
    }
  });
});

for (const target of targets) {
  target.describe(`DrizzleAdapter on ${target.name}, tables made by drizzle-kit's migration`, () => {
    let test: TestDatabase;
    let t: DrizzleTestDb;
    runAdapterConformanceTests({
      name: `DrizzleAdapter (${target.name}, drizzle-kit)`,
      setup: async () => {
        test = await createDatabase(target, 'drizzle_kit');
        t = await openDrizzle(test, []); // no hand-written DDL: the migration makes the tables
        const migrationsFolder = folders.get(target.name)!;
        if (target.name === 'postgres') await migratePg(t.db, { migrationsFolder });
        else if (target.name === 'mariadb') await migrateMysql(t.db, { migrationsFolder });
        else migrateSqlite(t.db, { migrationsFolder });
      },
      teardown: async () => {
        await t?.close();
        await dropDatabase(test);
      },
      adapter: () => new DrizzleAdapter(t.db, t.tables),
      extensions: ALL_EXTENSIONS,
      db: conformanceDb(() => t),
    });
  });
}
