import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { DrizzleAdapter } from '@auth/drizzle-adapter';
import PostgresAdapter from '@auth/pg-adapter';
import type { Adapter as AuthjsAdapter } from '@auth/core/adapters';
import { DataSource } from 'typeorm';
import { runAdapterConformanceTests } from '../lib/adapters/testing/adapter-conformance.js';
import { TypeOrmAdapter } from '../lib/adapters/typeorm/typeorm.adapter.js';
import { authSchemaEntities } from '../lib/adapters/typeorm/schema-entities.js';
import type { AuthSchemaMapping, AuthSchemaOption } from '../lib/adapters/typeorm/schema-mapping.js';
import { ADAPTER_METHODS, type Adapter, type AdapterMethod } from '../lib/adapters/adapter.interface.js';
import { AuthConfigurationError } from '../lib/errors/auth.errors.js';
import {
  createDatabase,
  databaseTargets,
  dropDatabase,
  type DatabaseName,
  type TestDatabase,
} from './setup/databases.js';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { createTestApp } from './setup/app.js';
import { readmeSnippet } from './setup/readme.js';
import { AUTHJS_DDL, SNAKE_DDL, SNAKE_MAPPING } from './setup/authjs-ddl.js';
import { expectSignInReadsAsQueryBuilder } from './setup/typeorm-differential.js';

// Our TypeOrmAdapter on the tables of Auth.js's official adapters, and the real Auth.js adapter on
// the same database: what one writes, the other reads.

interface Case {
  preset: AuthSchemaOption;
  /** Shown in titles. */
  label?: string;
  db: DatabaseName;
  /** The real Auth.js adapter over the same database, when it is installed here. */
  theirs?: (db: TestDatabase) => { adapter: AuthjsAdapter; close: () => Promise<void> };
  authenticators: boolean;
  /** Whether the tables enforce unique emails, session tokens and provider accounts. */
  unique: boolean;
  /**
   * Whether our conformance suite runs too: not where columns are too short for its fixtures (a
   * 3 KB id_token) or dates keep whole seconds only (Drizzle's MySQL `timestamp`). @default true
   */
  conformance?: boolean;
  /** Session and verification-token dates keep whole seconds only. */
  wholeSeconds?: boolean;
  /** The tables have the optional session columns of the device list, mapped. */
  sessionDetails?: boolean;
}

// pg and better-sqlite3 ship no types here.
interface Closeable {
  end?(): Promise<void>;
  close?(): void;
  pragma?(sql: string): unknown;
}
const { default: pg } = (await import('pg' as string)) as { default: { Pool: new (options: object) => Closeable } };
const { default: Database } = (await import('better-sqlite3' as string)) as {
  default: new (file: string) => Closeable;
};
const mysql = (await import('mysql2/promise' as string)) as {
  createPool: (options: object) => Closeable;
};
const pgPool = (db: TestDatabase) => new pg.Pool({ connectionString: (db.options as { url: string }).url, max: 4 });

const CASES: Case[] = [
  {
    preset: 'authjs-pg',
    db: 'postgres',
    theirs: (db) => {
      const pool = pgPool(db);
      return { adapter: PostgresAdapter(pool as never), close: () => pool.end!() };
    },
    authenticators: false,
    unique: false,
  },
  {
    preset: 'authjs-drizzle',
    db: 'postgres',
    theirs: (db) => {
      const pool = pgPool(db);
      return { adapter: DrizzleAdapter(drizzlePg(pool as never)), close: () => pool.end!() };
    },
    authenticators: true,
    unique: true,
  },
  {
    preset: 'authjs-drizzle',
    db: 'sqlite',
    theirs: (db) => {
      const sqlite = new Database(db.name);
      sqlite.pragma!('foreign_keys = ON');
      return { adapter: DrizzleAdapter(drizzleSqlite(sqlite as never)), close: async () => void sqlite.close!() };
    },
    authenticators: true,
    unique: true,
  },
  {
    preset: 'authjs-drizzle',
    db: 'mariadb',
    theirs: (db) => {
      const pool = mysql.createPool({ uri: (db.options as { url: string }).url, timezone: 'Z', connectionLimit: 4 });
      return { adapter: DrizzleAdapter(drizzleMysql(pool as never)), close: () => pool.end!() };
    },
    authenticators: true,
    unique: true,
    conformance: false,
    wholeSeconds: true,
  },
  { preset: 'authjs-typeorm', db: 'postgres', authenticators: false, unique: false },
  { preset: 'authjs-typeorm', db: 'sqlite', authenticators: false, unique: false },
  { preset: 'authjs-prisma', db: 'postgres', authenticators: true, unique: true },
  { preset: 'authjs-prisma', db: 'sqlite', authenticators: true, unique: true },
  ...(['postgres', 'mariadb', 'sqlite'] as const).map((db) => ({
    preset: SNAKE_MAPPING,
    label: 'snake_case mapping',
    db,
    authenticators: true,
    unique: true,
    sessionDetails: true,
  })),
];

