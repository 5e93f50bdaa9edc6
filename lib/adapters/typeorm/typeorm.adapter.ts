import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ObjectLiteral, Repository } from 'typeorm';
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from '../adapter.interface.js';
import { AdapterConflictError, AdapterNotFoundError } from '../../errors/auth.errors.js';
import { defaultAuthEntities, type EntityClass, type TypeOrmAdapterEntities } from './auth-entities.js';
import { buildSessionLookup, plainRowReader, type SessionLookupPlan } from './session-lookup.js';
import { accountOf, deleteReturningSupported, plain, TypeOrmQueries, type Keys } from './typeorm-queries.js';
import { constraintOf } from './write-errors.js';

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
  private readonly queries: TypeOrmQueries;
  private readonly options: Required<TypeOrmAdapterOptions>;
  /** The session lookup and its row readers, built on first use. */
  private lookup?: SessionLookupPlan & {
    readSession: (row: ObjectLiteral) => ObjectLiteral;
    readUser: (row: ObjectLiteral) => ObjectLiteral;
  };

  constructor(
    private readonly dataSource: DataSource,
    entities: Partial<TypeOrmAdapterEntities> = {},
    options: TypeOrmAdapterOptions = {},
  ) {
    this.entities = { ...defaultAuthEntities, ...entities };
    this.queries = new TypeOrmQueries(dataSource);
    this.options = { preparedStatements: options.preparedStatements ?? true };
  }

  // ---- users ------------------------------------------------------------------------------------

  async createUser(user: AdapterUser): Promise<AdapterUser> {
    const repo = this.repo(this.entities.User);
    const id = user.id || randomUUID();
    await this.queries.insert(repo, { ...user, id, emailVerified: user.emailVerified ?? null }, (e) =>
      /email/i.test(constraintOf(e)) ? 'user.email' : 'user',
    );
    // Read back: columns of a custom entity may have database defaults.
    const created = await this.getUser(id);
    if (!created) throw new AdapterNotFoundError('user');
    return created;
  }

  async getUser(id: string): Promise<AdapterUser | null> {
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
      .innerJoin(this.entities.Account, 'a', 'a.userId = u.id')
      .where(where, params)
      .getOne();
    return plain(user);
  }

  async updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Promise<AdapterUser> {
    const { id, ...rest } = user;
    await this.queries.update(this.entities.User, { id }, rest, () => 'user.email');
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
    await this.queries.insert(this.repo(this.entities.Account), account, () => 'account');
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

  async createSession(session: { sessionToken: string; userId: string; expires: Date }): Promise<AdapterSession> {
    const value = { sessionToken: session.sessionToken, userId: session.userId, expires: session.expires };
    await this.queries.insert(this.repo(this.entities.Session), value, () => 'session');
    return { ...value };
  }

  async getSessionAndUser(sessionToken: string): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
    // One query, the session joined with its user. It runs on every guarded request, so its SQL is
    // built once from the entities' metadata and, where the driver allows, prepared once.
    const plan = (this.lookup ??= this.buildLookup());
    const row = await plan.run(sessionToken);
    if (!row) return null;
    // Plain objects straight from the row: no entity instances on this path.
    return { session: plan.readSession(row) as AdapterSession, user: plan.readUser(row) as AdapterUser };
  }

  private buildLookup(): NonNullable<TypeOrmAdapter['lookup']> {
    const plan = buildSessionLookup(
      this.dataSource,
      this.entities,
      this.queries.mysql,
      this.options.preparedStatements,
    );
    return {
      ...plan,
      readSession: plainRowReader(this.dataSource, plan.session),
      readUser: plainRowReader(this.dataSource, plan.user),
    };
  }

  async updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'>,
  ): Promise<AdapterSession | null> {
    const { sessionToken, ...rest } = session;
    await this.queries.update(this.entities.Session, { sessionToken }, rest, () => 'session');
    return plain(
      await this.queries.select(this.entities.Session, 's', { sessionToken }).getOne(),
    ) as AdapterSession | null;
  }

  async deleteSession(sessionToken: string): Promise<AdapterSession | null> {
    const rows = await this.deleteReturning(this.entities.Session, { sessionToken });
    return (plain(rows[0]) as AdapterSession | null) ?? null;
  }

  // ---- verification tokens ------------------------------------------------------------------------

  async createVerificationToken(token: VerificationToken): Promise<VerificationToken> {
    const value = { identifier: token.identifier, token: token.token, expires: token.expires };
    await this.queries.insert(this.repo(this.entities.VerificationToken), value, () => 'verificationToken');
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
    const value = { ...authenticator, transports: authenticator.transports ?? null };
    await this.queries.insert(this.repo(this.entities.Authenticator), value, () => 'authenticator');
    const created = await this.getAuthenticator(authenticator.credentialID);
    if (!created) throw new AdapterNotFoundError('authenticator');
    return created;
  }

  async getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null> {
    return plain(await this.queries.select(this.entities.Authenticator, 'a', { credentialID }).getOne());
  }

  async listAuthenticatorsByUserId(userId: string): Promise<AdapterAuthenticator[]> {
    const rows = await this.queries.select(this.entities.Authenticator, 'a', { userId }).getMany();
    return rows.map((row) => plain(row) as AdapterAuthenticator);
  }

  async updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
    expectedCounter?: number,
  ): Promise<AdapterAuthenticator> {
    const repo = this.repo(this.entities.Authenticator);
    const keys: Keys = expectedCounter === undefined ? { credentialID } : { credentialID, counter: expectedCounter };
    const [where, params] = this.queries.where(repo.metadata, keys);
    // Compare-and-set: the WHERE carries the counter that was read, so of concurrent updates from
    // the same value exactly one changes a row.
    const result = await repo.createQueryBuilder().update().set({ counter: newCounter }).where(where, params).execute();
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

  /** Deletes every session of a user (beyond SPEC: `SessionsByUserAdapter`, for `AuthService.signOutEverywhere`). */
  async deleteSessionsByUserId(userId: string): Promise<number> {
    return this.queries.deleteAll(this.entities.Session, { userId });
  }

  /** Deletes every verification token of an identifier (beyond SPEC: `VerificationTokensByIdentifierAdapter`). */
  async deleteVerificationTokensByIdentifier(identifier: string): Promise<number> {
    return this.queries.deleteAll(this.entities.VerificationToken, { identifier });
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
    return {
      sessions: await this.queries.deleteExpired(this.entities.Session, now),
      verificationTokens: await this.queries.deleteExpired(this.entities.VerificationToken, now),
    };
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /**
   * Whether the database deletes and returns in one statement: PostgreSQL, SQLite 3.35+ and MariaDB
   * 10.0.5+ do (also when reached through the `mysql` driver); MySQL does not.
   */
  protected supportsDeleteReturning(): boolean {
    return deleteReturningSupported(this.dataSource);
  }

  private repo<T extends ObjectLiteral>(entity: EntityClass<T>): Repository<T> {
    return this.queries.repo(entity);
  }

  private deleteReturning<T extends ObjectLiteral>(entity: EntityClass<T>, keys: Keys): Promise<T[]> {
    return this.queries.deleteReturning(entity, keys, this.supportsDeleteReturning());
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
