import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ObjectLiteral, Repository } from 'typeorm';
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterSessionDetails,
  AdapterUser,
  VerificationToken,
} from '../adapter.interface.js';
import { usedNow } from './authenticator-names.query.js';
import { AdapterConflictError, AdapterNotFoundError } from '../../errors/auth.errors.js';
import { defaultAuthEntities, type EntityClass, type TypeOrmAdapterEntities } from './auth-entities.js';
import { SessionLookup } from './session-lookup.js';
import type { SynchronousSessionLookupAdapter } from '../sync-session-lookup.js';
import { specSessionOf, storableDetails } from './session-details.query.js';
import { accountOf, deleteReturningSupported, plain, TypeOrmQueries, type Keys } from './typeorm-queries.js';
import { constraintOf } from './write-errors.js';
import type { ResolvedAuthSchema } from './schema-entities.js';
import { assertSchema, schemaForDataSource } from './schema-check.js';
import { SchemaIds } from './schema-ids.js';
import type { TypeOrmAdapterOptions } from './typeorm-adapter.options.js';

/**
 * SPEC section 4's adapter contract over a TypeORM `DataSource`: the wiring (entities or a `schema`
 * mapping, ids, the prepared session lookup) and the nineteen methods. `TypeOrmAdapter`
 * extends it with the capabilities beyond SPEC; use that class, not this one.
 */
@Injectable()
export class TypeOrmSpecAdapter implements Adapter, SynchronousSessionLookupAdapter, OnModuleInit {
  /** The entity classes (or, with `schema`, entity schemas) in use. */
  readonly entities: Readonly<TypeOrmAdapterEntities>;
  /** The schema mapping in use (`schema` option), resolved for the data source's dialect. */
  readonly schema?: ResolvedAuthSchema;
  protected readonly queries: TypeOrmQueries;
  protected readonly ids: SchemaIds;
  /** The session lookup (one prepared query joining the session and its user). */
  private readonly lookup: SessionLookup;

  constructor(
    protected readonly dataSource: DataSource,
    entities: Partial<TypeOrmAdapterEntities> = {},
    options: TypeOrmAdapterOptions = {},
  ) {
    if (options.schema) this.schema = schemaForDataSource(dataSource, options.schema);
    this.entities = this.schema ? this.schema.entities : { ...defaultAuthEntities, ...entities };
    this.ids = new SchemaIds(this.schema?.mapping);
    this.queries = new TypeOrmQueries(dataSource);
    this.lookup = new SessionLookup(dataSource, this.entities, this.queries.mysql, options.preparedStatements ?? true);
  }

  /**
   * With `schema`: checks at bootstrap that the tables and columns exist with compatible types, and
   * fails with one `AuthConfigurationError` listing every difference. Nothing is created or altered.
   */
  async onModuleInit(): Promise<void> {
    if (this.schema) await assertSchema(this.dataSource, this.schema);
  }

  // ---- users ------------------------------------------------------------------------------------

  async createUser(user: AdapterUser): Promise<AdapterUser> {
    const repo = this.repo(this.entities.User);
    const given = this.ids.newUserId(user.id);
    const result = await this.queries.insert(
      repo,
      { ...user, id: given, emailVerified: user.emailVerified ?? null },
      (e) => (/email/i.test(constraintOf(e)) ? 'user.email' : 'user'),
    );
    const id = given ?? String((result.identifiers[0] as { id?: unknown } | undefined)?.id);
    // Read back: columns of a custom entity may have database defaults.
    const created = await this.getUser(id);
    if (!created) throw new AdapterNotFoundError('user');
    return created;
  }

  async getUser(id: string): Promise<AdapterUser | null> {
    if (!this.ids.validUserId(id)) return null;
    return plain(await this.queries.select(this.entities.User, 'u', { id }).getOne());
  }

  async getUserByEmail(email: string): Promise<AdapterUser | null> {
    return plain(await this.queries.select(this.entities.User, 'u', { email }).getOne());
  }

