import {
  bigint,
  boolean,
  datetime,
  index,
  int,
  mysqlTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/mysql-core';
import type { AdapterAccountType } from '../../providers/provider.types.js';

// The MySQL 8 / MariaDB tables of `DrizzleAdapter`. The first five are @auth/drizzle-adapter's
// default tables (same table and column names), with two widenings that keep every row: the token
// columns are `text` (its `varchar(255)` / `varchar(2048)` cannot hold a real id_token) and the dates
// keep milliseconds (`timestamp(3)`, as its `emailVerified`). The added columns and tables are
// named as the TypeORM adapter names them, their dates `datetime(3)` (no 2038 limit).

const id = (name: string) => varchar(name, { length: 255 });
const at = (name: string) => datetime(name, { mode: 'date', fsp: 3 });
const stamp = (name: string) => timestamp(name, { mode: 'date', fsp: 3 });

/** `user`: as @auth/drizzle-adapter's. */
const users = mysqlTable('user', {
  id: id('id').primaryKey(),
  name: varchar('name', { length: 255 }),
  email: varchar('email', { length: 255 }).unique(),
  emailVerified: stamp('emailVerified'),
  image: varchar('image', { length: 255 }),
});

/** `account`: as @auth/drizzle-adapter's, the tokens as `text`, plus an index on `userId`. */
const accounts = mysqlTable(
  'account',
  {
    userId: id('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: varchar('type', { length: 255 }).$type<AdapterAccountType>().notNull(),
    provider: varchar('provider', { length: 255 }).notNull(),
    providerAccountId: varchar('providerAccountId', { length: 255 }).notNull(),
    refresh_token: text('refresh_token'),
    access_token: text('access_token'),
    expires_at: int('expires_at'),
    token_type: varchar('token_type', { length: 255 }),
    scope: varchar('scope', { length: 255 }),
    id_token: text('id_token'),
    session_state: varchar('session_state', { length: 255 }),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerAccountId] }), index('account_userId_idx').on(t.userId)],
);

/** `session`: as @auth/drizzle-adapter's, plus the device columns (all nullable) and two indexes. */
const sessions = mysqlTable(
  'session',
  {
    sessionToken: varchar('sessionToken', { length: 255 }).primaryKey(),
    userId: id('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expires: stamp('expires').notNull(),
    createdAt: at('createdAt'),
    lastSeenAt: at('lastSeenAt'),
    userAgent: varchar('userAgent', { length: 255 }),
    ip: varchar('ip', { length: 64 }),
    providerSid: varchar('providerSid', { length: 255 }),
    amr: varchar('amr', { length: 255 }),
  },
  (t) => [index('session_userId_idx').on(t.userId), index('session_providerSid_idx').on(t.providerSid)],
);

/** `verificationToken`: as @auth/drizzle-adapter's. */
const verificationTokens = mysqlTable(
  'verificationToken',
  {
    identifier: varchar('identifier', { length: 255 }).notNull(),
    token: varchar('token', { length: 255 }).notNull(),
    expires: stamp('expires').notNull(),
  },
  (t) => [primaryKey({ columns: [t.identifier, t.token] })],
);

/** `authenticator`: as @auth/drizzle-adapter's, plus `name` and `lastUsedAt` (nullable). */
const authenticators = mysqlTable(
  'authenticator',
  {
    credentialID: varchar('credentialID', { length: 255 }).notNull().unique(),
    userId: id('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    providerAccountId: varchar('providerAccountId', { length: 255 }).notNull(),
    credentialPublicKey: varchar('credentialPublicKey', { length: 255 }).notNull(),
    counter: int('counter').notNull(),
    credentialDeviceType: varchar('credentialDeviceType', { length: 255 }).notNull(),
    credentialBackedUp: boolean('credentialBackedUp').notNull(),
    transports: varchar('transports', { length: 255 }),
    name: varchar('name', { length: 255 }),
    lastUsedAt: at('lastUsedAt'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.credentialID] })],
);

