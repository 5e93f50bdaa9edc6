import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ChildEntity,
  Column,
  DataSource,
  DeleteDateColumn,
  Entity,
  TableInheritance,
  type DataSourceOptions,
  type Logger,
} from 'typeorm';
import { runAdapterConformanceTests } from '../lib/adapters/testing/adapter-conformance.js';
import { newApiKey, newRefreshFamily, newSigningKey } from '../lib/adapters/testing/conformance-fixtures.js';
import { TypeOrmAdapter } from '../lib/adapters/typeorm/typeorm.adapter.js';
import { authEntities } from '../lib/adapters/typeorm/auth-entities.js';
import { UserEntity } from '../lib/adapters/typeorm/user.entity.js';
import { AccountEntity } from '../lib/adapters/typeorm/account.entity.js';
import { SessionEntity } from '../lib/adapters/typeorm/session.entity.js';
import { VerificationTokenEntity } from '../lib/adapters/typeorm/verification-token.entity.js';
import { AuthenticatorEntity } from '../lib/adapters/typeorm/authenticator.entity.js';
import { TwoFactorEntity } from '../lib/adapters/typeorm/two-factor.entity.js';
import { RefreshFamilyEntity } from '../lib/adapters/typeorm/refresh-family.entity.js';
import { ApiKeyEntity } from '../lib/adapters/typeorm/api-key.entity.js';
import { SigningKeyEntity } from '../lib/adapters/typeorm/signing-key.entity.js';
import { authMigrationsPostgres } from '../lib/adapters/typeorm/migrations/postgres.migrations.js';
import { authMigrationsMysql } from '../lib/adapters/typeorm/migrations/mysql.migrations.js';
import { authMigrationsSqlite } from '../lib/adapters/typeorm/migrations/sqlite.migrations.js';
import { AdapterConflictError, AdapterNotFoundError } from '../lib/errors/auth.errors.js';
import type { AdapterUser } from '../lib/adapters/adapter.interface.js';
import {
  createDatabase,
  databaseTargets,
  dropDatabase,
  type DatabaseName,
  type TestDatabase,
} from './setup/databases.js';
import {
  expectFactorPasskeyAndTokenWritesAsQueryBuilder,
  expectSignInReadsAsQueryBuilder,
} from './setup/typeorm-differential.js';

const MIGRATIONS: Record<DatabaseName, Function[]> = {
  sqlite: authMigrationsSqlite,
  postgres: authMigrationsPostgres,
  mariadb: authMigrationsMysql,
};

/** A user entity with an extra column, as the README shows. */
@Entity('users')
class AppUser extends UserEntity {
  @Column({ type: 'varchar', length: 32, default: 'member' })
  role!: string;
}

/**
 * A user entity with what changes how a row is read: a column transformer, a column left out of
 * selects, a soft-delete column and a property that is no column.
 */
@Entity('users')
class ShapedUser extends UserEntity {
  @Column({
    type: 'text',
    nullable: true,
    transformer: {
      to: (v: string[] | null) => (v ? v.join(',') : null),
      from: (v: string | null) => (v ? v.split(',') : []),
    },
  })
  tags!: string[];

  @Column({ type: 'varchar', length: 64, nullable: true, select: false })
  secretNote!: string | null;

  @DeleteDateColumn({ type: Date, precision: 3, nullable: true })
  deletedAt!: Date | null;

  kind = 'shaped';
}

/** Users in single-table inheritance: the session lookup falls back to the query builder. */
@Entity('users')
@TableInheritance({ column: { type: 'varchar', length: 16, name: 'kind' } })
class BaseMember extends UserEntity {}

@ChildEntity('staff')
class StaffMember extends BaseMember {
  @Column({ type: 'varchar', length: 32, nullable: true })
  desk!: string | null;
}

/** An account entity with an extra column. */
@Entity('accounts')
class AppAccount extends AccountEntity {
  @Column({ type: 'text', nullable: true })
  oauth_token_secret?: string | null;
}

/** A TypeOrmAdapter that takes the locking-transaction path even where DELETE ... RETURNING exists. */
class LockingTypeOrmAdapter extends TypeOrmAdapter {
  protected override supportsDeleteReturning(): boolean {
    return false;
  }
}

type Schema = 'migrations' | 'synchronize';

const noopLogger: Logger = {
  logQuery: () => undefined,
  logQueryError: () => undefined,
  logQuerySlow: () => undefined,
  logSchemaBuild: () => undefined,
  logMigration: () => undefined,
  log: () => undefined,
};

/** A data source on a fresh database, its schema made by the shipped migrations or by `synchronize`. */
async function openDataSource(
  db: TestDatabase,
  schema: Schema,
  entities: Function[] = [...authEntities],
): Promise<DataSource> {
  const options = {
    ...db.options,
    entities,
    migrations: MIGRATIONS[db.target.name],
    synchronize: schema === 'synchronize',
    logging: false,
  } as DataSourceOptions;
  const ds = await new DataSource(options).initialize();
  if (schema === 'migrations') await ds.runMigrations();
  return ds;
}

/**
 * Writes a value of the wrong kind into a stored refresh-token family, behind the adapter's back (the
 * conformance suite's `corruptRefreshFamily`): a negative generation, or an expiry that is no date.
 */
async function corruptRefreshFamily(ds: DataSource, id: string, field: 'generation' | 'expires'): Promise<void> {
  if (field === 'generation') {
    await ds
      .createQueryBuilder()
      .update(RefreshFamilyEntity)
      .set({ generation: -1 })
      .where('id = :id', { id })
      .execute();
    return;
  }
  await storeNoDate(ds, 'refresh_token_families', 'expires', id);
}