const targets = await databaseTargets(['sqlite', 'postgres', 'mariadb']);

async function openPreset(db: TestDatabase, preset: AuthSchemaOption): Promise<DataSource> {
  const dialect = db.target.name === 'mariadb' ? 'mysql' : db.target.name;
  const ds = new DataSource({ ...db.options, entities: authSchemaEntities(preset, dialect), synchronize: false });
  await ds.initialize();
  return ds;
}

async function createTables(db: TestDatabase, preset: AuthSchemaOption): Promise<void> {
  const ds = new DataSource({ ...db.options });
  await ds.initialize();
  const ddl = typeof preset === 'string' ? AUTHJS_DDL[preset][db.target.name] : SNAKE_DDL[db.target.name];
  for (const statement of ddl ?? []) await ds.query(statement);
  await ds.destroy();
}

for (const target of targets) {
  for (const c of CASES.filter((x) => x.db === target.name)) {
    target.describe(`schema "${c.label ?? String(c.preset)}" on ${target.name}`, () => {
      let db: TestDatabase;
      let ds: DataSource;
      const methods = ADAPTER_METHODS.filter(
        (m) => c.authenticators || !/Authenticator/.test(m),
      ) as readonly AdapterMethod[];

      beforeAll(async () => {
        db = await createDatabase(target, `authjs-${typeof c.preset === 'string' ? c.preset : 'mapping'}`);
        await createTables(db, c.preset);
        ds = await openPreset(db, c.preset);
      });
      afterAll(async () => {
        await ds?.destroy();
        await dropDatabase(db);
      });

      if (c.conformance !== false)
        runAdapterConformanceTests({
          name: `TypeOrmAdapter schema "${c.label ?? String(c.preset)}" (${target.name})`,
          adapter: () => new TypeOrmAdapter(ds, {}, { schema: c.preset }),
          methods,
          unique: c.unique,
          extensions: [
            'deleteSessionsByUserId',
            'deleteVerificationTokensByIdentifier',
            'listAccountsByUserId',
            'updateAccountTokens',
            'deleteUserCascade',
            'deleteAuthenticator',
            ...(c.sessionDetails ? (['listSessionsByUserId', 'updateAuthenticatorName'] as const) : []),
          ],
          // What a preset's tables cannot hold (no authenticator table, no unique keys) is not a test
          // here: a strict CI run reports no skipped test.
          inapplicable: 'omit',
        });

      it('the sign-in statements read what the query builder reads on these tables', async () => {
        const adapter = new TypeOrmAdapter(ds, {}, { schema: c.preset });
        const users = [];
        for (const tag of ['a', 'b']) {
          const email = `diff-${tag}-${randomUUID()}@Example.com`;
          const user = await adapter.createUser({
            id: randomUUID(),
            email,
            emailVerified: new Date(Date.now() - 5_003),
          });
          users.push({ id: user.id, email });
        }
        await expectSignInReadsAsQueryBuilder(ds, adapter, users);
      });

      it('the bootstrap check finds nothing to report on the real tables', async () => {
        await new TypeOrmAdapter(ds, {}, { schema: c.preset }).onModuleInit();
      });

      it('keeps account tokens plain unless asked: an Auth.js app reads these tables', () => {
        // promise: storage.tokens-encrypted-by-default (its exception: the Auth.js presets)
        expect(new TypeOrmAdapter(ds, {}, { schema: c.preset }).privateAccountTokens).toBe(false);
        expect(new TypeOrmAdapter(ds).privateAccountTokens).toBe(true);
      });

      if (c.theirs)
        describeBothWays(
          c,
          () => ds,
          () => db,
        );
    });
  }
}

