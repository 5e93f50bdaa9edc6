import { randomUUID } from 'node:crypto';
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
import {
  accountOf,
  joinWords,
  sessionInfoOf,
  specSessionOf,
  splitWords,
  twoFactorOf,
} from '../drizzle/drizzle-rows.js';
import type { LookupBatcher } from '../lookup-batcher.js';
import { prismaSessionLookup, type PrismaAdapterPgPool } from './prisma-pg-lookup.js';
import { AdapterConflictError, AdapterNotFoundError, MissingAdapterMethods } from '../../errors/auth.errors.js';
import type { AdapterConflictKind } from '../../errors/auth.errors.js';
import { prismaTargetOf, prismaWriteError } from './prisma-errors.js';

// Lists are copied with `Array.from` (never `rows.map`), as in DrizzleAdapter: rows a driver builds
// in Node's own realm are no arrays of a test runner's VM context.

/* eslint-disable @typescript-eslint/no-explicit-any -- any generated client's argument types */
/**
 * What `PrismaAdapter` calls on a model of the app's client (`prisma.user`, `prisma.session`...):
 * every generated model delegate has these methods.
 */
export interface PrismaModelDelegate {
  /** `findFirst({ where, include?, orderBy? })` */
  findFirst(args: any): PromiseLike<any>;
  /** `findMany({ where, orderBy? })` */
  findMany(args: any): PromiseLike<any[]>;
  /** `create({ data })` */
  create(args: any): PromiseLike<any>;
  /** `createMany({ data })` */
  createMany(args: any): PromiseLike<{ count: number }>;
  /** `updateMany({ where, data })` */
  updateMany(args: any): PromiseLike<{ count: number }>;
  /** `deleteMany({ where })` */
  deleteMany(args: any): PromiseLike<{ count: number }>;
}

/**
 * The models `PrismaAdapter` uses on a client (or inside one of its interactive transactions): those
 * of `prismaSchemaPostgres`, `prismaSchemaMysql` or `prismaSchemaSqlite`. The last four are optional:
 * without the `TwoFactor` model the adapter has no `TwoFactorAdapter` methods (two-factor
 * authentication is then unavailable), likewise `RefreshTokenFamily` (native-app sign-ins), `ApiKey`
 * and `SigningKey`.
 */
export interface PrismaAdapterModels {
  /** Model `User` (@auth/prisma-adapter's). */
  user: PrismaModelDelegate;
  /** Model `Account` (@auth/prisma-adapter's). */
  account: PrismaModelDelegate;
  /** Model `Session` (@auth/prisma-adapter's, with the device columns where present). */
  session: PrismaModelDelegate;
  /** Model `VerificationToken` (@auth/prisma-adapter's). */
  verificationToken: PrismaModelDelegate;
  /** Model `Authenticator` (@auth/prisma-adapter's, with `name` and `lastUsedAt` where present). */
  authenticator: PrismaModelDelegate;
  /** Model `TwoFactor` (`two_factors`): `TwoFactorAdapter`. */
  twoFactor?: PrismaModelDelegate;
  /** Model `RefreshTokenFamily` (`refresh_token_families`): `RefreshTokenAdapter`. */
  refreshTokenFamily?: PrismaModelDelegate;
  /** Model `ApiKey` (`api_keys`): `ApiKeyAdapter`. */
  apiKey?: PrismaModelDelegate;
  /** Model `SigningKey` (`signing_keys`): `SigningKeyAdapter`. */
  signingKey?: PrismaModelDelegate;
}

/**
 * The app's `PrismaClient` (the instance of the client `prisma generate` made from a schema with the
 * models of `prismaSchemaPostgres`, `prismaSchemaMysql` or `prismaSchemaSqlite`), typed by what the
 * adapter calls, so any generated client (or an `$extends` one) fits.
 */
