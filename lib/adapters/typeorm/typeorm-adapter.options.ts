import type { AuthSchemaOption } from './schema-mapping.js';

/** Options of {@link TypeOrmAdapter}. */
export interface TypeOrmAdapterOptions {
  /**
   * Prepare the session lookup and the statements of a sign-in (the user and account lookups, the
   * verification token's consumption, the session's insert) once per connection (PostgreSQL: named
   * prepared statements; better-sqlite3: cached statements) instead of sending their text every time.
   * Turn it off behind a pooler that does not support prepared statements (PgBouncer before 1.21
   * in transaction mode). Default `true`.
   */
  preparedStatements?: boolean;
  /**
   * Use the tables of an Auth.js app instead of ours: a preset (`'authjs-pg'`, `'authjs-typeorm'`,
   * `'authjs-drizzle'`, `'authjs-prisma'`) or a mapping (tables, columns, id strategy, column
   * types). The data source must list `authSchemaEntities(schema, dialect)`; the tables are never
   * created or altered, and are checked at bootstrap. The `entities` argument is then ignored.
   */
  schema?: AuthSchemaOption;
}