/** `two_factors`: a user's TOTP apps and backup codes (as the TypeORM adapter's table). */
const twoFactors = mysqlTable(
  'two_factors',
  {
    id: id('id').primaryKey(),
    userId: id('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: varchar('type', { length: 32 }).notNull(),
    name: varchar('name', { length: 255 }),
    secret: text('secret').notNull(),
    confirmedAt: at('confirmedAt'),
    createdAt: at('createdAt').notNull(),
    lastUsedAt: at('lastUsedAt'),
    lastUsedStep: bigint('lastUsedStep', { mode: 'number' }),
  },
  (t) => [index('two_factors_userId_idx').on(t.userId)],
);

/** `refresh_token_families`: native apps' sign-ins (as the TypeORM adapter's table). */
const refreshTokenFamilies = mysqlTable(
  'refresh_token_families',
  {
    id: varchar('id', { length: 64 }).primaryKey(),
    userId: id('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: varchar('clientId', { length: 255 }).notNull(),
    generation: int('generation').notNull(),
    tokenHash: varchar('tokenHash', { length: 64 }).notNull(),
    rotatedAt: at('rotatedAt').notNull(),
    expires: at('expires').notNull(),
    authTime: at('authTime').notNull(),
    amr: varchar('amr', { length: 255 }),
  },
  (t) => [index('refresh_token_families_userId_idx').on(t.userId)],
);

/** `api_keys`: API keys' hashes, never the keys (as the TypeORM adapter's table). */
const apiKeys = mysqlTable(
  'api_keys',
  {
    id: varchar('id', { length: 32 }).primaryKey(),
    userId: id('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: varchar('name', { length: 100 }).notNull(),
    keyHash: varchar('keyHash', { length: 64 }).notNull(),
    hint: varchar('hint', { length: 8 }).notNull(),
    scopes: varchar('scopes', { length: 1000 }),
    createdAt: at('createdAt').notNull(),
    expires: at('expires'),
    lastUsedAt: at('lastUsedAt'),
  },
  (t) => [index('api_keys_userId_idx').on(t.userId)],
);

/** `signing_keys`: the rotated keys that sign access tokens, one per slot (as the TypeORM adapter's table). */
const signingKeys = mysqlTable(
  'signing_keys',
  {
    id: varchar('id', { length: 64 }).primaryKey(),
    alg: varchar('alg', { length: 16 }).notNull(),
    publicJwk: text('publicJwk').notNull(),
    privateKey: text('privateKey').notNull(),
    slot: bigint('slot', { mode: 'number' }).notNull(),
    createdAt: at('createdAt').notNull(),
    activatesAt: at('activatesAt').notNull(),
    removesAt: at('removesAt'),
  },
  (t) => [uniqueIndex('signing_keys_slot_unique').on(t.slot)],
);

/**
 * The MySQL 8 / MariaDB tables of `DrizzleAdapter` (for `drizzle-orm/mysql2`). `users`, `accounts`,
 * `sessions`, `verificationTokens` and `authenticators` are @auth/drizzle-adapter's default tables
 * (`user`, `account`, `session`, `verificationToken`, `authenticator`), with the token columns of
 * `account` widened to `text` and the dates to `timestamp(3)` (an `ALTER TABLE ... MODIFY` keeps every
 * row), and nullable columns added: `session.createdAt`, `lastSeenAt`, `userAgent`, `ip`,
 * `providerSid`, `amr` and `authenticator.name`, `lastUsedAt`. `twoFactors`, `refreshTokenFamilies`,
 * `apiKeys` and `signingKeys` are the tables `two_factors`, `refresh_token_families`, `api_keys` and
 * `signing_keys`, as the TypeORM adapter names them.
 *
 * Create the database with a binary collation (`CREATE DATABASE app CHARACTER SET utf8mb4 COLLATE
 * utf8mb4_bin`): ids, tokens and addresses are then unique byte for byte, as on PostgreSQL and SQLite.
 * The adapter compares them byte for byte in any case.
 *
 * @example
 * // src/db/schema.ts
 * import { mysqlAuthTables } from 'nestjs-auth/drizzle';
 * export const { users, accounts, sessions, verificationTokens, authenticators, twoFactors,
 *   refreshTokenFamilies, apiKeys, signingKeys } = mysqlAuthTables;
 */
export const mysqlAuthTables = Object.freeze({
  users,
  accounts,
  sessions,
  verificationTokens,
  authenticators,
  twoFactors,
  refreshTokenFamilies,
  apiKeys,
  signingKeys,
});

/** The type of {@link mysqlAuthTables}. */
export type MySqlAuthTables = typeof mysqlAuthTables;
