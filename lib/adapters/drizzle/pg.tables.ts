import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import type { AdapterAccountType } from '../../providers/provider.types.js';

// The PostgreSQL tables of `DrizzleAdapter`. The first five are @auth/drizzle-adapter's default
// tables (`user`, `account`, `session`, `verificationToken`, `authenticator`: the same names, column
// names and types), so an app moves from that adapter to this one and keeps its rows; beyond them,
// nullable columns and tables under the names the TypeORM adapter uses.

/**
 * `timestamp(3)` read as a `Date` in UTC, as drizzle's `timestamp({ mode: 'date' })`, except that
 * PostgreSQL's `infinity` and `-infinity` read as an invalid date (drizzle's would make them a date
 * in 2000): the library's rows with a date that is no date read as missing (fail closed).
 */
const at = customType<{ data: Date; driverData: string }>({
  dataType: () => 'timestamp(3)',
  toDriver: (value) => value.toISOString(),
  fromDriver: (value) => (/infinity/i.test(String(value)) ? new Date(Number.NaN) : new Date(`${String(value)}+0000`)),
});

/** `user`: as @auth/drizzle-adapter's. */
const users = pgTable('user', {
  id: text('id').primaryKey(),
  name: text('name'),
  email: text('email').unique(),
  emailVerified: timestamp('emailVerified', { mode: 'date' }),
  image: text('image'),
});

/** `account`: as @auth/drizzle-adapter's, plus an index on `userId`. */
const accounts = pgTable(
  'account',
  {
    userId: text('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').$type<AdapterAccountType>().notNull(),
    provider: text('provider').notNull(),
    providerAccountId: text('providerAccountId').notNull(),
    refresh_token: text('refresh_token'),
    access_token: text('access_token'),
    expires_at: integer('expires_at'),
    token_type: text('token_type'),
    scope: text('scope'),
    id_token: text('id_token'),
    session_state: text('session_state'),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerAccountId] }), index('account_userId_idx').on(t.userId)],
);

/** `session`: as @auth/drizzle-adapter's, plus the device columns (all nullable) and two indexes. */
const sessions = pgTable(
  'session',
  {
    sessionToken: text('sessionToken').primaryKey(),
    userId: text('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expires: timestamp('expires', { mode: 'date' }).notNull(),
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
const verificationTokens = pgTable(
  'verificationToken',
  {
    identifier: text('identifier').notNull(),
    token: text('token').notNull(),
    expires: timestamp('expires', { mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.identifier, t.token] })],
);

/** `authenticator`: as @auth/drizzle-adapter's, plus `name` and `lastUsedAt` (nullable). */
const authenticators = pgTable(
  'authenticator',
  {
    credentialID: text('credentialID').notNull().unique(),
    userId: text('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    providerAccountId: text('providerAccountId').notNull(),
    credentialPublicKey: text('credentialPublicKey').notNull(),
    counter: integer('counter').notNull(),
    credentialDeviceType: text('credentialDeviceType').notNull(),
    credentialBackedUp: boolean('credentialBackedUp').notNull(),
    transports: text('transports'),
    name: varchar('name', { length: 255 }),
    lastUsedAt: at('lastUsedAt'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.credentialID] })],
);

/** `two_factors`: a user's TOTP apps and backup codes (as the TypeORM adapter's table). */
const twoFactors = pgTable(
  'two_factors',
  {
    id: varchar('id', { length: 255 }).primaryKey(),
    userId: text('userId')
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
const refreshTokenFamilies = pgTable(
  'refresh_token_families',
  {
    id: varchar('id', { length: 64 }).primaryKey(),
    userId: text('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: varchar('clientId', { length: 255 }).notNull(),
    generation: integer('generation').notNull(),
    tokenHash: varchar('tokenHash', { length: 64 }).notNull(),
    rotatedAt: at('rotatedAt').notNull(),
    expires: at('expires').notNull(),
    authTime: at('authTime').notNull(),
    amr: varchar('amr', { length: 255 }),
  },
  (t) => [index('refresh_token_families_userId_idx').on(t.userId)],
);

/** `api_keys`: API keys' hashes, never the keys (as the TypeORM adapter's table). */
const apiKeys = pgTable(
  'api_keys',
  {
    id: varchar('id', { length: 32 }).primaryKey(),
    userId: text('userId')
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
const signingKeys = pgTable(
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
 * The PostgreSQL tables of `DrizzleAdapter` (for `drizzle-orm/node-postgres`). `users`, `accounts`,
 * `sessions`, `verificationTokens` and `authenticators` are @auth/drizzle-adapter's default tables
 * (`user`, `account`, `session`, `verificationToken`, `authenticator`: same names, columns and types),
 * with nullable columns added: `session.createdAt`, `lastSeenAt`, `userAgent`, `ip`, `providerSid`,
 * `amr` (the device list, back-channel logout, two-factor) and `authenticator.name`, `lastUsedAt`
 * (passkey management). `twoFactors`, `refreshTokenFamilies`, `apiKeys` and `signingKeys` are the
 * tables `two_factors`, `refresh_token_families`, `api_keys` and `signing_keys`, as the TypeORM
 * adapter names them.
 *
 * Export them from your Drizzle schema, so drizzle-kit generates their migrations:
 *
 * @example
 * // src/db/schema.ts
 * import { pgAuthTables } from 'nestjs-auth/drizzle';
 * export const { users, accounts, sessions, verificationTokens, authenticators, twoFactors,
 *   refreshTokenFamilies, apiKeys, signingKeys } = pgAuthTables;
 */
export const pgAuthTables = Object.freeze({
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

/** The type of {@link pgAuthTables}. */
export type PgAuthTables = typeof pgAuthTables;
