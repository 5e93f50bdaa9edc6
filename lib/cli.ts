#!/usr/bin/env node
// The `nestjs-auth` command (package.json `bin`):
//   nestjs-auth secret                                 prints a new AUTH_SECRET
//   nestjs-auth check <module> [export] [--no-storage] checks the AuthModule options a module exports
//   nestjs-auth migrations --db postgres|mysql|sqlite [--out file.sql]   prints (or writes) the schema's SQL
import { randomBytes } from 'node:crypto';
import { realpathSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AuthModuleExtras, AuthModuleOptions } from './config/auth-options.interface.js';
import type { Adapter } from './adapters/adapter.interface.js';
import { MemoryAdapter } from './adapters/memory.adapter.js';
import { splitModuleSettings } from './config/option-keys.js';
import { resolveConfig } from './sign-in-methods.js';
import { AuthConfigurationError } from './errors/auth.errors.js';
import {
  verifySmtpServer,
  EMAIL_DEFAULTS,
  sendVerificationRequestWithNodemailer,
} from './methods/email/email.provider.js';
import { isProviderOfType } from './providers/internal-provider.js';

const USAGE = `Usage:
  nestjs-auth secret
      Prints a new random secret (32 bytes, base64url) for AUTH_SECRET.
  nestjs-auth check <module> [export] [--no-storage]
      Imports <module> (a built .js file), takes its export [export] (default: "authOptions", then
      the default export): AuthModule options, or a function returning them (not a Nest module
      such as AppModule: the options given to AuthModule.forRoot, module settings such as basePath
      included). Checks them as AuthModule does at bootstrap, connects to each email provider's SMTP
      server, and prints what is misconfigured (exit 1) or "ok". Without an adapter instance in the
      options it assumes storage (the default TypeORM adapter); --no-storage checks them as an app
      without any.
  nestjs-auth migrations --db postgres|mysql|sqlite [--out file.sql]
      Prints (or writes) the SQL that creates the nestjs-auth tables (the shipped TypeORM migration).`;

/** Runs the command; returns the exit code. `out`/`err` receive whole lines. */
export async function main(
  args: string[],
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  err: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case 'secret':
      out(randomBytes(32).toString('base64url'));
      return 0;
    case 'check':
      return check(rest, out, err);
    case 'migrations':
      return migrations(rest, out, err);
    default:
      err(
        command === undefined || command === '--help' || command === 'help'
          ? USAGE
          : `Unknown command "${command}".\n${USAGE}`,
      );
      return command === undefined || command === '--help' || command === 'help' ? 0 : 2;
  }
}

