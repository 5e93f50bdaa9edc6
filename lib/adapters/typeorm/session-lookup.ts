import type { DataSource, EntityMetadata, ObjectLiteral } from 'typeorm';
import type { TypeOrmAdapterEntities } from './auth-entities.js';
import { LookupBatcher, lookupStatementName as statementName } from '../lookup-batcher.js';
import { plainRowReader } from './plain-row-reader.js';
import {
  columnOf,
  pgPoolOf,
  scopeConditions,
  selectedPart,
  sqliteStatement,
  tableSql,
  type LookupPart,
} from './plain-statements.js';
import { isSessionDetail } from './session-details.query.js';

// The one query of `TypeOrmAdapter.getSessionAndUser`, which runs on every guarded request: its SQL
// is built once from the entities' metadata and, where the driver allows, prepared once.

export type { ColumnMetadata, LookupPart } from './plain-statements.js';

/** The session lookup: SQL built once from the entities' metadata, and how to run it. */
export interface SessionLookupPlan {
  session: LookupPart;
  user: LookupPart;
  /** The row for a session token (columns under the parts' aliases), or undefined. */
  run(sessionToken: string): Promise<ObjectLiteral | undefined>;
  /**
   * better-sqlite3: the row as an array (the select list in order) without a promise, `null` for
   * none; `undefined` when the connection is not open.
   */
  runSync?(sessionToken: string): unknown[] | null | undefined;
}

/** The properties the guard's synchronous lookup reads: what the default `session` callback uses. */
export const SYNC_LOOKUP_PROPERTIES = {
  session: ['sessionToken', 'userId', 'expires'],
  user: ['id', 'name', 'email', 'image'],
} as const;

/**
 * Builds the SQL of `getSessionAndUser` once: `SELECT <session columns>, <user columns> FROM
 * sessions JOIN users WHERE token = ?`, with the rules the query builder applies to an entity it
 * selects: selectable, non-virtual columns of that entity (not its table-inheritance children's or
 * the discriminator), soft-deleted rows excluded, a child entity limited to its discriminator values,
 * and `BINARY` on MySQL. With `only`, just those properties' columns (those the entity has).
 */
export function buildSessionLookup(
  dataSource: DataSource,
  entities: Readonly<TypeOrmAdapterEntities>,
  mysql: boolean,
  preparedStatements: boolean,
  only?: { session: readonly string[]; user: readonly string[] },
): SessionLookupPlan {
  const { driver } = dataSource;
  const sessionMeta = dataSource.getMetadata(entities.Session);
  const userMeta = dataSource.getMetadata(entities.User);
  const token = columnOf(sessionMeta, 'sessionToken');
  const userId = columnOf(sessionMeta, 'userId');
  const id = columnOf(userMeta, 'id');

  const esc = (name: string) => driver.escape(name);
  const part = (metadata: EntityMetadata, prefix: string, properties?: readonly string[]): LookupPart =>
    selectedPart(metadata, (_c, i) => `${prefix}${i}`, { only: properties });
  // The optional session columns (device list) stay out: the lookup returns SPEC's fields.
  const session = part(sessionMeta, 's', only?.session);
  session.columns = session.columns
    .filter(({ column: c }) => !isSessionDetail(c.propertyName))
    .map(({ column: c }, i) => ({ alias: `s${i}`, column: c }));
  const user = part(userMeta, 'u', only?.user);
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
  ] as const)
    conditions.push(...scopeConditions(dataSource, metadata, alias, param));
  const from =
    `SELECT ${[...select('s', session), ...select('u', user)].join(', ')}` +
    ` FROM ${tableSql(dataSource, sessionMeta)} ${esc('s')}` +
    ` INNER JOIN ${tableSql(dataSource, userMeta)} ${esc('u')} ON ${esc('u')}.${esc(id.databaseName)} = ${esc('s')}.${esc(userId.databaseName)}`;
  const sql = `${from} WHERE ${conditions.join(' AND ')}`;
  const params = (sessionToken: string) => (mysql ? [sessionToken, sessionToken, ...fixed] : [sessionToken, ...fixed]);
  // PostgreSQL: the same lookup for several tokens at once (`= ANY($1)`), for lookups that arrive together.
  const tokenAlias = session.columns.find((c) => c.column === token)!.alias;
  const batch = {
    sql: `${from} WHERE ${[`${tokenColumn} = ANY(${driver.createParameter('token', 0)})`, ...conditions.slice(1)].join(' AND ')}`,
    tokenAlias,
  };

  const runSync = preparedStatements ? syncRunner<unknown[]>(dataSource, sql, fixed, true) : undefined;
  return { session, user, runSync, run: lookupRunner(dataSource, sql, params, preparedStatements, batch, fixed) };
}