export interface PrismaAdapterClient extends PrismaAdapterModels {
  /** An interactive transaction: `$transaction(async (tx) => ...)`. */
  $transaction<R>(fn: (tx: any) => Promise<R>, options?: any): PromiseLike<R>;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Options of {@link PrismaAdapter}. */
export interface PrismaAdapterOptions {
  /**
   * Whether the accounts' token columns are read by this library alone (then `encryptAccountTokens`
   * defaults to on). Set `false` while an Auth.js app still reads the same tables.
   * @default true
   */
  privateAccountTokens?: boolean;
  /**
   * PostgreSQL: the node-postgres `Pool` your client's driver adapter runs on (`new PrismaPg(pool)`).
   * The session lookup, which the guard makes on every request with database sessions, then runs on
   * it as one prepared statement per batch of concurrent lookups, past Prisma's query pipeline (and
   * its logging and tracing); the adapter only reads with it. Without it, the batch goes through
   * `$queryRawUnsafe`.
   */
  pgPool?: PrismaAdapterPgPool;
}

type Row = Record<string, unknown>;

type OptionalModel = 'twoFactor' | 'refreshTokenFamily' | 'apiKey' | 'signingKey';
type Db = PrismaAdapterModels;

/** The generated client's model names of each delegate (its runtime data model's keys). */
const MODEL_NAMES: Record<keyof PrismaAdapterModels, string> = {
  user: 'User',
  account: 'Account',
  session: 'Session',
  verificationToken: 'VerificationToken',
  authenticator: 'Authenticator',
  twoFactor: 'TwoFactor',
  refreshTokenFamily: 'RefreshTokenFamily',
  apiKey: 'ApiKey',
  signingKey: 'SigningKey',
};

/**
 * The adapter over the app's Prisma client (tested with Prisma 7 and its driver adapters; PostgreSQL,
 * MySQL 8 / MariaDB, SQLite),
 * whose schema has the models of `prismaSchemaPostgres`, `prismaSchemaMysql` or `prismaSchemaSqlite`:
 * @auth/prisma-adapter's models plus the library's own.
 *
 * @example
 * AuthModule.forRootAsync({
 *   adapter: { inject: [PrismaService], useFactory: (prisma: PrismaService) => new PrismaAdapter(prisma) },
 *   ...
 * })
 *
 * Correct under concurrency: `useVerificationToken`, `deleteSession` and every delete that answers
 * whether a row went decide by the count of one `DELETE` (of concurrent calls, exactly one counts 1);
 * `updateAuthenticatorCounter`, `updateAccountTokens`, `useTwoFactorStep` and `rotateRefreshFamily`
 * are compare-and-sets (one conditional `updateMany`); uniqueness is the database's (a duplicate
 * fails with `AdapterConflictError`, a row for an unknown user with `AdapterNotFoundError`).
 * `deleteUserCascade` and `replaceTwoFactors` are interactive transactions. On MySQL/MariaDB, create
 * the database with a binary collation (`utf8mb4_bin`) so keys compare byte for byte.
 *
 * SPEC section 4's nineteen methods, and beyond SPEC: the device list, sign out everywhere,
 * back-channel logout by `sid`, token refresh, passkey names, account deletion in one transaction,
 * magic links replacing older ones, and (when the client has their models) two-factor,
 * refresh-token, API key and signing-key storage.
 */
export class PrismaAdapter
  implements
    Adapter,
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
  /** Whether `encryptAccountTokens` defaults to on (see {@link PrismaAdapterOptions}). */
  readonly privateAccountTokens: boolean;
  private readonly fields: Partial<Record<keyof PrismaAdapterModels, ReadonlySet<string>>>;
  /** Whether keys may compare case-insensitively (MySQL/MariaDB collations; unknown providers too). */
  private readonly looseKeys: boolean;
  /**
   * PostgreSQL: the session lookup as raw statements, the lookups of one event-loop turn batched
   * into one (see {@link LookupBatcher}), on `pgPool` or through `$queryRawUnsafe`.
   */
  private readonly rawLookup?: LookupBatcher<Row>;
  /**
   * How `getSessionAndUser` reads: `'pg-pool'` (a prepared statement on `options.pgPool`), `'raw'`
   * (`$queryRawUnsafe`), `'findFirst'` (other databases, or a data model it cannot read).
   */
  readonly sessionLookupPath: 'pg-pool' | 'raw' | 'findFirst';

  constructor(
    private readonly prisma: PrismaAdapterClient,
    options: PrismaAdapterOptions = {},
  ) {
    if (!prisma || typeof prisma !== 'object' || typeof prisma.user?.findFirst !== 'function')
      throw new TypeError(
        'PrismaAdapter: pass the PrismaClient of a schema with the models of `prismaSchemaPostgres`.',
      );
    this.privateAccountTokens = options.privateAccountTokens ?? true;
    this.fields = scalarFieldsOf(prisma);
    const provider = (prisma as { _activeProvider?: unknown })._activeProvider;
    if (
      options.pgPool !== undefined &&
      (typeof options.pgPool?.query !== 'function' || (typeof provider === 'string' && provider !== 'postgresql'))
    )
      throw new TypeError(
        'PrismaAdapter: `pgPool` is the node-postgres Pool of a PostgreSQL client (the one given to `new PrismaPg(pool)`).',
      );
    const lookup = prismaSessionLookup(prisma, options.pgPool);
    this.rawLookup = lookup?.batcher;
    this.sessionLookupPath = lookup?.path ?? 'findFirst';
    this.looseKeys = provider !== 'postgresql' && provider !== 'sqlite' && provider !== 'cockroachdb';
    if (!prisma.twoFactor) withoutMethods(this, TWO_FACTOR_ADAPTER_METHODS);
    if (!prisma.refreshTokenFamily) withoutMethods(this, REFRESH_TOKEN_ADAPTER_METHODS);
    if (!prisma.apiKey) withoutMethods(this, API_KEY_ADAPTER_METHODS);
    if (!prisma.signingKey) withoutMethods(this, SIGNING_KEY_ADAPTER_METHODS);
  }

  // ---- users ------------------------------------------------------------------------------------

  async createUser(user: AdapterUser): Promise<AdapterUser> {
    const id = typeof user.id === 'string' && user.id ? user.id : randomUUID();
    const data = this.columnsOnly('user', { ...user, id, emailVerified: user.emailVerified ?? null });
    try {
      return (await this.prisma.user.create({ data })) as AdapterUser;
    } catch (error) {
      throw prismaWriteError(error, (e) => (/email/i.test(prismaTargetOf(e)) ? 'user.email' : 'user'));
    }
  }

