import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager, EntityMetadata, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from '../adapter.interface.js';
import {
  AdapterConflictError,
  AdapterNotFoundError,
  type AdapterConflictKind,
} from '../../errors/auth.errors.js';
import { defaultAuthEntities, type EntityClass, type TypeOrmAdapterEntities } from './auth-entities.js';

const SQLITE_TYPES = new Set(['sqlite', 'better-sqlite3', 'capacitor', 'cordova', 'expo', 'nativescript', 'react-native', 'sqljs']);
const MYSQL_TYPES = new Set(['mysql', 'mariadb', 'aurora-mysql']);

type Keys = Record<string, string | number>;

/**
 * The adapter over the app's TypeORM `DataSource` (SQLite, PostgreSQL, MySQL/MariaDB), using the
 * exported entities or subclasses of them. `AuthModule` builds it for you when you give no
 * `adapter` and the app has a data source; build it yourself for custom entities:
 *
 * @example
 * AuthModule.forRootAsync({
 *   adapter: { inject: [DataSource], useFactory: (ds: DataSource) => new TypeOrmAdapter(ds, { User: AppUser }) },
 *   ...
 * })
 *
 * Correct under concurrency: `useVerificationToken` consumes the token in one `DELETE ... RETURNING`
 * (PostgreSQL, SQLite, MariaDB) or a locking transaction (MySQL); `updateAuthenticatorCounter` is a
 * compare-and-set; uniqueness is the database's (a duplicate insert fails with
 * `AdapterConflictError`, a row for an unknown user with `AdapterNotFoundError`).
 */
@Injectable()
export class TypeOrmAdapter implements Adapter {
  /** The entity classes in use. */
  readonly entities: Readonly<TypeOrmAdapterEntities>;
  private readonly mysql: boolean;
  private readonly options: Required<TypeOrmAdapterOptions>;
  /** The session lookup, built on first use. */
  private lookup?: SessionLookupPlan;

  constructor(
    private readonly dataSource: DataSource,
    entities: Partial<TypeOrmAdapterEntities> = {},
    options: TypeOrmAdapterOptions = {},
  ) {
    this.entities = { ...defaultAuthEntities, ...entities };
    this.mysql = MYSQL_TYPES.has(dataSource.options.type);
    this.options = { preparedStatements: options.preparedStatements ?? true };
  }

  // ---- users ------------------------------------------------------------------------------------

  async createUser(user: AdapterUser): Promise<AdapterUser> {
    const repo = this.repo(this.entities.User);
    const id = user.id || randomUUID();
    await this.insert(repo, { ...user, id, emailVerified: user.emailVerified ?? null }, (e) =>
      /email/i.test(constraintOf(e)) ? 'user.email' : 'user');
    // Read back: columns of a custom entity may have database defaults.
    const created = await this.getUser(id);
    if (!created) throw new AdapterNotFoundError('user');
    return created;
  }

  async getUser(id: string): Promise<AdapterUser | null> {
    return plain(await this.select(this.entities.User, 'u', { id }).getOne());
  }

  async getUserByEmail(email: string): Promise<AdapterUser | null> {
    return plain(await this.select(this.entities.User, 'u', { email }).getOne());
  }

