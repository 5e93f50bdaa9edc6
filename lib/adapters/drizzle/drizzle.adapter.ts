import { randomUUID } from 'node:crypto';
import { and, asc, eq, getTableColumns, isNull, lt, or, sql, type SQL, type Table } from 'drizzle-orm';
import type { MySqlDatabase } from 'drizzle-orm/mysql-core';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
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
  SESSION_DETAIL_FIELDS,
  SIGNING_KEY_ADAPTER_METHODS,
  TWO_FACTOR_ADAPTER_METHODS,
} from '../adapter-extensions.js';
import {
  apiKeyPatch,
  newApiKey,
  newRefreshFamily,
  newSigningKey,
  refreshRotation,
  signingKeyPatch,
  storedApiKey,
  storedRefreshFamily,
  storedSigningKey,
  storedTwoFactor,
} from '../memory-store.helpers.js';
import type { SynchronousSessionLookupAdapter } from '../sync-session-lookup.js';
import { constraintOf } from '../typeorm/write-errors.js';
import { AdapterConflictError, AdapterNotFoundError, MissingAdapterMethods } from '../../errors/auth.errors.js';
import { all, DrizzleQueries, dialectOf, run, writeError, type DrizzleDialect, type Loose } from './drizzle-queries.js';
import { DrizzlePgSessionLookup, nodePgClientOf, type DrizzleSessionAndUser } from './drizzle-pg-lookup.js';
import { accountOf, joinWords, sessionInfoOf, specSessionOf, splitWords, twoFactorOf } from './drizzle-rows.js';

export type { DrizzleDialect } from './drizzle-queries.js';

// Lists are copied with `Array.from` (never `rows.map`): better-sqlite3 builds its arrays in Node's
// own realm, and `map` would keep that realm's `Array`, which test runners with VM contexts (jest)
// do not take for an array of theirs.

/**
 * The tables `DrizzleAdapter` reads and writes: `pgAuthTables`, `mysqlAuthTables` or
 * `sqliteAuthTables`, or tables of your own with the same property and column names (a users table
 * may have more columns: they are returned with the user). The last four are optional: without
 * `twoFactors` the adapter has no `TwoFactorAdapter` methods (two-factor authentication is then
 * unavailable), likewise `refreshTokenFamilies` (native-app sign-ins), `apiKeys` and `signingKeys`.
 * A `sessions` table without the device columns, or an `authenticators` table without `name` and
 * `lastUsedAt` (@auth/drizzle-adapter's own), works too: what it has no column for is not stored.
 */
export interface DrizzleAuthTables {
  /** `user` */
  users: Table;
  /** `account` */
  accounts: Table;
  /** `session` */
  sessions: Table;
  /** `verificationToken` */
  verificationTokens: Table;
  /** `authenticator` */
  authenticators: Table;
  /** `two_factors` (`TwoFactorAdapter`) */
  twoFactors?: Table;
  /** `refresh_token_families` (`RefreshTokenAdapter`) */
  refreshTokenFamilies?: Table;
  /** `api_keys` (`ApiKeyAdapter`) */
  apiKeys?: Table;
  /** `signing_keys` (`SigningKeyAdapter`) */
  signingKeys?: Table;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- any schema, any driver of the dialect */
/**
 * The app's Drizzle database: `drizzle-orm/node-postgres` (a `pg` Pool), `drizzle-orm/mysql2` (a
 * `mysql2` pool) or `drizzle-orm/better-sqlite3`, of the same dialect as the tables.
 */
export type DrizzleAdapterDatabase =
  PgDatabase<any, any, any> | MySqlDatabase<any, any, any, any> | BaseSQLiteDatabase<'sync', any, any, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Options of {@link DrizzleAdapter}. */
export interface DrizzleAdapterOptions {
  /**
   * Whether the accounts' token columns are read by this library alone (then `encryptAccountTokens`
   * defaults to on). Set `false` while an Auth.js app still reads the same tables.
   * @default true
   */
  privateAccountTokens?: boolean;
}

/**
 * The adapter over the app's Drizzle database (PostgreSQL with node-postgres, MySQL 8 / MariaDB with
 * mysql2, SQLite with better-sqlite3) and the tables of `pgAuthTables`, `mysqlAuthTables` or
 * `sqliteAuthTables`, which are @auth/drizzle-adapter's default tables plus the library's own.
 *
 * @example
 * AuthModule.forRootAsync({
 *   adapter: { inject: [DRIZZLE], useFactory: (db: NodePgDatabase) => new DrizzleAdapter(db, pgAuthTables) },
 *   ...
 * })
 *
 * Correct under concurrency: `useVerificationToken` consumes the token in one `DELETE ... RETURNING`
 * (PostgreSQL, SQLite) or a transaction that locks the row first (MySQL/MariaDB);
 * `updateAuthenticatorCounter`, `updateAccountTokens`, `useTwoFactorStep` and `rotateRefreshFamily`
 * are compare-and-sets (one conditional `UPDATE`); uniqueness is the database's (a duplicate insert
 * fails with `AdapterConflictError`, a row for an unknown user with `AdapterNotFoundError`). On
 * MySQL/MariaDB every key compares byte for byte, whatever the collation.
 *
 * On drizzle-orm/node-postgres, `getSessionAndUser` (the guard's lookup on every request with
 * database sessions) runs the join Drizzle builds as a named prepared statement on the database's
 * `pg` client (`db.$client`), concurrent lookups batched into one statement; Drizzle's logger does
 * not see it.
 *
 * SPEC section 4's nineteen methods, and beyond SPEC: the device list, sign out everywhere,
 * back-channel logout by `sid`, token refresh, passkey names, account deletion in one transaction,
 * magic links replacing older ones, and (when their tables are given) two-factor, refresh-token, API
 * key and signing-key storage.
 */
export class DrizzleAdapter
  implements
    Adapter,
    SynchronousSessionLookupAdapter,
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
  /** The session lookup, prepared on first use. */
  private lookupStatement?: PreparedLookup;
  /** drizzle-orm/node-postgres: the batched lookup on its `pg` client, built on first use (`null`: another driver). */
  private pgLookup?: DrizzlePgSessionLookup | null;
  /** The dialect of the tables (and so of the database). */
  readonly dialect: DrizzleDialect;
  /** Whether `encryptAccountTokens` defaults to on (see {@link DrizzleAdapterOptions}). */
  readonly privateAccountTokens: boolean;
  private readonly q: DrizzleQueries;
  private readonly t: Record<keyof DrizzleAuthTables, Loose>;

