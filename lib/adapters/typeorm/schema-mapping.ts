// Where the adapter's records live when the tables are not ours: the tables of Auth.js's official
// adapters (presets) or any mapping of SPEC fields to tables and columns. Data only; the entity
// schemas are built from it in schema-entities.ts.

/** The schemas of Auth.js's official SQL adapters, as their documentation gives them. */
export type AuthSchemaPreset = 'authjs-pg' | 'authjs-typeorm' | 'authjs-drizzle' | 'authjs-prisma';

/** The SQL dialects a mapping is resolved for. */
export type AuthSchemaDialect = 'postgres' | 'mysql' | 'sqlite';

/**
 * How a record's id is made. `given`: the id the library passes (a random UUID) is stored as it is;
 * `uuid` / `cuid`: the adapter makes one (a random UUID, or a cuid-like `c` + 24 base-36 characters);
 * `database`: the database makes it (`SERIAL`, identity, auto-increment) and it is read back.
 */
export type AuthIdStrategy = 'given' | 'uuid' | 'cuid' | 'database';

/**
 * How dates are stored. `native`: `timestamptz` / `datetime`; `utc`: a timestamp without time zone
 * holding UTC (Prisma, Drizzle on PostgreSQL and MySQL); `epoch-ms`: integer milliseconds (Drizzle
 * and Prisma on SQLite); `epoch-ms-string`: milliseconds as a decimal string (Auth.js's TypeORM
 * adapter).
 */
export type AuthDateStorage = 'native' | 'utc' | 'epoch-ms' | 'epoch-ms-string';

/** The SQL type of the user id and of the `userId` columns. */
export type AuthIdColumnType = 'text' | 'integer' | 'uuid';

/** The SPEC fields of each record (SPEC 2.8 to 2.12). */
export const AUTH_FIELDS = {
  user: ['id', 'name', 'email', 'emailVerified', 'image'],
  account: [
    'userId',
    'type',
    'provider',
    'providerAccountId',
    'refresh_token',
    'access_token',
    'expires_at',
    'token_type',
    'scope',
    'id_token',
    'session_state',
  ],
  session: ['sessionToken', 'userId', 'expires'],
  verificationToken: ['identifier', 'token', 'expires'],
  authenticator: [
    'credentialID',
    'userId',
    'providerAccountId',
    'credentialPublicKey',
    'counter',
    'credentialDeviceType',
    'credentialBackedUp',
    'transports',
  ],
} as const;

export type AuthRecord = keyof typeof AUTH_FIELDS;
export type AuthField<R extends AuthRecord> = (typeof AUTH_FIELDS)[R][number];

/**
 * Fields beyond SPEC that Auth.js's tables do not have: mapped only when `columns` names their
 * column (absent by default, so Auth.js's tables stay as they are). Authenticators: the passkey's
 * `name` (text) and `lastUsedAt` (a date, stored as the mapping's `dates`). Sessions: the device list's
 * `createdAt` and `lastSeenAt` (dates), `userAgent`, `ip` and `providerSid` (text), and two-factor's
 * `amr` (text).
 */
export const OPTIONAL_AUTH_FIELDS = {
  user: [],
  account: [],
  session: ['createdAt', 'lastSeenAt', 'userAgent', 'ip', 'providerSid', 'amr'],
  verificationToken: [],
  authenticator: ['name', 'lastUsedAt'],
} as const;
export type OptionalAuthField<R extends AuthRecord> = (typeof OPTIONAL_AUTH_FIELDS)[R][number];

/** Where one record lives. */
export interface AuthTableMapping<R extends AuthRecord> {
  /** The table name, as created (case matters on PostgreSQL). */
  table: string;
  /** Column names that differ from the SPEC field names (`{ userId: 'user_id' }`). */
  columns?: Partial<Record<AuthField<R> | OptionalAuthField<R>, string>>;
  /**
   * A surrogate key the record has in SQL but not in SPEC (`accounts.id SERIAL`): the adapter fills
   * it (or lets the database) and never returns it.
   */
  rowId?: { column: string; strategy: Exclude<AuthIdStrategy, 'given'> };
}