/** What our adapter writes, the Auth.js adapter reads, and the reverse, method by method. */
function describeBothWays(c: Case, dataSource: () => DataSource, database: () => TestDatabase): void {
  describe('both ways with the real Auth.js adapter', () => {
    let ours: Required<Adapter>;
    let theirs: Required<AuthjsAdapter>;
    let close: () => Promise<void>;
    beforeAll(() => {
      ours = new TypeOrmAdapter(dataSource(), {}, { schema: c.preset }) as Required<Adapter>;
      const peer = c.theirs!(database());
      theirs = peer.adapter as Required<AuthjsAdapter>;
      close = peer.close;
    });
    afterAll(() => close?.());

    const sides = () =>
      [
        ['ours', ours, 'theirs', theirs],
        ['theirs', theirs as unknown as Required<Adapter>, 'ours', ours as unknown as Required<AuthjsAdapter>],
      ] as const;
    /** A date `ms` from now, in whole seconds where the tables keep no more. */
    const at = (ms: number) => new Date(c.wholeSeconds ? Math.floor((Date.now() + ms) / 1000) * 1000 : Date.now() + ms);
    const newUser = () => ({
      id: randomUUID(),
      email: `both-${randomUUID()}@example.com`,
      name: 'Ada',
      image: 'https://example.com/a.png',
      emailVerified: new Date(Date.now() - 3_600_000 + 123),
    });
    const sameUser = (read: unknown, written: { id: string } & Record<string, unknown>) => {
      const r = read as Record<string, unknown>;
      expect(String(r.id)).toBe(String(written.id));
      for (const key of ['email', 'name', 'image']) expect(r[key]).toBe(written[key]);
      expect((r.emailVerified as Date).getTime()).toBe((written.emailVerified as Date).getTime());
    };

    it.each([0, 1])('users: created, read, updated and deleted across (direction %i)', async (i) => {
      const [, writer, , reader] = sides()[i]!;
      const created = (await writer.createUser(newUser())) as unknown as { id: string } & Record<string, unknown>;
      sameUser(await reader.getUser(String(created.id)), created);
      sameUser(await reader.getUserByEmail(created.email as string), created);
      const renamed = { ...created, name: 'Grace', emailVerified: new Date(Date.now() + 456) };
      await reader.updateUser({ id: String(created.id), name: 'Grace', emailVerified: renamed.emailVerified });
      sameUser(await writer.getUser(String(created.id)), renamed);
      await reader.deleteUser(String(created.id));
      expect(await writer.getUser(String(created.id))).toBeNull();
    });

    it.each([0, 1])('accounts: linked by one, found and unlinked by the other (direction %i)', async (i) => {
      const [, writer, , reader] = sides()[i]!;
      const user = (await writer.createUser(newUser())) as { id: string };
      const account = {
        userId: String(user.id),
        type: 'oidc' as const,
        provider: 'github',
        providerAccountId: randomUUID(),
        access_token: randomBytes(20).toString('hex'),
        expires_at: Math.floor(Date.now() / 1000) + 3600,
        token_type: 'bearer' as const,
        scope: 'openid',
      };
      await writer.linkAccount(account);
      const found = await reader.getUserByAccount({ provider: 'github', providerAccountId: account.providerAccountId });
      expect(String(found?.id)).toBe(String(user.id));
      if ('getAccount' in reader && typeof reader.getAccount === 'function') {
        const read = (await reader.getAccount(account.providerAccountId, 'github')) as Record<string, unknown> | null;
        expect({ ...read, userId: String(read?.userId), expires_at: Number(read?.expires_at) }).toMatchObject(account);
      }
      await reader.unlinkAccount({ provider: 'github', providerAccountId: account.providerAccountId });
      expect(
        await writer.getUserByAccount({ provider: 'github', providerAccountId: account.providerAccountId }),
      ).toBeNull();
    });

    it.each([0, 1])('sessions: created by one, read, extended and deleted by the other (direction %i)', async (i) => {
      const [, writer, , reader] = sides()[i]!;
      const user = (await writer.createUser(newUser())) as unknown as { id: string } & Record<string, unknown>;
      const session = {
        sessionToken: randomUUID(),
        userId: String(user.id),
        expires: at(86_400_007),
      };
      await writer.createSession(session);
      const found = await reader.getSessionAndUser(session.sessionToken);
      expect(found?.session.sessionToken).toBe(session.sessionToken);
      expect(String(found?.session.userId)).toBe(String(user.id));
      expect(found?.session.expires.getTime()).toBe(session.expires.getTime());
      sameUser(found?.user, user);
      const later = at(2 * 86_400_000 + 9);
      await reader.updateSession({ sessionToken: session.sessionToken, expires: later });
      expect((await writer.getSessionAndUser(session.sessionToken))?.session.expires.getTime()).toBe(later.getTime());
      await reader.deleteSession(session.sessionToken);
      expect(await writer.getSessionAndUser(session.sessionToken)).toBeNull();
    });

    it.each([0, 1])('verification tokens: created by one, consumed once by the other (direction %i)', async (i) => {
      const [, writer, , reader] = sides()[i]!;
      const token = {
        identifier: `vt-${randomUUID()}@example.com`,
        token: randomBytes(32).toString('hex'),
        expires: at(600_011),
      };
      await writer.createVerificationToken(token);
      const used = await reader.useVerificationToken({ identifier: token.identifier, token: token.token });
      expect(used?.identifier).toBe(token.identifier);
      expect(used?.token).toBe(token.token);
      expect(used?.expires.getTime()).toBe(token.expires.getTime());
      expect(await writer.useVerificationToken({ identifier: token.identifier, token: token.token })).toBeNull();
    });

    it.each([0, 1])(
      "deleteUser by one removes the user's sessions and accounts for the other (direction %i)",
      async (i) => {
        const [, writer, , reader] = sides()[i]!;
        const user = (await writer.createUser(newUser())) as { id: string };
        const sessionToken = randomUUID();
        await writer.createSession({
          sessionToken,
          userId: String(user.id),
          expires: new Date(Date.now() + 86_400_000),
        });
        const providerAccountId = randomUUID();
        await writer.linkAccount({ userId: String(user.id), type: 'oauth', provider: 'github', providerAccountId });
        await reader.deleteUser(String(user.id));
        expect(await writer.getSessionAndUser(sessionToken)).toBeNull();
        expect(await writer.getUserByAccount({ provider: 'github', providerAccountId })).toBeNull();
      },
    );

    if (c.authenticators)
      it.each([0, 1])('authenticators: created by one, read and counted by the other (direction %i)', async (i) => {
        const [, writer, , reader] = sides()[i]!;
        const user = (await writer.createUser(newUser())) as { id: string };
        const credentialID = randomBytes(32).toString('base64');
        const authenticator = {
          credentialID,
          userId: String(user.id),
          providerAccountId: credentialID,
          credentialPublicKey: randomBytes(77).toString('base64'),
          counter: 3,
          credentialDeviceType: 'multiDevice',
          credentialBackedUp: true,
          transports: 'internal,hybrid',
        };
        await writer.createAuthenticator(authenticator);
        expect(await reader.getAuthenticator(credentialID)).toEqual(authenticator);
        expect(await reader.listAuthenticatorsByUserId(String(user.id))).toEqual([authenticator]);
        await reader.updateAuthenticatorCounter(credentialID, 4);
        expect((await writer.getAuthenticator(credentialID))?.counter).toBe(4);
      });
  });
}

