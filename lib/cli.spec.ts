import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { main } from './cli.js';

/** better-sqlite3 (no type declarations installed): the few members used here. */
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => {
  exec(sql: string): void;
  prepare(sql: string): { all(): Array<{ name: string }> };
  close(): void;
};

/** Runs the command; its exit code and what it printed. */
async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('the nestjs-auth command', () => {
  it('secret: prints a new 32-byte base64url secret each time', async () => {
    const a = await run('secret');
    const b = await run('secret');
    expect(a.code).toBe(0);
    expect(a.out).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.out, 'base64url')).toHaveLength(32);
    expect(b.out).not.toBe(a.out);
  });

  it('check pointed at a Nest module: says it reads the options given to AuthModule.forRoot, not "unknown option"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nestjs-auth-check-'));
    try {
      // What `nest build` makes of app.module.ts: CommonJS (module.exports.AppModule) or ESM.
      writeFileSync(join(dir, 'app.module.cjs'), 'class AppModule {}\nexports.AppModule = AppModule;\n');
      writeFileSync(join(dir, 'app.module.mjs'), 'export class AppModule {}\n');
      writeFileSync(
        join(dir, 'auth-options.mjs'),
        "export const authOptions = { secret: 'a'.repeat(40), providers: [{ id: 'pw', name: 'Password', type: 'credentials', credentials: {}, authorize: async () => null }] };\n",
      );
      for (const args of [['app.module.cjs'], ['app.module.mjs'], ['app.module.mjs', 'AppModule']]) {
        const { code, err } = await run('check', join(dir, args[0]!), ...args.slice(1));
        expect({ args, code }).toEqual({ args, code: 2 });
        expect(err).toContain('AppModule: a class (a Nest module?), not AuthModule options');
        expect(err).toContain('AuthModule.forRoot');
        expect(err).not.toContain('unknown option');
      }
      // The file it does expect.
      await expect(run('check', join(dir, 'auth-options.mjs'))).resolves.toEqual({ code: 0, out: 'ok', err: '' });
      // Options with a sign-in method of the app's own (`methods`): its provider is checked by that method.
      writeFileSync(
        join(dir, 'with-method.mjs'),
        "class CodeFlow {}\nconst method = { name: 'code', types: ['code'], flow: CodeFlow, providers: [CodeFlow], validate(p, problems, { where }) { problems.push(`${where}: the code method wants a sender`); } };\n" +
          "export const authOptions = { secret: 'a'.repeat(40), methods: [method], providers: [{ id: 'code', name: 'Code', type: 'code' }] };\n",
      );
      const withMethod = await run('check', join(dir, 'with-method.mjs'));
      expect(withMethod.code).toBe(1);
      expect(withMethod.err).toContain('providers[0] ("code"): the code method wants a sender');
      expect(withMethod.err).not.toMatch(/unknown (option|type)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('check takes what forRoot takes: module settings beside the options, an adapter class, storage by default', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nestjs-auth-check-'));
    try {
      const email = "{ id: 'email', name: 'Email', type: 'email', sendVerificationRequest: async () => {} }";
      writeFileSync(
        join(dir, 'options.mjs'),
        `export const settings = { secret: 'a'.repeat(40), providers: [], basePath: '/api/auth', globalGuard: true };\n` +
          `export const adapterClass = () => ({ secret: 'a'.repeat(40), providers: [${email}], adapter: class OwnAdapter {} });\n` +
          `export const storageByDefault = { secret: 'a'.repeat(40), providers: [${email}] };\n` +
          `export const misspelt = { secret: 'a'.repeat(40), providers: [], basPath: '/x' };\n`,
      );
      const file = join(dir, 'options.mjs');
      // Module settings are forRoot's too: not "cannot come from the options factory".
      await expect(run('check', file, 'settings')).resolves.toEqual({ code: 0, out: 'ok', err: '' });
      // An adapter class inside the options is the adapter, not "a Nest module".
      await expect(run('check', file, 'adapterClass')).resolves.toEqual({ code: 0, out: 'ok', err: '' });
      // No adapter: checked as with the default TypeORM adapter, saying what an app without storage would hit.
      const assumed = await run('check', file, 'storageByDefault');
      expect(assumed).toMatchObject({ code: 0, out: 'ok' });
      expect(assumed.err).toMatch(/^note: checked with storage .*\n {2}- providers\[0\] \("email"\).*adapter/s);
      const stateless = await run('check', file, 'storageByDefault', '--no-storage');
      expect(stateless.code).toBe(1);
      expect(stateless.err).toMatch(/^- providers\[0\] \("email"\).*adapter/);
      // A typo is still one.
      const typo = await run('check', file, 'misspelt');
      expect(typo.code).toBe(1);
      expect(typo.err).toContain('did you mean `basePath`?');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('migrations --db sqlite: SQL that creates the nine tables in a real SQLite database', async () => {
    const { code, out } = await run('migrations', '--db', 'sqlite');
    expect(code).toBe(0);
    const db = new Database(':memory:');
    try {
      db.exec(out);
      const tables = db.prepare("select name from sqlite_master where type = 'table' order by name").all();
      expect(tables.map((t) => t.name)).toEqual([
        'accounts',
        'api_keys',
        'authenticators',
        'refresh_token_families',
        'sessions',
        'signing_keys',
        'two_factors',
        'users',
        'verification_tokens',
      ]);
      // The later migrations are in the output too: the passkey names (issue 21), two-factor's `amr`.
      const columns = db.prepare("select name from pragma_table_info('authenticators')").all();
      expect(columns.map((c) => c.name)).toEqual(expect.arrayContaining(['name', 'lastUsedAt']));
      const sessionColumns = db.prepare("select name from pragma_table_info('sessions')").all();
      expect(sessionColumns.map((c) => c.name)).toContain('amr');
      // And the refresh-token families of native-app sign-ins, deleted with their user.
      const keys = db
        .prepare('select "table", "on_delete" from pragma_foreign_key_list(\'refresh_token_families\')')
        .all();
      expect(keys).toEqual([{ table: 'users', on_delete: 'CASCADE' }]);
      // API keys go with their user too; signing keys belong to no user, one per rotation slot.
      const apiKeyRefs = db.prepare('select "table", "on_delete" from pragma_foreign_key_list(\'api_keys\')').all();
      expect(apiKeyRefs).toEqual([{ table: 'users', on_delete: 'CASCADE' }]);
      const slotIndex = db
        .prepare('select "name", "unique" from pragma_index_list(\'signing_keys\') where "origin" = \'c\'')
        .all();
      expect(slotIndex).toEqual([{ name: 'UQ_signing_keys_slot', unique: 1 }]);
    } finally {
      db.close();
    }
  });

  it('migrations --db postgres|mysql: the shipped migration, one statement each; --out writes it', async () => {
    for (const db of ['postgres', 'mysql']) {
      const { code, out } = await run('migrations', '--db', db);
      expect(code).toBe(0);
      expect(out.match(/CREATE TABLE/gi)).toHaveLength(9);
    }
    const dir = mkdtempSync(join(tmpdir(), 'nestjs-auth-cli-'));
    try {
      const file = join(dir, 'auth.sql');
      const written = await run('migrations', '--db=postgres', '--out', file);
      expect(written.out).toMatch(/^Wrote \d+ statements to /);
      expect(readFileSync(file, 'utf8')).toBe(`${(await run('migrations', '--db', 'postgres')).out}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown command or database with the usage', async () => {
    expect(await run('frobnicate')).toMatchObject({ code: 2, err: expect.stringContaining('Unknown command') });
    expect(await run('migrations', '--db', 'oracle')).toMatchObject({
      code: 2,
      err: expect.stringContaining('--db must be'),
    });
    expect((await run('--help')).code).toBe(0);
  });
});
