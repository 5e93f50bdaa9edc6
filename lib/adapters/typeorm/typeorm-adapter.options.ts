import type { AuthSchemaOption } from './schema-mapping.js';

/** Options of {@link TypeOrmAdapter}. */
export interface TypeOrmAdapterOptions {
  /**
   * Prepare the session lookup once per connection (PostgreSQL: a named prepared statement;
   * better-sqlite3: a cached statement) instead of sending its text on every request.
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