  async getUser(id: string): Promise<AdapterUser | null> {
    if (typeof id !== 'string') return null;
    return (await this.first(this.prisma.user, { id })) as AdapterUser | null;
  }

  async getUserByEmail(email: string): Promise<AdapterUser | null> {
    if (typeof email !== 'string') return null;
    return (await this.first(this.prisma.user, { email })) as AdapterUser | null;
  }

  async getUserByAccount(key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Promise<AdapterUser | null> {
    const where = { provider: key.provider, providerAccountId: key.providerAccountId };
    const account = (await this.first(this.prisma.account, where, { user: true })) as {
      user?: AdapterUser | null;
    } | null;
    return account?.user ?? null;
  }

  async updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Promise<AdapterUser> {
    const { id, ...rest } = user;
    const data = this.columnsOnly('user', rest);
    if (Object.keys(data).length && (await this.exists(this.prisma.user, { id })))
      await this.write(this.prisma.user.updateMany({ where: { id }, data }), 'user.email');
    const updated = await this.getUser(id);
    if (!updated) throw new AdapterNotFoundError('user');
    return updated;
  }

  async deleteUser(userId: string): Promise<AdapterUser | null> {
    // Sessions, accounts, authenticators and the library's rows go with the user: onDelete: Cascade.
    return this.deleteOne(this.prisma.user, { id: userId }) as Promise<AdapterUser | null>;
  }

  /**
   * Deletes the user with its sessions, accounts, authenticators, the library's rows of it and its
   * address's verification tokens in one interactive transaction (beyond SPEC: `UserDeletionAdapter`,
   * for `AuthService.deleteAccount`).
   */
  async deleteUserCascade(userId: string): Promise<AdapterUser | null> {
    if (typeof userId !== 'string') return null;
    const children = ['session', 'account', 'authenticator', 'twoFactor', 'refreshTokenFamily', 'apiKey'] as const;
    return this.prisma.$transaction(async (tx: Db) => {
      const user = (await this.first(tx.user, { id: userId })) as AdapterUser | null;
      if (!user) return null;
      for (const name of children) if (this.prisma[name]) await tx[name]!.deleteMany({ where: { userId } });
      if (typeof user.email === 'string' && user.email)
        await tx.verificationToken.deleteMany({ where: { identifier: user.email } });
      // A user deleted meanwhile by another call: this one deleted nothing that counts.
      const { count } = await tx.user.deleteMany({ where: { id: userId } });
      return count === 1 ? user : null;
    });
  }

  // ---- accounts ---------------------------------------------------------------------------------

  async linkAccount(account: AdapterAccount): Promise<AdapterAccount> {
    await this.write(this.prisma.account.create({ data: this.columnsOnly('account', account) }), 'account');
    return account;
  }

  async unlinkAccount(
    key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>,
  ): Promise<AdapterAccount | undefined> {
    const row = await this.deleteOne(this.prisma.account, {
      provider: key.provider,
      providerAccountId: key.providerAccountId,
    });
    return row ? accountOf(row) : undefined;
  }

  async getAccount(providerAccountId: string, provider: string): Promise<AdapterAccount | null> {
    const row = await this.first(this.prisma.account, { provider, providerAccountId });
    return row ? accountOf(row) : null;
  }

  /** The user's accounts (beyond SPEC: `AccountTokensAdapter`, for `AuthService.getAccessToken`). */
  async listAccountsByUserId(userId: string): Promise<AdapterAccount[]> {
    const rows = await this.many(this.prisma.account, { userId });
    return Array.from(rows, accountOf);
  }

  /**
   * Compare-and-swap of the account's tokens (beyond SPEC: `AccountTokensAdapter`): one `updateMany`
   * whose `where` carries the `refresh_token` and `expires_at` that were read.
   */
  async updateAccountTokens(
    match: Pick<AdapterAccount, 'provider' | 'providerAccountId'> & {
      refresh_token: string | null;
      expires_at: number | null;
    },
    next: AccountTokens,
  ): Promise<AdapterAccount | null> {
    const where = {
      provider: match.provider,
      providerAccountId: match.providerAccountId,
      refresh_token: match.refresh_token ?? null,
      expires_at: match.expires_at ?? null,
    };
    const { access_token, refresh_token, id_token, expires_at, token_type, scope } = next ?? {};
    const data = this.columnsOnly('account', { access_token, refresh_token, id_token, expires_at, token_type, scope });
    // Read first where keys may compare case-insensitively: the update then matches that row only.
    if (this.looseKeys && !(await this.exists(this.prisma.account, where))) return null;
    if (Object.keys(data).length) {
      const { count } = await this.write(this.prisma.account.updateMany({ where, data }), 'account');
      if (count === 0) return null;
    } else if (!(await this.first(this.prisma.account, where))) return null;
    return this.getAccount(match.providerAccountId, match.provider);
  }

  // ---- sessions ---------------------------------------------------------------------------------

  async createSession(
    session: { sessionToken: string; userId: string; expires: Date } & AdapterSessionDetails,
  ): Promise<AdapterSession> {
    const value = { sessionToken: session.sessionToken, userId: session.userId, expires: session.expires };
    await this.write(this.prisma.session.create({ data: { ...this.details(session), ...value } }), 'session');
    return value;
  }

  async getSessionAndUser(sessionToken: string): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
    if (typeof sessionToken !== 'string') return null;
    // PostgreSQL: the join as one raw statement per batch of concurrent lookups (the guard's hot
    // path; Prisma's query planning is most of a lookup's cost otherwise), on `pgPool` when given.
    if (this.rawLookup) {
      const found = await this.rawLookup.lookup(sessionToken);
      if (!found) return null;
      const { sessionToken: token, userId, expires, ...user } = found;
      return {
        session: { sessionToken: String(token), userId: String(userId), expires: expires as Date },
        user: user as unknown as AdapterUser,
      };
    }
    const row = (await this.first(this.prisma.session, { sessionToken }, { user: true })) as
      (Row & { user?: AdapterUser | null }) | null;
    if (!row?.user) return null;
    return { session: specSessionOf(row), user: row.user };
  }

