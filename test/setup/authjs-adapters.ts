import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { AdapterMethod } from '../../lib/adapters/adapter.interface.js';
import {
  API_KEY_ADAPTER_METHODS,
  REFRESH_TOKEN_ADAPTER_METHODS,
  SIGNING_KEY_ADAPTER_METHODS,
  TWO_FACTOR_ADAPTER_METHODS,
} from '../../lib/adapters/adapter-extensions.js';
import type { ConformanceDb, ConformanceExtension } from '../../lib/adapters/testing/conformance-context.js';
import type { DatabaseName, TestDatabase } from './databases.js';

/**
 * Helpers for running the official Auth.js adapters (the real npm packages) on the test databases:
 * a minimal SQL client per database (DDL and the conformance suite's raw reads), which of our
 * extensions an adapter object has, and `prisma generate` without the downloaded engines.
 */

/** The methods behind each of our extensions (beyond SPEC's contract). */
export const EXTENSION_METHODS: Record<ConformanceExtension, readonly string[]> = {
  deleteSessionsByUserId: ['deleteSessionsByUserId'],
  deleteVerificationTokensByIdentifier: ['deleteVerificationTokensByIdentifier'],
  listAccountsByUserId: ['listAccountsByUserId'],
  updateAccountTokens: ['updateAccountTokens'],
  deleteUserCascade: ['deleteUserCascade'],
  updateAuthenticatorName: ['updateAuthenticatorName'],
  deleteAuthenticator: ['deleteAuthenticator'],
  listSessionsByProviderSid: ['listSessionsByProviderSid'],
  listSessionsByUserId: ['listSessionsByUserId'],
  twoFactor: TWO_FACTOR_ADAPTER_METHODS,
  refreshFamily: REFRESH_TOKEN_ADAPTER_METHODS,
  apiKey: API_KEY_ADAPTER_METHODS,
  signingKey: SIGNING_KEY_ADAPTER_METHODS,
};

/** Every extension the conformance suite knows. */
export const ALL_EXTENSIONS = Object.keys(EXTENSION_METHODS) as ConformanceExtension[];

/** The extensions `adapter` implements (each of their methods is a function). */
export function extensionsOf(adapter: object): ConformanceExtension[] {
  const a = adapter as Record<string, unknown>;
  return ALL_EXTENSIONS.filter((e) => EXTENSION_METHODS[e].every((m) => typeof a[m] === 'function'));
}

/** The contract methods `adapter` implements. */
export function methodsOf(adapter: object, all: readonly AdapterMethod[]): AdapterMethod[] {
  return all.filter((m) => typeof (adapter as Record<string, unknown>)[m] === 'function');
}

/** A connection for DDL and raw reads, apart from the adapter's own. */
export interface SqlClient {
  dialect: DatabaseName;
  /** Runs a statement. */
  exec(sql: string): Promise<void>;
  /** The first row, or null; `?` placeholders on every database. */
  one(sql: string, params: unknown[]): Promise<Record<string, unknown> | null>;
  /** Quotes an identifier. */
  q(name: string): string;
  close(): Promise<void>;
}

interface PgPool {
  on(event: 'error', listener: (error: Error) => void): unknown;
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
interface MysqlPool {
  query(sql: string, params?: unknown[]): Promise<[unknown, unknown]>;
  end(): Promise<void>;
}
interface SqliteDb {
  exec(sql: string): void;
  prepare(sql: string): { get(...params: unknown[]): Record<string, unknown> | undefined };
  pragma(sql: string): unknown;
  close(): void;
}

// pg and better-sqlite3 ship no types here.
const { default: pg } = (await import('pg' as string)) as { default: { Pool: new (options: object) => PgPool } };
const { default: Database } = (await import('better-sqlite3' as string)) as {
  default: new (file: string) => SqliteDb;
};
const mysqlPromise = (await import('mysql2/promise' as string)) as { createPool(options: object): MysqlPool };

/** The URL of a PostgreSQL or MariaDB test database. */
export const urlOf = (db: TestDatabase): string => (db.options as { url: string }).url;

/** A pg pool on the database (the adapters' own connections use these too). */
export const pgPool = (db: TestDatabase, max = 8): PgPool => {
  const pool = new pg.Pool({ connectionString: urlOf(db), max });
  // An idle connection ended by the server (the database dropped at teardown) must not surface as
  // an unhandled 'error' event in whichever test runs then.
  pool.on('error', () => undefined);
  return pool;
};

/** A mysql2 promise pool on the database, dates in UTC. */
export const mysqlPool = (db: TestDatabase, limit = 8): MysqlPool =>
  mysqlPromise.createPool({ uri: urlOf(db), timezone: 'Z', connectionLimit: limit });

/** A better-sqlite3 connection on the file, foreign keys on (as every SQLite adapter's docs ask). */
export function sqliteDb(db: TestDatabase): SqliteDb {
  const sqlite = new Database(db.name);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return sqlite;
}

/** A {@link SqlClient} on the test database. */
export function sqlClient(db: TestDatabase): SqlClient {
  switch (db.target.name) {
    case 'postgres': {
      const pool = pgPool(db, 2);
      return {
        dialect: 'postgres',
        exec: async (sql) => void (await pool.query(sql)),
        one: async (sql, params) => {
          let n = 0;
          const { rows } = await pool.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          );
          return rows[0] ?? null;
        },
        q: (name) => `"${name}"`,
        close: () => pool.end(),
      };
    }
    case 'mariadb': {
      const pool = mysqlPool(db, 2);
      return {
        dialect: 'mariadb',
        exec: async (sql) => void (await pool.query(sql)),
        one: async (sql, params) => ((await pool.query(sql, params))[0] as Record<string, unknown>[])[0] ?? null,
        q: (name) => `\`${name}\``,
        close: () => pool.end(),
      };
    }
    case 'sqlite': {
      const sqlite = sqliteDb(db);
      return {
        dialect: 'sqlite',
        exec: async (sql) => sqlite.exec(sql),
        one: async (sql, params) => sqlite.prepare(sql).get(...params) ?? null,
        q: (name) => `"${name}"`,
        close: async () => sqlite.close(),
      };
    }
  }
}