  async getUserByAccount(key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Promise<AdapterUser | null> {
    const [where, params] = this.where('a', { provider: key.provider, providerAccountId: key.providerAccountId });
    const user = await this.repo(this.entities.User)
      .createQueryBuilder('u')
      .innerJoin(this.entities.Account, 'a', 'a.userId = u.id')
      .where(where, params)
      .getOne();
    return plain(user);
  }

  async updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Promise<AdapterUser> {
    const repo = this.repo(this.entities.User);
    const { id, ...rest } = user;
    const changes = columnsOnly(repo.metadata, rest);
    if (Object.keys(changes).length) {
      const [where, params] = this.where(repo.metadata, { id });
      try {
        await repo.createQueryBuilder().update().set(changes).where(where, params).execute();
      } catch (error) {
        throw mapWriteError(error, () => 'user.email');
      }
    }
    const updated = await this.getUser(id);
    if (!updated) throw new AdapterNotFoundError('user');
    return updated;
  }

  async deleteUser(userId: string): Promise<AdapterUser | null> {
    // Sessions, accounts and authenticators go with the user: ON DELETE CASCADE.
    const rows = await this.deleteReturning(this.entities.User, { id: userId });
    return plain(rows[0]);
  }

  // ---- accounts ---------------------------------------------------------------------------------

  async linkAccount(account: AdapterAccount): Promise<AdapterAccount> {
    await this.insert(this.repo(this.entities.Account), account, () => 'account');
    return account;
  }

  async unlinkAccount(key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Promise<AdapterAccount | undefined> {
    const rows = await this.deleteReturning(this.entities.Account, { provider: key.provider, providerAccountId: key.providerAccountId });
    return rows[0] ? accountOf(rows[0]) : undefined;
  }

  async getAccount(providerAccountId: string, provider: string): Promise<AdapterAccount | null> {
    const row = await this.select(this.entities.Account, 'a', { provider, providerAccountId }).getOne();
    return row ? accountOf(row) : null;
  }

  // ---- sessions ---------------------------------------------------------------------------------

  async createSession(session: { sessionToken: string; userId: string; expires: Date }): Promise<AdapterSession> {
    const value = { sessionToken: session.sessionToken, userId: session.userId, expires: session.expires };
    await this.insert(this.repo(this.entities.Session), value, () => 'session');
    return { ...value };
  }

  async getSessionAndUser(sessionToken: string): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
    // One query, the session joined with its user. It runs on every guarded request, so its SQL is
    // built once from the entities' metadata and, where the driver allows, prepared once.
    const plan = (this.lookup ??= buildSessionLookup(this.dataSource, this.entities, this.mysql, this.options));
    const row = await plan.run(sessionToken);
    if (!row) return null;
    return {
      session: this.hydrateAliased(plan.session, row) as AdapterSession,
      user: this.hydrateAliased(plan.user, row) as AdapterUser,
    };
  }

  async updateSession(session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'>): Promise<AdapterSession | null> {
    const repo = this.repo(this.entities.Session);
    const { sessionToken, ...rest } = session;
    const changes = columnsOnly(repo.metadata, rest);
    if (Object.keys(changes).length) {
      const [where, params] = this.where(repo.metadata, { sessionToken });
      try {
        await repo.createQueryBuilder().update().set(changes).where(where, params).execute();
      } catch (error) {
        throw mapWriteError(error, () => 'session');
      }
    }
    return plain(await this.select(this.entities.Session, 's', { sessionToken }).getOne()) as AdapterSession | null;
  }

  async deleteSession(sessionToken: string): Promise<AdapterSession | null> {
    const rows = await this.deleteReturning(this.entities.Session, { sessionToken });
    return (plain(rows[0]) as AdapterSession | null) ?? null;
  }

  // ---- verification tokens ------------------------------------------------------------------------

  async createVerificationToken(token: VerificationToken): Promise<VerificationToken> {
    const value = { identifier: token.identifier, token: token.token, expires: token.expires };
    await this.insert(this.repo(this.entities.VerificationToken), value, () => 'verificationToken');
    return { ...value };
  }

  async useVerificationToken(params: { identifier: string; token: string }): Promise<VerificationToken | null> {
    // One atomic statement: of concurrent calls, exactly one gets the row.
    const rows = await this.deleteReturning(this.entities.VerificationToken, { identifier: params.identifier, token: params.token });
    const row = rows[0];
    return row ? { identifier: row.identifier, token: row.token, expires: row.expires } : null;
  }

  // ---- authenticators ---------------------------------------------------------------------------

  async createAuthenticator(authenticator: AdapterAuthenticator): Promise<AdapterAuthenticator> {
    const value = { ...authenticator, transports: authenticator.transports ?? null };
    await this.insert(this.repo(this.entities.Authenticator), value, () => 'authenticator');
    const created = await this.getAuthenticator(authenticator.credentialID);
    if (!created) throw new AdapterNotFoundError('authenticator');
    return created;
  }

  async getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null> {
    return plain(await this.select(this.entities.Authenticator, 'a', { credentialID }).getOne());
  }

  async listAuthenticatorsByUserId(userId: string): Promise<AdapterAuthenticator[]> {
    const rows = await this.select(this.entities.Authenticator, 'a', { userId }).getMany();
    return rows.map((row) => plain(row) as AdapterAuthenticator);
  }

  async updateAuthenticatorCounter(credentialID: string, newCounter: number, expectedCounter?: number): Promise<AdapterAuthenticator> {
    const repo = this.repo(this.entities.Authenticator);
    const keys: Keys = expectedCounter === undefined ? { credentialID } : { credentialID, counter: expectedCounter };
    const [where, params] = this.where(repo.metadata, keys);
    // Compare-and-set: the WHERE carries the counter that was read, so of concurrent updates from
    // the same value exactly one changes a row.
    const result = await repo.createQueryBuilder().update().set({ counter: newCounter }).where(where, params).execute();
    const current = await this.getAuthenticator(credentialID);
    if (!current) throw new AdapterNotFoundError('authenticator');
    if (result.affected === 0 || (result.affected === undefined && current.counter !== newCounter)) {
      throw new AdapterConflictError('authenticator.counter', 'The authenticator was used concurrently: its counter changed since it was read.');
    }
    return current;
  }

  /** Deletes every session of a user (beyond SPEC: `SessionsByUserAdapter`, for `AuthService.signOutEverywhere`). */
  async deleteSessionsByUserId(userId: string): Promise<number> {
    return this.deleteAll(this.entities.Session, { userId });
  }

  /** Deletes every verification token of an identifier (beyond SPEC: `VerificationTokensByIdentifierAdapter`). */
  async deleteVerificationTokensByIdentifier(identifier: string): Promise<number> {
    return this.deleteAll(this.entities.VerificationToken, { identifier });
  }

  // ---- housekeeping -------------------------------------------------------------------------------

  /**
   * Deletes the sessions and verification tokens that expired before `now`. The library deletes an
   * expired row only when it is presented; run this on a schedule (e.g. daily with
   * `@nestjs/schedule`) so abandoned ones do not pile up. Not part of the adapter contract.
   *
   * @returns how many rows of each went
   */
  async deleteExpired(now: Date = new Date()): Promise<{ sessions: number; verificationTokens: number }> {
    const purge = async (entity: EntityClass<ObjectLiteral>): Promise<number> => {
      const metadata = this.dataSource.getMetadata(entity);
      const expires = metadata.findColumnWithPropertyName('expires');
      if (!expires) throw new Error(`TypeOrmAdapter: the ${metadata.name} entity has no column for "expires".`);
      const result = await this.dataSource
        .createQueryBuilder()
        .delete()
        .from(entity)
        .where(`${this.dataSource.driver.escape(expires.databaseName)} < :now`, { now: this.dataSource.driver.preparePersistentValue(now, expires) })
        .execute();
      return result.affected ?? 0;
    };
    return { sessions: await purge(this.entities.Session), verificationTokens: await purge(this.entities.VerificationToken) };
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private repo<T extends ObjectLiteral>(entity: EntityClass<T>): Repository<T> {
    return this.dataSource.getRepository(entity);
  }

  /**
   * `alias.column = :param AND ...` for `keys`. On MySQL/MariaDB each comparison is repeated with
   * `BINARY`: a case-insensitive collation (the server default) must not let `ABC` match `abc`; the
   * plain comparison keeps the index usable.
   */
  private where(target: string | EntityMetadata, keys: Keys): [string, ObjectLiteral] {
    const parts: string[] = [];
    const params: ObjectLiteral = {};
    for (const [property, value] of Object.entries(keys)) {
      // With an alias TypeORM maps `alias.property` to the column; UPDATE and DELETE take the column name.
      const column = typeof target === 'string'
        ? `${target}.${property}`
        : this.dataSource.driver.escape(target.findColumnWithPropertyName(property)?.databaseName ?? property);
      const param = `k_${property}`;
      params[param] = value;
      parts.push(`${column} = :${param}`);
      if (this.mysql && typeof value === 'string') parts.push(`BINARY ${column} = :${param}`);
    }
    return [parts.join(' AND '), params];
  }

  private select<T extends ObjectLiteral>(entity: EntityClass<T>, alias: string, keys: Keys): SelectQueryBuilder<T> {
    const [where, params] = this.where(alias, keys);
    return this.repo(entity).createQueryBuilder(alias).where(where, params);
  }

  /** Deletes every row matching `keys`; returns how many went. */
  private async deleteAll(entity: EntityClass<ObjectLiteral>, keys: Keys): Promise<number> {
    const [where, params] = this.where(this.dataSource.getMetadata(entity), keys);
    const result = await this.dataSource.createQueryBuilder().delete().from(entity).where(where, params).execute();
    return result.affected ?? 0;
  }

  private async insert<T extends ObjectLiteral>(repo: Repository<T>, value: object, conflict: (error: unknown) => AdapterConflictKind): Promise<void> {
    try {
      await repo.createQueryBuilder().insert().values(repo.create(value as T) as never).execute();
    } catch (error) {
      throw mapWriteError(error, conflict);
    }
  }

  /**
   * Deletes the rows matching `keys` and returns them, atomically: `DELETE ... RETURNING` where the
   * database has it, otherwise a transaction that locks the rows (`SELECT ... FOR UPDATE`) first.
   */
  private async deleteReturning<T extends ObjectLiteral>(entity: EntityClass<T>, keys: Keys): Promise<T[]> {
    if (!this.supportsDeleteReturning()) return this.deleteLocking(entity, keys);
    const metadata = this.dataSource.getMetadata(entity);
    const [where, params] = this.where(metadata, keys);
    const [sql, parameters] = this.dataSource.createQueryBuilder().delete().from(entity).where(where, params).getQueryAndParameters();
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(`${sql} RETURNING *`, parameters, true);
      return (result.records as ObjectLiteral[]).map((raw) => this.hydrate(metadata, raw) as T);
    } finally {
      await runner.release();
    }
  }

  private async deleteLocking<T extends ObjectLiteral>(entity: EntityClass<T>, keys: Keys): Promise<T[]> {
    return this.dataSource.transaction(async (manager: EntityManager) => {
      const [selectWhere, selectParams] = this.where('t', keys);
      const rows = await manager.createQueryBuilder(entity, 't').setLock('pessimistic_write').where(selectWhere, selectParams).getMany();
      if (!rows.length) return [];
      const [where, params] = this.where(manager.connection.getMetadata(entity), keys);
      await manager.createQueryBuilder().delete().from(entity).where(where, params).execute();
      return rows;
    });
  }

  /**
   * Whether the database deletes and returns in one statement: PostgreSQL, SQLite 3.35+ and MariaDB
   * 10.0.5+ do (also when reached through the `mysql` driver); MySQL does not.
   */
  protected supportsDeleteReturning(): boolean {
    const { type } = this.dataSource.options;
    if (type === 'postgres' || type === 'cockroachdb' || SQLITE_TYPES.has(type)) return true;
    if (!MYSQL_TYPES.has(type)) return false;
    const driver = this.dataSource.driver as typeof this.dataSource.driver & { version?: string };
    if (driver.isReturningSqlSupported('delete')) return true;
    const match = /^(\d+)\.(\d+)\.(\d+)-MariaDB/i.exec(driver.version ?? '');
    return !!match && versionAtLeast(match.slice(1).map(Number), [10, 0, 5]);
  }

  /** A raw row (database column names and values) turned into an entity instance. */
  private hydrate(metadata: EntityMetadata, raw: ObjectLiteral): ObjectLiteral {
    const entity = metadata.create() as ObjectLiteral;
    for (const column of metadata.columns) {
      if (!(column.databaseName in raw)) continue;
      column.setEntityValue(entity, this.dataSource.driver.prepareHydratedValue(raw[column.databaseName], column));
    }
    return entity;
  }

  /** The columns of one entity from a row selected under the plan's aliases, as a plain object. */
  private hydrateAliased(part: LookupPart, row: ObjectLiteral): ObjectLiteral {
    const entity = part.metadata.create() as ObjectLiteral;
    const { driver } = this.dataSource;
    for (const { alias, column } of part.columns) column.setEntityValue(entity, driver.prepareHydratedValue(row[alias], column));
    return { ...entity };
  }
}

/** Options of {@link TypeOrmAdapter}. */
export interface TypeOrmAdapterOptions {
  /**
   * Prepare the session lookup once per connection (PostgreSQL: a named prepared statement;
   * better-sqlite3: a cached statement) instead of sending its text on every request.
   * Turn it off behind a pooler that does not support prepared statements (PgBouncer before 1.21
   * in transaction mode). Default `true`.
   */
  preparedStatements?: boolean;
}

type ColumnMetadata = EntityMetadata['columns'][number];

/** The columns one entity contributes to the lookup's row, each under its own short alias. */
interface LookupPart {
  metadata: EntityMetadata;
  columns: { alias: string; column: ColumnMetadata }[];
}

/** The session lookup: SQL built once from the entities' metadata, and how to run it. */
interface SessionLookupPlan {
  session: LookupPart;
  user: LookupPart;
  /** The row for a session token (columns under the parts' aliases), or undefined. */
  run(sessionToken: string): Promise<ObjectLiteral | undefined>;
}

/**
 * Builds the SQL of `getSessionAndUser` once: `SELECT <session columns>, <user columns> FROM
 * sessions JOIN users WHERE token = ?`, with the rules the query builder applies to an entity it
 * selects: selectable, non-virtual columns of that entity (not its table-inheritance children's or
 * the discriminator), soft-deleted rows excluded, a child entity limited to its discriminator values,
 * and `BINARY` on MySQL.
 */
function buildSessionLookup(
  dataSource: DataSource,
  entities: Readonly<TypeOrmAdapterEntities>,
  mysql: boolean,
  options: Required<TypeOrmAdapterOptions>,
): SessionLookupPlan {
  const { driver } = dataSource;
  const sessionMeta = dataSource.getMetadata(entities.Session);
  const userMeta = dataSource.getMetadata(entities.User);
  const column = (metadata: EntityMetadata, property: string) => {
    const found = metadata.findColumnWithPropertyName(property);
    if (!found) throw new Error(`TypeOrmAdapter: the ${metadata.name} entity has no column for "${property}".`);
    return found;
  };
  const token = column(sessionMeta, 'sessionToken');
  const userId = column(sessionMeta, 'userId');
  const id = column(userMeta, 'id');

  const esc = (name: string) => driver.escape(name);
  const table = (metadata: EntityMetadata) => metadata.tablePath.split('.').map((part) => (part === '' ? part : esc(part))).join('.');
  const part = (metadata: EntityMetadata, prefix: string): LookupPart => ({
    metadata,
    columns: metadata.columns
      .filter((c) => c.isSelect && !c.isVirtual && !c.isVirtualProperty && !c.isDiscriminator)
      .filter((c) => !metadata.childEntityMetadatas.some((child) => child.target === c.target))
      .map((c, i) => ({ alias: `${prefix}${i}`, column: c })),
  });
  const session = part(sessionMeta, 's');
  const user = part(userMeta, 'u');
  const select = (tableAlias: string, p: LookupPart) =>
    p.columns.map(({ alias, column: c }) => `${esc(tableAlias)}.${esc(c.databaseName)} AS ${esc(alias)}`);

  // Parameters: the token (twice on MySQL), then any discriminator values.
  const fixed: unknown[] = [];
  let index = mysql ? 2 : 1;
  const param = (value: unknown) => {
    fixed.push(value);
    return driver.createParameter(`p${index}`, index++);
  };
  const conditions = [`${esc('s')}.${esc(token.databaseName)} = ${driver.createParameter('token', 0)}`];
  // A case-insensitive collation (MySQL's default) must not let `ABC` match `abc`.
  if (mysql) conditions.push(`BINARY ${esc('s')}.${esc(token.databaseName)} = ${driver.createParameter('token', 1)}`);
  for (const [alias, metadata] of [['s', sessionMeta], ['u', userMeta]] as const) {
    if (metadata.deleteDateColumn) conditions.push(`${esc(alias)}.${esc(metadata.deleteDateColumn.databaseName)} IS NULL`);
    if (metadata.discriminatorColumn && metadata.parentEntityMetadata) {
      const values = [...metadata.childEntityMetadatas.filter((child) => child.discriminatorColumn).map((child) => child.discriminatorValue), metadata.discriminatorValue];
      conditions.push(`${esc(alias)}.${esc(metadata.discriminatorColumn.databaseName)} IN (${values.map(param).join(', ')})`);
    }
  }
  const sql =
    `SELECT ${[...select('s', session), ...select('u', user)].join(', ')}` +
    ` FROM ${table(sessionMeta)} ${esc('s')}` +
    ` INNER JOIN ${table(userMeta)} ${esc('u')} ON ${esc('u')}.${esc(id.databaseName)} = ${esc('s')}.${esc(userId.databaseName)}` +
    ` WHERE ${conditions.join(' AND ')}`;
  const params = (sessionToken: string) => (mysql ? [sessionToken, sessionToken, ...fixed] : [sessionToken, ...fixed]);

  return { session, user, run: lookupRunner(dataSource, sql, params, options.preparedStatements) };
}

/**
 * How the lookup's SQL runs. PostgreSQL (`pg`): a named prepared statement on TypeORM's pool, parsed
 * and planned once per connection. better-sqlite3: one statement prepared on TypeORM's connection.
 * Elsewhere (or with `preparedStatements: false`): `DataSource.query`. The direct paths skip
 * TypeORM's query logging and subscribers' query events; the statement reads only.
 */
function lookupRunner(
  dataSource: DataSource,
  sql: string,
  params: (sessionToken: string) => unknown[],
  prepared: boolean,
): SessionLookupPlan['run'] {
  const viaDataSource = async (sessionToken: string) => {
    const rows = (await dataSource.query(sql, params(sessionToken))) as ObjectLiteral[];
    return rows[0];
  };
  if (!prepared) return viaDataSource;
  const driver = dataSource.driver as typeof dataSource.driver & { master?: PgPool; databaseConnection?: SqliteDatabase };
  const type = dataSource.options.type;
  if (type === 'postgres') {
    const name = `nestjs_auth_session_${createHash('sha256').update(sql).digest('hex').slice(0, 16)}`;
    return async (sessionToken) => {
      const pool = driver.master;
      if (!pool || typeof pool.query !== 'function') return viaDataSource(sessionToken);
      const result = await pool.query({ name, text: sql, values: params(sessionToken) });
      return result.rows[0];
    };
  }
  if (type === 'better-sqlite3') {
    let statementOf: { connection: SqliteDatabase; statement: SqliteStatement } | undefined;
    return async (sessionToken) => {
      const connection = driver.databaseConnection;
      if (!connection || typeof connection.prepare !== 'function') return viaDataSource(sessionToken);
      if (statementOf?.connection !== connection) statementOf = { connection, statement: connection.prepare(sql) };
      return statementOf.statement.get(...params(sessionToken));
    };
  }
  return viaDataSource;
}

/** The part of a `pg` Pool the lookup uses. */
interface PgPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: ObjectLiteral[] }>;
}

