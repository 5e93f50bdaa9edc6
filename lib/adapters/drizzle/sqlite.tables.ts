import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { AdapterAccountType } from '../../providers/provider.types.js';

// The SQLite tables of `DrizzleAdapter`. The first five are @auth/drizzle-adapter's default tables
// (same names, column names and types: dates as milliseconds since the epoch in `integer` columns);
// the added columns and tables are named as the TypeORM adapter names them.

const at = (name: string) => integer(name, { mode: 'timestamp_ms' });

/** `user`: as @auth/drizzle-adapter's. */
const users = sqliteTable('user', {
  id: text('id').primaryKey(),
  name: text('name'),
  email: text('email').unique(),
  emailVerified: at('emailVerified'),
  image: text('image'),
});

/** `account`: as @auth/drizzle-adapter's, plus an index on `userId`. */
const accounts = sqliteTable(
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
const sessions = sqliteTable(
  'session',
  {
    sessionToken: text('sessionToken').primaryKey(),
    userId: text('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expires: at('expires').notNull(),
    createdAt: at('createdAt'),
    lastSeenAt: at('lastSeenAt'),
    userAgent: text('userAgent'),
    ip: text('ip'),
    providerSid: text('providerSid'),
    amr: text('amr'),
  },
  (t) => [index('session_userId_idx').on(t.userId), index('session_providerSid_idx').on(t.providerSid)],
);

/** `verificationToken`: as @auth/drizzle-adapter's. */
const verificationTokens = sqliteTable(
  'verificationToken',
  {
    identifier: text('identifier').notNull(),
    token: text('token').notNull(),
    expires: at('expires').notNull(),
  },
  (t) => [primaryKey({ columns: [t.identifier, t.token] })],
);

/** `authenticator`: as @auth/drizzle-adapter's, plus `name` and `lastUsedAt` (nullable). */
const authenticators = sqliteTable(
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
    credentialBackedUp: integer('credentialBackedUp', { mode: 'boolean' }).notNull(),
    transports: text('transports'),
    name: text('name'),
    lastUsedAt: at('lastUsedAt'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.credentialID] })],
);

/** `two_factors`: a user's TOTP apps and backup codes (as the TypeORM adapter's table). */
const twoFactors = sqliteTable(
  'two_factors',
  {
    id: text('id').primaryKey(),
    userId: text('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    name: text('name'),
    secret: text('secret').notNull(),
    confirmedAt: at('confirmedAt'),
    createdAt: at('createdAt').notNull(),
    lastUsedAt: at('lastUsedAt'),
    lastUsedStep: integer('lastUsedStep'),
  },
  (t) => [index('two_factors_userId_idx').on(t.userId)],
);

/** `refresh_token_families`: native apps' sign-ins (as the TypeORM adapter's table). */
const refreshTokenFamilies = sqliteTable(
  'refresh_token_families',
  {
    id: text('id').primaryKey(),
    userId: text('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('clientId').notNull(),
    generation: integer('generation').notNull(),
    tokenHash: text('tokenHash').notNull(),
    rotatedAt: at('rotatedAt').notNull(),
    expires: at('expires').notNull(),
    authTime: at('authTime').notNull(),
    amr: text('amr'),
  },
  (t) => [index('refresh_token_families_userId_idx').on(t.userId)],
);

/** `api_keys`: API keys' hashes, never the keys (as the TypeORM adapter's table). */
const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    userId: text('userId')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyHash: text('keyHash').notNull(),
    hint: text('hint').notNull(),
    scopes: text('scopes'),
    createdAt: at('createdAt').notNull(),
    expires: at('expires'),
    lastUsedAt: at('lastUsedAt'),
  },
  (t) => [index('api_keys_userId_idx').on(t.userId)],
);

/** `signing_keys`: the rotated keys that sign access tokens, one per slot (as the TypeORM adapter's table). */
const signingKeys = sqliteTable(
  'signing_keys',
  {
    id: text('id').primaryKey(),
    alg: text('alg').notNull(),
    publicJwk: text('publicJwk').notNull(),
    privateKey: text('privateKey').notNull(),
    slot: integer('slot').notNull(),
    createdAt: at('createdAt').notNull(),
    activatesAt: at('activatesAt').notNull(),
    removesAt: at('removesAt'),
  },
  (t) => [uniqueIndex('signing_keys_slot_unique').on(t.slot)],
);

/**
 * The SQLite tables of `DrizzleAdapter` (for `drizzle-orm/better-sqlite3`). `users`, `accounts`,
 * `sessions`, `verificationTokens` and `authenticators` are @auth/drizzle-adapter's default tables
 * (`user`, `account`, `session`, `verificationToken`, `authenticator`: same names, columns and
 * types), with nullable columns added: `session.createdAt`, `lastSeenAt`, `userAgent`, `ip`,
 * `providerSid`, `amr` and `authenticator.name`, `lastUsedAt`. `twoFactors`, `refreshTokenFamilies`,
 * `apiKeys` and `signingKeys` are the tables `two_factors`, `refresh_token_families`, `api_keys` and
 * `signing_keys`, as the TypeORM adapter names them.
 *
 * @example
 * // src/db/schema.ts
 * import { sqliteAuthTables } from 'nestjs-auth/drizzle';
 * export const { users, accounts, sessions, verificationTokens, authenticators, twoFactors,
 *   refreshTokenFamilies, apiKeys, signingKeys } = sqliteAuthTables;
 */
export const sqliteAuthTables = Object.freeze({
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

/** The type of {@link sqliteAuthTables}. */
export type SQLiteAuthTables = typeof sqliteAuthTables;