  constructor(db: DrizzleAdapterDatabase, tables: DrizzleAuthTables, options: DrizzleAdapterOptions = {}) {
    this.dialect = dialectOf(tables?.users);
    for (const [name, table] of Object.entries(tables)) {
      if (table !== undefined && dialectOf(table) !== this.dialect)
        throw new TypeError(
          `DrizzleAdapter: \`tables.${name}\` is not a ${this.dialect} table as \`tables.users\` is.`,
        );
    }
    this.q = new DrizzleQueries(db, this.dialect);
    this.t = tables as Record<keyof DrizzleAuthTables, Loose>;
    this.privateAccountTokens = options.privateAccountTokens ?? true;
    if (!tables.twoFactors) withoutMethods(this, TWO_FACTOR_ADAPTER_METHODS);
    if (!tables.refreshTokenFamilies) withoutMethods(this, REFRESH_TOKEN_ADAPTER_METHODS);
    if (!tables.apiKeys) withoutMethods(this, API_KEY_ADAPTER_METHODS);
    if (!tables.signingKeys) withoutMethods(this, SIGNING_KEY_ADAPTER_METHODS);
  }

  // ---- users ------------------------------------------------------------------------------------

  async createUser(user: AdapterUser): Promise<AdapterUser> {
    const { users } = this.t;
    const id = typeof user.id === 'string' && user.id ? user.id : randomUUID();
    const values = this.q.columnsOnly(users, { ...user, id, emailVerified: user.emailVerified ?? null });
    await this.q.insert(users, values, (e) => (/email/i.test(constraintOf(e)) ? 'user.email' : 'user'));
    // Read back: columns of an app's own users table may have database defaults.
    const created = await this.getUser(id);
    if (!created) throw new AdapterNotFoundError('user');
    return created;
  }

  async getUser(id: string): Promise<AdapterUser | null> {
    return (await this.q.first(this.t.users, { id })) as AdapterUser | null;
  }

  async getUserByEmail(email: string): Promise<AdapterUser | null> {
    if (typeof email !== 'string') return null;
    return (await this.q.first(this.t.users, { email })) as AdapterUser | null;
  }

