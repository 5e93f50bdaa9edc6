import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ObjectLiteral, Repository } from 'typeorm';
import type {
  AccountTokens,
  AccountTokensAdapter,
  Adapter,
  AdapterAccount,
  AdapterApiKey,
  AdapterAuthenticator,
  AdapterRefreshFamily,
  AdapterSession,
  AdapterSessionDetails,
  AdapterSessionInfo,
  AdapterSigningKey,
  AdapterTwoFactor,
  AdapterUser,
  ApiKeyAdapter,
  PasskeyNamesAdapter,
  PrivateAccountTokensAdapter,
  RefreshTokenAdapter,
  SessionListingAdapter,
  SessionsByProviderSidAdapter,
  SessionsByUserAdapter,
  SigningKeyAdapter,
  TwoFactorAdapter,
  UserDeletionAdapter,
  VerificationToken,
  VerificationTokensByIdentifierAdapter,
} from '../adapter.interface.js';
import {
  API_KEY_ADAPTER_METHODS,
  REFRESH_TOKEN_ADAPTER_METHODS,
  SIGNING_KEY_ADAPTER_METHODS,
  TWO_FACTOR_ADAPTER_METHODS,
} from '../adapter-extensions.js';
import { compareAndSetCounter, updateName, usedNow } from './authenticator.query.js';
import { AdapterConflictError, AdapterNotFoundError, MissingAdapterMethods } from '../../errors/auth.errors.js';
import { defaultAuthEntities, type EntityClass, type TypeOrmAdapterEntities } from './auth-entities.js';
import { SessionLookup } from './session-lookup.js';
import { PlainStatements, type PlainUpdate, type Statement } from './plain-statements.js';
import type { SynchronousSessionLookupAdapter } from '../sync-session-lookup.js';
import { sessionInfoOf, specSessionOf, storableDetails } from './session-details.query.js';
import { accountOf, deleteReturningSupported, plain, TypeOrmQueries, type Keys } from './typeorm-queries.js';
import { swapAccountTokens, type AccountTokensMatch } from './account-tokens.query.js';
import { constraintOf } from './write-errors.js';
import type { ResolvedAuthSchema } from './schema-entities.js';
import { assertSchema, schemaForDataSource } from './schema-check.js';
import { SchemaIds } from './schema-ids.js';
import type { TwoFactorEntity } from './two-factor.entity.js';
import { storedTwoFactor, twoFactorOf, useStep } from './two-factor.query.js';
import type { RefreshFamilyEntity } from './refresh-family.entity.js';
import { newRefreshFamily, refreshRotation, rotateFamily, storedRefreshFamily } from './refresh-family.query.js';
import type { ApiKeyEntity } from './api-key.entity.js';
import { apiKeyPatch, listApiKeys, newApiKey, storedApiKey } from './api-key.query.js';
import type { SigningKeyEntity } from './signing-key.entity.js';
import { listSigningKeys, newSigningKey, signingKeyPatch, storedSigningKey } from './signing-key.query.js';
import type { TypeOrmAdapterOptions } from './typeorm-adapter.options.js';

export type { TypeOrmAdapterOptions } from './typeorm-adapter.options.js';

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
 *
 * SPEC section 4's nineteen methods, and the capabilities beyond SPEC (device list, sign out
 * everywhere, token refresh, passkey names, account deletion, two-factor, refresh-token, API key and
 * signing-key storage), each marked "beyond SPEC". `TwoFactorAdapter`'s methods are `undefined` on an
 * instance without a two-factor table (with a `schema` preset or mapping: Auth.js's tables have none;
 * with `TwoFactor: undefined`; or a data source that does not list `TwoFactorEntity`), so `typeof
 * adapter.createTwoFactor` tells whether two-factor authentication can be offered; likewise
 * `RefreshTokenAdapter`'s without a `refresh_token_families` table (`RefreshFamily`,
 * `RefreshFamilyEntity`), `ApiKeyAdapter`'s without `api_keys` (`ApiKey`, `ApiKeyEntity`) and
 * `SigningKeyAdapter`'s without `signing_keys` (`SigningKey`, `SigningKeyEntity`). The
 * statements themselves live in `TypeOrmQueries` and the `*.query` helpers; the session lookup (one
 * prepared query joining the session and its user) in `SessionLookup`; a sign-in's statements (user
 * and account lookups, the token's consumption, the session's insert, the second factors' list and
 * step, the passkey's read and counter, the account tokens' compare-and-swap), built once from the
 * metadata and prepared, in `PlainStatements` (the query builder where they cannot run plainly).
 */