/**
 * Writes a value of the wrong kind into a stored API key (`corruptApiKey`): an empty hash, scopes
 * with an empty word (two spaces in the space-separated column), or an expiry that is no date.
 */
async function corruptApiKey(ds: DataSource, id: string, field: 'keyHash' | 'scopes' | 'expires'): Promise<void> {
  if (field === 'expires') return storeNoDate(ds, 'api_keys', 'expires', id);
  // Raw values: the entity's transformer would turn a list into valid text.
  const value = field === 'keyHash' ? '' : 'read  write';
  const q = (name: string) => ds.driver.escape(name);
  const sql = `UPDATE ${q('api_keys')} SET ${q(field)} = ${param(ds, 1)} WHERE ${q('id')} = ${param(ds, 2)}`;
  await ds.query(sql, [value, id]);
}

/**
 * Writes a value of the wrong kind into a stored signing key (`corruptSigningKey`): a negative slot
 * (`-1 - slot`, so two corrupted keys never share one), a public key that is no JSON, or an
 * activation that is no date.
 */
async function corruptSigningKey(
  ds: DataSource,
  id: string,
  field: 'slot' | 'publicJwk' | 'activatesAt',
): Promise<void> {
  if (field === 'activatesAt') return storeNoDate(ds, 'signing_keys', 'activatesAt', id);
  const q = (name: string) => ds.driver.escape(name);
  const set = field === 'slot' ? `${q('slot')} = -1 - ${q('slot')}` : `${q('publicJwk')} = 'not json'`;
  await ds.query(`UPDATE ${q('signing_keys')} SET ${set} WHERE ${q('id')} = ${param(ds, 1)}`, [id]);
}

/** The dialect's placeholder for the `n`th parameter of a raw query. */
function param(ds: DataSource, n: number): string {
  return ds.options.type === 'postgres' ? `$${n}` : '?';
}

/**
 * Stores a value that is no date in a date column of row `id`, behind the adapter's back (SQLite:
 * text; PostgreSQL: `infinity`; MariaDB: a zero date, allowed for this one statement).
 */
async function storeNoDate(ds: DataSource, table: string, column: string, id: string): Promise<void> {
  const runner = ds.createQueryRunner();
  try {
    if (ds.options.type === 'postgres')
      await runner.query(`UPDATE "${table}" SET "${column}" = 'infinity' WHERE "id" = $1`, [id]);
    else if (ds.options.type === 'better-sqlite3')
      await runner.query(`UPDATE "${table}" SET "${column}" = 'not a date' WHERE "id" = ?`, [id]);
    else {
      const [{ mode }] = (await runner.query('SELECT @@SESSION.sql_mode AS mode')) as { mode: string }[];
      await runner.query("SET SESSION sql_mode = ''");
      try {
        await runner.query(`UPDATE \`${table}\` SET \`${column}\` = '0000-00-00 00:00:00' WHERE \`id\` = ?`, [id]);
      } finally {
        await runner.query('SET SESSION sql_mode = ?', [mode]);
      }
    }
  } finally {
    await runner.release();
  }
}

const targets = await databaseTargets();