/** The part of a better-sqlite3 Database the lookup uses. */
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
}
interface SqliteStatement {
  get(...params: unknown[]): ObjectLiteral | undefined;
}

function versionAtLeast(actual: number[], wanted: number[]): boolean {
  for (let i = 0; i < wanted.length; i++) {
    if ((actual[i] ?? 0) !== wanted[i]) return (actual[i] ?? 0) > wanted[i]!;
  }
  return true;
}

/** The entity as a plain object (so callers hold no TypeORM instance), or `null`. */
function plain<T extends object>(row: T | null | undefined): T | null {
  return row ? ({ ...row } as T) : null;
}

/** An account without the `null`s of its unset token columns (the type has them optional). */
function accountOf(row: ObjectLiteral): AdapterAccount {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null && v !== undefined)) as AdapterAccount;
}

/** Only the properties that are columns of the entity, and not undefined (a partial update). */
function columnsOnly(metadata: EntityMetadata, values: object): ObjectLiteral {
  const out: ObjectLiteral = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && metadata.findColumnWithPropertyName(key)) out[key] = value;
  }
  return out;
}

interface DriverError {
  code?: string;
  errno?: number;
  constraint?: string;
  message?: string;
}

function driverErrorOf(error: unknown): DriverError {
  const e = error as { driverError?: DriverError } & DriverError;
  return e?.driverError ?? e ?? {};
}

/** The name of the violated constraint, as far as the driver tells (for choosing the conflict kind). */
function constraintOf(error: unknown): string {
  const e = driverErrorOf(error);
  return `${e.constraint ?? ''} ${e.message ?? ''}`;
}

/**
 * A driver's unique or foreign-key violation as a typed error that names the rule, never the values
 * (drivers quote the duplicate key in their messages). Anything else is rethrown as it is.
 */
function mapWriteError(error: unknown, conflict: (error: unknown) => AdapterConflictKind): unknown {
  const { code, errno } = driverErrorOf(error);
  if (code === '23505' || code === 'ER_DUP_ENTRY' || errno === 1062 || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new AdapterConflictError(conflict(error), undefined, { cause: error });
  }
  if (code === '23503' || code === 'ER_NO_REFERENCED_ROW_2' || errno === 1452 || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new AdapterNotFoundError('user', 'The record refers to a user that does not exist.');
  }
  return error;
}
