/**
 * Real databases for e2e suites: SQLite (a temp file), PostgreSQL and MariaDB (a fresh database per
 * suite on the local servers).
 *
 * @example
 * const targets = await databaseTargets(['sqlite', 'postgres']);
 * describe.each(targets)('sessions on $name', (target) => {
 *   let db: TestDatabase;
 *   beforeAll(async () => { db = await createDatabase(target, 'sessions'); });
 *   afterAll(() => dropDatabase(db));
 *   // TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })
 * });
 *
 * A target whose server does not answer is `available: false` with a `reason`: `describe.each` over
 * {@link databaseTargets} then skips its block (use {@link describeIf} or `target.describe`) after
 * printing one line saying why, unless the run is strict (`CI` set, see `isStrictCi` in `ci.ts`), where an unreachable server throws and fails the run.
 *
 * Server URLs: `AUTH_TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`) and
 * `AUTH_TEST_MARIADB_URL` (default `mysql://root@127.0.0.1:3306`).
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from '@jest/globals';
import type { DataSourceOptions } from 'typeorm';
import { isStrictCi, STRICT_HINT } from './ci.js';

/** The databases the suites run on. */
export type DatabaseName = 'sqlite' | 'postgres' | 'mariadb';

/** One database server to run a suite against. */
export interface DatabaseTarget {
  name: DatabaseName;
  /** False when the server did not answer (the suite is then skipped, or fails in strict CI). */
  available: boolean;
  /** Why the target is unavailable. */
  reason?: string;
  /** TypeORM options for the database `dbName` on this server (for SQLite: the file path). */
  options: (dbName: string) => DataSourceOptions;
  /** `describe`, or `describe.skip` (after printing the reason) when the server is unavailable. */
  describe: typeof describe;
}

/** A database created for one suite by {@link createDatabase}. */
export interface TestDatabase {
  target: DatabaseTarget;
  /** The database name (for SQLite: the file path). */
  name: string;
  /** TypeORM options to connect to it. */
  options: DataSourceOptions;
}

/** @default 'postgres://postgres@127.0.0.1:5432/postgres' */
export const POSTGRES_URL = process.env.AUTH_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** @default 'mysql://root@127.0.0.1:3306' */
export const MARIADB_URL = process.env.AUTH_TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';

function urlWithDatabase(base: string, dbName: string): string {
  const url = new URL(base);
  url.pathname = `/${dbName}`;
  return url.toString();
}

const DEFINITIONS: Record<
  DatabaseName,
  { options: (dbName: string) => DataSourceOptions; probe: () => Promise<void> }
> = {
  sqlite: {
    options: (file) => ({ type: 'better-sqlite3', database: file }),
    probe: async () => {
      await importUntyped('better-sqlite3');
    },
  },
  postgres: {
    options: (dbName) => ({ type: 'postgres', url: urlWithDatabase(POSTGRES_URL, dbName) }),
    probe: () => withPostgres(POSTGRES_URL, async () => undefined),
  },
  mariadb: {
    // Dates in UTC on the wire, so DATETIME values do not depend on the machine's time zone.
    options: (dbName) => ({ type: 'mariadb', url: urlWithDatabase(MARIADB_URL, dbName), timezone: 'Z' }),
    probe: () => withMariaDb(async () => undefined),
  },
};

/**
 * The database targets, each probed once (a connection attempt, 3 s at most). In strict CI (`isStrictCi`), an
 * unreachable server throws here, failing the suite: CI must run every database.
 *
 * @param names Which databases the suite runs on. @default ['sqlite', 'postgres', 'mariadb']
 */
export async function databaseTargets(
  names: readonly DatabaseName[] = ['sqlite', 'postgres', 'mariadb'],
): Promise<DatabaseTarget[]> {
  return Promise.all(
    names.map(async (name): Promise<DatabaseTarget> => {
      const { options, probe } = DEFINITIONS[name];
      let reason: string | undefined;
      try {
        await probe();
      } catch (error) {
        reason = `${name} is not reachable (${(error as Error).message || String(error)})`;
        if (isStrictCi())
          throw new Error(`CI=${process.env.CI} and ${reason}: every database must run in CI.`, { cause: error });
      }
      const available = reason === undefined;
      return { name, available, reason, options, describe: describeIf(available, reason) };
    }),
  );
}