  async getUserByAccount(key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Promise<AdapterUser | null> {
    const [where, params] = this.queries.where('a', {
      provider: key.provider,
      providerAccountId: key.providerAccountId,
    });
    const user = await this.repo(this.entities.User)
      .createQueryBuilder('u')
      .innerJoin(this.dataSource.getMetadata(this.entities.Account).target, 'a', 'a.userId = u.id')
      .where(where, params)
      .getOne();
    return plain(user);
  }

  async updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Promise<AdapterUser> {
    const { id, ...rest } = user;
    if (!this.ids.validUserId(id)) throw new AdapterNotFoundError('user');
    await this.queries.update(this.entities.User, { id }, rest, () => 'user.email');
    const updated = await this.getUser(id);
    if (!updated) throw new AdapterNotFoundError('user');
    return updated;
  }

  async deleteUser(userId: string): Promise<AdapterUser | null> {
    if (!this.ids.validUserId(userId)) return null;
    if (this.schema && !this.schema.mapping.cascade) {
      const children: EntityClass<ObjectLiteral>[] = [this.entities.Session, this.entities.Account];
      if (this.schema.mapping.authenticator) children.push(this.entities.Authenticator);
      return plain(await this.queries.deleteWithRows(this.entities.User, children, userId));
    }
    // Sessions, accounts and authenticators go with the user: ON DELETE CASCADE.
    const rows = await this.deleteReturning(this.entities.User, { id: userId });
    return plain(rows[0]);
  }

  // ---- accounts ---------------------------------------------------------------------------------

  async linkAccount(account: AdapterAccount): Promise<AdapterAccount> {
    if (!this.ids.validUserId(account.userId)) throw new AdapterNotFoundError('user');
    await this.queries.insert(
      this.repo(this.entities.Account),
      { ...account, ...this.ids.rowId('account') },
      () => 'account',
    );
    return account;
  }

  async unlinkAccount(
    key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
  ): Promise<AdapterAccount | undefined> {
    const rows = await this.deleteReturning(this.entities.Account, {
      provider: key.provider,
      providerAccountId: key.providerAccountId,
    });
    return rows[0] ? accountOf(rows[0]) : undefined;
  }

  async getAccount(providerAccountId: string, provider: string): Promise<AdapterAccount | null> {
    const row = await this.queries.select(this.entities.Account, 'a', { provider, providerAccountId }).getOne();
    return row ? accountOf(row) : null;
  }

  // ---- sessions ---------------------------------------------------------------------------------

  async createSession(
    session: { sessionToken: string; userId: string; expires: Date } & AdapterSessionDetails,
  ): Promise<AdapterSession> {
    const value = { sessionToken: session.sessionToken, userId: session.userId, expires: session.expires };
    if (!this.ids.validUserId(value.userId)) throw new AdapterNotFoundError('user');
    const repo = this.repo(this.entities.Session);
    const details = storableDetails(repo, session);
    await this.queries.insert(repo, { ...value, ...details, ...this.ids.rowId('session') }, () => 'session');
    return { ...value };
  }

  async getSessionAndUser(sessionToken: string): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
    // It runs on every guarded request: SQL built once from the entities' metadata, prepared where
    // the driver allows, and plain objects straight from the row (no entity instances).
    return (await this.lookup.find(sessionToken)) as { session: AdapterSession; user: AdapterUser } | null;
  }

  /**
   * {@link getSessionAndUser} without a promise on better-sqlite3 (the columns the default `session`
   * callback reads); `undefined` elsewhere, or when a subclass overrides `getSessionAndUser`.
   */
  getSessionAndUserSync(sessionToken: string): { session: AdapterSession; user: AdapterUser } | null | undefined {
    if (this.getSessionAndUser !== TypeOrmSpecAdapter.prototype.getSessionAndUser) return undefined;
    return this.lookup.findSync(sessionToken) as { session: AdapterSession; user: AdapterUser } | null | undefined;
  }