async function check(args: string[], out: (l: string) => void, err: (l: string) => void): Promise<number> {
  const noStorage = args.includes('--no-storage');
  const [path, name] = args.filter((a) => a !== '--no-storage');
  if (!path) {
    err(USAGE);
    return 2;
  }
  const mod = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  let exported = name ? mod[name] : (mod.authOptions ?? mod.default);
  // A Nest module (`check dist/app.module.js [AppModule]`): its classes, not options; say what `check`
  // reads. (Classes inside an options object are values of it, e.g. `adapter: MyAdapter`.)
  const isOptions = exported && typeof exported === 'object' && 'providers' in exported;
  const classes = isClass(exported) ? [name ?? 'default'] : isOptions ? [] : classesIn(exported ?? mod);
  if (classes.length) {
    err(
      `${path} exports ${classes.join(', ')}: a class (a Nest module?), not AuthModule options. ` +
        '`check` reads the options object given to AuthModule.forRoot: export it from a file of its own ' +
        '(`export const authOptions = { ... }`, imported by your AppModule), build, and pass that file ' +
        '(`nestjs-auth check dist/auth-options.js`), or name the export that holds it as [export].',
    );
    return 2;
  }
  if (typeof exported === 'function') exported = await (exported as () => unknown)();
  if (!exported || typeof exported !== 'object') {
    err(`${path} exports no AuthModule options${name ? ` named "${name}"` : ' ("authOptions" or default)'}.`);
    return 1;
  }
  // What forRoot takes in one object: the options and the module settings beside them.
  const { options, settings } = splitModuleSettings(exported as Record<string, unknown>);
  const { adapter: given, ...extras } = settings as AuthModuleExtras;
  // The storage the checks assume. An adapter instance is itself; a class or provider (Nest builds
  // it) and no adapter at all (the default TypeORM adapter on the app's data source) stand as
  // storage with every method; `--no-storage` checks the options as an app without any.
  const instance = isAdapterInstance(given) ? (given as Adapter) : null;
  const storage = instance ?? (noStorage ? null : new MemoryAdapter());
  const problems: string[] = [];
  try {
    const config = resolveConfig(options as unknown as AuthModuleOptions, extras, storage);
    for (const provider of config.providers) {
      if (!isProviderOfType(provider, 'email')) continue;
      const { config: email } = provider;
      if (!email.server || email.sendVerificationRequest !== sendVerificationRequestWithNodemailer) continue;
      try {
        await verifySmtpServer(email.server, EMAIL_DEFAULTS.verifyTimeoutMs);
      } catch (error) {
        problems.push(
          `providers "${email.id}": the SMTP server did not accept a connection: ${(error as Error).message}`,
        );
      }
    }
  } catch (error) {
    if (!(error instanceof AuthConfigurationError)) throw error;
    problems.push(...error.problems);
  }
  if (given === undefined && !noStorage) {
    // Say what the assumed storage hides: the options an app without one could not start with.
    const withoutStorage = configProblems(options, extras).filter((p) => !problems.includes(p));
    if (withoutStorage.length > 0)
      err(
        `note: checked with storage (the default TypeORM adapter on your app's data source, or the adapter your module builds); without any, these would fail too (--no-storage checks that):\n${withoutStorage.map((p) => `  - ${p}`).join('\n')}`,
      );
  }
  if (problems.length === 0) {
    out('ok');
    return 0;
  }
  for (const problem of problems) err(`- ${problem}`);
  return 1;
}

async function migrations(args: string[], out: (l: string) => void, err: (l: string) => void): Promise<number> {
  const db = valueOf(args, '--db');
  const file = valueOf(args, '--out');
  const loaders = {
    postgres: async () => (await import('./adapters/typeorm/migrations/postgres.migrations.js')).authMigrationsPostgres,
    mysql: async () => (await import('./adapters/typeorm/migrations/mysql.migrations.js')).authMigrationsMysql,
    sqlite: async () => (await import('./adapters/typeorm/migrations/sqlite.migrations.js')).authMigrationsSqlite,
  };
  if (db !== 'postgres' && db !== 'mysql' && db !== 'sqlite') {
    err(`--db must be postgres, mysql or sqlite.\n${USAGE}`);
    return 2;
  }
  const statements: string[] = [];
  // The migration's own statements, as TypeORM would send them, recorded instead of run.
  const recorder = { query: async (sql: string) => void statements.push(sql.trim()) };
  for (const Migration of await loaders[db]()) await new Migration().up(recorder as never);
  const sql = `${statements.map((s) => (s.endsWith(';') ? s : `${s};`)).join('\n\n')}\n`;
  if (file) {
    writeFileSync(file, sql);
    out(`Wrote ${statements.length} statements to ${file}`);
  } else out(sql.trimEnd());
  return 0;
}

/** The problems resolving `options` without storage finds (none beyond AuthConfigurationError's). */
function configProblems(options: Record<string, unknown>, extras: AuthModuleExtras): string[] {
  try {
    resolveConfig(options as unknown as AuthModuleOptions, extras, null);
    return [];
  } catch (error) {
    if (!(error instanceof AuthConfigurationError)) throw error;
    return error.problems;
  }
}

/** An adapter object the app built itself (not a class or a Nest provider for Nest to build). */
function isAdapterInstance(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  return !['useClass', 'useFactory', 'useExisting', 'useValue'].some((key) => key in value);
}

/** True for a class (what a Nest module file exports), as opposed to a function returning options. */
function isClass(value: unknown): boolean {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/** The names of the classes among an object's own values (a CommonJS `module.exports`, an ES namespace). */
function classesIn(value: unknown): string[] {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value)
    .filter(([, v]) => isClass(v))
    .map(([k]) => k);
}

function valueOf(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`${flag}=`));
  return inline?.slice(flag.length + 1);
}

/** Whether this file is the program node runs (also through the `node_modules/.bin` symlink). */
function isMain(): boolean {
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1] ?? '')).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
