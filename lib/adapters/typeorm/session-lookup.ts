import { createHash } from 'node:crypto';
import type { DataSource, EntityMetadata, ObjectLiteral } from 'typeorm';
import type { TypeOrmAdapterEntities } from './auth-entities.js';

// The one query of `TypeOrmAdapter.getSessionAndUser`, which runs on every guarded request: its SQL
// is built once from the entities' metadata and, where the driver allows, prepared once.

type ColumnMetadata = EntityMetadata['columns'][number];

/** The columns one entity contributes to the lookup's row, each under its own short alias. */
export interface LookupPart {
  metadata: EntityMetadata;
  columns: { alias: string; column: ColumnMetadata }[];
}

/** The session lookup: SQL built once from the entities' metadata, and how to run it. */
export interface SessionLookupPlan {
  session: LookupPart;
  user: LookupPart;
  /** The row for a session token (columns under the parts' aliases), or undefined. */
  run(sessionToken: string): Promise<ObjectLiteral | undefined>;
}

/**
 * Builds the SQL of `getSessionAndUser` once: `SELECT <session columns>, <user columns> FROM
 * sessions JOIN users WHERE token = ?`, with the rules the query builder applies to an entity it
 * selects: selectable, non-virtual columns of that entity (not its table-inheritance children's or
 * the discriminator), soft-deleted rows excluded, a child entity limited to its discriminator values,
 * and `BINARY` on MySQL.
 */
export function buildSessionLookup(
  dataSource: DataSource,
  entities: Readonly<TypeOrmAdapterEntities>,
  mysql: boolean,
  preparedStatements: boolean,
): SessionLookupPlan {
  const { driver } = dataSource;
  const sessionMeta = dataSource.getMetadata(entities.Session);
  const userMeta = dataSource.getMetadata(entities.User);
  const column = (metadata: EntityMetadata, property: string) => {
    const found = metadata.findColumnWithPropertyName(property);
    if (!found) throw new Error(`TypeOrmAdapter: the ${metadata.name} entity has no column for "${property}".`);
    return found;
  };
  const token = column(sessionMeta, 'sessionToken');
  const userId = column(sessionMeta, 'userId');
  const id = column(userMeta, 'id');

  const esc = (name: string) => driver.escape(name);
  const table = (metadata: EntityMetadata) =>
    metadata.tablePath
      .split('.')
      .map((part) => (part === '' ? part : esc(part)))
      .join('.');
  const part = (metadata: EntityMetadata, prefix: string): LookupPart => ({
    metadata,
    columns: metadata.columns
      .filter((c) => c.isSelect && !c.isVirtual && !c.isVirtualProperty && !c.isDiscriminator)
      .filter((c) => !metadata.childEntityMetadatas.some((child) => child.target === c.target))
      .map((c, i) => ({ alias: `${prefix}${i}`, column: c })),
  });
  const session = part(sessionMeta, 's');
  const user = part(userMeta, 'u');
  const select = (tableAlias: string, p: LookupPart) =>
    p.columns.map(({ alias, column: c }) => `${esc(tableAlias)}.${esc(c.databaseName)} AS ${esc(alias)}`);

  // Parameters: the token (twice on MySQL), then any discriminator values.
  const fixed: unknown[] = [];
  let index = mysql ? 2 : 1;
  const param = (value: unknown) => {
    fixed.push(value);
    return driver.createParameter(`p${index}`, index++);
  };
  const conditions = [`${esc('s')}.${esc(token.databaseName)} = ${driver.createParameter('token', 0)}`];
  // A case-insensitive collation (MySQL's default) must not let `ABC` match `abc`.
  if (mysql) conditions.push(`BINARY ${esc('s')}.${esc(token.databaseName)} = ${driver.createParameter('token', 1)}`);
  for (const [alias, metadata] of [
    ['s', sessionMeta],
    ['u', userMeta],
  ] as const) {
    if (metadata.deleteDateColumn)
      conditions.push(`${esc(alias)}.${esc(metadata.deleteDateColumn.databaseName)} IS NULL`);
    if (metadata.discriminatorColumn && metadata.parentEntityMetadata) {
      const values = [
        ...metadata.childEntityMetadatas
          .filter((child) => child.discriminatorColumn)
          .map((child) => child.discriminatorValue),
        metadata.discriminatorValue,
      ];
      conditions.push(
        `${esc(alias)}.${esc(metadata.discriminatorColumn.databaseName)} IN (${values.map(param).join(', ')})`,
      );
    }
  }
  const sql =
    `SELECT ${[...select('s', session), ...select('u', user)].join(', ')}` +
    ` FROM ${table(sessionMeta)} ${esc('s')}` +
    ` INNER JOIN ${table(userMeta)} ${esc('u')} ON ${esc('u')}.${esc(id.databaseName)} = ${esc('s')}.${esc(userId.databaseName)}` +
    ` WHERE ${conditions.join(' AND ')}`;
  const params = (sessionToken: string) => (mysql ? [sessionToken, sessionToken, ...fixed] : [sessionToken, ...fixed]);

  return { session, user, run: lookupRunner(dataSource, sql, params, preparedStatements) };
}