/** Where an adapter keeps users, accounts, sessions, tokens and authenticators, for raw reads. */
export interface TableNames {
  user: string;
  account: string;
  session: string;
  verificationToken: string;
  authenticator?: string;
  /** Column names that differ from Auth.js's (e.g. MikroORM's snake_case). */
  columns?: Partial<Record<'providerAccountId' | 'sessionToken' | 'credentialID', string>>;
}

/** The conformance suite's raw reads, in SQL over `client()`. */
export function rawReads(client: () => SqlClient, t: TableNames): ConformanceDb {
  const col = (name: 'providerAccountId' | 'sessionToken' | 'credentialID') => t.columns?.[name] ?? name;
  const read = (table: string, where: string[], params: unknown[]) => {
    const c = client();
    return c.one(`SELECT * FROM ${c.q(table)} WHERE ${where.map((w) => `${c.q(w)} = ?`).join(' AND ')}`, params);
  };
  return {
    user: (id) => read(t.user, ['id'], [id]),
    account: (provider, providerAccountId) =>
      read(t.account, ['provider', col('providerAccountId')], [provider, providerAccountId]),
    session: (sessionToken) => read(t.session, [col('sessionToken')], [sessionToken]),
    verificationToken: (identifier, token) => read(t.verificationToken, ['identifier', 'token'], [identifier, token]),
    ...(t.authenticator
      ? { authenticator: (credentialID: string) => read(t.authenticator!, [col('credentialID')], [credentialID]) }
      : {}),
  };
}

const execFileAsync = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The Prisma schema of `@auth/prisma-adapter`'s docs, without the `createdAt`/`updatedAt` columns the
 * docs add (the adapter never reads them), so it matches `AUTHJS_DDL['authjs-prisma']`.
 */
export function prismaSchema(provider: 'postgresql' | 'sqlite', output: string): string {
  return `generator client {
  provider     = "prisma-client"
  output       = "${output}"
  moduleFormat = "esm"
}

datasource db {
  provider = "${provider}"
}

model User {
  id            String          @id @default(cuid())
  name          String?
  email         String          @unique
  emailVerified DateTime?
  image         String?
  accounts      Account[]
  sessions      Session[]
  Authenticator Authenticator[]
}

model Account {
  userId            String
  type              String
  provider          String
  providerAccountId String
  refresh_token     String?
  access_token      String?
  expires_at        Int?
  token_type        String?
  scope             String?
  id_token          String?
  session_state     String?
  user              User    @relation(fields: [userId], references: [id], onDelete: Cascade)

  @@id([provider, providerAccountId])
}

model Session {
  sessionToken String   @unique
  userId       String
  expires      DateTime
  user         User     @relation(fields: [userId], references: [id], onDelete: Cascade)
}

model VerificationToken {
  identifier String
  token      String   @unique
  expires    DateTime

  @@id([identifier, token])
}

model Authenticator {
  credentialID         String  @unique
  userId               String
  providerAccountId    String
  credentialPublicKey  String
  counter              Int
  credentialDeviceType String
  credentialBackedUp   Boolean
  transports           String?
  user                 User    @relation(fields: [userId], references: [id], onDelete: Cascade)

  @@id([userId, credentialID])
}
`;
}

/**
 * Runs `prisma generate` for the adapter's schema into test-output/ and imports the generated client.
 * Prisma 7's client needs no query engine (a driver adapter runs the queries), but the CLI still
 * downloads the schema engine on start unless `PRISMA_SCHEMA_ENGINE_BINARY` names one: `generate`
 * does not run it, so any existing file does. (`prisma migrate` / `db push` do run it, and cannot
 * here: the tables come from the hand-written DDL.)
 */
export async function generatePrismaClient(
  provider: 'postgresql' | 'sqlite',
): Promise<{ PrismaClient: new (options: object) => PrismaLike }> {
  const dir = join(ROOT, 'test-output', 'prisma-authjs', provider);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'schema.prisma'), prismaSchema(provider, './generated'));
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
  return (await import(pathToFileURL(join(dir, 'generated', 'client.ts')).href)) as {
    PrismaClient: new (options: object) => PrismaLike;
  };
}

/** What the tests use of a generated PrismaClient. */
export interface PrismaLike {
  $disconnect(): Promise<void>;
}
