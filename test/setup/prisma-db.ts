import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  prismaSchemaMysql,
  prismaSchemaPostgres,
  prismaSchemaSqlite,
  type PrismaAdapterClient,
} from '../../lib/prisma.js';
import type { ConformanceDb } from '../../lib/adapters/testing/conformance-context.js';
import type { DatabaseName, TestDatabase } from './databases.js';
import { PRISMA_DDL } from './prisma-ddl.js';

// A generated Prisma client over a test database (see `createDatabase`), with the tables of
// `PrismaAdapter` created by their DDL, for the Prisma e2e suites.

const execFileAsync = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The Prisma provider of each test database, and the schema fragment shipped for it. */
export const PROVIDERS: Record<DatabaseName, { provider: string; models: string }> = {
  sqlite: { provider: 'sqlite', models: prismaSchemaSqlite },
  postgres: { provider: 'postgresql', models: prismaSchemaPostgres },
  mariadb: { provider: 'mysql', models: prismaSchemaMysql },
};

/** A whole schema.prisma: the generator and datasource an app has, then exactly the shipped models. */
export function prismaSchemaFile(name: DatabaseName, output: string): string {
  const { provider, models } = PROVIDERS[name];
  return `generator client {
  provider            = "prisma-client"
  output              = "${output}"
  moduleFormat        = "esm"
  importFileExtension = "js"
}

datasource db {
  provider = "${provider}"
}

${models}`;
}

/** The generated client's constructor, typed by what the adapter and the tests call. */
export type PrismaClientClass = new (options: object) => PrismaAdapterClient & {
  $disconnect(): Promise<void>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
};

const generated = new Map<DatabaseName, Promise<PrismaClientClass>>();

/**
 * Runs `prisma generate` for the shipped models of `name` into test-output/prisma-adapter/ (once per
 * run) and imports the generated client. Prisma 7's client needs no query engine (a driver adapter
 * runs the queries); the CLI would still download the schema engine on start unless
 * `PRISMA_SCHEMA_ENGINE_BINARY` names a file, and `generate` never runs it (`migrate` does: it cannot
 * run here, so the tables come from PRISMA_DDL).
 */
export function generatePrismaClient(name: DatabaseName): Promise<PrismaClientClass> {
  let client = generated.get(name);
  if (!client) {
    client = generate(name);
    generated.set(name, client);
  }
  return client;
}

async function generate(name: DatabaseName): Promise<PrismaClientClass> {
  const dir = join(ROOT, 'test-output', 'prisma-adapter', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'schema.prisma'), prismaSchemaFile(name, './generated'));
  await writeFile(join(dir, 'prisma.config.mjs'), `export default { schema: './schema.prisma' };\n`);
  await execFileAsync(process.execPath, [join(ROOT, 'node_modules', 'prisma', 'build', 'index.js'), 'generate'], {
    cwd: dir,
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
    },
    timeout: 120_000,
  });
  const module = (await import(pathToFileURL(join(dir, 'generated', 'client.ts')).href)) as {
    PrismaClient: PrismaClientClass;
  };
  return module.PrismaClient;
}

