// The Drizzle and Prisma adapters for the benchmark's database rows, on the scenario's PostgreSQL
// database: the tables made with the test suites' DDL (the schemas the adapters document), the
// adapter built over the app's own client, as the docs wire it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Adapter } from '../lib/adapters/adapter.interface.js';
import { DrizzleAdapter, pgAuthTables } from '../lib/drizzle.js';
import { PrismaAdapter, prismaSchemaPostgres } from '../lib/prisma.js';
import { DRIZZLE_DDL } from '../test/setup/drizzle-ddl.js';
import { PRISMA_DDL } from '../test/setup/prisma-ddl.js';

/** An adapter other than the default TypeORM one. */
export type BenchOrm = 'drizzle' | 'prisma';

interface PgPool {
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}

/** The adapter of `orm` on the PostgreSQL database at `url`, its tables created; and how to close it. */
export async function ormAdapter(orm: BenchOrm, url: string): Promise<{ adapter: Adapter; close(): Promise<void> }> {
  // `pg` ships no type declarations; this is the little of it the benchmark uses.
  const pg = (await import('pg' as string)) as { default: { Pool: new (options: object) => PgPool } };
  const pool = new pg.default.Pool({ connectionString: url, max: 10 });
  for (const statement of (orm === 'drizzle' ? DRIZZLE_DDL : PRISMA_DDL).postgres) await pool.query(statement);
  if (orm === 'drizzle')
    return { adapter: new DrizzleAdapter(drizzle(pool as never), pgAuthTables) as Adapter, close: () => pool.end() };
  const PrismaClient = await generatedPrismaClient();
  const { PrismaPg } = await import('@prisma/adapter-pg');
  // As docs/storage/prisma.md wires it: the driver adapter on the app's pool, the pool given to the
  // adapter too (`pgPool`), so the session lookup runs on it.
  const client = new PrismaClient({ adapter: new PrismaPg(pool as never) });
  return {
    adapter: new PrismaAdapter(client as never, { pgPool: pool as never }) as Adapter,
    close: async () => {
      await client.$disconnect();
      await pool.end();
    },
  };
}

type PrismaClientClass = new (options: object) => { $disconnect(): Promise<void> };

/**
 * `prisma generate` of the shipped PostgreSQL models into .bench-dist/prisma (no engine is run:
 * `PRISMA_SCHEMA_ENGINE_BINARY` only stops the CLI from downloading one), compiled with tsc, imported.
 */
async function generatedPrismaClient(): Promise<PrismaClientClass> {
  const root = process.cwd();
  const dir = join(root, '.bench-dist', 'prisma');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'schema.prisma'),
    `generator client {\n  provider = "prisma-client"\n  output = "./generated"\n  moduleFormat = "esm"\n  importFileExtension = "js"\n}\n\ndatasource db {\n  provider = "postgresql"\n}\n\n${prismaSchemaPostgres}`,
  );
  writeFileSync(join(dir, 'prisma.config.mjs'), `export default { schema: './schema.prisma' };\n`);
  const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, CHECKPOINT_DISABLE: '1' };
  execFileSync(process.execPath, [join(root, 'node_modules', 'prisma', 'build', 'index.js'), 'generate'], {
    cwd: dir,
    env,
    stdio: 'pipe',
  });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--outDir',
      join(dir, 'out'),
      '--rootDir',
      join(dir, 'generated'),
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--ignoreConfig',
      '--skipLibCheck',
      '--declaration',
      'false',
      join(dir, 'generated', 'client.ts'),
    ],
    { cwd: root, stdio: 'pipe' },
  );
  const module = (await import(pathToFileURL(join(dir, 'out', 'client.js')).href)) as {
    PrismaClient: PrismaClientClass;
  };
  return module.PrismaClient;
}