describe('the README', () => {
  it('its mapping snippet is the snake_case mapping tested here (which adds an authenticator table)', () => {
    const { code } = readmeSnippet('authjs-mapping');
    const js = ts.transpileModule(code.replace(/^import .*$/gm, ''), {
      compilerOptions: { target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const schema = new Function(`${js}\nreturn schema;`)() as AuthSchemaMapping;
    const { authenticator: _authenticator, ...tested } = SNAKE_MAPPING;
    expect(schema).toEqual(tested);
  });

  it('its authjs-pg snippet type-checks against the library, as written', () => {
    const code = readmeSnippet('authjs-pg')
      .code.replace(/from 'nestjs-auth\/typeorm'/g, `from '../lib/typeorm.js'`)
      .replace(/from 'nestjs-auth\/providers'/g, `from '../lib/providers.js'`)
      .replace(/from 'nestjs-auth'/g, `from '../lib/index.js'`);
    const file = fileURLToPath(new URL(`./.readme-authjs-pg-${process.pid}.ts`, import.meta.url));
    writeFileSync(file, code);
    try {
      const config = ts.getParsedCommandLineOfConfigFile(
        fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
        {},
        {
          ...ts.sys,
          onUnRecoverableConfigFileDiagnostic: (d) => {
            throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
          },
        },
      )!;
      const program = ts.createProgram([file], { ...config.options, noEmit: true });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file?.fileName === file)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it.each(['authjs-pg', 'authjs-drizzle', 'authjs-prisma', 'authjs-typeorm'])(
    'the %s snippet names its preset in both places',
    (preset) => {
      const { code } = readmeSnippet(preset);
      expect(code).toContain(`authSchemaEntities('${preset}', `);
      expect(code).toContain(`schema: '${preset}'`);
    },
  );
});

describe('the bootstrap check of an existing schema', () => {
  const pgTarget = targets.find((t) => t.name === 'postgres')!;
  pgTarget.describe('on PostgreSQL', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createDatabase(pgTarget, 'authjs-check');
      await createTables(db, 'authjs-pg');
    });
    afterAll(() => dropDatabase(db));

    it('lists every difference in one AuthConfigurationError and changes nothing', async () => {
      const admin = new DataSource({ ...db.options });
      await admin.initialize();
      await admin.query('DROP TABLE verification_token');
      await admin.query('ALTER TABLE sessions DROP COLUMN expires');
      await admin.query('ALTER TABLE accounts ALTER COLUMN expires_at TYPE text');
      await admin.query('ALTER TABLE users ADD COLUMN role text NOT NULL');
      const before = await admin.query(
        `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`,
      );
      const ds = await openPreset(db, 'authjs-pg');
      const error = await new TypeOrmAdapter(ds, {}, { schema: 'authjs-pg' }).onModuleInit().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthConfigurationError);
      const problems = (error as AuthConfigurationError).problems.join('\n');
      expect(problems).toMatch(/table "verification_token" does not exist/);
      expect(problems).toMatch(/column "sessions"."expires" does not exist/);
      expect(problems).toMatch(/column "accounts"."expires_at" is text, expected integer/);
      expect(problems).toMatch(/column "users"."role" is NOT NULL without a default/);
      expect((error as AuthConfigurationError).problems).toHaveLength(4);
      expect(
        await admin.query(
          `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`,
        ),
      ).toEqual(before);
      await ds.destroy();
      await admin.destroy();
    });

    it('synchronize: true leaves the tables of a preset alone', async () => {
      const columns = `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`;
      const admin = new DataSource({ ...db.options });
      await admin.initialize();
      const before = await admin.query(columns);
      const ds = new DataSource({
        ...db.options,
        entities: authSchemaEntities('authjs-pg', 'postgres'),
        synchronize: true,
      });
      await ds.initialize();
      await ds.destroy();
      expect(await admin.query(columns)).toEqual(before);
      await admin.destroy();
    });

    it('the app does not start on those tables: AuthModule runs the check at bootstrap', async () => {
      const ds = await openPreset(db, 'authjs-pg');
      const started = createTestApp({
        auth: {
          adapter: { inject: [], useFactory: () => new TypeOrmAdapter(ds, {}, { schema: 'authjs-pg' }) },
          session: { strategy: 'database' },
        },
      });
      await expect(started).rejects.toThrow(AuthConfigurationError);
      await expect(started).rejects.toThrow(/table "verification_token" does not exist/);
      await ds.destroy();
    });

    it('a data source without the schema entities is reported, not a SQL error later', async () => {
      const ds = new DataSource({ ...db.options, entities: [] });
      await ds.initialize();
      const error = await new TypeOrmAdapter(ds, {}, { schema: 'authjs-pg' }).onModuleInit().catch((e: unknown) => e);
      expect((error as AuthConfigurationError).problems.join('\n')).toMatch(
        /authSchemaEntities\("authjs-pg", 'postgres'\)/,
      );
      await ds.destroy();
    });
  });

  it('a preset on a database its Auth.js adapter does not support is a configuration error', () => {
    const ds = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    expect(() => new TypeOrmAdapter(ds, {}, { schema: 'authjs-pg' })).toThrow(AuthConfigurationError);
  });
});