  async getUserByAccount(key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Promise<AdapterUser | null> {
    const { users, accounts } = this.t;
    const rows = (await this.q.db
      .select(getTableColumns(users))
      .from(users)
      .innerJoin(accounts, eq(accounts.userId, users.id))
      .where(this.q.where(accounts, { provider: key.provider, providerAccountId: key.providerAccountId }))
      .limit(1)) as AdapterUser[];
    return rows[0] ?? null;
  }

  async updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Promise<AdapterUser> {
    const { id, ...rest } = user;
    const { users } = this.t;
    const changes = this.q.columnsOnly(users, rest);
    if (Object.keys(changes).length)
      await this.q.update(users, this.q.where(users, { id }), changes, () => 'user.email');
    const updated = await this.getUser(id);
    if (!updated) throw new AdapterNotFoundError('user');
    return updated;
  }

  async deleteUser(userId: string): Promise<AdapterUser | null> {
    // Sessions, accounts, authenticators and the library's rows go with the user: ON DELETE CASCADE.
    const rows = await this.q.deleteReturning(this.t.users, this.q.where(this.t.users, { id: userId }));
    return (rows[0] as AdapterUser | undefined) ?? null;
  }

  /**
   * Deletes the user with its sessions, accounts, authenticators, the library's rows of it and its
   * address's verification tokens in one transaction, the user's row locked first (beyond SPEC:
   * `UserDeletionAdapter`, for `AuthService.deleteAccount`).
   */
  async deleteUserCascade(userId: string): Promise<AdapterUser | null> {
    const { users, verificationTokens } = this.t;
    const q = this.q;
    const children = (
      ['sessions', 'accounts', 'authenticators', 'twoFactors', 'refreshTokenFamilies', 'apiKeys'] as const
    )
      .map((name) => this.t[name])
      .filter((table): table is Loose => table !== undefined);
    return q.transaction(function* (tx) {
      const found = (yield all(
        q.locking(
          tx
            .select()
            .from(users)
            .where(q.where(users, { id: userId }))
            .limit(1),
        ),
      )) as AdapterUser[];
      const user = found[0];
      if (!user) return null;
      for (const table of children) yield run(tx.delete(table).where(q.where(table, { userId })));
      if (typeof user.email === 'string' && user.email)
        yield run(tx.delete(verificationTokens).where(q.where(verificationTokens, { identifier: user.email })));
      yield run(tx.delete(users).where(q.where(users, { id: userId })));
      return user;
    });
  }

  // ---- accounts ---------------------------------------------------------------------------------

  async linkAccount(account: AdapterAccount): Promise<AdapterAccount> {
    await this.q.insert(this.t.accounts, this.q.columnsOnly(this.t.accounts, account), () => 'account');
    return account;
  }

  async unlinkAccount(
    key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
  ): Promise<AdapterAccount | undefined> {
    const { accounts } = this.t;
    const where = this.q.where(accounts, { provider: key.provider, providerAccountId: key.providerAccountId });
    const rows = await this.q.deleteReturning(accounts, where);
    return rows[0] ? accountOf(rows[0] as Record<string, unknown>) : undefined;
  }

  async getAccount(providerAccountId: string, provider: string): Promise<AdapterAccount | null> {
    const row = await this.q.first(this.t.accounts, { provider, providerAccountId });
    return row ? accountOf(row) : null;
  }

  /** The user's accounts (beyond SPEC: `AccountTokensAdapter`, for `AuthService.getAccessToken`). */
  async listAccountsByUserId(userId: string): Promise<AdapterAccount[]> {
    const { accounts } = this.t;
    const rows = (await this.q.db.select().from(accounts).where(this.q.where(accounts, { userId }))) as Record<
      string,
      unknown
    >[];
    return Array.from(rows, accountOf);
  }

  /**
   * Compare-and-swap of the account's tokens (beyond SPEC: `AccountTokensAdapter`): one `UPDATE`
   * whose `WHERE` carries the `refresh_token` and `expires_at` that were read.
   */
  async updateAccountTokens(
    match: Pick<AdapterAccount, 'provider' | 'providerAccountId'> & {
      refresh_token: string | null;
      expires_at: number | null;
    },
    next: AccountTokens,
  ): Promise<AdapterAccount | null> {
    const { accounts } = this.t;
    const parts: SQL[] = [
      this.q.where(accounts, { provider: match.provider, providerAccountId: match.providerAccountId }),
    ];
    parts.push(
      match.refresh_token === null
        ? isNull(accounts.refresh_token)
        : this.q.exact(accounts.refresh_token, match.refresh_token),
    );
    parts.push(match.expires_at === null ? isNull(accounts.expires_at) : eq(accounts.expires_at, match.expires_at));
    const where = and(...parts)!;
    const changes = this.q.columnsOnly(accounts, next);
    if (Object.keys(changes).length) {
      if ((await this.q.update(accounts, where, changes, () => 'account')) === 0) return null;
    } else if (!(await this.q.db.select().from(accounts).where(where).limit(1)).length) return null;
    return this.getAccount(match.providerAccountId, match.provider);
  }

  // ---- sessions ---------------------------------------------------------------------------------

  async createSession(
    session: { sessionToken: string; userId: string; expires: Date } & AdapterSessionDetails,
  ): Promise<AdapterSession> {
    const value = { sessionToken: session.sessionToken, userId: session.userId, expires: session.expires };
    await this.q.insert(this.t.sessions, { ...this.details(session), ...value }, () => 'session');
    return value;
  }

  async getSessionAndUser(sessionToken: string): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
    if (this.dialect === 'pg') {
      this.pgLookup ??= this.batchedLookup();
      if (this.pgLookup) return this.pgLookup.find(sessionToken);
    }
    return this.lookupThroughDrizzle(sessionToken);
  }