/** An explicit mapping: tables, column names, id strategy and column types. */
export interface AuthSchemaMapping {
  user: AuthTableMapping<'user'>;
  account: AuthTableMapping<'account'>;
  session: AuthTableMapping<'session'>;
  verificationToken: AuthTableMapping<'verificationToken'>;
  /** Absent: no authenticator table (WebAuthn is then unavailable). */
  authenticator?: AuthTableMapping<'authenticator'>;
  /** How user ids are made. @default 'given' */
  userId?: AuthIdStrategy;
  /** The SQL type of user ids. @default 'text' */
  idType?: AuthIdColumnType;
  /** @default 'native' */
  dates?: AuthDateStorage;
  /**
   * Whether foreign keys delete a user's accounts, sessions and authenticators with it. When false,
   * `deleteUser` deletes them first, in one transaction. @default false
   */
  cascade?: boolean;
}

/** What `schema` accepts: a preset name or a mapping. */
export type AuthSchemaOption = AuthSchemaPreset | AuthSchemaMapping;

/** Which dialects each preset exists for (the Auth.js adapter's own support). */
export const PRESET_DIALECTS: Record<AuthSchemaPreset, readonly AuthSchemaDialect[]> = {
  'authjs-pg': ['postgres'],
  'authjs-typeorm': ['postgres', 'mysql', 'sqlite'],
  'authjs-drizzle': ['postgres', 'mysql', 'sqlite'],
  'authjs-prisma': ['postgres', 'mysql', 'sqlite'],
};

/** The mapping of a preset on a dialect (see "One database with Auth.js" in the docs for the tables each expects). */
export function presetMapping(preset: AuthSchemaPreset, dialect: AuthSchemaDialect): AuthSchemaMapping {
  switch (preset) {
    case 'authjs-pg':
      // packages/adapter-pg/schema.sql: SERIAL ids, no foreign keys, singular verification_token.
      return {
        user: { table: 'users' },
        account: { table: 'accounts', rowId: { column: 'id', strategy: 'database' } },
        session: { table: 'sessions', rowId: { column: 'id', strategy: 'database' } },
        verificationToken: { table: 'verification_token' },
        userId: 'database',
        idType: 'integer',
        dates: 'native',
        cascade: false,
      };
    case 'authjs-typeorm':
      // @auth/typeorm-adapter's entities: uuid row ids, dates as millisecond strings, NO ACTION keys.
      return {
        user: { table: 'users' },
        account: { table: 'accounts', rowId: { column: 'id', strategy: 'uuid' } },
        session: { table: 'sessions', rowId: { column: 'id', strategy: 'uuid' } },
        verificationToken: { table: 'verification_tokens', rowId: { column: 'id', strategy: 'uuid' } },
        userId: 'given',
        idType: dialect === 'postgres' ? 'uuid' : 'text',
        dates: 'epoch-ms-string',
        cascade: false,
      };
    case 'authjs-drizzle':
      // defineTables() of @auth/drizzle-adapter: singular camelCase tables, natural keys, cascades.
      return {
        user: { table: 'user' },
        account: { table: 'account' },
        session: { table: 'session' },
        verificationToken: { table: 'verificationToken' },
        authenticator: { table: 'authenticator' },
        userId: 'given',
        idType: 'text',
        dates: dialect === 'sqlite' ? 'epoch-ms' : 'utc',
        cascade: true,
      };
    case 'authjs-prisma':
      // The adapter package's schema.prisma: model names as tables, cuid user ids, cascades.
      return {
        user: { table: 'User' },
        account: { table: 'Account' },
        session: { table: 'Session' },
        verificationToken: { table: 'VerificationToken' },
        authenticator: { table: 'Authenticator' },
        userId: 'cuid',
        idType: 'text',
        dates: dialect === 'sqlite' ? 'epoch-ms' : 'utc',
        cascade: true,
      };
  }
}