for (const target of targets) {
  target.describe(`TypeOrmAdapter on ${target.name}`, () => {
    describe.each<Schema>(['migrations', 'synchronize'])('schema from %s', (schema) => {
      let db: TestDatabase;
      let ds: DataSource;
      runAdapterConformanceTests({
        name: `TypeOrmAdapter (${target.name}, ${schema})`,
        setup: async () => {
          db = await createDatabase(target, `conformance_${schema}`);
          ds = await openDataSource(db, schema);
        },
        teardown: async () => {
          await ds?.destroy();
          await dropDatabase(db);
        },
        adapter: () => new TypeOrmAdapter(ds),
        extensions: [
          'deleteSessionsByUserId',
          'deleteVerificationTokensByIdentifier',
          'listAccountsByUserId',
          'updateAccountTokens',
          'deleteUserCascade',
          'updateAuthenticatorName',
          'deleteAuthenticator',
          'listSessionsByUserId',
          'listSessionsByProviderSid',
          'twoFactor',
          'refreshFamily',
          'apiKey',
          'signingKey',
        ],
        db: {
          user: (id) => ds.getRepository(UserEntity).findOneBy({ id }),
          account: (provider, providerAccountId) =>
            ds.getRepository(AccountEntity).findOneBy({ provider, providerAccountId }),
          session: (sessionToken) => ds.getRepository(SessionEntity).findOneBy({ sessionToken }),
          verificationToken: (identifier, token) =>
            ds.getRepository(VerificationTokenEntity).findOneBy({ identifier, token }),
          authenticator: (credentialID) => ds.getRepository(AuthenticatorEntity).findOneBy({ credentialID }),
          twoFactor: (id) => ds.getRepository(TwoFactorEntity).findOneBy({ id }),
          refreshFamily: (id) => ds.getRepository(RefreshFamilyEntity).findOneBy({ id }),
          corruptRefreshFamily: (id, field) => corruptRefreshFamily(ds, id, field),
          apiKey: (id) => ds.getRepository(ApiKeyEntity).findOneBy({ id }),
          corruptApiKey: (id, field) => corruptApiKey(ds, id, field),
          signingKey: (id) => ds.getRepository(SigningKeyEntity).findOneBy({ id }),
          corruptSigningKey: (id, field) => corruptSigningKey(ds, id, field),
        },
      });
    });

    describe('the schema', () => {
      let db: TestDatabase;
      let ds: DataSource;
      beforeAll(async () => {
        db = await createDatabase(target, 'schema');
        ds = await openDataSource(db, 'migrations');
      });
      afterAll(async () => {
        await ds?.destroy();
        await dropDatabase(db);
      });

      // promise: storage.migrations
      it('the shipped migrations produce exactly the schema the entities describe', async () => {
        const pending = await ds.driver.createSchemaBuilder().log();
        expect(pending.upQueries.map((q) => q.query)).toEqual([]);
      });

      it('declares the unique keys, native date columns, text tokens and cascading foreign keys', async () => {
        const runner = ds.createQueryRunner();
        try {
          const users = (await runner.getTable('users'))!;
          expect(users.indices.find((i) => i.name === 'UQ_users_email')).toMatchObject({
            isUnique: true,
            columnNames: ['email'],
          });
          expect(users.findColumnByName('emailVerified')?.type).toMatch(/timestamp|datetime/);
          const accounts = (await runner.getTable('accounts'))!;
          expect(accounts.primaryColumns.map((c) => c.name).sort()).toEqual(['provider', 'providerAccountId']);
          for (const column of ['access_token', 'refresh_token', 'id_token'])
            expect(accounts.findColumnByName(column)?.type).toBe('text');
          expect((await runner.getTable('sessions'))!.primaryColumns.map((c) => c.name)).toEqual(['sessionToken']);
          expect((await runner.getTable('sessions'))!.findColumnByName('expires')?.type).toMatch(/timestamp|datetime/);
          expect((await runner.getTable('verification_tokens'))!.primaryColumns.map((c) => c.name).sort()).toEqual([
            'identifier',
            'token',
          ]);
          expect((await runner.getTable('authenticators'))!.primaryColumns.map((c) => c.name)).toEqual([
            'credentialID',
          ]);
          expect((await runner.getTable('two_factors'))!.primaryColumns.map((c) => c.name)).toEqual(['id']);
          const families = (await runner.getTable('refresh_token_families'))!;
          expect(families.primaryColumns.map((c) => c.name)).toEqual(['id']);
          for (const column of ['rotatedAt', 'expires', 'authTime'])
            expect(families.findColumnByName(column)?.type).toMatch(/timestamp|datetime/);
          expect(families.findColumnByName('generation')?.type).toMatch(/^int/);
          expect(families.indices.find((i) => i.name === 'IDX_refresh_token_families_userId')).toMatchObject({
            columnNames: ['userId'],
          });
          const apiKeys = (await runner.getTable('api_keys'))!;
          expect(apiKeys.primaryColumns.map((c) => c.name)).toEqual(['id']);
          for (const column of ['createdAt', 'expires', 'lastUsedAt'])
            expect(apiKeys.findColumnByName(column)?.type).toMatch(/timestamp|datetime/);
          expect(apiKeys.indices.find((i) => i.name === 'IDX_api_keys_userId')).toMatchObject({
            columnNames: ['userId'],
          });
          const signingKeys = (await runner.getTable('signing_keys'))!;
          expect(signingKeys.primaryColumns.map((c) => c.name)).toEqual(['id']);
          expect(signingKeys.findColumnByName('slot')?.type).toBe('bigint');
          for (const column of ['publicJwk', 'privateKey'])
            expect(signingKeys.findColumnByName(column)?.type).toBe('text');
          expect(signingKeys.indices.find((i) => i.name === 'UQ_signing_keys_slot')).toMatchObject({
            isUnique: true,
            columnNames: ['slot'],
          });
          expect(signingKeys.foreignKeys).toEqual([]);
          for (const table of [
            'accounts',
            'sessions',
            'authenticators',
            'two_factors',
            'refresh_token_families',
            'api_keys',
          ]) {
            const fks = (await runner.getTable(table))!.foreignKeys;
            expect(fks).toHaveLength(1);
            expect(fks[0]).toMatchObject({
              columnNames: ['userId'],
              referencedColumnNames: ['id'],
              onDelete: 'CASCADE',
            });
            expect(fks[0]!.referencedTableName).toMatch(/users$/);
          }
        } finally {
          await runner.release();
        }
      });

      it('the database itself refuses duplicates and orphans, and cascades a raw DELETE of a user', async () => {
        const users = ds.getRepository(UserEntity);
        const user = await users.save(
          users.create({ id: randomUUID(), email: `raw-${randomUUID()}@example.com`, emailVerified: null }),
        );
        await expect(users.insert({ id: randomUUID(), email: user.email })).rejects.toThrow();
        const accounts = ds.getRepository(AccountEntity);
        await accounts.insert({ provider: 'p', providerAccountId: user.id, userId: user.id, type: 'oauth' });
        await expect(
          accounts.insert({ provider: 'p', providerAccountId: user.id, userId: user.id, type: 'oauth' }),
        ).rejects.toThrow();
        await expect(
          ds
            .getRepository(SessionEntity)
            .insert({ sessionToken: randomUUID(), userId: 'no-such-user', expires: new Date() }),
        ).rejects.toThrow();
        await ds
          .getRepository(SessionEntity)
          .insert({ sessionToken: `raw-${user.id}`, userId: user.id, expires: new Date() });
        await ds.getRepository(AuthenticatorEntity).insert({
          credentialID: `raw-${user.id}`,
          userId: user.id,
          providerAccountId: 'x',
          credentialPublicKey: 'k',
          counter: 0,
          credentialDeviceType: 'singleDevice',
          credentialBackedUp: false,
          transports: null,
        });
        await ds.getRepository(TwoFactorEntity).insert({
          id: `raw-${user.id}`,
          userId: user.id,
          type: 'totp',
          name: null,
          secret: 's',
          confirmedAt: null,
          createdAt: new Date(),
          lastUsedAt: null,
          lastUsedStep: null,
        });
        await ds.getRepository(RefreshFamilyEntity).insert({
          id: `raw-${user.id}`.slice(0, 64),
          userId: user.id,
          clientId: 'app',
          generation: 0,
          tokenHash: 'h',
          rotatedAt: new Date(),
          expires: new Date(),
          authTime: new Date(),
          amr: [],
        });
        await expect(
          ds.getRepository(RefreshFamilyEntity).insert({
            id: randomUUID(),
            userId: 'no-such-user',
            clientId: 'app',
            generation: 0,
            tokenHash: 'h',
            rotatedAt: new Date(),
            expires: new Date(),
            authTime: new Date(),
            amr: [],
          }),
        ).rejects.toThrow();
        await ds.getRepository(ApiKeyEntity).insert({ ...newApiKey(user.id), scopes: [] });
        await expect(ds.getRepository(ApiKeyEntity).insert(newApiKey('no-such-user'))).rejects.toThrow();
        const key = newSigningKey();
        await ds.getRepository(SigningKeyEntity).insert(key);
        await expect(ds.getRepository(SigningKeyEntity).insert(newSigningKey({ slot: key.slot }))).rejects.toThrow();
        await users.delete({ id: user.id });
        expect(await accounts.countBy({ userId: user.id })).toBe(0);
        expect(await ds.getRepository(SessionEntity).countBy({ userId: user.id })).toBe(0);
        expect(await ds.getRepository(AuthenticatorEntity).countBy({ userId: user.id })).toBe(0);
        expect(await ds.getRepository(TwoFactorEntity).countBy({ userId: user.id })).toBe(0);
        expect(await ds.getRepository(RefreshFamilyEntity).countBy({ userId: user.id })).toBe(0);
        expect(await ds.getRepository(ApiKeyEntity).countBy({ userId: user.id })).toBe(0);
      });

      it('the migrations can be reverted', async () => {
        const scratch = await createDatabase(target, 'schema_revert');
        const other = await openDataSource(scratch, 'migrations');
        try {
          // Newest first, each migration's `down`, until none is left.
          for (let i = 0; i < MIGRATIONS[db.target.name].length; i++) await other.undoLastMigration();
          const runner = other.createQueryRunner();
          try {
            for (const table of [
              'users',
              'accounts',
              'sessions',
              'verification_tokens',
              'authenticators',
              'two_factors',
              'refresh_token_families',
              'api_keys',
              'signing_keys',
            ]) {
              expect(await runner.hasTable(table)).toBe(false);
            }
          } finally {
            await runner.release();
          }
        } finally {
          await other.destroy();
          await dropDatabase(scratch);
        }
      });
    });

    describe('behaviour only a real database shows', () => {
      let db: TestDatabase;
      let ds: DataSource;
      let adapter: TypeOrmAdapter;
      beforeAll(async () => {
        db = await createDatabase(target, 'behaviour');
        ds = await openDataSource(db, 'migrations');
        adapter = new TypeOrmAdapter(ds);
      });
      afterAll(async () => {
        await ds?.destroy();
        await dropDatabase(db);
      });

      const newUser = (): Promise<AdapterUser> =>
        adapter.createUser({ id: randomUUID(), email: `b-${randomUUID()}@example.com`, emailVerified: null });

      // promise: storage.concurrency
      it('50 concurrent useVerificationToken calls for one token: exactly one winner on every path, also all racing at once across connections', async () => {
        // SQLite has one connection, on which TypeORM cannot nest transactions: there the adapter
        // never takes the locking path (SQLite has DELETE ... RETURNING, and serialises writes anyway).
        // Elsewhere a second data source (its own pool) races too, as another instance of the app would.
        const other =
          target.name === 'sqlite'
            ? undefined
            : await new DataSource({ ...db.options, entities: [...authEntities] } as DataSourceOptions).initialize();
        try {
          const paths = [adapter, new TypeOrmAdapter(ds, {}, { preparedStatements: false })];
          if (other)
            paths.push(new LockingTypeOrmAdapter(ds), new TypeOrmAdapter(other), new LockingTypeOrmAdapter(other));
          // Each path alone, then all of them at once on one token.
          for (const group of [...paths.map((p) => [p]), paths]) {
            const token = {
              identifier: `race-${randomUUID()}@example.com`,
              token: randomBytes(32).toString('hex'),
              expires: new Date(Date.now() + 600_000),
            };
            await group[0]!.createVerificationToken(token);
            const results = await Promise.all(
              Array.from({ length: 50 }, (_, i) =>
                group[i % group.length]!.useVerificationToken({ identifier: token.identifier, token: token.token }),
              ),
            );
            const winners = results.filter((r) => r !== null);
            expect(winners).toHaveLength(1);
            expect(winners[0]).toEqual(token);
            expect(await ds.getRepository(VerificationTokenEntity).countBy({ identifier: token.identifier })).toBe(0);
          }
        } finally {
          await other?.destroy();
        }
      });

      it('the sign-in statements read what the query builder reads (default entities, both statement paths)', async () => {
        const users = [await newUser(), await newUser()];
        for (const preparedStatements of [true, false])
          await expectSignInReadsAsQueryBuilder(ds, new TypeOrmAdapter(ds, {}, { preparedStatements }), users);
      });

      it('the second-factor, passkey and account-token statements answer and write as the query builder does (both statement paths)', async () => {
        for (const preparedStatements of [true, false])
          await expectFactorPasskeyAndTokenWritesAsQueryBuilder(
            ds,
            new TypeOrmAdapter(ds, {}, { preparedStatements }),
            await newUser(),
          );
      });

      // promise: storage.concurrency
      it('the loser of a concurrent linkAccount gets AdapterConflictError naming the rule, not the values', async () => {
        const user = await newUser();
        const account = {
          userId: user.id,
          type: 'oauth' as const,
          provider: 'race',
          providerAccountId: `pa-${randomUUID()}`,
        };
        const results = await Promise.allSettled(Array.from({ length: 10 }, () => adapter.linkAccount(account)));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) {
          if (r.status === 'rejected') {
            expect(r.reason).toBeInstanceOf(AdapterConflictError);
            expect((r.reason as AdapterConflictError).conflict).toBe('account');
            expect((r.reason as Error).message).not.toContain(account.providerAccountId);
          }
        }
        expect(
          await ds
            .getRepository(AccountEntity)
            .countBy({ provider: 'race', providerAccountId: account.providerAccountId }),
        ).toBe(1);
      });

      it('a duplicate email is AdapterConflictError user.email; an orphan row is AdapterNotFoundError', async () => {
        const user = await newUser();
        const error = await adapter
          .createUser({ id: randomUUID(), email: user.email, emailVerified: null })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AdapterConflictError);
        expect((error as AdapterConflictError).conflict).toBe('user.email');
        await expect(
          adapter.createSession({ sessionToken: randomUUID(), userId: 'nobody', expires: new Date() }),
        ).rejects.toBeInstanceOf(AdapterNotFoundError);
      });

      // promise: storage.concurrency
      it('a compare-and-set that leaves the counter unchanged (authenticators that always report 0) succeeds', async () => {
        const user = await newUser();
        const credentialID = randomBytes(16).toString('base64url');
        await adapter.createAuthenticator({
          credentialID,
          userId: user.id,
          providerAccountId: credentialID,
          credentialPublicKey: 'k',
          counter: 0,
          credentialDeviceType: 'multiDevice',
          credentialBackedUp: true,
          transports: null,
        });
        expect(await adapter.updateAuthenticatorCounter(credentialID, 0, 0)).toMatchObject({ counter: 0 });
        // Counters are unsigned 32-bit: values past 2^31 must fit.
        expect(await adapter.updateAuthenticatorCounter(credentialID, 4_294_967_295, 0)).toMatchObject({
          counter: 4_294_967_295,
        });
      });

      // promise: storage.housekeeping
      it('deleteExpired removes the expired sessions, verification tokens, refresh-token families and API keys, and only those', async () => {
        const user = await newUser();
        const now = Date.now();
        const tag = randomUUID().slice(0, 8);
        const sessions = { old: `old-${tag}`, live: `live-${tag}` };
        await adapter.createSession({ sessionToken: sessions.old, userId: user.id, expires: new Date(now - 1_000) });
        await adapter.createSession({ sessionToken: sessions.live, userId: user.id, expires: new Date(now + 60_000) });
        await adapter.createVerificationToken({
          identifier: `old-${tag}@example.com`,
          token: `t-old-${tag}`,
          expires: new Date(now - 1_000),
        });
        await adapter.createVerificationToken({
          identifier: `live-${tag}@example.com`,
          token: `t-live-${tag}`,
          expires: new Date(now + 60_000),
        });
        const family = (id: string, expires: number) => ({
          id,
          userId: user.id,
          clientId: 'ios',
          generation: 0,
          tokenHash: 'h'.repeat(43),
          rotatedAt: new Date(now - 2_000),
          expires: new Date(expires),
          authTime: new Date(now - 2_000),
          amr: ['pwd'],
        });
        const families = { old: `old-${tag}`.padEnd(43, 'x'), live: `live-${tag}`.padEnd(43, 'x') };
        await adapter.createRefreshFamily(family(families.old, now - 1_000));
        await adapter.createRefreshFamily(family(families.live, now + 60_000));
        const keys = {
          old: newApiKey(user.id, { expires: new Date(now - 1_000) }),
          live: newApiKey(user.id, { expires: new Date(now + 60_000) }),
          never: newApiKey(user.id, { expires: null }),
        };
        for (const key of Object.values(keys)) await adapter.createApiKey(key);
        const removed = await adapter.deleteExpired(new Date(now));
        expect(removed.apiKeys).toBeGreaterThanOrEqual(1);
        expect(await adapter.getApiKey(keys.old.id)).toBeNull();
        expect(await adapter.getApiKey(keys.live.id)).toEqual(keys.live);
        expect(await adapter.getApiKey(keys.never.id)).toEqual(keys.never);
        expect(removed.refreshFamilies).toBeGreaterThanOrEqual(1);
        expect(await adapter.getRefreshFamily(families.old)).toBeNull();
        expect(await adapter.getRefreshFamily(families.live)).not.toBeNull();
        expect(removed.sessions).toBeGreaterThanOrEqual(1);
        expect(removed.verificationTokens).toBeGreaterThanOrEqual(1);
        expect(await ds.getRepository(SessionEntity).countBy({ sessionToken: sessions.old })).toBe(0);
        expect(await ds.getRepository(SessionEntity).countBy({ sessionToken: sessions.live })).toBe(1);
        expect(await ds.getRepository(VerificationTokenEntity).countBy({ token: `t-old-${tag}` })).toBe(0);
        expect(await ds.getRepository(VerificationTokenEntity).countBy({ token: `t-live-${tag}` })).toBe(1);
        // Nothing else has expired: a second run removes nothing.
        expect(await adapter.deleteExpired(new Date(now))).toEqual({
          sessions: 0,
          verificationTokens: 0,
          refreshFamilies: 0,
          apiKeys: 0,
        });
      });

      // promise: storage.concurrency
      it('the losers of concurrent createSigningKey calls for one slot get AdapterConflictError signingKey, naming no values', async () => {
        const slot = newSigningKey().slot;
        const keys = Array.from({ length: 10 }, () => newSigningKey({ slot }));
        const results = await Promise.allSettled(keys.map((key) => adapter.createSigningKey(key)));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) {
          if (r.status === 'fulfilled') continue;
          expect(r.reason).toBeInstanceOf(AdapterConflictError);
          expect((r.reason as AdapterConflictError).conflict).toBe('signingKey');
          expect((r.reason as Error).message).not.toContain(String(slot));
        }
        expect(await ds.getRepository(SigningKeyEntity).countBy({ slot })).toBe(1);
      });

      it('rotateRefreshFamily is one conditional UPDATE (WHERE id AND generation): its affected-row count decides', async () => {
        const user = await newUser();
        const family = newRefreshFamily(user.id);
        await adapter.createRefreshFamily(family);
        const next = { tokenHash: 'next-hash', rotatedAt: new Date(), expires: new Date(Date.now() + 60_000) };
        let rotated: boolean | undefined;
        const queries = await loggedQueries(async () => {
          rotated = await adapter.rotateRefreshFamily(family.id, 0, next);
        });
        expect(rotated).toBe(true);
        expect(queries).toHaveLength(1);
        expect(queries[0]).toMatch(
          /^UPDATE\s+\S*refresh_token_families\S*\s+SET .+ WHERE .*\bid\b.* AND .*\bgeneration\b/is,
        );
        // The same statement again matches no row: false, nothing written.
        expect(await adapter.rotateRefreshFamily(family.id, 0, { ...next, tokenHash: 'late' })).toBe(false);
        expect(await adapter.getRefreshFamily(family.id)).toMatchObject({ generation: 1, tokenHash: 'next-hash' });
      });

      /** The statements the data source's query runners report while `fn` runs. */
      async function loggedQueries(fn: () => Promise<unknown>): Promise<string[]> {
        const queries: string[] = [];
        // Every query runner reports each statement to the data source's logger, whatever the logging option.
        const logger = ds.logger;
        (ds as { logger: Logger }).logger = { ...noopLogger, logQuery: (sql: string) => void queries.push(sql) };
        try {
          await fn();
        } finally {
          (ds as { logger: Logger }).logger = logger;
        }
        return queries;
      }

      it('getSessionAndUser through DataSource.query (preparedStatements: false) is one JOIN', async () => {
        const plainAdapter = new TypeOrmAdapter(ds, {}, { preparedStatements: false });
        const user = await newUser();
        const sessionToken = randomUUID();
        await plainAdapter.createSession({ sessionToken, userId: user.id, expires: new Date(Date.now() + 60_000) });
        const queries = await loggedQueries(async () => {
          expect(await plainAdapter.getSessionAndUser(sessionToken)).toMatchObject({
            session: { sessionToken },
            user: { id: user.id },
          });
        });
        expect(queries).toHaveLength(1);
        expect(queries[0]).toMatch(/JOIN/i);
      });

      it('getSessionAndUser prepares its statement once and sends one statement per lookup', async () => {
        const user = await newUser();
        const tokens = [randomUUID(), randomUUID(), randomUUID()];
        for (const sessionToken of tokens)
          await adapter.createSession({ sessionToken, userId: user.id, expires: new Date(Date.now() + 60_000) });
        await adapter.getSessionAndUser(tokens[0]!); // the first lookup builds (and, on SQLite, prepares) the statement
        // Count the real driver's entry points (they still run): the pg pool's query, better-sqlite3's prepare.
        const driver = ds.driver as unknown as {
          master?: { query: Function };
          databaseConnection?: { prepare: Function };
        };
        const calls: unknown[][] = [];
        const restore: (() => void)[] = [];
        const count = (owner: Record<string, Function>, key: string) => {
          const original = owner[key]!;
          owner[key] = function (this: unknown, ...args: unknown[]) {
            calls.push(args);
            return original.apply(this, args);
          };
          restore.push(() => void (owner[key] = original));
        };
        if (target.name === 'postgres') count(driver.master as never, 'query');
        if (target.name === 'sqlite') count(driver.databaseConnection as never, 'prepare');
        let queries: string[];
        try {
          queries = await loggedQueries(async () => {
            for (const sessionToken of tokens) {
              expect(await adapter.getSessionAndUser(sessionToken)).toMatchObject({
                session: { sessionToken, userId: user.id },
                user: { id: user.id },
              });
            }
            expect(await adapter.getSessionAndUser(tokens[0]!.toUpperCase())).toBeNull();
          });
        } finally {
          for (const undo of restore) undo();
        }
        if (target.name === 'postgres') {
          // One named statement (parsed and planned once per connection), one call per lookup.
          expect(calls).toHaveLength(4);
          const names = new Set(calls.map(([config]) => (config as { name: string }).name));
          expect(names.size).toBe(1);
          expect([...names][0]).toMatch(/^nestjs_auth_session_[0-9a-f]{16}$/);
          expect((calls[0]![0] as { text: string }).text).toMatch(/JOIN/i);
          expect(queries).toHaveLength(0);
        } else if (target.name === 'sqlite') {
          // Prepared by the first lookup, never again.
          expect(calls).toHaveLength(0);
          expect(queries).toHaveLength(0);
        } else {
          expect(queries).toHaveLength(4);
          for (const sql of queries) expect(sql).toMatch(/JOIN/i);
        }
      });
      it("a sign-in's statements (user by email, token consumed, session stored) are one prepared statement each", async () => {
        const user = await newUser();
        const token = {
          identifier: user.email,
          token: randomBytes(32).toString('hex'),
          expires: new Date(Date.now() + 60_000),
        };
        const signIn = async () => {
          await adapter.createVerificationToken(token);
          expect(await adapter.useVerificationToken(token)).toEqual(token);
          expect(await adapter.getUserByEmail(user.email)).toEqual(user);
          await adapter.createSession({
            sessionToken: randomUUID(),
            userId: user.id,
            expires: new Date(Date.now() + 60_000),
          });
        };
        await signIn(); // the first builds (and, on SQLite, prepares) the statements
        const master = (ds.driver as unknown as { master?: Record<string, Function> }).master;
        const original = master?.query;
        const names: string[] = [];
        if (target.name === 'postgres')
          master!.query = function (this: unknown, ...args: unknown[]) {
            names.push((args[0] as { name?: string }).name ?? '');
            return original!.apply(this, args);
          };
        let queries: string[];
        try {
          queries = await loggedQueries(signIn);
        } finally {
          if (master && original) master.query = original;
        }
        // Only the token's insert (not on a sign-in's path) goes through the query builder.
        const direct = queries.filter((q) => !/^INSERT INTO \S*verification_tokens/i.test(q));
        if (target.name === 'mariadb') {
          expect(direct).toHaveLength(3);
          expect(direct[0]).toMatch(/^DELETE FROM .* RETURNING /i);
        } else {
          expect(direct).toEqual([]);
        }
        if (target.name === 'postgres') {
          expect(names).toHaveLength(3);
          for (const name of names) expect(name).toMatch(/^nestjs_auth_(statement|insert)_[0-9a-f]{16}$/);
        }
      });

      it('getSessionAndUser answers concurrent lookups together: one batched statement on PostgreSQL, each its own row', async () => {
        const users = [await newUser(), await newUser()];
        const tokens = [randomUUID(), randomUUID(), randomUUID()];
        for (const [i, sessionToken] of tokens.entries())
          await adapter.createSession({
            sessionToken,
            userId: users[i % 2]!.id,
            expires: new Date(Date.now() + 60_000),
          });
        await adapter.getSessionAndUser(tokens[0]!);
        const driver = ds.driver as unknown as { master?: { query: Function } };
        const calls: { name: string; text: string; values: unknown[] }[] = [];
        const master = driver.master as unknown as Record<string, Function> | undefined;
        const original = master?.query;
        if (target.name === 'postgres')
          master!.query = function (this: unknown, ...args: unknown[]) {
            calls.push(args[0] as never);
            return original!.apply(this, args);
          };
        try {
          // Sent in the same turn of the event loop, as concurrent requests' lookups are.
          const asked = [...tokens, 'missing-token', tokens[1]!, tokens[2]!.toUpperCase()];
          const found = await Promise.all(asked.map((t) => adapter.getSessionAndUser(t)));
          for (const i of [0, 1, 2])
            expect(found[i]).toMatchObject({
              session: { sessionToken: tokens[i], userId: users[i % 2]!.id },
              user: { id: users[i % 2]!.id },
            });
          expect(found[3]).toBeNull();
          expect(found[4]).toEqual(found[1]);
          expect(found[5]).toBeNull();
          // Each answer is its own object: a caller that changes one does not change another's.
          expect(found[4]).not.toBe(found[1]);
        } finally {
          if (master && original) master.query = original;
        }
        if (target.name === 'postgres') {
          expect(calls).toHaveLength(1);
          expect(calls[0]!.name).toMatch(/^nestjs_auth_session_[0-9a-f]{16}$/);
          expect(calls[0]!.text).toMatch(/= ANY\(\$1\)/);
          expect(calls[0]!.values[0]).toEqual([...new Set([...tokens, 'missing-token', tokens[2]!.toUpperCase()])]);
        }
      });

      // PostgreSQL only: the one driver whose lookups are batched.
      if (target.name === 'postgres')
        it('getSessionAndUser fails each lookup of a batch whose statement fails', async () => {
          const pooled = ds.driver as unknown as { master: Record<string, Function> };
          const original = pooled.master.query!;
          pooled.master.query = () => Promise.reject(new Error('connection lost'));
          try {
            const results = await Promise.allSettled(
              [randomUUID(), randomUUID()].map((t) => adapter.getSessionAndUser(t)),
            );
            expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
          } finally {
            pooled.master.query = original;
          }
        });
    });

    describe('the session lookup reads rows as the query builder does', () => {
      let db: TestDatabase;
      let ds: DataSource;
      beforeAll(async () => {
        db = await createDatabase(target, 'shaped');
        ds = await openDataSource(db, 'synchronize', [
          ShapedUser,
          AccountEntity,
          SessionEntity,
          VerificationTokenEntity,
          AuthenticatorEntity,
        ]);
      });
      afterAll(async () => {
        await ds?.destroy();
        await dropDatabase(db);
      });

      it.each([true, false])(
        'transformers, unselected and soft-deleted columns (preparedStatements: %s)',
        async (preparedStatements) => {
          const adapter = new TypeOrmAdapter(ds, { User: ShapedUser }, { preparedStatements });
          const id = randomUUID();
          const emailVerified = new Date('2026-03-04T05:06:07.089Z');
          await ds.getRepository(ShapedUser).insert({
            id,
            email: `s-${id}@example.com`,
            name: 'Shaped',
            image: null,
            emailVerified,
            tags: ['a', 'b'],
            secretNote: 'hidden',
          });
          const sessionToken = randomUUID();
          const expires = new Date(Date.now() + 3_600_000);
          expires.setUTCMilliseconds(123);
          await adapter.createSession({ sessionToken, userId: id, expires });

          const found = await adapter.getSessionAndUser(sessionToken);
          // The same user the query builder reads (getUser), field for field, and the session as stored.
          expect(found?.user).toEqual(await adapter.getUser(id));
          expect(found?.user).toMatchObject({ id, tags: ['a', 'b'], emailVerified, deletedAt: null, kind: 'shaped' });
          expect(found?.user).not.toHaveProperty('secretNote');
          expect(found?.session).toEqual({ sessionToken, userId: id, expires });
          expect(found?.session.expires).toBeInstanceOf(Date);

          // A soft-deleted user has no session, as the query builder would say.
          await ds.getRepository(ShapedUser).softDelete({ id });
          expect(await adapter.getSessionAndUser(sessionToken)).toBeNull();
        },
      );

      it.each([true, false])(
        'the sign-in statements read what the query builder reads: transformers, unselected, soft-deleted (preparedStatements: %s)',
        async (preparedStatements) => {
          const adapter = new TypeOrmAdapter(ds, { User: ShapedUser }, { preparedStatements });
          const users = ['live', 'deleted'].map((tag) => {
            const id = randomUUID();
            return { id, email: `${tag}-${id}@Example.com` };
          });
          for (const [i, user] of users.entries())
            await ds.getRepository(ShapedUser).insert({
              ...user,
              name: null,
              image: null,
              emailVerified: new Date(Date.UTC(2026, 1, 3, 4, 5, 6, 78 + i)),
              tags: i ? [] : ['x', 'y'],
              secretNote: 'hidden',
            });
          await ds.getRepository(ShapedUser).softDelete({ id: users[1]!.id });
          await expectSignInReadsAsQueryBuilder(ds, adapter, users);
          expect(await adapter.getUser(users[1]!.id)).toBeNull();
          expect(await adapter.getUserByEmail(users[0]!.email)).toMatchObject({ tags: ['x', 'y'], kind: 'shaped' });
        },
      );
    });

    describe('the session lookup with single-table inheritance', () => {
      let db: TestDatabase;
      let ds: DataSource;
      beforeAll(async () => {
        db = await createDatabase(target, 'sti');
        ds = await openDataSource(db, 'synchronize', [
          BaseMember,
          StaffMember,
          AccountEntity,
          SessionEntity,
          VerificationTokenEntity,
          AuthenticatorEntity,
        ]);
      });
      afterAll(async () => {
        await ds?.destroy();
        await dropDatabase(db);
      });

      it('reads the child entity and keeps users of another type out, as getUser does', async () => {
        const adapter = new TypeOrmAdapter(ds, { User: StaffMember });
        const staff = randomUUID();
        const plainMember = randomUUID();
        await ds
          .getRepository(StaffMember)
          .insert({ id: staff, email: `st-${staff}@example.com`, emailVerified: null, desk: 'B2' });
        await ds
          .getRepository(BaseMember)
          .insert({ id: plainMember, email: `m-${plainMember}@example.com`, emailVerified: null });
        const staffToken = randomUUID();
        const memberToken = randomUUID();
        await adapter.createSession({
          sessionToken: staffToken,
          userId: staff,
          expires: new Date(Date.now() + 60_000),
        });
        await adapter.createSession({
          sessionToken: memberToken,
          userId: plainMember,
          expires: new Date(Date.now() + 60_000),
        });
        const found = await adapter.getSessionAndUser(staffToken);
        expect(found?.user).toMatchObject({ id: staff, desk: 'B2' });
        expect(found?.user).toEqual(await adapter.getUser(staff));
        // A user of another type is not a StaffMember: the discriminator keeps it out, as getUser does.
        expect(await adapter.getUser(plainMember)).toBeNull();
        expect(await adapter.getSessionAndUser(memberToken)).toBeNull();
        await expectSignInReadsAsQueryBuilder(ds, adapter, [
          { id: staff, email: `st-${staff}@example.com` },
          { id: plainMember, email: `m-${plainMember}@example.com` },
        ]);
      });
    });

    describe('custom entities with extra columns', () => {
      let db: TestDatabase;
      let ds: DataSource;
      let adapter: TypeOrmAdapter;
      beforeAll(async () => {
        db = await createDatabase(target, 'custom');
        ds = await openDataSource(db, 'synchronize', [
          AppUser,
          AppAccount,
          SessionEntity,
          VerificationTokenEntity,
          AuthenticatorEntity,
        ]);
        adapter = new TypeOrmAdapter(ds, { User: AppUser, Account: AppAccount });
      });
      afterAll(async () => {
        await ds?.destroy();
        await dropDatabase(db);
      });

      // promise: storage.custom-entities
      it('round-trips the extra columns through every user and account method', async () => {
        const input = { id: randomUUID(), email: `c-${randomUUID()}@example.com`, emailVerified: null, role: 'admin' };
        expect(await adapter.createUser(input)).toMatchObject(input);
        expect(await adapter.getUser(input.id)).toMatchObject({ role: 'admin' });
        expect(
          await adapter.updateUser({ id: input.id, role: 'owner' } as Partial<AdapterUser> & Pick<AdapterUser, 'id'>),
        ).toMatchObject({ role: 'owner' });
        // Database default for a user created without the column.
        const plain = await adapter.createUser({
          id: randomUUID(),
          email: `d-${randomUUID()}@example.com`,
          emailVerified: null,
        });
        expect(plain).toMatchObject({ role: 'member' });

        const account = {
          userId: input.id,
          type: 'oauth' as const,
          provider: 'twitter',
          providerAccountId: randomUUID(),
          oauth_token_secret: 's3cr3t',
        };
        await adapter.linkAccount(account);
        expect(await adapter.getAccount(account.providerAccountId, 'twitter')).toMatchObject(account);

        const sessionToken = randomUUID();
        await adapter.createSession({ sessionToken, userId: input.id, expires: new Date(Date.now() + 60_000) });
        expect((await adapter.getSessionAndUser(sessionToken))?.user).toMatchObject({ role: 'owner' });
        expect(await adapter.getUserByAccount(account)).toMatchObject({ role: 'owner' });

        await expectSignInReadsAsQueryBuilder(ds, adapter, [input, plain]);

        // The foreign keys follow the subclass (they reference the `users` table by name).
        await adapter.deleteUser(input.id);
        expect(await adapter.getSessionAndUser(sessionToken)).toBeNull();
        expect(await adapter.getAccount(account.providerAccountId, 'twitter')).toBeNull();
      });
    });
  });
}