/** better-sqlite3 only: the lookup on one statement prepared on TypeORM's connection, no promise. */
function syncRunner<Row>(
  dataSource: DataSource,
  sql: string,
  fixed: unknown[],
  raw: boolean,
): ((sessionToken: string) => Row | null | undefined) | undefined {
  // Array rows (`raw`) skip building an object keyed by column name for every lookup.
  const statementOf = sqliteStatement(dataSource, sql, raw);
  if (!statementOf) return undefined;
  return (sessionToken) => {
    const statement = statementOf();
    if (!statement) return undefined;
    return ((fixed.length ? statement.get(sessionToken, ...fixed) : statement.get(sessionToken)) ?? null) as Row | null;
  };
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
  const type = dataSource.options.type;
  if (type === 'postgres') {
    const name = statementName(sql);
    // Named once: the name is a hash of the SQL, and the batch runs on every event-loop turn with lookups.
    const batchName = statementName(batch.sql);
    const single = async (sessionToken: string) => {
      const pool = pgPoolOf(dataSource);
      if (!pool) return viaDataSource(sessionToken);
      const result = await pool.query({ name, text: sql, values: params(sessionToken) });
      return result.rows[0];
    };
    const batcher = new LookupBatcher<ObjectLiteral>(
      single,
      async (tokens) => {
        const pool = pgPoolOf(dataSource);
        if (!pool) return undefined;
        const result = await pool.query({
          name: batchName,
          text: batch.sql,
          values: [tokens, ...fixed],
        });
        return result.rows;
      },
      (row) => row[batch.tokenAlias],
    );
    return (sessionToken) => batcher.lookup(sessionToken);
  }
  const sync = syncRunner<ObjectLiteral>(dataSource, sql, fixed, false);
  if (sync) {
    return async (sessionToken) => {
      const row = sync(sessionToken);
      return row === undefined ? viaDataSource(sessionToken) : (row ?? undefined);
    };
  }
  return viaDataSource;
}

/**
 * An adapter's session lookup: built on first use (entity metadata is complete only once the data
 * source is initialised), then one query per call whose row is read into plain objects.
 */
export class SessionLookup {
  private plan?: ReadablePlan;
  /** The synchronous lookup's plan (fewer columns), `null` when the driver has none. */
  private syncPlan?: ReadablePlan | null;

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

  /**
   * The session and user without a promise (better-sqlite3 with prepared statements), with only the
   * columns of {@link SYNC_LOOKUP_PROPERTIES}: `null` for none, `undefined` when it cannot answer so.
   */
  findSync(sessionToken: string): { session: ObjectLiteral; user: ObjectLiteral } | null | undefined {
    if (this.syncPlan === undefined) {
      if (!this.dataSource.isInitialized) return undefined;
      const sync = this.preparedStatements && this.dataSource.options.type === 'better-sqlite3';
      this.syncPlan = sync ? this.build(true) : null;
    }
    const plan = this.syncPlan;
    const row = plan?.runSync?.(sessionToken);
    if (!row) return row === null ? null : undefined;
    return { session: plan!.readSession(row), user: plan!.readUser(row) };
  }

  /** The lookup's plan; `sync`: the synchronous one, fewer columns, array rows. */
  private build(sync = false): ReadablePlan {
    const only = sync ? SYNC_LOOKUP_PROPERTIES : undefined;
    const plan = buildSessionLookup(this.dataSource, this.entities, this.mysql, this.preparedStatements, only);
    return {
      ...plan,
      readSession: plainRowReader(this.dataSource, plan.session, sync ? 0 : undefined),
      readUser: plainRowReader(this.dataSource, plan.user, sync ? plan.session.columns.length : undefined),
    };
  }
}

/** A lookup plan with its row readers. */
type ReadablePlan = SessionLookupPlan & {
  readSession: (row: ObjectLiteral) => ObjectLiteral;
  readUser: (row: ObjectLiteral) => ObjectLiteral;
};