  async updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'> & AdapterSessionDetails,
  ): Promise<AdapterSession | null> {
    const { sessionToken, ...rest } = session;
    await this.queries.update(this.entities.Session, { sessionToken }, rest, () => 'session');
    return specSessionOf(await this.queries.select(this.entities.Session, 's', { sessionToken }).getOne());
  }

  async deleteSession(sessionToken: string): Promise<AdapterSession | null> {
    const rows = await this.deleteReturning(this.entities.Session, { sessionToken });
    return specSessionOf(rows[0]);
  }

  // ---- verification tokens ------------------------------------------------------------------------

  async createVerificationToken(token: VerificationToken): Promise<VerificationToken> {
    const value = { identifier: token.identifier, token: token.token, expires: token.expires };
    await this.queries.insert(
      this.repo(this.entities.VerificationToken),
      { ...value, ...this.ids.rowId('verificationToken') },
      () => 'verificationToken',
    );
    return { ...value };
  }

  async useVerificationToken(params: { identifier: string; token: string }): Promise<VerificationToken | null> {
    // One atomic statement: of concurrent calls, exactly one gets the row.
    const rows = await this.deleteReturning(this.entities.VerificationToken, {
      identifier: params.identifier,
      token: params.token,
    });
    const row = rows[0];
    return row ? { identifier: row.identifier, token: row.token, expires: row.expires } : null;
  }

  // ---- authenticators ---------------------------------------------------------------------------

  async createAuthenticator(authenticator: AdapterAuthenticator): Promise<AdapterAuthenticator> {
    this.authenticatorTable();
    if (!this.ids.validUserId(authenticator.userId)) throw new AdapterNotFoundError('user');
    const value = { ...authenticator, transports: authenticator.transports ?? null };
    await this.queries.insert(this.repo(this.entities.Authenticator), value, () => 'authenticator');
    const created = await this.getAuthenticator(authenticator.credentialID);
    if (!created) throw new AdapterNotFoundError('authenticator');
    return created;
  }

  async getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null> {
    this.authenticatorTable();
    return plain(await this.queries.select(this.entities.Authenticator, 'a', { credentialID }).getOne());
  }

  async listAuthenticatorsByUserId(userId: string): Promise<AdapterAuthenticator[]> {
    this.authenticatorTable();
    if (!this.ids.validUserId(userId)) return [];
    const rows = await this.queries.select(this.entities.Authenticator, 'a', { userId }).getMany();
    return rows.map((row) => plain(row) as AdapterAuthenticator);
  }

  async updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
    expectedCounter?: number,
  ): Promise<AdapterAuthenticator> {
    this.authenticatorTable();
    const repo = this.repo(this.entities.Authenticator);
    const keys: Keys = expectedCounter === undefined ? { credentialID } : { credentialID, counter: expectedCounter };
    const [where, params] = this.queries.where(repo.metadata, keys);
    // Compare-and-set: the WHERE carries the counter that was read, so of concurrent updates from
    // the same value exactly one changes a row.
    const set = { counter: newCounter, ...usedNow(repo) };
    const result = await repo.createQueryBuilder().update().set(set).where(where, params).execute();
    const current = await this.getAuthenticator(credentialID);
    if (!current) throw new AdapterNotFoundError('authenticator');
    if (result.affected === 0 || (result.affected === undefined && current.counter !== newCounter)) {
      throw new AdapterConflictError(
        'authenticator.counter',
        'The authenticator was used concurrently: its counter changed since it was read.',
      );
    }
    return current;
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /**
   * Whether the database deletes and returns in one statement: PostgreSQL, SQLite 3.35+ and MariaDB
   * 10.0.5+ do (also when reached through the `mysql` driver); MySQL does not.
   */
  protected supportsDeleteReturning(): boolean {
    return deleteReturningSupported(this.dataSource);
  }

  /** Throws when the schema mapping has no authenticator table. */
  protected authenticatorTable(): void {
    if (this.schema && !this.schema.mapping.authenticator)
      throw new AdapterNotFoundError('authenticator', `The schema "${this.schema.name}" has no authenticator table.`);
  }

  protected repo<T extends ObjectLiteral>(entity: EntityClass<T>): Repository<T> {
    return this.queries.repo(entity);
  }

  private deleteReturning<T extends ObjectLiteral>(entity: EntityClass<T>, keys: Keys): Promise<T[]> {
    return this.queries.deleteReturning(entity, keys, this.supportsDeleteReturning());
  }
}