/** A generated Prisma client on a test database, with PRISMA_DDL run, and how to close it. */
export interface PrismaTestDb {
  /** The app's client, as an app makes it (a driver adapter, no engine). */
  prisma: any;
  name: DatabaseName;
  /** The generated `PrismaClient` class (for an app's own `PrismaService extends PrismaClient`). */
  PrismaClient: PrismaClientClass;
  /** A new driver adapter on the same database, for another client. */
  driverAdapter(): unknown;
  /** A raw statement (no model involved), for corrupting rows behind the adapter's back. */
  exec(statement: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/** `import()` of a package that ships no type declarations. */
function importUntyped(name: string): Promise<any> {
  return import(name);
}

/**
 * Opens the database: creates the tables with `ddl`, then a generated `PrismaClient` over it through
 * the driver adapter of the database (`@prisma/adapter-better-sqlite3`, `-pg`, `-mariadb`).
 */
export async function openPrisma(test: TestDatabase, ddl = PRISMA_DDL[test.target.name]): Promise<PrismaTestDb> {
  const name = test.target.name;
  const PrismaClient = await generatePrismaClient(name);
  if (name === 'sqlite') {
    const { default: Database } = await importUntyped('better-sqlite3');
    const setup = new Database(test.name);
    setup.pragma('journal_mode = WAL');
    for (const statement of ddl) setup.exec(statement);
    setup.close();
    const { PrismaBetterSqlite3 } = await import('@prisma/adapter-better-sqlite3');
    const driverAdapter = () => new PrismaBetterSqlite3({ url: `file:${test.name}` });
    const prisma = new PrismaClient({ adapter: driverAdapter() });
    return {
      prisma,
      name,
      PrismaClient,
      driverAdapter,
      exec: async (statement, params = []) => void (await prisma.$executeRawUnsafe(statement, ...params)),
      close: () => prisma.$disconnect(),
    };
  }
  const url = (test.options as { url: string }).url;
  if (name === 'postgres') {
    const { default: pg } = await importUntyped('pg');
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    for (const statement of ddl) await pool.query(statement);
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const driverAdapter = () => new PrismaPg({ connectionString: url, max: 10 });
    const prisma = new PrismaClient({ adapter: driverAdapter() });
    return {
      prisma,
      name,
      PrismaClient,
      driverAdapter,
      exec: async (statement, params = []) => void (await pool.query(statement, params)),
      close: async () => {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  const mysql = await import('mysql2/promise');
  const pool = mysql.createPool({ uri: url, connectionLimit: 2 });
  for (const statement of ddl) await pool.query(statement);
  const { PrismaMariaDb } = await import('@prisma/adapter-mariadb');
  const u = new URL(url);
  const driverAdapter = () =>
    new PrismaMariaDb({
      host: u.hostname,
      port: Number(u.port || 3306),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password) || undefined,
      database: u.pathname.slice(1),
      connectionLimit: 10,
    });
  const prisma = new PrismaClient({ adapter: driverAdapter() });
  return {
    prisma,
    name,
    PrismaClient,
    driverAdapter,
    exec: async (statement, params = []) => void (await pool.query(statement, params)),
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** The dialect's placeholder for the `n`th parameter of a raw statement. */
function param(t: PrismaTestDb, n: number): string {
  return t.name === 'postgres' ? `$${n}` : '?';
}

/** `name` quoted for the dialect. */
function q(t: PrismaTestDb, name: string): string {
  return t.name === 'mariadb' ? `\`${name}\`` : `"${name}"`;
}

/** Stores a value that is no date in a date column (SQLite: text; PostgreSQL: infinity; MariaDB: a zero date). */
async function storeNoDate(t: PrismaTestDb, table: string, column: string, id: string): Promise<void> {
  if (t.name === 'sqlite') return t.exec(`UPDATE "${table}" SET "${column}" = 'not a date' WHERE "id" = ?`, [id]);
  if (t.name === 'postgres') return t.exec(`UPDATE "${table}" SET "${column}" = 'infinity' WHERE "id" = $1`, [id]);
  // One statement with its own relaxed sql_mode (a zero date is refused in strict mode).
  await t.exec(
    `SET STATEMENT sql_mode = '' FOR UPDATE \`${table}\` SET \`${column}\` = '0000-00-00 00:00:00' WHERE \`id\` = ?`,
    [id],
  );
}

/** The first row of a model matching `where`, read with the client but not through the adapter. */
async function rawRow(model: any, where: Record<string, string>): Promise<object | null> {
  return (await model.findFirst({ where })) ?? null;
}

/**
 * The conformance suite's raw reads and corruptors of a Prisma test database (`t()`: the database
 * the suite's setup opened): rows read with the client's models but not through the adapter.
 */
export function conformanceDb(t: () => PrismaTestDb): ConformanceDb {
  const p = () => t().prisma;
  return {
    user: (id) => rawRow(p().user, { id }),
    account: (provider, providerAccountId) => rawRow(p().account, { provider, providerAccountId }),
    session: (sessionToken) => rawRow(p().session, { sessionToken }),
    verificationToken: (identifier, token) => rawRow(p().verificationToken, { identifier, token }),
    authenticator: (credentialID) => rawRow(p().authenticator, { credentialID }),
    twoFactor: (id) => rawRow(p().twoFactor, { id }),
    refreshFamily: (id) => rawRow(p().refreshTokenFamily, { id }),
    corruptRefreshFamily: async (id, field) => {
      if (field === 'expires') return storeNoDate(t(), 'refresh_token_families', 'expires', id);
      const table = q(t(), 'refresh_token_families');
      await t().exec(`UPDATE ${table} SET ${q(t(), 'generation')} = -1 WHERE ${q(t(), 'id')} = ${param(t(), 1)}`, [id]);
    },
    apiKey: (id) => rawRow(p().apiKey, { id }),
    corruptApiKey: async (id, field) => {
      if (field === 'expires') return storeNoDate(t(), 'api_keys', 'expires', id);
      const value = field === 'keyHash' ? '' : 'read  write';
      await t().exec(
        `UPDATE ${q(t(), 'api_keys')} SET ${q(t(), field)} = ${param(t(), 1)} WHERE ${q(t(), 'id')} = ${param(t(), 2)}`,
        [value, id],
      );
    },
    signingKey: (id) => rawRow(p().signingKey, { id }),
    corruptSigningKey: async (id, field) => {
      if (field === 'activatesAt') return storeNoDate(t(), 'signing_keys', 'activatesAt', id);
      const set =
        field === 'slot' ? `${q(t(), 'slot')} = -1 - ${q(t(), 'slot')}` : `${q(t(), 'publicJwk')} = 'not json'`;
      await t().exec(`UPDATE ${q(t(), 'signing_keys')} SET ${set} WHERE ${q(t(), 'id')} = ${param(t(), 1)}`, [id]);
    },
  };
}