  /**
   * {@link getSessionAndUser} without a promise on better-sqlite3; `undefined` on the other
   * drivers, or when a subclass overrides `getSessionAndUser`.
   */
  getSessionAndUserSync(sessionToken: string): { session: AdapterSession; user: AdapterUser } | null | undefined {
    if (this.dialect !== 'sqlite' || this.getSessionAndUser !== DrizzleAdapter.prototype.getSessionAndUser)
      return undefined;
    const rows: unknown = this.lookup(sessionToken, true);
    if (!Array.isArray(rows)) return undefined;
    return (rows[0] as { session: AdapterSession; user: AdapterUser } | undefined) ?? null;
  }

  async updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'> & AdapterSessionDetails,
  ): Promise<AdapterSession | null> {
    const { sessions } = this.t;
    const { sessionToken, ...rest } = session;
    const where = this.q.where(sessions, { sessionToken });
    const changes = this.q.columnsOnly(sessions, rest);
    if (Object.keys(changes).length) await this.q.update(sessions, where, changes, () => 'session');
    const row = await this.q.first(sessions, { sessionToken });
    return row ? specSessionOf(row) : null;
  }

  async deleteSession(sessionToken: string): Promise<AdapterSession | null> {
    const { sessions } = this.t;
    const rows = await this.q.deleteReturning(sessions, this.q.where(sessions, { sessionToken }));
    return rows[0] ? specSessionOf(rows[0] as Record<string, unknown>) : null;
  }

  /** The user's sessions with their details (beyond SPEC: `SessionListingAdapter`). */
  async listSessionsByUserId(userId: string): Promise<AdapterSessionInfo[]> {
    const { sessions } = this.t;
    const rows = (await this.q.db.select().from(sessions).where(this.q.where(sessions, { userId }))) as Record<
      string,
      unknown
    >[];
    return Array.from(rows, sessionInfoOf);
  }

  /** The sessions of one OP session (beyond SPEC: `SessionsByProviderSidAdapter`; none without the column). */
  async listSessionsByProviderSid(providerSid: string): Promise<AdapterSessionInfo[]> {
    const { sessions } = this.t;
    if (!providerSid || !this.q.has(sessions, 'providerSid')) return [];
    const rows = (await this.q.db.select().from(sessions).where(this.q.where(sessions, { providerSid }))) as Record<
      string,
      unknown
    >[];
    return Array.from(rows, sessionInfoOf);
  }

  /** Deletes every session of a user (beyond SPEC: `SessionsByUserAdapter`, for `AuthService.signOutEverywhere`). */
  async deleteSessionsByUserId(userId: string): Promise<number> {
    return this.q.deleteAll(this.t.sessions, this.q.where(this.t.sessions, { userId }));
  }

  // ---- verification tokens ------------------------------------------------------------------------

  async createVerificationToken(token: VerificationToken): Promise<VerificationToken> {
    const value = { identifier: token.identifier, token: token.token, expires: token.expires };
    await this.q.insert(this.t.verificationTokens, value, () => 'verificationToken');
    return { ...value };
  }

  async useVerificationToken(params: { identifier: string; token: string }): Promise<VerificationToken | null> {
    const { verificationTokens } = this.t;
    // One atomic statement (or a locking transaction on MySQL): of concurrent calls, exactly one gets the row.
    const where = this.q.where(verificationTokens, { identifier: params.identifier, token: params.token });
    const row = (await this.q.deleteReturning(verificationTokens, where))[0] as VerificationToken | undefined;
    return row ? { identifier: row.identifier, token: row.token, expires: row.expires } : null;
  }

  /** Deletes every verification token of an identifier (beyond SPEC: `VerificationTokensByIdentifierAdapter`). */
  async deleteVerificationTokensByIdentifier(identifier: string): Promise<number> {
    const { verificationTokens } = this.t;
    return this.q.deleteAll(verificationTokens, this.q.where(verificationTokens, { identifier }));
  }

  // ---- authenticators ---------------------------------------------------------------------------

  async createAuthenticator(authenticator: AdapterAuthenticator): Promise<AdapterAuthenticator> {
    const { authenticators } = this.t;
    const values = this.q.columnsOnly(authenticators, {
      ...authenticator,
      transports: authenticator.transports ?? null,
    });
    await this.q.insert(authenticators, values, () => 'authenticator');
    const created = await this.getAuthenticator(authenticator.credentialID);
    if (!created) throw new AdapterNotFoundError('authenticator');
    return created;
  }

  async getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null> {
    return (await this.q.first(this.t.authenticators, { credentialID })) as AdapterAuthenticator | null;
  }

  async listAuthenticatorsByUserId(userId: string): Promise<AdapterAuthenticator[]> {
    const { authenticators } = this.t;
    const rows = (await this.q.db
      .select()
      .from(authenticators)
      .where(this.q.where(authenticators, { userId }))) as AdapterAuthenticator[];
    return Array.from(rows);
  }

  async updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
    expectedCounter?: number,
  ): Promise<AdapterAuthenticator> {
    const { authenticators } = this.t;
    const keys: Record<string, string | number> =
      expectedCounter === undefined ? { credentialID } : { credentialID, counter: expectedCounter };
    const set = this.q.columnsOnly(authenticators, { counter: newCounter, lastUsedAt: new Date() });
    const changed = await this.q.update(authenticators, this.q.where(authenticators, keys), set, () => 'authenticator');
    const current = await this.getAuthenticator(credentialID);
    if (!current) throw new AdapterNotFoundError('authenticator');
    if (changed === 0)
      throw new AdapterConflictError(
        'authenticator.counter',
        'The authenticator was used concurrently: its counter changed since it was read.',
      );
    return current;
  }

  /** Sets or clears a passkey's name (beyond SPEC: `PasskeyNamesAdapter`); `null` for an unknown credential. */
  async updateAuthenticatorName(credentialID: string, name: string | null): Promise<AdapterAuthenticator | null> {
    const { authenticators } = this.t;
    if (!this.q.has(authenticators, 'name'))
      throw new AdapterNotFoundError('authenticator', 'The authenticators table has no `name` column.');
    const where = this.q.where(authenticators, { credentialID });
    const changed = await this.q.update(authenticators, where, { name }, () => 'authenticator');
    return changed === 0 ? null : this.getAuthenticator(credentialID);
  }

  /** Deletes an authenticator (beyond SPEC: `PasskeyNamesAdapter`); `true` when a row went. */
  async deleteAuthenticator(credentialID: string): Promise<boolean> {
    const { authenticators } = this.t;
    return (await this.q.deleteAll(authenticators, this.q.where(authenticators, { credentialID }))) > 0;
  }

  // ---- two-factor authentication (beyond SPEC: `TwoFactorAdapter`) ---------------------------------

  /** Stores a new factor of a user (`AdapterNotFoundError` for an unknown user). */
  async createTwoFactor(factor: AdapterTwoFactor): Promise<AdapterTwoFactor> {
    const table = this.table('twoFactors');
    const stored = storedTwoFactor(factor);
    await this.q.insert(table, stored, () => 'twoFactor');
    // Read back (dates and numbers as the database keeps them), unless already deleted again.
    const row = await this.q.first(table, { id: stored.id, userId: stored.userId });
    return row ? twoFactorOf(row) : stored;
  }

  /** The user's factors, unconfirmed ones included, oldest first. */
  async listTwoFactorsByUserId(userId: string): Promise<AdapterTwoFactor[]> {
    const table = this.table('twoFactors');
    const rows = (await this.q.db
      .select()
      .from(table)
      .where(this.q.where(table, { userId }))
      .orderBy(asc(table.createdAt), asc(table.id))) as Record<string, unknown>[];
    return Array.from(rows, twoFactorOf);
  }

  /** Sets the factor's `name` and/or `confirmedAt`; `null` when the user has no factor with this id. */
  async updateTwoFactor(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterTwoFactor, 'name' | 'confirmedAt'>>,
  ): Promise<AdapterTwoFactor | null> {
    const table = this.table('twoFactors');
    const changes = this.q.columnsOnly(table, { name: patch?.name, confirmedAt: patch?.confirmedAt });
    if (Object.keys(changes).length)
      await this.q.update(table, this.q.where(table, { id, userId }), changes, () => 'twoFactor');
    const row = await this.q.first(table, { id, userId });
    return row ? twoFactorOf(row) : null;
  }

  /** Records a use of a TOTP factor at a time step: one conditional `UPDATE` (of concurrent calls, one writes). */
  async useTwoFactorStep(id: string, userId: string, step: number, at: Date): Promise<boolean> {
    const table = this.table('twoFactors');
    const where = and(
      this.q.where(table, { id, userId }),
      or(isNull(table.lastUsedStep), lt(table.lastUsedStep, step)),
    )!;
    return (await this.q.update(table, where, { lastUsedStep: step, lastUsedAt: at }, () => 'twoFactor')) === 1;
  }

  /** Deletes the user's factor; `true` when a row went (of concurrent calls, exactly one). */
  async deleteTwoFactor(id: string, userId: string): Promise<boolean> {
    const table = this.table('twoFactors');
    return (await this.q.deleteAll(table, this.q.where(table, { id, userId }))) > 0;
  }

  /** Deletes the user's factors (of `type` only, when given); returns how many went. */
  async deleteTwoFactorsByUserId(userId: string, type?: string): Promise<number> {
    const table = this.table('twoFactors');
    return this.q.deleteAll(table, this.q.where(table, type === undefined ? { userId } : { userId, type }));
  }

  /** Replaces the user's factors of `type` with `factors` in one transaction, the user's row locked. */
  async replaceTwoFactors(userId: string, type: string, factors: AdapterTwoFactor[]): Promise<void> {
    const table = this.table('twoFactors');
    if (factors.some((f) => f.userId !== userId || f.type !== type))
      throw new TypeError('replaceTwoFactors: every factor must be of the user and type it replaces.');
    const { users } = this.t;
    const q = this.q;
    const rows = factors.map(storedTwoFactor);
    try {
      await q.transaction(function* (tx) {
        yield all(
          q.locking(
            tx
              .select({ id: users.id })
              .from(users)
              .where(q.where(users, { id: userId })),
          ),
        );
        yield run(tx.delete(table).where(q.where(table, { userId, type })));
        if (rows.length) yield run(tx.insert(table).values(rows));
      });
    } catch (error) {
      throw writeError(error, () => 'twoFactor');
    }
  }

  // ---- refresh-token families (beyond SPEC: `RefreshTokenAdapter`) ----------------------------------

  /** Stores a new family of a user (`AdapterNotFoundError` for an unknown user, `TypeError` for an invalid family). */
  async createRefreshFamily(family: AdapterRefreshFamily): Promise<AdapterRefreshFamily> {
    const table = this.table('refreshTokenFamilies');
    const stored = newRefreshFamily(family);
    try {
      await this.q.insert(table, { ...stored, amr: joinWords(stored.amr) }, () => 'session');
    } catch (error) {
      if (!(error instanceof AdapterConflictError)) throw error;
      throw new AdapterConflictError(
        'session',
        'Storage refused the write: a refresh-token family with this id exists.',
        {
          cause: error.cause,
        },
      );
    }
    return (await this.getRefreshFamily(stored.id)) ?? stored;
  }

  /** The family, checked as it is read: a row whose fields are not of their types is `null` (fail closed). */
  async getRefreshFamily(id: string): Promise<AdapterRefreshFamily | null> {
    const row = await this.q.first(this.table('refreshTokenFamilies'), { id });
    return row ? storedRefreshFamily({ ...row, amr: splitWords(row.amr) } as AdapterRefreshFamily) : null;
  }

  /** Rotates only when the stored generation is `from`: one conditional `UPDATE`. */
  async rotateRefreshFamily(
    id: string,
    from: number,
    next: Pick<AdapterRefreshFamily, 'tokenHash' | 'rotatedAt' | 'expires'>,
  ): Promise<boolean> {
    const table = this.table('refreshTokenFamilies');
    const rotation = refreshRotation(from, next);
    if (!rotation) return false;
    const where = this.q.where(table, { id, generation: from });
    return (await this.q.update(table, where, { ...rotation }, () => 'session')) === 1;
  }

  /** Deletes the family; `true` when a row went. */
  async deleteRefreshFamily(id: string): Promise<boolean> {
    const table = this.table('refreshTokenFamilies');
    return (await this.q.deleteAll(table, this.q.where(table, { id }))) > 0;
  }

  /** Deletes every family of the user; returns how many went. */
  async deleteRefreshFamiliesByUserId(userId: string): Promise<number> {
    const table = this.table('refreshTokenFamilies');
    return this.q.deleteAll(table, this.q.where(table, { userId }));
  }

  // ---- API keys (beyond SPEC: `ApiKeyAdapter`) ------------------------------------------------------

  /** Stores a new key of a user (`AdapterNotFoundError` for an unknown user, `TypeError` for an invalid key). */
  async createApiKey(key: AdapterApiKey): Promise<AdapterApiKey> {
    const table = this.table('apiKeys');
    const stored = newApiKey(key);
    try {
      await this.q.insert(table, { ...stored, scopes: joinWords(stored.scopes) }, () => 'apiKey');
    } catch (error) {
      if (!(error instanceof AdapterConflictError)) throw error;
      throw new AdapterConflictError('apiKey', 'Storage refused the write: an API key with this id exists.', {
        cause: error.cause,
      });
    }
    return (await this.getApiKey(stored.id)) ?? stored;
  }

  /** The key, checked as it is read: a row whose fields are not of their types is `null` (fail closed). */
  async getApiKey(id: string): Promise<AdapterApiKey | null> {
    const row = await this.q.first(this.table('apiKeys'), { id });
    return row ? apiKeyOf(row) : null;
  }

  /** The user's keys, oldest first; a row that is no valid key is left out. */
  async listApiKeysByUserId(userId: string): Promise<AdapterApiKey[]> {
    const table = this.table('apiKeys');
    const rows = (await this.q.db
      .select()
      .from(table)
      .where(this.q.where(table, { userId }))
      .orderBy(asc(table.createdAt), asc(table.id))) as Record<string, unknown>[];
    return Array.from(rows, apiKeyOf).filter((key): key is AdapterApiKey => key !== null);
  }

  /** Sets the key's `name` and/or `lastUsedAt`; `null` when the user has no key with this id. */
  async updateApiKey(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterApiKey, 'name' | 'lastUsedAt'>>,
  ): Promise<AdapterApiKey | null> {
    const table = this.table('apiKeys');
    const changes = apiKeyPatch(patch);
    if (Object.keys(changes).length)
      await this.q.update(table, this.q.where(table, { id, userId }), changes, () => 'apiKey');
    const row = await this.q.first(table, { id, userId });
    return row ? apiKeyOf(row) : null;
  }

  /** Deletes the user's key; `true` when a row went (one `DELETE`: of concurrent calls, exactly one). */
  async deleteApiKey(id: string, userId: string): Promise<boolean> {
    const table = this.table('apiKeys');
    return (await this.q.deleteAll(table, this.q.where(table, { id, userId }))) > 0;
  }

  /** Deletes every key of the user; returns how many went. */
  async deleteApiKeysByUserId(userId: string): Promise<number> {
    const table = this.table('apiKeys');
    return this.q.deleteAll(table, this.q.where(table, { userId }));
  }

  // ---- signing keys (beyond SPEC: `SigningKeyAdapter`) ----------------------------------------------

  /**
   * Stores a new key (`TypeError` for an invalid one). One `INSERT`: a key whose id or slot is taken
   * is refused by the primary key or the unique slot index, so of instances rotating at once exactly
   * one writes; the others get `AdapterConflictError` (`signingKey`).
   */
  async createSigningKey(key: AdapterSigningKey): Promise<AdapterSigningKey> {
    const table = this.table('signingKeys');
    const stored = newSigningKey(key);
    try {
      await this.q.insert(table, stored, () => 'signingKey');
    } catch (error) {
      if (!(error instanceof AdapterConflictError)) throw error;
      throw new AdapterConflictError(
        'signingKey',
        'Storage refused the write: a signing key with this id or slot exists.',
        { cause: error.cause },
      );
    }
    const row = await this.q.first(table, { id: stored.id });
    return (row && signingKeyOf(row)) ?? stored;
  }

  /** Every key, oldest slot first; a row that is no valid key is left out (fail closed). */
  async listSigningKeys(): Promise<AdapterSigningKey[]> {
    const table = this.table('signingKeys');
    const rows = (await this.q.db.select().from(table).orderBy(asc(table.slot))) as Record<string, unknown>[];
    return Array.from(rows, signingKeyOf).filter((key): key is AdapterSigningKey => key !== null);
  }

  /** Sets the key's `activatesAt` and/or `removesAt`; `null` when there is no such key. */
  async updateSigningKey(
    id: string,
    patch: Partial<Pick<AdapterSigningKey, 'activatesAt' | 'removesAt'>>,
  ): Promise<AdapterSigningKey | null> {
    const table = this.table('signingKeys');
    const changes = signingKeyPatch(patch);
    if (Object.keys(changes).length)
      await this.q.update(table, this.q.where(table, { id }), changes, () => 'signingKey');
    const row = await this.q.first(table, { id });
    return row ? signingKeyOf(row) : null;
  }

  /** Deletes the key; `true` when a row went. */
  async deleteSigningKey(id: string): Promise<boolean> {
    const table = this.table('signingKeys');
    return (await this.q.deleteAll(table, this.q.where(table, { id }))) > 0;
  }

  // ---- housekeeping -------------------------------------------------------------------------------

  /**
   * Deletes the sessions, verification tokens, native apps' refresh-token families and API keys that
   * expired before `now` (a key that never expires stays). The library deletes an expired row only
   * when it is presented; run this on a schedule so abandoned ones do not pile up. Not part of the
   * adapter contract.
   *
   * @returns how many rows of each went (`refreshFamilies`, `apiKeys`: 0 without that table)
   */
  async deleteExpired(
    now: Date = new Date(),
  ): Promise<{ sessions: number; verificationTokens: number; refreshFamilies: number; apiKeys: number }> {
    const expired = (table: Loose) => (table ? this.q.deleteAll(table, lt(table.expires, now)) : 0);
    return {
      sessions: await expired(this.t.sessions),
      verificationTokens: await expired(this.t.verificationTokens),
      refreshFamilies: await expired(this.t.refreshTokenFamilies),
      apiKeys: await expired(this.t.apiKeys),
    };
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /** The session details among `values` that the sessions table has columns for. */
  private details(values: object): Record<string, unknown> {
    const picked: Record<string, unknown> = {};
    for (const field of SESSION_DETAIL_FIELDS) picked[field] = (values as Record<string, unknown>)[field];
    return this.q.columnsOnly(this.t.sessions, picked);
  }

  /** The session and its user through Drizzle's prepared statement. */
  private async lookupThroughDrizzle(sessionToken: string): Promise<DrizzleSessionAndUser | null> {
    const rows = (await this.lookup(sessionToken)) as DrizzleSessionAndUser[];
    return rows[0] ?? null;
  }

  /**
   * On drizzle-orm/node-postgres, the lookup that batches the concurrent lookups of one event-loop
   * turn into one prepared statement on the app's `pg` client; `null` on another driver.
   */
  private batchedLookup(): DrizzlePgSessionLookup | null {
    const client = nodePgClientOf(this.q.db);
    if (!client) return null;
    const { sessions, users } = this.t;
    return new DrizzlePgSessionLookup(this.q.db, client, sessions, users, (token) => this.lookupThroughDrizzle(token));
  }

  /**
   * The session lookup: one `SELECT` joining the session and its user. With `sync` on
   * better-sqlite3, its rows without a promise.
   */
  private lookup(sessionToken: string, sync = false): unknown {
    // Built and prepared once (a named server-side statement on PostgreSQL): the guard's hot path
    // then neither builds SQL nor parses it again per request.
    this.lookupStatement ??= this.prepareLookup();
    const values = { token: sessionToken };
    return sync ? this.lookupStatement.all(values) : this.lookupStatement.execute(values);
  }

  /** The session-and-user lookup as a prepared statement of the dialect. */
  private prepareLookup(): PreparedLookup {
    const { sessions, users } = this.t;
    const token = sql.placeholder('token');
    // MySQL compares keys byte for byte too, as every other lookup of this adapter (drizzle-queries).
    const match =
      this.dialect === 'mysql'
        ? and(eq(sessions.sessionToken, token), sql`BINARY ${sessions.sessionToken} = ${token}`)
        : eq(sessions.sessionToken, token);
    const query = this.q.db
      .select({
        session: { sessionToken: sessions.sessionToken, userId: sessions.userId, expires: sessions.expires },
        user: getTableColumns(users),
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(match)
      .limit(1);
    return (this.dialect === 'pg' ? query.prepare('nestjs_auth_session_lookup') : query.prepare()) as PreparedLookup;
  }

  /** An optional table; `MissingAdapterMethods` without it (reached only through the prototype). */
  private table(name: 'twoFactors' | 'refreshTokenFamilies' | 'apiKeys' | 'signingKeys'): Loose {
    const table: unknown = this.t[name];
    if (table) return table;
    throw new MissingAdapterMethods(
      [],
      `DrizzleAdapter: \`tables.${name}\` was not given, so what it stores is unavailable.`,
    );
  }
}

/** A prepared statement of any dialect: `execute` (a promise), `all` (better-sqlite3: the rows at once). */
interface PreparedLookup {
  execute(values: { token: string }): unknown;
  all(values: { token: string }): unknown;
}

/** An API key row, checked as it is read (`null` when it is no valid key). */
function apiKeyOf(row: Record<string, unknown>): AdapterApiKey | null {
  return storedApiKey({ ...row, scopes: splitWords(row.scopes) } as AdapterApiKey);
}

/** A signing-key row, checked as it is read (`null` when it is no valid key). */
function signingKeyOf(row: Record<string, unknown>): AdapterSigningKey | null {
  const slot = typeof row.slot === 'string' ? Number(row.slot) : row.slot;
  return storedSigningKey({ ...row, slot } as AdapterSigningKey);
}

/**
 * Hides a capability's methods on an adapter without its table: each becomes an own `undefined`
 * property, so `typeof adapter.createTwoFactor === 'function'` is false and the library does not
 * offer what needs it. A subclass's own implementation stays.
 */
function withoutMethods(
  adapter: DrizzleAdapter,
  names: readonly (
    keyof TwoFactorAdapter | keyof RefreshTokenAdapter | keyof ApiKeyAdapter | keyof SigningKeyAdapter
  )[],
): void {
  for (const name of names) {
    if (adapter[name] !== DrizzleAdapter.prototype[name]) continue;
    Object.defineProperty(adapter, name, { value: undefined, writable: true, configurable: true, enumerable: false });
  }
}