@Injectable()
export class TypeOrmAdapter
  implements
    Adapter,
    SynchronousSessionLookupAdapter,
    OnModuleInit,
    AccountTokensAdapter,
    UserDeletionAdapter,
    PasskeyNamesAdapter,
    PrivateAccountTokensAdapter,
    SessionListingAdapter,
    SessionsByProviderSidAdapter,
    SessionsByUserAdapter,
    TwoFactorAdapter,
    RefreshTokenAdapter,
    ApiKeyAdapter,
    SigningKeyAdapter,
    VerificationTokensByIdentifierAdapter
{
  /** The entity classes (or, with `schema`, entity schemas) in use. */
  readonly entities: Readonly<TypeOrmAdapterEntities>;
  /** The schema mapping in use (`schema` option), resolved for the data source's dialect. */
  readonly schema?: ResolvedAuthSchema;
  /**
   * The statements the adapter is built from, over its data source.
   *
   * @internal
   */
  protected readonly queries: TypeOrmQueries;
  /**
   * The id rules of the schema mapping (or of the default entities).
   *
   * @internal
   */
  protected readonly ids: SchemaIds;
  /** The session lookup (one prepared query joining the session and its user). */
  private readonly lookup: SessionLookup;
  /**
   * The statements of a sign-in's path, built once from the metadata and run without the query
   * builder (see `PlainStatements`): the same rows as the query builder's, for less CPU.
   */
  private readonly signIn: {
    userById: Statement;
    userByEmail: Statement;
    userByAccount: Statement;
    account: Statement;
    /** The user's accounts (`listAccountsByUserId`: an OAuth sign-in's token write reads them). */
    accountsOfUser: Statement;
    useVerificationToken: Statement;
    insertSession: (value: object) => Promise<void>;
    /** A passkey by its credential id (sign-in and the read after its counter moved). */
    authenticator: Statement;
    /** The counter's compare-and-set (`UPDATE ... RETURNING`): by credential id, and the counter read. */
    moveCounter: PlainUpdate;
    /** The counter set without an expected value (by credential id only). */
    setCounter: PlainUpdate;
    /** The compare-and-swap of an account's tokens (`UPDATE ... RETURNING`; see `swapAccountTokens`). */
    swapAccountTokens: PlainUpdate;
  };
  /** The second-factor statements of a sign-in, when there is a two-factor table. */
  private readonly factorStatements?: {
    entity: EntityClass<TwoFactorEntity>;
    /** The user's factors, oldest first (`listTwoFactorsByUserId`). */
    list: Statement;
    /** The TOTP step's compare-and-set (`useTwoFactorStep`). */
    useStep: PlainUpdate;
  };
  /** The two-factor entity, when there is a table for it (see {@link TwoFactorAdapter}). */
  private readonly twoFactorEntity?: EntityClass<TwoFactorEntity>;
  /** The refresh-token family entity, when there is a table for it (see {@link RefreshTokenAdapter}). */
  private readonly refreshFamilyEntity?: EntityClass<RefreshFamilyEntity>;
  /** The API key entity, when there is a table for it (see {@link ApiKeyAdapter}). */
  private readonly apiKeyEntity?: EntityClass<ApiKeyEntity>;
  /**
   * The API key reads and writes of the guard's path (a key's first request, and its `lastUsedAt`
   * once a minute), built once like {@link signIn}'s: by id, and the update by id and user.
   */
  private readonly apiKeyStatements?: { entity: EntityClass<ApiKeyEntity>; byId: Statement; update: PlainUpdate };
  /** The signing-key entity, when there is a table for it (see {@link SigningKeyAdapter}). */
  private readonly signingKeyEntity?: EntityClass<SigningKeyEntity>;

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
    const statements = new PlainStatements(dataSource, this.queries, options.preparedStatements ?? true);
    const { User, Account, Session, VerificationToken, Authenticator } = this.entities;
    this.signIn = {
      userById: statements.select(User, ['id']),
      userByEmail: statements.select(User, ['email']),
      userByAccount: statements.select(User, ['provider', 'providerAccountId'], {
        entity: Account,
        on: ['userId', 'id'],
      }),
      account: statements.select(Account, ['provider', 'providerAccountId']),
      accountsOfUser: statements.select(Account, ['userId']),
      useVerificationToken: statements.deleteReturning(VerificationToken, ['identifier', 'token']),
      insertSession: statements.insert(Session, () => 'session'),
      authenticator: statements.select(Authenticator, ['credentialID']),
      moveCounter: statements.update(
        Authenticator,
        [
          { property: 'credentialID', is: 'equal' },
          { property: 'counter', is: 'equal' },
        ],
        { returning: true },
      ),
      setCounter: statements.update(Authenticator, [{ property: 'credentialID', is: 'equal' }], { returning: true }),
      swapAccountTokens: statements.update(
        Account,
        [
          { property: 'provider', is: 'equal' },
          { property: 'providerAccountId', is: 'equal' },
          { property: 'refresh_token', is: 'equal-or-null' },
          { property: 'expires_at', is: 'equal-or-null' },
        ],
        { returning: true },
      ),
    };
    // Auth.js's tables have no two-factor table; an initialized data source shows whether it lists one.
    const twoFactor = this.schema ? undefined : this.entities.TwoFactor;
    if (twoFactor && (!dataSource.isInitialized || dataSource.hasMetadata(twoFactor))) {
      this.twoFactorEntity = twoFactor;
      this.factorStatements = {
        entity: twoFactor,
        list: statements.select(twoFactor, ['userId'], undefined, ['createdAt', 'id']),
        useStep: statements.update(twoFactor, [
          { property: 'id', is: 'equal' },
          { property: 'userId', is: 'equal' },
          { property: 'lastUsedStep', is: 'null-or-below' },
        ]),
      };
    } else withoutMethods(this, TWO_FACTOR_ADAPTER_METHODS);
    // Nor a refresh-token family table.
    const refreshFamily = this.schema ? undefined : this.entities.RefreshFamily;
    if (refreshFamily && (!dataSource.isInitialized || dataSource.hasMetadata(refreshFamily)))
      this.refreshFamilyEntity = refreshFamily;
    else withoutMethods(this, REFRESH_TOKEN_ADAPTER_METHODS);
    // Nor an API key table, nor a signing-key table.
    const apiKey = this.schema ? undefined : this.entities.ApiKey;
    if (apiKey && (!dataSource.isInitialized || dataSource.hasMetadata(apiKey))) {
      this.apiKeyEntity = apiKey;
      this.apiKeyStatements = {
        entity: apiKey,
        byId: statements.select(apiKey, ['id']),
        update: statements.update(
          apiKey,
          [
            { property: 'id', is: 'equal' },
            { property: 'userId', is: 'equal' },
          ],
          { returning: true },
        ),
      };
    } else withoutMethods(this, API_KEY_ADAPTER_METHODS);
    const signingKey = this.schema ? undefined : this.entities.SigningKey;
    if (signingKey && (!dataSource.isInitialized || dataSource.hasMetadata(signingKey)))
      this.signingKeyEntity = signingKey;
    else withoutMethods(this, SIGNING_KEY_ADAPTER_METHODS);
  }

  /**
   * With `schema`: checks at bootstrap that the tables and columns exist with compatible types, and
   * fails with one `AuthConfigurationError` listing every difference. Nothing is created or altered.
   */
  async onModuleInit(): Promise<void> {
    if (this.schema) await assertSchema(this.dataSource, this.schema);
  }

  /** Own tables (no Auth.js `schema` preset): `encryptAccountTokens` defaults to on. */
  get privateAccountTokens(): boolean {
    return !this.schema;
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
    return firstRow<AdapterUser>(await this.signIn.userById([id]));
  }

  async getUserByEmail(email: string): Promise<AdapterUser | null> {
    return firstRow<AdapterUser>(await this.signIn.userByEmail([email]));
  }

  async getUserByAccount(key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Promise<AdapterUser | null> {
    // The user joined to the account, as `innerJoin(Account, 'a', 'a.userId = u.id')` would read it.
    return firstRow<AdapterUser>(await this.signIn.userByAccount([key.provider, key.providerAccountId]));
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
    if (this.schema && !this.schema.mapping.cascade)
      return plain(await this.queries.deleteWithRows(this.entities.User, this.userRows(), userId));
    // Sessions, accounts and authenticators go with the user: ON DELETE CASCADE.
    const rows = await this.deleteReturning(this.entities.User, { id: userId });
    return plain(rows[0]);
  }

  /**
   * Deletes the user with its sessions, accounts, authenticators and its address's verification
   * tokens in one transaction (beyond SPEC: `UserDeletionAdapter`, for `AuthService.deleteAccount`).
   */
  async deleteUserCascade(userId: string): Promise<AdapterUser | null> {
    if (!this.ids.validUserId(userId)) return null;
    const { User, VerificationToken } = this.entities;
    return plain(await this.queries.deleteWithRows(User, this.userRows(), userId, VerificationToken));
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
    const row = firstRow(await this.signIn.account([provider, providerAccountId]));
    return row ? accountOf(row) : null;
  }

  /** The user's accounts (beyond SPEC: `AccountTokensAdapter`, for `AuthService.getAccessToken`). */
  async listAccountsByUserId(userId: string): Promise<AdapterAccount[]> {
    return (await this.signIn.accountsOfUser([userId])).map(accountOf);
  }

  /** Compare-and-swap of the account's tokens (beyond SPEC: `AccountTokensAdapter`; see `swapAccountTokens`). */
  async updateAccountTokens(match: AccountTokensMatch, next: AccountTokens): Promise<AdapterAccount | null> {
    // One `UPDATE ... RETURNING` where the driver allows: the row as written, without reading it again.
    const metadata = this.repo(this.entities.Account).metadata;
    const changes: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(next))
      if (value !== undefined && metadata.findColumnWithPropertyName(key)) changes[key] = value;
    const swapped = await this.signIn.swapAccountTokens(changes, [
      match.provider,
      match.providerAccountId,
      match.refresh_token,
      match.expires_at,
    ]);
    if (swapped) return swapped.affected === 0 || !swapped.rows[0] ? null : accountOf(swapped.rows[0]);
    const affected = await swapAccountTokens(this.dataSource, this.queries, this.entities.Account, match, next);
    if (affected === 0) return null;
    const current = await this.getAccount(match.providerAccountId, match.provider);
    if (!current) return null;
    // A driver that does not report affected rows: the row must now hold what was written.
    if (
      affected === undefined &&
      next.refresh_token !== undefined &&
      (current.refresh_token ?? null) !== next.refresh_token
    )
      return null;
    return current;
  }

  // ---- sessions ---------------------------------------------------------------------------------

  async createSession(
    session: { sessionToken: string; userId: string; expires: Date } & AdapterSessionDetails,
  ): Promise<AdapterSession> {
    const value = { sessionToken: session.sessionToken, userId: session.userId, expires: session.expires };
    if (!this.ids.validUserId(value.userId)) throw new AdapterNotFoundError('user');
    const repo = this.repo(this.entities.Session);
    const details = storableDetails(repo, session);
    await this.signIn.insertSession({ ...value, ...details, ...this.ids.rowId('session') });
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
    if (this.getSessionAndUser !== TypeOrmAdapter.prototype.getSessionAndUser) return undefined;
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

  /** The user's sessions with their details (beyond SPEC: `SessionListingAdapter`). */
  async listSessionsByUserId(userId: string): Promise<AdapterSessionInfo[]> {
    if (!this.ids.validUserId(userId)) return [];
    const rows = await this.queries.select(this.entities.Session, 's', { userId }).getMany();
    return rows.map(sessionInfoOf);
  }

  /** The sessions of one OP session (beyond SPEC: `SessionsByProviderSidAdapter`; none without the column). */
  async listSessionsByProviderSid(providerSid: string): Promise<AdapterSessionInfo[]> {
    const repo = this.dataSource.getRepository(this.entities.Session);
    if (!providerSid || !repo.metadata.findColumnWithPropertyName('providerSid')) return [];
    return (await this.queries.select(this.entities.Session, 's', { providerSid }).getMany()).map(sessionInfoOf);
  }

  /** Deletes every session of a user (beyond SPEC: `SessionsByUserAdapter`, for `AuthService.signOutEverywhere`). */
  async deleteSessionsByUserId(userId: string): Promise<number> {
    if (!this.ids.validUserId(userId)) return 0;
    return this.queries.deleteAll(this.entities.Session, { userId });
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
    // One atomic statement (DELETE ... RETURNING; MySQL: a locking transaction): of concurrent
    // calls, exactly one gets the row.
    const rows = this.supportsDeleteReturning()
      ? await this.signIn.useVerificationToken([params.identifier, params.token])
      : await this.deleteReturning(this.entities.VerificationToken, {
          identifier: params.identifier,
          token: params.token,
        });
    const row = rows[0];
    return row ? { identifier: row.identifier, token: row.token, expires: row.expires } : null;
  }

  /** Deletes every verification token of an identifier (beyond SPEC: `VerificationTokensByIdentifierAdapter`). */
  async deleteVerificationTokensByIdentifier(identifier: string): Promise<number> {
    return this.queries.deleteAll(this.entities.VerificationToken, { identifier });
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
    return firstRow<AdapterAuthenticator>(await this.signIn.authenticator([credentialID]));
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
    // One `UPDATE ... RETURNING` where the driver allows: the row as written, without reading it again.
    const repo = this.repo(this.entities.Authenticator);
    const moved =
      expectedCounter === undefined
        ? await this.signIn.setCounter({ counter: newCounter, ...usedNow(repo) }, [credentialID])
        : await this.signIn.moveCounter({ counter: newCounter, ...usedNow(repo) }, [credentialID, expectedCounter]);
    if (moved?.rows[0]) return moved.rows[0] as AdapterAuthenticator;
    if (moved) {
      if (!(await this.getAuthenticator(credentialID))) throw new AdapterNotFoundError('authenticator');
      throw new AdapterConflictError(
        'authenticator.counter',
        'The authenticator was used concurrently: its counter changed since it was read.',
      );
    }
    const affected = await compareAndSetCounter(this.queries, repo, credentialID, newCounter, expectedCounter);
    const current = await this.getAuthenticator(credentialID);
    if (!current) throw new AdapterNotFoundError('authenticator');
    if (affected === 0 || (affected === undefined && current.counter !== newCounter)) {
      throw new AdapterConflictError(
        'authenticator.counter',
        'The authenticator was used concurrently: its counter changed since it was read.',
      );
    }
    return current;
  }

  /** Sets or clears a passkey's name (beyond SPEC: `PasskeyNamesAdapter`); `null` for an unknown credential. */
  async updateAuthenticatorName(credentialID: string, name: string | null): Promise<AdapterAuthenticator | null> {
    this.authenticatorTable();
    const repo = this.repo(this.entities.Authenticator);
    const [where, params] = this.queries.where(repo.metadata, { credentialID });
    return (await updateName(repo, where, params, name)) ? this.getAuthenticator(credentialID) : null;
  }

  /** Deletes an authenticator (beyond SPEC: `PasskeyNamesAdapter`); `true` when a row went. */
  async deleteAuthenticator(credentialID: string): Promise<boolean> {
    this.authenticatorTable();
    return (await this.queries.deleteAll(this.entities.Authenticator, { credentialID })) > 0;
  }

  // ---- two-factor authentication (beyond SPEC: `TwoFactorAdapter`) ---------------------------------

  /** Stores a new factor of a user (`AdapterNotFoundError` for an unknown user). */
  async createTwoFactor(factor: AdapterTwoFactor): Promise<AdapterTwoFactor> {
    const entity = this.twoFactorTable();
    if (!this.ids.validUserId(factor.userId)) throw new AdapterNotFoundError('user');
    const stored = storedTwoFactor(factor);
    await this.queries.insert(this.repo(entity), stored, () => 'twoFactor');
    // Read back (dates and numbers as the database keeps them), unless already deleted again.
    const created = await this.queries.select(entity, 'f', { id: factor.id, userId: factor.userId }).getOne();
    return created ? twoFactorOf(created) : stored;
  }

  /** The user's factors, unconfirmed ones included, oldest first. */
  async listTwoFactorsByUserId(userId: string): Promise<AdapterTwoFactor[]> {
    const entity = this.twoFactorTable();
    if (!this.ids.validUserId(userId)) return [];
    if (this.factorStatements?.entity === entity) return (await this.factorStatements.list([userId])).map(twoFactorOf);
    const rows = await this.queries
      .select(entity, 'f', { userId })
      .orderBy('f.createdAt', 'ASC')
      .addOrderBy('f.id', 'ASC')
      .getMany();
    return rows.map(twoFactorOf);
  }

  /** Sets the factor's `name` and/or `confirmedAt`; `null` when the user has no factor with this id. */
  async updateTwoFactor(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterTwoFactor, 'name' | 'confirmedAt'>>,
  ): Promise<AdapterTwoFactor | null> {
    const entity = this.twoFactorTable();
    if (!this.ids.validUserId(userId)) return null;
    const changes = { name: patch.name, confirmedAt: patch.confirmedAt };
    await this.queries.update(entity, { id, userId }, changes, () => 'twoFactor');
    const row = await this.queries.select(entity, 'f', { id, userId }).getOne();
    return row ? twoFactorOf(row) : null;
  }

  /** Records a use of a TOTP factor at a time step: one conditional `UPDATE` (see `useStep`). */
  async useTwoFactorStep(id: string, userId: string, step: number, at: Date): Promise<boolean> {
    const entity = this.twoFactorTable();
    if (!this.ids.validUserId(userId)) return false;
    if (this.factorStatements?.entity === entity) {
      const used = await this.factorStatements.useStep({ lastUsedStep: step, lastUsedAt: at }, [id, userId, step]);
      if (used) return used.affected === 1;
    }
    // A driver that does not report affected rows cannot tell which call won: refuse.
    return (await useStep(this.queries, this.repo(entity), { id, userId }, step, at)) === 1;
  }

  /** Deletes the user's factor; `true` when a row went (of concurrent calls, exactly one). */
  async deleteTwoFactor(id: string, userId: string): Promise<boolean> {
    const entity = this.twoFactorTable();
    if (!this.ids.validUserId(userId)) return false;
    return (await this.queries.deleteAll(entity, { id, userId })) > 0;
  }

  /** Deletes the user's factors (of `type` only, when given); returns how many went. */
  async deleteTwoFactorsByUserId(userId: string, type?: string): Promise<number> {
    const entity = this.twoFactorTable();
    if (!this.ids.validUserId(userId)) return 0;
    return this.queries.deleteAll(entity, type === undefined ? { userId } : { userId, type });
  }

  /** Replaces the user's factors of `type` with `factors` in one transaction, the user's row locked. */
  async replaceTwoFactors(userId: string, type: string, factors: AdapterTwoFactor[]): Promise<void> {
    const entity = this.twoFactorTable();
    assertFactorsOf(userId, type, factors);
    if (!this.ids.validUserId(userId)) {
      if (factors.length) throw new AdapterNotFoundError('user');
      return;
    }
    await this.queries.replace(entity, { userId, type }, factors.map(storedTwoFactor), () => 'twoFactor', [
      this.entities.User,
      { id: userId },
    ]);
  }

  // ---- refresh-token families (beyond SPEC: `RefreshTokenAdapter`) ----------------------------------

  /** Stores a new family of a user (`AdapterNotFoundError` for an unknown user, `TypeError` for an invalid family). */
  async createRefreshFamily(family: AdapterRefreshFamily): Promise<AdapterRefreshFamily> {
    const entity = this.refreshFamilyTable();
    const stored = newRefreshFamily(family);
    if (!this.ids.validUserId(stored.userId)) throw new AdapterNotFoundError('user');
    try {
      await this.queries.insert(this.repo(entity), stored, () => 'session');
    } catch (error) {
      if (!(error instanceof AdapterConflictError)) throw error;
      throw new AdapterConflictError(
        'session',
        'Storage refused the write: a refresh-token family with this id exists.',
        { cause: error.cause },
      );
    }
    // Read back (dates as the database keeps them), unless already deleted again.
    return (await this.getRefreshFamily(stored.id)) ?? stored;
  }

  /** The family, checked as it is read: a row whose fields are not of their types is `null` (fail closed). */
  async getRefreshFamily(id: string): Promise<AdapterRefreshFamily | null> {
    const entity = this.refreshFamilyTable();
    const row = await this.queries.select(entity, 'r', { id }).getOne();
    return row ? storedRefreshFamily(row) : null;
  }

  /** Rotates only when the stored generation is `from`: one conditional `UPDATE` (see `rotateFamily`). */
  async rotateRefreshFamily(
    id: string,
    from: number,
    next: Pick<AdapterRefreshFamily, 'tokenHash' | 'rotatedAt' | 'expires'>,
  ): Promise<boolean> {
    const entity = this.refreshFamilyTable();
    const rotation = refreshRotation(from, next);
    if (!rotation) return false;
    // A driver that does not report affected rows cannot tell which call won: refuse.
    return (await rotateFamily(this.queries, this.repo(entity), id, from, rotation)) === 1;
  }

  /** Deletes the family; `true` when a row went. */
  async deleteRefreshFamily(id: string): Promise<boolean> {
    const entity = this.refreshFamilyTable();
    return (await this.queries.deleteAll(entity, { id })) > 0;
  }

  /** Deletes every family of the user; returns how many went. */
  async deleteRefreshFamiliesByUserId(userId: string): Promise<number> {
    const entity = this.refreshFamilyTable();
    if (!this.ids.validUserId(userId)) return 0;
    return this.queries.deleteAll(entity, { userId });
  }

  // ---- API keys (beyond SPEC: `ApiKeyAdapter`) ------------------------------------------------------

  /** Stores a new key of a user (`AdapterNotFoundError` for an unknown user, `TypeError` for an invalid key). */
  async createApiKey(key: AdapterApiKey): Promise<AdapterApiKey> {
    const entity = this.apiKeyTable();
    const stored = newApiKey(key);
    if (!this.ids.validUserId(stored.userId)) throw new AdapterNotFoundError('user');
    try {
      await this.queries.insert(this.repo(entity), stored, () => 'apiKey');
    } catch (error) {
      if (!(error instanceof AdapterConflictError)) throw error;
      throw new AdapterConflictError('apiKey', 'Storage refused the write: an API key with this id exists.', {
        cause: error.cause,
      });
    }
    // Read back (dates as the database keeps them), unless already deleted again.
    return (await this.getApiKey(stored.id)) ?? stored;
  }

  /** The key, checked as it is read: a row whose fields are not of their types is `null` (fail closed). */
  async getApiKey(id: string): Promise<AdapterApiKey | null> {
    const entity = this.apiKeyTable();
    const row =
      this.apiKeyStatements?.entity === entity
        ? firstRow<ApiKeyEntity>(await this.apiKeyStatements.byId([id]))
        : await this.queries.select(entity, 'k', { id }).getOne();
    return row ? storedApiKey(row) : null;
  }

  /** The user's keys, oldest first; a row that is no valid key is left out. */
  async listApiKeysByUserId(userId: string): Promise<AdapterApiKey[]> {
    const entity = this.apiKeyTable();
    if (!this.ids.validUserId(userId)) return [];
    return listApiKeys(this.queries, entity, userId);
  }

  /** Sets the key's `name` and/or `lastUsedAt`; `null` when the user has no key with this id. */
  async updateApiKey(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterApiKey, 'name' | 'lastUsedAt'>>,
  ): Promise<AdapterApiKey | null> {
    const entity = this.apiKeyTable();
    const changes = apiKeyPatch(patch);
    if (!this.ids.validUserId(userId)) return null;
    // One `UPDATE ... RETURNING` where it can run without the query builder (better-sqlite3, `pg`).
    const written =
      this.apiKeyStatements?.entity === entity ? await this.apiKeyStatements.update(changes, [id, userId]) : undefined;
    if (written) return written.rows[0] ? storedApiKey(written.rows[0] as ApiKeyEntity) : null;
    await this.queries.update(entity, { id, userId }, changes, () => 'apiKey');
    const row = await this.queries.select(entity, 'k', { id, userId }).getOne();
    return row ? storedApiKey(row) : null;
  }

  /** Deletes the user's key; `true` when a row went (one `DELETE`: of concurrent calls, exactly one). */
  async deleteApiKey(id: string, userId: string): Promise<boolean> {
    const entity = this.apiKeyTable();
    if (!this.ids.validUserId(userId)) return false;
    return (await this.queries.deleteAll(entity, { id, userId })) > 0;
  }

  /** Deletes every key of the user; returns how many went. */
  async deleteApiKeysByUserId(userId: string): Promise<number> {
    const entity = this.apiKeyTable();
    if (!this.ids.validUserId(userId)) return 0;
    return this.queries.deleteAll(entity, { userId });
  }

  // ---- signing keys (beyond SPEC: `SigningKeyAdapter`) ----------------------------------------------

  /**
   * Stores a new key (`TypeError` for an invalid one). One `INSERT`: a key whose id or slot is taken
   * is refused by the primary key or `UQ_signing_keys_slot`, so of instances rotating at once exactly
   * one writes; the others get `AdapterConflictError` (`signingKey`).
   */
  async createSigningKey(key: AdapterSigningKey): Promise<AdapterSigningKey> {
    const entity = this.signingKeyTable();
    const stored = newSigningKey(key);
    try {
      await this.queries.insert(this.repo(entity), stored, () => 'signingKey');
    } catch (error) {
      if (!(error instanceof AdapterConflictError)) throw error;
      throw new AdapterConflictError(
        'signingKey',
        'Storage refused the write: a signing key with this id or slot exists.',
        { cause: error.cause },
      );
    }
    // Read back (dates as the database keeps them), unless already deleted again.
    const row = await this.queries.select(entity, 'k', { id: stored.id }).getOne();
    return (row && storedSigningKey(row)) ?? stored;
  }

  /** Every key, oldest slot first; a row that is no valid key is left out (fail closed). */
  async listSigningKeys(): Promise<AdapterSigningKey[]> {
    return listSigningKeys(this.queries, this.signingKeyTable());
  }

  /** Sets the key's `activatesAt` and/or `removesAt`; `null` when there is no such key. */
  async updateSigningKey(
    id: string,
    patch: Partial<Pick<AdapterSigningKey, 'activatesAt' | 'removesAt'>>,
  ): Promise<AdapterSigningKey | null> {
    const entity = this.signingKeyTable();
    const changes = signingKeyPatch(patch);
    await this.queries.update(entity, { id }, changes, () => 'signingKey');
    const row = await this.queries.select(entity, 'k', { id }).getOne();
    return row ? storedSigningKey(row) : null;
  }

  /** Deletes the key; `true` when a row went. */
  async deleteSigningKey(id: string): Promise<boolean> {
    const entity = this.signingKeyTable();
    return (await this.queries.deleteAll(entity, { id })) > 0;
  }

  // ---- housekeeping -------------------------------------------------------------------------------

  /**
   * Deletes the sessions, verification tokens, native apps' refresh-token families and API keys that
   * expired before `now` (a key that never expires stays). The library deletes an expired row only
   * when it is presented; run this on a schedule (e.g. daily with `@nestjs/schedule`) so abandoned
   * ones do not pile up. Not part of the adapter contract. Signing keys are not its business: the
   * library deletes each once no token it signed can still be valid.
   *
   * @returns how many rows of each went (`refreshFamilies`, `apiKeys`: 0 without that table)
   */
  async deleteExpired(
    now: Date = new Date(),
  ): Promise<{ sessions: number; verificationTokens: number; refreshFamilies: number; apiKeys: number }> {
    return {
      sessions: await this.queries.deleteExpired(this.entities.Session, now),
      verificationTokens: await this.queries.deleteExpired(this.entities.VerificationToken, now),
      refreshFamilies: this.refreshFamilyEntity ? await this.queries.deleteExpired(this.refreshFamilyEntity, now) : 0,
      apiKeys: this.apiKeyEntity ? await this.queries.deleteExpired(this.apiKeyEntity, now) : 0,
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

  /** Throws when the schema mapping has no authenticator table. */
  protected authenticatorTable(): void {
    if (this.schema && !this.schema.mapping.authenticator)
      throw new AdapterNotFoundError('authenticator', `The schema "${this.schema.name}" has no authenticator table.`);
  }

  /**
   * The two-factor entity; `MissingAdapterMethods` without a table (reached only through the
   * prototype or `super`: such an instance has no two-factor methods of its own).
   */
  protected twoFactorTable(): EntityClass<TwoFactorEntity> {
    if (this.twoFactorEntity) return this.twoFactorEntity;
    throw new MissingAdapterMethods(
      [...TWO_FACTOR_ADAPTER_METHODS],
      this.schema
        ? `TypeOrmAdapter: the schema "${this.schema.name}" has no two-factor table (Auth.js's tables have none), so two-factor authentication is unavailable.`
        : 'TypeOrmAdapter: the data source does not list TwoFactorEntity (or `TwoFactor` is undefined), so two-factor authentication is unavailable.',
    );
  }

  /**
   * The refresh-token family entity; `MissingAdapterMethods` without a table (reached only through
   * the prototype or `super`: such an instance has no refresh-token methods of its own).
   */
  protected refreshFamilyTable(): EntityClass<RefreshFamilyEntity> {
    if (this.refreshFamilyEntity) return this.refreshFamilyEntity;
    throw new MissingAdapterMethods(
      [...REFRESH_TOKEN_ADAPTER_METHODS],
      this.schema
        ? `TypeOrmAdapter: the schema "${this.schema.name}" has no refresh-token family table (Auth.js's tables have none), so native-app sign-ins are unavailable.`
        : 'TypeOrmAdapter: the data source does not list RefreshFamilyEntity (or `RefreshFamily` is undefined), so native-app sign-ins are unavailable.',
    );
  }

  /**
   * The API key entity; `MissingAdapterMethods` without a table (reached only through the prototype
   * or `super`: such an instance has no API key methods of its own).
   */
  protected apiKeyTable(): EntityClass<ApiKeyEntity> {
    if (this.apiKeyEntity) return this.apiKeyEntity;
    throw new MissingAdapterMethods(
      [...API_KEY_ADAPTER_METHODS],
      this.schema
        ? `TypeOrmAdapter: the schema "${this.schema.name}" has no API key table (Auth.js's tables have none), so API keys are unavailable.`
        : 'TypeOrmAdapter: the data source does not list ApiKeyEntity (or `ApiKey` is undefined), so API keys are unavailable.',
    );
  }

  /**
   * The signing-key entity; `MissingAdapterMethods` without a table (reached only through the
   * prototype or `super`: such an instance has no signing-key methods of its own).
   */
  protected signingKeyTable(): EntityClass<SigningKeyEntity> {
    if (this.signingKeyEntity) return this.signingKeyEntity;
    throw new MissingAdapterMethods(
      [...SIGNING_KEY_ADAPTER_METHODS],
      this.schema
        ? `TypeOrmAdapter: the schema "${this.schema.name}" has no signing-key table (Auth.js's tables have none), so rotated signing keys are unavailable.`
        : 'TypeOrmAdapter: the data source does not list SigningKeyEntity (or `SigningKey` is undefined), so rotated signing keys are unavailable.',
    );
  }

  /** The entities whose rows belong to a user: sessions, accounts and (when there is the table) authenticators. */
  private userRows(): EntityClass<ObjectLiteral>[] {
    const { Session, Account, Authenticator } = this.entities;
    return !this.schema || this.schema.mapping.authenticator ? [Session, Account, Authenticator] : [Session, Account];
  }

  /** The repository of an entity, on the adapter's data source. */
  protected repo<T extends ObjectLiteral>(entity: EntityClass<T>): Repository<T> {
    return this.queries.repo(entity);
  }

  private deleteReturning<T extends ObjectLiteral>(entity: EntityClass<T>, keys: Keys): Promise<T[]> {
    return this.queries.deleteReturning(entity, keys, this.supportsDeleteReturning());
  }
}

/**
 * Hides a capability's methods (`TwoFactorAdapter`'s, `RefreshTokenAdapter`'s, `ApiKeyAdapter`'s,
 * `SigningKeyAdapter`'s) on an adapter without its table: each becomes an own `undefined` property, so `typeof adapter.createTwoFactor ===
 * 'function'` is false and the library does not offer what needs it. A subclass's own
 * implementation stays.
 */
function withoutMethods(
  adapter: TypeOrmAdapter,
  names: readonly (
    keyof TwoFactorAdapter | keyof RefreshTokenAdapter | keyof ApiKeyAdapter | keyof SigningKeyAdapter
  )[],
): void {
  for (const name of names) {
    if (adapter[name] !== TypeOrmAdapter.prototype[name]) continue;
    Object.defineProperty(adapter, name, { value: undefined, writable: true, configurable: true, enumerable: false });
  }
}

/** The first row of a statement's, or `null` (what `getOne` and `plain` give). */
function firstRow<T = ObjectLiteral>(rows: readonly ObjectLiteral[]): T | null {
  return (rows[0] as T | undefined) ?? null;
}

/** `replaceTwoFactors` takes factors of the user and type it replaces only (checked before anything is written). */
function assertFactorsOf(userId: string, type: string, factors: readonly AdapterTwoFactor[]): void {
  if (factors.some((f) => f.userId !== userId || f.type !== type))
    throw new TypeError('replaceTwoFactors: every factor must be of the user and type it replaces.');
}