  async updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'> & AdapterSessionDetails,
  ): Promise<AdapterSession | null> {
    const { sessionToken, ...rest } = session;
    const data = this.columnsOnly('session', rest);
    if (Object.keys(data).length && (await this.exists(this.prisma.session, { sessionToken })))
      await this.write(this.prisma.session.updateMany({ where: { sessionToken }, data }), 'session');
    const row = await this.first(this.prisma.session, { sessionToken });
    return row ? specSessionOf(row) : null;
  }

  async deleteSession(sessionToken: string): Promise<AdapterSession | null> {
    const row = await this.deleteOne(this.prisma.session, { sessionToken });
    return row ? specSessionOf(row) : null;
  }

  /** The user's sessions with their details (beyond SPEC: `SessionListingAdapter`). */
  async listSessionsByUserId(userId: string): Promise<AdapterSessionInfo[]> {
    const rows = await this.many(this.prisma.session, { userId });
    return Array.from(rows, sessionInfoOf);
  }

  /** The sessions of one OP session (beyond SPEC: `SessionsByProviderSidAdapter`; none without the field). */
  async listSessionsByProviderSid(providerSid: string): Promise<AdapterSessionInfo[]> {
    if (!providerSid || typeof providerSid !== 'string' || !this.has('session', 'providerSid')) return [];
    const rows = await this.many(this.prisma.session, { providerSid });
    return Array.from(rows, sessionInfoOf);
  }

  /** Deletes every session of a user (beyond SPEC: `SessionsByUserAdapter`, for `AuthService.signOutEverywhere`). */
  async deleteSessionsByUserId(userId: string): Promise<number> {
    return this.deleteExact(this.prisma.session, { userId }, ['sessionToken']);
  }

  // ---- verification tokens ------------------------------------------------------------------------

  async createVerificationToken(token: VerificationToken): Promise<VerificationToken> {
    const value = { identifier: token.identifier, token: token.token, expires: token.expires };
    await this.write(this.prisma.verificationToken.create({ data: value }), 'verificationToken');
    return { ...value };
  }

  async useVerificationToken(params: { identifier: string; token: string }): Promise<VerificationToken | null> {
    const { identifier, token } = params ?? {};
    if (typeof identifier !== 'string' || typeof token !== 'string') return null;
    // The row is read, then deleted by one `deleteMany`: of concurrent calls, exactly one counts it.
    const row = (await this.deleteOne(this.prisma.verificationToken, {
      identifier,
      token,
    })) as VerificationToken | null;
    return row ? { identifier: row.identifier, token: row.token, expires: row.expires } : null;
  }

  /** Deletes every verification token of an identifier (beyond SPEC: `VerificationTokensByIdentifierAdapter`). */
  async deleteVerificationTokensByIdentifier(identifier: string): Promise<number> {
    return this.deleteExact(this.prisma.verificationToken, { identifier }, ['identifier', 'token']);
  }

  // ---- authenticators ---------------------------------------------------------------------------

  async createAuthenticator(authenticator: AdapterAuthenticator): Promise<AdapterAuthenticator> {
    const data = this.columnsOnly('authenticator', {
      ...authenticator,
      transports: authenticator.transports ?? null,
    });
    await this.write(this.prisma.authenticator.create({ data }), 'authenticator');
    const created = await this.getAuthenticator(authenticator.credentialID);
    if (!created) throw new AdapterNotFoundError('authenticator');
    return created;
  }

  async getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null> {
    if (typeof credentialID !== 'string') return null;
    return (await this.first(this.prisma.authenticator, { credentialID })) as AdapterAuthenticator | null;
  }

  async listAuthenticatorsByUserId(userId: string): Promise<AdapterAuthenticator[]> {
    return (await this.many(this.prisma.authenticator, { userId })) as unknown as AdapterAuthenticator[];
  }

  async updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
    expectedCounter?: number,
  ): Promise<AdapterAuthenticator> {
    const where = expectedCounter === undefined ? { credentialID } : { credentialID, counter: expectedCounter };
    const data = this.columnsOnly('authenticator', { counter: newCounter, lastUsedAt: new Date() });
    if (!(await this.exists(this.prisma.authenticator, { credentialID })))
      throw new AdapterNotFoundError('authenticator');
    const { count } = await this.write(this.prisma.authenticator.updateMany({ where, data }), 'authenticator');
    const current = await this.getAuthenticator(credentialID);
    if (!current) throw new AdapterNotFoundError('authenticator');
    if (count === 0)
      throw new AdapterConflictError(
        'authenticator.counter',
        'The authenticator was used concurrently: its counter changed since it was read.',
      );
    return current;
  }

  /** Sets or clears a passkey's name (beyond SPEC: `PasskeyNamesAdapter`); `null` for an unknown credential. */
  async updateAuthenticatorName(credentialID: string, name: string | null): Promise<AdapterAuthenticator | null> {
    if (!this.has('authenticator', 'name'))
      throw new AdapterNotFoundError('authenticator', 'The Authenticator model has no `name` field.');
    if (!(await this.exists(this.prisma.authenticator, { credentialID }))) return null;
    const { count } = await this.write(
      this.prisma.authenticator.updateMany({ where: { credentialID }, data: { name } }),
      'authenticator',
    );
    return count === 0 ? null : this.getAuthenticator(credentialID);
  }

  /** Deletes an authenticator (beyond SPEC: `PasskeyNamesAdapter`); `true` when a row went. */
  async deleteAuthenticator(credentialID: string): Promise<boolean> {
    return (await this.deleteOne(this.prisma.authenticator, { credentialID }, true)) !== null;
  }

  // ---- two-factor authentication (beyond SPEC: `TwoFactorAdapter`) ---------------------------------

  /** Stores a new factor of a user (`AdapterNotFoundError` for an unknown user). */
  async createTwoFactor(factor: AdapterTwoFactor): Promise<AdapterTwoFactor> {
    const model = this.model('twoFactor');
    const stored = storedTwoFactor(factor);
    await this.write(model.create({ data: stored }), 'twoFactor');
    // Read back (dates and numbers as the database keeps them), unless already deleted again.
    const row = await this.first(model, { id: stored.id, userId: stored.userId });
    return row ? twoFactorOf(row) : stored;
  }

  /** The user's factors, unconfirmed ones included, oldest first. */
  async listTwoFactorsByUserId(userId: string): Promise<AdapterTwoFactor[]> {
    const rows = await this.many(this.model('twoFactor'), { userId }, [{ createdAt: 'asc' }, { id: 'asc' }]);
    return Array.from(rows, twoFactorOf);
  }

  /** Sets the factor's `name` and/or `confirmedAt`; `null` when the user has no factor with this id. */
  async updateTwoFactor(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterTwoFactor, 'name' | 'confirmedAt'>>,
  ): Promise<AdapterTwoFactor | null> {
    const model = this.model('twoFactor');
    const data = definedOnly({ name: patch?.name, confirmedAt: patch?.confirmedAt });
    if (Object.keys(data).length && (await this.exists(model, { id, userId })))
      await this.write(model.updateMany({ where: { id, userId }, data }), 'twoFactor');
    const row = await this.first(model, { id, userId });
    return row ? twoFactorOf(row) : null;
  }

  /** Records a use of a TOTP factor at a time step: one conditional `updateMany` (of concurrent calls, one writes). */
  async useTwoFactorStep(id: string, userId: string, step: number, at: Date): Promise<boolean> {
    const model = this.model('twoFactor');
    if (!(await this.exists(model, { id, userId }))) return false;
    const where = { id, userId, OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: step } }] };
    const { count } = await this.write(
      model.updateMany({ where, data: { lastUsedStep: step, lastUsedAt: at } }),
      'twoFactor',
    );
    return count === 1;
  }

  /** Deletes the user's factor; `true` when a row went (of concurrent calls, exactly one). */
  async deleteTwoFactor(id: string, userId: string): Promise<boolean> {
    return (await this.deleteOne(this.model('twoFactor'), { id, userId }, true)) !== null;
  }

  /** Deletes the user's factors (of `type` only, when given); returns how many went. */
  async deleteTwoFactorsByUserId(userId: string, type?: string): Promise<number> {
    const where = type === undefined ? { userId } : { userId, type };
    return this.deleteExact(this.model('twoFactor'), where, ['id']);
  }

  /** Replaces the user's factors of `type` with `factors` in one interactive transaction. */
  async replaceTwoFactors(userId: string, type: string, factors: AdapterTwoFactor[]): Promise<void> {
    this.model('twoFactor');
    if (factors.some((f) => f.userId !== userId || f.type !== type))
      throw new TypeError('replaceTwoFactors: every factor must be of the user and type it replaces.');
    const rows = factors.map(storedTwoFactor);
    await this.write(
      this.prisma.$transaction(async (tx: Db) => {
        await this.deleteExact(tx.twoFactor!, { userId, type }, ['id']);
        // One row at a time: `createMany` is not on every provider of Prisma 5.
        for (const data of rows) await tx.twoFactor!.create({ data });
      }),
      'twoFactor',
    );
  }

  // ---- refresh-token families (beyond SPEC: `RefreshTokenAdapter`) ----------------------------------

  /** Stores a new family of a user (`AdapterNotFoundError` for an unknown user, `TypeError` for an invalid family). */
  async createRefreshFamily(family: AdapterRefreshFamily): Promise<AdapterRefreshFamily> {
    const model = this.model('refreshTokenFamily');
    const stored = newRefreshFamily(family);
    try {
      await this.write(model.create({ data: { ...stored, amr: joinWords(stored.amr) } }), 'session');
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
    const row = await this.readChecked(this.model('refreshTokenFamily'), { id });
    return row ? storedRefreshFamily({ ...row, amr: splitWords(row.amr) } as unknown as AdapterRefreshFamily) : null;
  }

  /** Rotates only when the stored generation is `from`: one conditional `updateMany`. */
  async rotateRefreshFamily(
    id: string,
    from: number,
    next: Pick<AdapterRefreshFamily, 'tokenHash' | 'rotatedAt' | 'expires'>,
  ): Promise<boolean> {
    const model = this.model('refreshTokenFamily');
    const rotation = refreshRotation(from, next);
    if (!rotation) return false;
    if (!(await this.exists(model, { id }))) return false;
    const { count } = await this.write(
      model.updateMany({ where: { id, generation: from }, data: { ...rotation } }),
      'session',
    );
    return count === 1;
  }

  /** Deletes the family; `true` when a row went. */
  async deleteRefreshFamily(id: string): Promise<boolean> {
    return (await this.deleteOne(this.model('refreshTokenFamily'), { id }, true)) !== null;
  }

  /** Deletes every family of the user; returns how many went. */
  async deleteRefreshFamiliesByUserId(userId: string): Promise<number> {
    return this.deleteExact(this.model('refreshTokenFamily'), { userId }, ['id']);
  }

  // ---- API keys (beyond SPEC: `ApiKeyAdapter`) ------------------------------------------------------

  /** Stores a new key of a user (`AdapterNotFoundError` for an unknown user, `TypeError` for an invalid key). */
  async createApiKey(key: AdapterApiKey): Promise<AdapterApiKey> {
    const model = this.model('apiKey');
    const stored = newApiKey(key);
    try {
      await this.write(model.create({ data: { ...stored, scopes: joinWords(stored.scopes) } }), 'apiKey');
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
    const row = await this.readChecked(this.model('apiKey'), { id });
    return row ? apiKeyOf(row) : null;
  }

  /** The user's keys, oldest first; a row that is no valid key is left out. */
  async listApiKeysByUserId(userId: string): Promise<AdapterApiKey[]> {
    const model = this.model('apiKey');
    const orderBy = [{ createdAt: 'asc' }, { id: 'asc' }];
    const rows = await this.manyChecked(model, { userId }, orderBy);
    return Array.from(rows, apiKeyOf).filter((key): key is AdapterApiKey => key !== null);
  }

  /** Sets the key's `name` and/or `lastUsedAt`; `null` when the user has no key with this id. */
  async updateApiKey(
    id: string,
    userId: string,
    patch: Partial<Pick<AdapterApiKey, 'name' | 'lastUsedAt'>>,
  ): Promise<AdapterApiKey | null> {
    const model = this.model('apiKey');
    const data = apiKeyPatch(patch);
    if (Object.keys(data).length && (await this.exists(model, { id, userId })))
      await this.write(model.updateMany({ where: { id, userId }, data }), 'apiKey');
    const row = await this.readChecked(model, { id, userId });
    return row ? apiKeyOf(row) : null;
  }

  /** Deletes the user's key; `true` when a row went (one `deleteMany`: of concurrent calls, exactly one). */
  async deleteApiKey(id: string, userId: string): Promise<boolean> {
    return (await this.deleteOne(this.model('apiKey'), { id, userId }, true)) !== null;
  }

  /** Deletes every key of the user; returns how many went. */
  async deleteApiKeysByUserId(userId: string): Promise<number> {
    return this.deleteExact(this.model('apiKey'), { userId }, ['id']);
  }

  // ---- signing keys (beyond SPEC: `SigningKeyAdapter`) ----------------------------------------------

  /**
   * Stores a new key (`TypeError` for an invalid one). One `create`: a key whose id or slot is taken
   * is refused by the primary key or the unique slot, so of instances rotating at once exactly one
   * writes; the others get `AdapterConflictError` (`signingKey`).
   */
  async createSigningKey(key: AdapterSigningKey): Promise<AdapterSigningKey> {
    const model = this.model('signingKey');
    const stored = newSigningKey(key);
    try {
      await this.write(model.create({ data: stored }), 'signingKey');
    } catch (error) {
      if (!(error instanceof AdapterConflictError)) throw error;
      throw new AdapterConflictError(
        'signingKey',
        'Storage refused the write: a signing key with this id or slot exists.',
        {
          cause: error.cause,
        },
      );
    }
    const row = await this.readChecked(model, { id: stored.id });
    return (row && signingKeyOf(row)) ?? stored;
  }

  /** Every key, oldest slot first; a row that is no valid key is left out (fail closed). */
  async listSigningKeys(): Promise<AdapterSigningKey[]> {
    const rows = await this.manyChecked(this.model('signingKey'), {}, [{ slot: 'asc' }]);
    return Array.from(rows, signingKeyOf).filter((key): key is AdapterSigningKey => key !== null);
  }

  /** Sets the key's `activatesAt` and/or `removesAt`; `null` when there is no such key. */
  async updateSigningKey(
    id: string,
    patch: Partial<Pick<AdapterSigningKey, 'activatesAt' | 'removesAt'>>,
  ): Promise<AdapterSigningKey | null> {
    const model = this.model('signingKey');
    const data = signingKeyPatch(patch);
    if (Object.keys(data).length && (await this.exists(model, { id })))
      await this.write(model.updateMany({ where: { id }, data }), 'signingKey');
    const row = await this.readChecked(model, { id });
    return row ? signingKeyOf(row) : null;
  }

  /** Deletes the key; `true` when a row went. */
  async deleteSigningKey(id: string): Promise<boolean> {
    return (await this.deleteOne(this.model('signingKey'), { id }, true)) !== null;
  }

  // ---- housekeeping -------------------------------------------------------------------------------

  /**
   * Deletes the sessions, verification tokens, native apps' refresh-token families and API keys that
   * expired before `now` (a key that never expires stays). The library deletes an expired row only
   * when it is presented; run this on a schedule so abandoned ones do not pile up. Not part of the
   * adapter contract.
   *
   * @returns how many rows of each went (`refreshFamilies`, `apiKeys`: 0 without that model)
   */
  async deleteExpired(
    now: Date = new Date(),
  ): Promise<{ sessions: number; verificationTokens: number; refreshFamilies: number; apiKeys: number }> {
    const expired = async (model: PrismaModelDelegate | undefined) =>
      model ? (await model.deleteMany({ where: { expires: { lt: now } } })).count : 0;
    return {
      sessions: await expired(this.prisma.session),
      verificationTokens: await expired(this.prisma.verificationToken),
      refreshFamilies: await expired(this.prisma.refreshTokenFamily),
      apiKeys: await expired(this.prisma.apiKey),
    };
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /**
   * Reads the row matching `where`, then deletes it with one `deleteMany`: the row when this call's
   * delete counted it, else `null` (absent, or taken by a concurrent call).
   */
  private async deleteOne(model: PrismaModelDelegate, where: Row, keysOnly = false): Promise<Row | null> {
    if (Object.values(where).some((value) => typeof value !== 'string')) return null;
    // Only whether a row went: one `deleteMany` where keys compare exactly.
    if (keysOnly && !this.looseKeys) return (await model.deleteMany({ where })).count > 0 ? where : null;
    const row = await this.first(model, where, keysOnly ? 'keys' : undefined);
    if (!row) return null;
    return (await model.deleteMany({ where })).count > 0 ? row : null;
  }

  /**
   * The row matching `where` exactly (byte for byte), or `null`. Keys are unique, so where a
   * collation compares case-insensitively (MySQL's), the one row found is the only candidate.
   */
  private async first(model: PrismaModelDelegate, where: Row, include?: Row | 'keys'): Promise<Row | null> {
    const args =
      include === 'keys'
        ? { where, select: Object.fromEntries(Object.keys(where).map((field) => [field, true])) }
        : include
          ? { where, include }
          : { where };
    const row = (await model.findFirst(args)) as Row | null;
    return exactly(row, where) ? row : null;
  }

  /** Whether a row matches `where` exactly; always `true` where keys compare exactly anyway (no read). */
  private async exists(model: PrismaModelDelegate, where: Row): Promise<boolean> {
    // Only the key columns: a row with a value Prisma cannot read (a zero date) is still found.
    return !this.looseKeys || (await this.first(model, where, 'keys')) !== null;
  }

  /** The rows matching `where` exactly (byte for byte), in `orderBy` order. */
  private async many(model: PrismaModelDelegate, where: Row, orderBy?: Row[]): Promise<Row[]> {
    const rows = (await model.findMany(orderBy ? { where, orderBy } : { where })) as Row[];
    return Array.from(rows).filter((row) => exactly(row, where));
  }

  /**
   * Deletes the rows matching `where` exactly; returns how many went. Where keys may compare
   * case-insensitively, the rows are read first and deleted by their unique `key`.
   */
  private async deleteExact(model: PrismaModelDelegate, where: Row, key: readonly string[]): Promise<number> {
    if (!this.looseKeys) return (await model.deleteMany({ where })).count;
    // Only the key columns: a row with a value Prisma cannot read (a zero date) still goes.
    const select = Object.fromEntries([...Object.keys(where), ...key].map((field) => [field, true]));
    const found = (await model.findMany({ where, select })) as Row[];
    const rows = Array.from(found).filter((row) => exactly(row, where));
    if (!rows.length) return 0;
    const keys = rows.map((row) => Object.fromEntries(key.map((field) => [field, row[field]])));
    return (await model.deleteMany({ where: { ...where, OR: keys } })).count;
  }

  /**
   * The row, or `null` when there is none or Prisma cannot read it (a value of the wrong type stored
   * behind its back, such as text that is no date): such a row reads as missing (fail closed).
   */
  private async readChecked(model: PrismaModelDelegate, where: Row): Promise<Row | null> {
    try {
      return await this.first(model, where);
    } catch (error) {
      if (isConversionError(error)) return null;
      throw error;
    }
  }

  /**
   * The rows matching `where` exactly, in `orderBy` order, in one read; when Prisma cannot read one
   * of them (a value of the wrong type stored behind its back), one read per row, that row left out.
   */
  private async manyChecked(model: PrismaModelDelegate, where: Row, orderBy: Row[]): Promise<Row[]> {
    try {
      return await this.many(model, where, orderBy);
    } catch (error) {
      if (!isConversionError(error)) throw error;
    }
    const ids = (await model.findMany({ where, select: { id: true }, orderBy })) as { id: string }[];
    const rows: Row[] = [];
    for (const { id } of Array.from(ids)) {
      const row = await this.readChecked(model, { ...where, id });
      if (row && exactly(row, where)) rows.push(row);
    }
    return rows;
  }

  /** Awaits a write, its unique and foreign-key violations as the contract's errors. */
  private async write<T>(promise: PromiseLike<T>, conflict: AdapterConflictKind): Promise<T> {
    try {
      return await promise;
    } catch (error) {
      throw prismaWriteError(error, () => conflict);
    }
  }

  /** The session details among `values` that the Session model has fields for. */
  private details(values: object): Row {
    const picked: Row = {};
    for (const field of SESSION_DETAIL_FIELDS) picked[field] = (values as Row)[field];
    return this.columnsOnly('session', picked);
  }

  /** `values` without `undefined` ones and, where the client tells its fields, without unknown fields. */
  private columnsOnly(model: keyof PrismaAdapterModels, values: object): Row {
    const fields = this.fields[model];
    const out: Row = {};
    for (const [key, value] of Object.entries(values))
      if (value !== undefined && (!fields || fields.has(key))) out[key] = value;
    return out;
  }

  /** Whether the model has the field (`true` when the client does not tell its fields). */
  private has(model: keyof PrismaAdapterModels, field: string): boolean {
    const fields = this.fields[model];
    return !fields || fields.has(field);
  }

  /** An optional model; `MissingAdapterMethods` without it (reached only through the prototype). */
  private model(name: OptionalModel): PrismaModelDelegate {
    const model = this.prisma[name];
    if (model) return model;
    throw new MissingAdapterMethods(
      [],
      `PrismaAdapter: the client has no \`${MODEL_NAMES[name]}\` model, so what it stores is unavailable.`,
    );
  }
}

/** The scalar fields of each model, read from the generated client's runtime data model where it has one. */
function scalarFieldsOf(prisma: object): Partial<Record<keyof PrismaAdapterModels, ReadonlySet<string>>> {
  const models = (
    prisma as { _runtimeDataModel?: { models?: Record<string, { fields?: { name: string; kind: string }[] }> } }
  )._runtimeDataModel?.models;
  const out: Partial<Record<keyof PrismaAdapterModels, ReadonlySet<string>>> = {};
  if (!models) return out;
  for (const [delegate, name] of Object.entries(MODEL_NAMES) as [keyof PrismaAdapterModels, string][]) {
    const fields = models[name]?.fields;
    if (Array.isArray(fields))
      out[delegate] = new Set(fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum').map((f) => f.name));
  }
  return out;
}

/** Whether the row's value of each string in `where` is that string exactly (not only equal under a collation). */
function exactly(row: Row | null | undefined, where: Row): row is Row {
  if (!row) return false;
  return Object.entries(where).every(([key, value]) => typeof value !== 'string' || row[key] === value);
}

/** The entries of `values` that are not `undefined`. */
function definedOnly(values: Row): Row {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/** Whether Prisma failed to convert a stored value to its field's type (a corrupt row). */
function isConversionError(error: unknown): boolean {
  // @prisma/adapter-mariadb 7 throws a bare RangeError on a zero date (`Date#toISOString`).
  if (error instanceof RangeError || (error as Error | null)?.name === 'RangeError') return true;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  return (
    code === 'P2023' ||
    code === 'P2020' ||
    code === 'P2032' ||
    (typeof e?.message === 'string' && /conver|invalid (date|time)|inconsistent column data/i.test(e.message))
  );
}

/** An API key row, checked as it is read (`null` when it is no valid key). */
function apiKeyOf(row: Row): AdapterApiKey | null {
  return storedApiKey({ ...row, scopes: splitWords(row.scopes) } as unknown as AdapterApiKey);
}

/** A signing-key row, checked as it is read (`null` when it is no valid key). */
function signingKeyOf(row: Row): AdapterSigningKey | null {
  const slot = typeof row.slot === 'bigint' || typeof row.slot === 'string' ? Number(row.slot) : row.slot;
  return storedSigningKey({ ...row, slot } as unknown as AdapterSigningKey);
}

/**
 * Hides a capability's methods on an adapter without its model: each becomes an own `undefined`
 * property, so `typeof adapter.createTwoFactor === 'function'` is false and the library does not
 * offer what needs it. A subclass's own implementation stays.
 */
function withoutMethods(
  adapter: PrismaAdapter,
  names: readonly (
    keyof TwoFactorAdapter | keyof RefreshTokenAdapter | keyof ApiKeyAdapter | keyof SigningKeyAdapter
  )[],
): void {
  for (const name of names) {
    if (adapter[name] !== PrismaAdapter.prototype[name]) continue;
    Object.defineProperty(adapter, name, { value: undefined, writable: true, configurable: true, enumerable: false });
  }
}
