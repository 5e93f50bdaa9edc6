// The Drizzle entry of nestjs-auth (`nestjs-auth/drizzle`): the adapter and its tables. A separate
// entry because drizzle-orm is an optional peer: importing `nestjs-auth` never loads it.

/**
 * Drizzle ORM storage: `DrizzleAdapter` over the app's own Drizzle database (PostgreSQL with
 * node-postgres, MySQL 8 / MariaDB with mysql2, SQLite with better-sqlite3), and its tables for each
 * dialect, which are @auth/drizzle-adapter's default tables (an app moves from that adapter to this
 * one and keeps its rows) plus the library's own columns and tables. Put the tables in your Drizzle
 * schema and generate their migrations with drizzle-kit (`npx drizzle-kit generate`, then
 * `npx drizzle-kit migrate`, or drizzle-orm's `migrate()` at startup).
 *
 * @example
 * // src/db/schema.ts
 * export const { users, accounts, sessions, verificationTokens, authenticators, twoFactors,
 *   refreshTokenFamilies, apiKeys, signingKeys } = pgAuthTables;
 *
 * // src/app.module.ts
 * AuthModule.forRootAsync({
 *   imports: [DbModule],
 *   adapter: { inject: [DRIZZLE], useFactory: (db: NodePgDatabase) => new DrizzleAdapter(db, pgAuthTables) },
 *   useFactory: () => ({ secret: process.env.AUTH_SECRET!, providers: [...] }),
 * })
 *
 * @module nestjs-auth/drizzle
 */

export {
  DrizzleAdapter,
  type DrizzleAdapterDatabase,
  type DrizzleAdapterOptions,
  type DrizzleAuthTables,
  type DrizzleDialect,
} from './adapters/drizzle/drizzle.adapter.js';
export { pgAuthTables, type PgAuthTables } from './adapters/drizzle/pg.tables.js';
export { mysqlAuthTables, type MySqlAuthTables } from './adapters/drizzle/mysql.tables.js';
export { sqliteAuthTables, type SQLiteAuthTables } from './adapters/drizzle/sqlite.tables.js';