/**
 * How the lookup's SQL runs. PostgreSQL (`pg`): a named prepared statement on TypeORM's pool, parsed
 * and planned once per connection. better-sqlite3: one statement prepared on TypeORM's connection.
 * Elsewhere (or with `preparedStatements: false`): `DataSource.query`. The direct paths skip
 * TypeORM's query logging and subscribers' query events; the statement reads only.
 */
function lookupRunner(
  dataSource: DataSource,
  sql: string,
  params: (sessionToken: string) => unknown[],
  prepared: boolean,
): SessionLookupPlan['run'] {
  const viaDataSource = async (sessionToken: string) => {
    const rows = (await dataSource.query(sql, params(sessionToken))) as ObjectLiteral[];
    return rows[0];
  };
  if (!prepared) return viaDataSource;
  const driver = dataSource.driver as typeof dataSource.driver & {
    master?: PgPool;
    databaseConnection?: SqliteDatabase;
  };
  const type = dataSource.options.type;
  if (type === 'postgres') {
    const name = `nestjs_auth_session_${createHash('sha256').update(sql).digest('hex').slice(0, 16)}`;
    return async (sessionToken) => {
      const pool = driver.master;
      if (!pool || typeof pool.query !== 'function') return viaDataSource(sessionToken);
      const result = await pool.query({ name, text: sql, values: params(sessionToken) });
      return result.rows[0];
    };
  }
  if (type === 'better-sqlite3') {
    let statementOf: { connection: SqliteDatabase; statement: SqliteStatement } | undefined;
    return async (sessionToken) => {
      const connection = driver.databaseConnection;
      if (!connection || typeof connection.prepare !== 'function') return viaDataSource(sessionToken);
      if (statementOf?.connection !== connection) statementOf = { connection, statement: connection.prepare(sql) };
      return statementOf.statement.get(...params(sessionToken));
    };
  }
  return viaDataSource;
}

/** The part of a `pg` Pool the lookup uses. */
interface PgPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: ObjectLiteral[] }>;
}

/** The part of a better-sqlite3 Database the lookup uses. */
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
}
interface SqliteStatement {
  get(...params: unknown[]): ObjectLiteral | undefined;
}

/** The columns of one entity from a row selected under the plan's aliases, as a plain object. */
export function hydrateAliased(dataSource: DataSource, part: LookupPart, row: ObjectLiteral): ObjectLiteral {
  const entity = part.metadata.create() as ObjectLiteral;
  const { driver } = dataSource;
  for (const { alias, column } of part.columns)
    column.setEntityValue(entity, driver.prepareHydratedValue(row[alias], column));
  return { ...entity };
}
