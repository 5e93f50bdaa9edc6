import { createHash } from 'node:crypto';
import type { DataSource, EntityMetadata, ObjectLiteral } from 'typeorm';
import type { TypeOrmAdapterEntities } from './auth-entities.js';
import { LookupBatcher } from './lookup-batcher.js';
import { isSessionDetail } from './session-details.query.js';

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
  // The optional session columns (device list) stay out: the lookup returns SPEC's fields.
  const session = part(sessionMeta, 's');
  session.columns = session.columns
    .filter(({ column: c }) => !isSessionDetail(c.propertyName))
    .map(({ column: c }, i) => ({ alias: `s${i}`, column: c }));
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
  const tokenColumn = `${esc('s')}.${esc(token.databaseName)}`;
  const conditions = [`${tokenColumn} = ${driver.createParameter('token', 0)}`];
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
  const from =
    `SELECT ${[...select('s', session), ...select('u', user)].join(', ')}` +
    ` FROM ${table(sessionMeta)} ${esc('s')}` +
    ` INNER JOIN ${table(userMeta)} ${esc('u')} ON ${esc('u')}.${esc(id.databaseName)} = ${esc('s')}.${esc(userId.databaseName)}`;
  const sql = `${from} WHERE ${conditions.join(' AND ')}`;
  const params = (sessionToken: string) => (mysql ? [sessionToken, sessionToken, ...fixed] : [sessionToken, ...fixed]);
  // PostgreSQL: the same lookup for several tokens at once (`= ANY($1)`), for lookups that arrive together.
  const tokenAlias = session.columns.find((c) => c.column === token)!.alias;
  const batch = {
    sql: `${from} WHERE ${[`${tokenColumn} = ANY(${driver.createParameter('token', 0)})`, ...conditions.slice(1)].join(' AND ')}`,
    tokenAlias,
  };

  return { session, user, run: lookupRunner(dataSource, sql, params, preparedStatements, batch, fixed) };
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
  batch: { sql: string; tokenAlias: string },
  fixed: unknown[],
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
    const name = statementName(sql);
    const single = async (sessionToken: string) => {
      const pool = driver.master;
      if (!pool || typeof pool.query !== 'function') return viaDataSource(sessionToken);
      const result = await pool.query({ name, text: sql, values: params(sessionToken) });
      return result.rows[0];
    };
    const batcher = new LookupBatcher(
      single,
      async (tokens) => {
        const pool = driver.master;
        if (!pool || typeof pool.query !== 'function') return undefined;
        const result = await pool.query({
          name: statementName(batch.sql),
          text: batch.sql,
          values: [tokens, ...fixed],
        });
        return result.rows;
      },
      batch.tokenAlias,
    );
    return (sessionToken) => batcher.lookup(sessionToken);
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

const statementName = (sql: string) =>
  `nestjs_auth_session_${createHash('sha256').update(sql).digest('hex').slice(0, 16)}`;

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

/** Column types every driver hands over as a JavaScript string, untouched by hydration. */
const STRING_TYPES = new Set([
  'varchar',
  'character varying',
  'nvarchar',
  'national varchar',
  'text',
  'char',
  'character',
  'nchar',
  'tinytext',
  'mediumtext',
  'longtext',
  'string',
]);

/** How one column's value is read from the row: copied, or converted by the driver. */
interface ColumnReader {
  alias: string;
  property: string;
  column: ColumnMetadata;
  /** A string column without transformer, not embedded: the row's value as is. */
  direct: boolean;
  /** Embedded (or otherwise nested) property: set through the metadata. */
  nested: boolean;
}

/**
 * Reads one entity's columns from a lookup row into a plain object, without creating the entity
 * (no class instance, no copy, unless the class initializes fields): string columns are copied, dates, JSON, numbers and transformed
 * columns go through the driver's `prepareHydratedValue` as TypeORM's own hydration would. Built
 * once per plan; runs on every uncached database-session request.
 */
export function plainRowReader(dataSource: DataSource, part: LookupPart): (row: ObjectLiteral) => ObjectLiteral {
  const { driver } = dataSource;
  const readers: ColumnReader[] = part.columns.map(({ alias, column }) => {
    const nested = Boolean(column.embeddedMetadata) || column.propertyPath.includes('.');
    const type = String(driver.normalizeType(column)).toLowerCase();
    return {
      alias,
      property: column.propertyName,
      column,
      nested,
      direct: !nested && !column.transformer && STRING_TYPES.has(type),
    };
  });
  // An entity class whose fields have initializers (`kind = 'member'`) gets them as the query
  // builder would: created through the metadata, then copied. The default entities have none.
  const initialized = Object.keys(part.metadata.create() as object).length > 0;
  return (row) => {
    const entity: ObjectLiteral = initialized ? (part.metadata.create() as ObjectLiteral) : {};
    for (const r of readers) {
      const raw = row[r.alias];
      const value = r.direct ? raw : driver.prepareHydratedValue(raw, r.column);
      if (r.nested) r.column.setEntityValue(entity, value);
      else entity[r.property] = value;
    }
    return initialized ? { ...entity } : entity;
  };
}

/**
 * An adapter's session lookup: built on first use (entity metadata is complete only once the data
 * source is initialised), then one query per call whose row is read into plain objects.
 */
export class SessionLookup {
  private plan?: SessionLookupPlan & {
    readSession: (row: ObjectLiteral) => ObjectLiteral;
    readUser: (row: ObjectLiteral) => ObjectLiteral;
  };

  constructor(
    private readonly dataSource: DataSource,
    private readonly entities: Readonly<TypeOrmAdapterEntities>,
    private readonly mysql: boolean,
    private readonly preparedStatements: boolean,
  ) {}

  /** The session of `sessionToken` and its user, or `null`. */
  async find(sessionToken: string): Promise<{ session: ObjectLiteral; user: ObjectLiteral } | null> {
    const plan = (this.plan ??= this.build());
    const row = await plan.run(sessionToken);
    return row ? { session: plan.readSession(row), user: plan.readUser(row) } : null;
  }

  private build(): NonNullable<SessionLookup['plan']> {
    const plan = buildSessionLookup(this.dataSource, this.entities, this.mysql, this.preparedStatements);
    return {
      ...plan,
      readSession: plainRowReader(this.dataSource, plan.session),
      readUser: plainRowReader(this.dataSource, plan.user),
    };
  }
}