/**
 * `describe` when `condition` holds; otherwise `describe.skip`, printing `reason` once per block so a
 * skipped suite is never silent.
 */
export function describeIf(condition: boolean, reason?: string): typeof describe {
  if (condition) return describe;
  const skip = ((name: string, fn: () => void) => {
    // stderr rather than console.warn, which jest decorates with a stack frame: one line, as promised.
    process.stderr.write(`[skipped] ${name}: ${reason ?? 'unavailable'} (${STRICT_HINT})\n`);
    describe.skip(name, fn);
  }) as typeof describe;
  return Object.assign(skip, describe);
}

/**
 * Creates a fresh, empty database for one suite: a temp file for SQLite, `CREATE DATABASE` with a
 * unique name on PostgreSQL and MariaDB.
 */
export async function createDatabase(target: DatabaseTarget, suiteName: string): Promise<TestDatabase> {
  const slug = suiteName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  const name = `auth_${slug}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  switch (target.name) {
    case 'sqlite': {
      const file = join(tmpdir(), `${name}.sqlite`);
      return { target, name: file, options: target.options(file) };
    }
    case 'postgres':
      await withPostgres(POSTGRES_URL, (c) => c.query(`CREATE DATABASE "${name}"`));
      return { target, name, options: target.options(name) };
    case 'mariadb':
      await withMariaDb((c) => c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`));
      return { target, name, options: target.options(name) };
  }
}

/** Drops a database made by {@link createDatabase}. Close its connections first. */
export async function dropDatabase(db: TestDatabase | undefined): Promise<void> {
  if (!db) return;
  switch (db.target.name) {
    case 'sqlite':
      await Promise.all(['', '-wal', '-shm', '-journal'].map((suffix) => rm(`${db.name}${suffix}`, { force: true })));
      return;
    case 'postgres':
      await withPostgres(POSTGRES_URL, async (c) => {
        await closedConnections(c, db.name);
        await c.query(`DROP DATABASE IF EXISTS "${db.name}" WITH (FORCE)`);
      });
      return;
    case 'mariadb':
      await withMariaDb((c) => c.query(`DROP DATABASE IF EXISTS \`${db.name}\``));
      return;
  }
}

/** `import()` of a package that ships no type declarations (`pg`, `better-sqlite3`). */
function importUntyped(name: string): Promise<unknown> {
  return import(name);
}

interface Queryable {
  query(sql: string, values?: unknown[]): Promise<unknown>;
}

/** How long a drop waits for the database's connections to end before it ends them itself. */
const DROP_WAIT_MS = 2_000;

/**
 * Waits (at most {@link DROP_WAIT_MS}) until no backend is connected to `name`. A `pg` pool's
 * `end()` resolves once its clients have sent their goodbye, before their backends exit; a forced
 * drop in that moment sends a closing client a FATAL (57P01) that it reports as an unhandled error,
 * failing the suite that closed it properly. A connection a suite left open is still ended by the
 * drop (`WITH (FORCE)`) after the wait.
 */
async function closedConnections(client: Queryable, name: string): Promise<void> {
  const deadline = Date.now() + DROP_WAIT_MS;
  for (;;) {
    const { rows } = (await client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
      name,
    ])) as { rows: Array<{ n: number }> };
    if (rows[0]!.n === 0 || Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function withPostgres<T>(url: string, fn: (client: Queryable) => Promise<T>): Promise<T> {
  const { default: pg } = (await importUntyped('pg')) as {
    default: { Client: new (options: object) => Queryable & { connect(): Promise<void>; end(): Promise<void> } };
  };
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function withMariaDb<T>(fn: (client: Queryable) => Promise<T>): Promise<T> {
  const mysql = await import('mysql2/promise');
  const connection = await mysql.createConnection({ uri: MARIADB_URL, connectTimeout: 3000 });
  try {
    return await fn(connection);
  } finally {
    await connection.end();
  }
}
