import type { DataSource, EntityMetadata, ObjectLiteral } from 'typeorm';
import type { AdapterConflictKind } from '../../errors/auth.errors.js';
import type { EntityClass } from './auth-entities.js';
import { lookupStatementName } from '../lookup-batcher.js';
import { plainRowReader } from './plain-row-reader.js';
import { ROW_ID } from './schema-entities.js';
import { SQLITE_TYPES, type TypeOrmQueries } from './typeorm-queries.js';
import { mapWriteError } from './write-errors.js';

// Statements whose SQL is built once from the entities' metadata and run without TypeORM's query
// builder: the session lookup (session-lookup.ts) and the keyed reads and the token consumption of
// a sign-in (PlainStatements). The SQL follows the rules the query builder applies, so custom
// entities and the Auth.js schema presets read the same rows.

export type ColumnMetadata = EntityMetadata['columns'][number];

/** The columns one entity contributes to a statement's row, each under its key in the row. */
export interface LookupPart {
  metadata: EntityMetadata;
  columns: { alias: string; column: ColumnMetadata }[];
}

/** A table's path (`schema.table`) quoted for the data source's dialect. */
export function tableSql(dataSource: DataSource, metadata: EntityMetadata): string {
  return metadata.tablePath
    .split('.')
    .map((part) => (part === '' ? part : dataSource.driver.escape(part)))
    .join('.');
}

/**
 * The columns the query builder selects for an entity: selectable, non-virtual columns of that
 * entity (not its table-inheritance children's, nor the discriminator), each under `aliasOf`'s key.
 * `only`: just those properties' columns (those the entity has). `primary`: also the primary
 * columns left out of selects, which the query builder selects and hydrates for `getOne`/`getMany`
 * (a schema mapping's surrogate key excepted: `plain` drops it).
 */
export function selectedPart(
  metadata: EntityMetadata,
  aliasOf: (column: ColumnMetadata, index: number) => string,
  options: { only?: readonly string[]; primary?: boolean } = {},
): LookupPart {
  const { only, primary } = options;
  return {
    metadata,
    columns: metadata.columns
      .filter((c) => c.isSelect || (primary && c.isPrimary && c.propertyName !== ROW_ID))
      .filter((c) => !c.isVirtual && !c.isVirtualProperty && !c.isDiscriminator)
      .filter((c) => !metadata.childEntityMetadatas.some((child) => child.target === c.target))
      .filter((c) => !only || only.includes(c.propertyPath))
      .map((c, i) => ({ alias: aliasOf(c, i), column: c })),
  };
}

/**
 * The conditions the query builder adds for an entity it selects from (`alias`) or deletes from
 * (no alias): not soft-deleted (selects only), and a table-inheritance child limited to its
 * discriminator values (each a parameter made by `param`).
 */
export function scopeConditions(
  dataSource: DataSource,
  metadata: EntityMetadata,
  alias: string | undefined,
  param: (value: unknown) => string,
): string[] {
  const esc = (name: string) => dataSource.driver.escape(name);
  const ref = (column: ColumnMetadata) => (alias ? `${esc(alias)}.` : '') + esc(column.databaseName);
  const conditions: string[] = [];
  if (alias && metadata.deleteDateColumn) conditions.push(`${ref(metadata.deleteDateColumn)} IS NULL`);
  if (metadata.discriminatorColumn && metadata.parentEntityMetadata) {
    const values = [
      ...metadata.childEntityMetadatas.filter((child) => child.discriminatorColumn).map((c) => c.discriminatorValue),
      metadata.discriminatorValue,
    ];
    conditions.push(`${ref(metadata.discriminatorColumn)} IN (${values.map(param).join(', ')})`);
  }
  return conditions;
}

/** A property's column; a clear error when the entity has none. */
export function columnOf(metadata: EntityMetadata, property: string): ColumnMetadata {
  const found = metadata.findColumnWithPropertyName(property);
  if (!found) throw new Error(`TypeOrmAdapter: the ${metadata.name} entity has no column for "${property}".`);
  return found;
}

/** The part of a better-sqlite3 Database the statements use. */
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
}
/** The part of a better-sqlite3 Statement the statements use. */
export interface SqliteStatement {
  /** Whether the statement returns rows (a SELECT, a DELETE ... RETURNING). */
  readonly reader: boolean;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): unknown;
  raw(on: boolean): unknown;
}

/**
 * better-sqlite3 only: `sql` prepared once on TypeORM's connection (again when TypeORM reconnects),
 * `undefined` while the connection is not open; `raw`: rows as arrays (the select list in order).
 */
export function sqliteStatement(
  dataSource: DataSource,
  sql: string,
  raw: boolean,
): (() => SqliteStatement | undefined) | undefined {
  if (dataSource.options.type !== 'better-sqlite3') return undefined;
  const driver = dataSource.driver as typeof dataSource.driver & { databaseConnection?: SqliteDatabase };
  let prepared: { connection: SqliteDatabase; statement: SqliteStatement } | undefined;
  return () => {
    const connection = driver.databaseConnection;
    if (!connection || typeof connection.prepare !== 'function') return undefined;
    if (prepared?.connection !== connection) {
      prepared = { connection, statement: connection.prepare(sql) };
      if (raw) prepared.statement.raw(true);
    }
    return prepared.statement;
  };
}

/** The part of a `pg` Pool the statements use. */
export interface PgPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{
    rows: ObjectLiteral[];
    /** Rows a write changed. */
    rowCount?: number | null;
  }>;
}

/** PostgreSQL (`pg`): TypeORM's pool, or `undefined` (another driver, or not connected). */
export function pgPoolOf(dataSource: DataSource): PgPool | undefined {
  if (dataSource.options.type !== 'postgres') return undefined;
  const pool = (dataSource.driver as typeof dataSource.driver & { master?: PgPool }).master;
  return pool && typeof pool.query === 'function' ? pool : undefined;
}

/**
 * How a statement of fixed SQL runs, its rows as objects keyed by the select list's names.
 * PostgreSQL (`pg`): a named prepared statement on TypeORM's pool (parsed and planned once per
 * connection). better-sqlite3: one statement prepared on TypeORM's connection. Elsewhere (or with
 * `prepared` false): a TypeORM query runner. Each is one statement in autocommit, as the query
 * builder sends it; the direct paths skip TypeORM's query logging and subscribers' query events.
 */
export function statementRunner(
  dataSource: DataSource,
  sql: string,
  prepared: boolean,
  kind: string,
): (values: unknown[]) => Promise<ObjectLiteral[]> {
  const viaRunner = async (values: unknown[]) => {
    const runner = dataSource.createQueryRunner();
    try {
      return ((await runner.query(sql, values, true)) as { records?: ObjectLiteral[] }).records ?? [];
    } finally {
      await runner.release();
    }
  };
  if (!prepared) return viaRunner;
  if (dataSource.options.type === 'postgres') {
    const name = lookupStatementName(sql, kind);
    return async (values) => {
      const pool = pgPoolOf(dataSource);
      return pool ? (await pool.query({ name, text: sql, values })).rows : viaRunner(values);
    };
  }
  const statement = sqliteStatement(dataSource, sql, false);
  if (statement) {
    return async (values) => {
      const prepared = statement();
      if (!prepared) return viaRunner(values);
      // better-sqlite3 binds no booleans: 1 and 0, as TypeORM's runner sends them.
      const bound = values.map((v) => (typeof v === 'boolean' ? Number(v) : v));
      if (prepared.reader) return prepared.all(...bound) as ObjectLiteral[];
      prepared.run(...bound);
      return [];
    };
  }
  return viaRunner;
}

/** Values of a statement's keys, in the order of `keys`. */
export type KeyValues = readonly (string | number)[];

/** A built statement: its rows for the keys' values, read as plain objects. */
export type Statement = (values: KeyValues) => Promise<ObjectLiteral[]>;

/** A condition of a plain `UPDATE`'s `WHERE`, on one property's column. */
export interface UpdateCondition {
  property: string;
  /**
   * `equal`: `column = value`; `equal-or-null`: the same, or `column IS NULL` for a `null` value;
   * `null-or-below`: `(column IS NULL OR column < value)`.
   */
  is: 'equal' | 'equal-or-null' | 'null-or-below';
}

/**
 * A built conditional `UPDATE` (see `PlainStatements.update`): `set`'s properties written, the
 * conditions' values in order; the rows changed (and the changed rows, with `returning`), or
 * `undefined` when it cannot run without the query builder here (the caller's query builder does).
 */
export type PlainUpdate = (
  set: Readonly<Record<string, unknown>>,
  values: readonly unknown[],
) => Promise<{ affected: number; rows: ObjectLiteral[] } | undefined>;

/**
 * A write of fixed SQL on the direct paths only (better-sqlite3's prepared statement, `pg`'s named
 * statement): the rows it changed and the rows it returned (`RETURNING`); `undefined` while the
 * connection is not open.
 */
function directWrite(
  dataSource: DataSource,
  sql: string,
  kind: string,
): (values: unknown[]) => Promise<{ affected: number; rows: ObjectLiteral[] } | undefined> {
  if (dataSource.options.type === 'postgres') {
    const name = lookupStatementName(sql, kind);
    return async (values) => {
      const pool = pgPoolOf(dataSource);
      if (!pool) return undefined;
      const result = await pool.query({ name, text: sql, values });
      return { affected: result.rowCount ?? result.rows.length, rows: result.rows };
    };
  }
  const statement = sqliteStatement(dataSource, sql, false);
  return async (values) => {
    const prepared = statement?.();
    if (!prepared) return undefined;
    // better-sqlite3 binds no booleans: 1 and 0, as TypeORM's runner sends them.
    const bound = values.map((v) => (typeof v === 'boolean' ? Number(v) : v));
    if (prepared.reader) {
      const rows = prepared.all(...bound) as ObjectLiteral[];
      return { affected: rows.length, rows };
    }
    return { affected: (prepared.run(...bound) as { changes: number }).changes, rows: [] };
  };
}

/**
 * The adapter's statements on a sign-in's path, built once per entity and keys from the metadata
 * (on first use: metadata is complete once the data source is initialised), each run as
 * {@link statementRunner} runs it and read by {@link plainRowReader}: the same rows, as the same
 * plain objects, as `TypeOrmQueries` gets through the query builder (`select(...).getOne()` with
 * `plain`, `deleteReturning`), at a fraction of its CPU. Keys compare exactly, as
 * `TypeOrmQueries.where` does: `BINARY` again on MySQL/MariaDB, whose collations ignore case.
 */
export class PlainStatements {
  private readonly mysql: boolean;

  /** @param queries - the adapter's query-builder statements, for what these do not cover. */
  constructor(
    private readonly dataSource: DataSource,
    private readonly queries: TypeOrmQueries,
    private readonly prepared: boolean,
  ) {
    this.mysql = queries.mysql;
  }

  /**
   * The rows of `entity` whose `keys` equal the values, as `createQueryBuilder('t').where(keys)
   * .getMany()` then `plain` reads them. With `through`, the keys are those of another entity
   * joined on `through.on` (`[its column, this entity's column]`), as
   * `innerJoin(through.entity, 'j', 'j.<its> = t.<this>')`. Built on its first call.
   */
  select(
    entity: EntityClass<ObjectLiteral>,
    keys: readonly string[],
    through?: { entity: EntityClass<ObjectLiteral>; on: readonly [string, string] },
    orderBy?: readonly string[],
  ): Statement {
    let built: Statement | undefined;
    return (values) => (built ??= this.buildSelect(entity, keys, through, orderBy))(values);
  }

  /**
   * A conditional `UPDATE` of `entity`, as `createQueryBuilder().update().set(values).where(...)
   * .execute()` sends it: the given properties' columns set to their values prepared by the driver
   * (transformers included), the rows chosen by `where`. With `returning`, the changed rows come back
   * in the same statement (`UPDATE ... RETURNING`), read as {@link select} reads them. Only on the
   * direct paths (better-sqlite3, PostgreSQL through `pg`, `prepared` on) and for an entity the query
   * builder updates that plainly (no update-date or version column, no update listeners, no
   * subscribers, no embedded or relation column set, no SQL expression as a value): otherwise the
   * returned function answers `undefined` and the caller runs its query builder. Built on its first call.
   */
  update(
    entity: EntityClass<ObjectLiteral>,
    where: readonly UpdateCondition[],
    options: { returning?: boolean } = {},
  ): PlainUpdate {
    let built: PlainUpdate | undefined;
    return (set, values) => (built ??= this.buildUpdate(entity, where, options.returning === true))(set, values);
  }

  private buildUpdate(
    entity: EntityClass<ObjectLiteral>,
    where: readonly UpdateCondition[],
    returning: boolean,
  ): PlainUpdate {
    const { dataSource } = this;
    const { driver } = dataSource;
    const type = dataSource.options.type;
    const metadata = dataSource.getMetadata(entity);
    if (
      !this.prepared ||
      (type !== 'better-sqlite3' && type !== 'postgres') ||
      metadata.updateDateColumn ||
      metadata.versionColumn ||
      // A table-inheritance child: the query builder adds its discriminator values to the WHERE.
      (metadata.discriminatorColumn && metadata.parentEntityMetadata) ||
      metadata.beforeUpdateListeners.length ||
      metadata.afterUpdateListeners.length
    )
      return async () => undefined;
    const esc = (name: string) => driver.escape(name);
    const table = tableSql(dataSource, metadata);
    const conditionColumns = where.map((c) => columnOf(metadata, c.property));
    const part = returning ? selectedPart(metadata, (c) => c.databaseName, { primary: true }) : undefined;
    const read = part ? plainRowReader(dataSource, part) : undefined;
    const returningSql = part
      ? ` RETURNING ${part.columns.map(({ column }) => esc(column.databaseName)).join(', ')}`
      : '';
    /** Statements by the set's properties and which `equal-or-null` values are null. */
    const statements = new Map<
      string,
      {
        run: (values: unknown[]) => Promise<{ affected: number; rows: ObjectLiteral[] } | undefined>;
        columns: ColumnMetadata[];
      }
    >();
    const build = (properties: readonly string[], nulls: readonly boolean[]) => {
      const columns = properties.map((p) => columnOf(metadata, p));
      if (columns.some((c) => c.embeddedMetadata || c.relationMetadata || c.propertyPath.includes('.') || !c.isUpdate))
        return undefined;
      let index = 0;
      const param = () => driver.createParameter(`p${index}`, index++);
      const assignments = columns.map((c) => `${esc(c.databaseName)} = ${param()}`);
      const conditions = where.map((c, i) => {
        const column = esc(conditionColumns[i]!.databaseName);
        if (c.is === 'null-or-below') return `(${column} IS NULL OR ${column} < ${param()})`;
        if (c.is === 'equal-or-null' && nulls[i]) return `${column} IS NULL`;
        return `${column} = ${param()}`;
      });
      const sql = `UPDATE ${table} SET ${assignments.join(', ')} WHERE ${conditions.join(' AND ')}${returningSql}`;
      return { run: directWrite(dataSource, sql, 'update'), columns };
    };
    return async (set, values) => {
      // Subscribers see the query builder's updates: with any, it updates.
      if (dataSource.subscribers.length) return undefined;
      const properties = Object.keys(set);
      // Nothing to set: the query builder's error, as before.
      if (!properties.length) return undefined;
      const nulls = where.map((c, i) => c.is === 'equal-or-null' && values[i] === null);
      const key = `${properties.join('\u0000')}|${nulls.map(Number).join('')}`;
      let statement = statements.get(key);
      if (!statement) {
        const made = build(properties, nulls);
        if (!made) return undefined;
        statements.set(key, (statement = made));
      }
      const params: unknown[] = [];
      for (const [i, column] of statement.columns.entries()) {
        const value = set[properties[i]!];
        if (typeof value === 'function') return undefined;
        params.push(driver.preparePersistentValue(value, column));
      }
      for (const [i, value] of values.entries()) if (!nulls[i]) params.push(value);
      const result = await statement.run(params);
      if (!result) return undefined;
      return read ? { affected: result.affected, rows: Array.from(result.rows, read) } : result;
    };
  }

  /**
   * Deletes the rows of `entity` whose `keys` equal the values and returns them, in one
   * `DELETE ... RETURNING` (only where the database has it: see `deleteReturningSupported`), as
   * `TypeOrmQueries.deleteReturning` does: the same statement, without the query builder. Built on
   * its first call.
   */
  deleteReturning(entity: EntityClass<ObjectLiteral>, keys: readonly string[]): Statement {
    let built: Statement | undefined;
    return (values) => (built ??= this.buildDelete(entity, keys))(values);
  }

  /**
   * Inserts a row of `entity` as `TypeOrmQueries.insert` does (`repo.create(value)`, then the insert
   * query builder): every insertable column, its value prepared by the driver (transformers
   * included), `NULL` (SQLite) or `DEFAULT` (elsewhere) for none; a constraint violation becomes
   * `mapWriteError`'s typed error. Only for an entity the query builder inserts that plainly (no
   * entity listeners or subscribers; no generated, version, discriminator, dated, defaulted, JSON,
   * spatial, embedded or relation columns) and values that are no SQL expressions (functions):
   * anything else goes through `TypeOrmQueries.insert`. Built on its first call.
   */
  insert(
    entity: EntityClass<ObjectLiteral>,
    conflict: (error: unknown) => AdapterConflictKind,
  ): (value: object) => Promise<void> {
    let built: ((value: object) => Promise<void>) | undefined;
    return (value: object): Promise<void> => (built ??= this.buildInsert(entity, conflict))(value);
  }

  private buildInsert(
    entity: EntityClass<ObjectLiteral>,
    conflict: (error: unknown) => AdapterConflictKind,
  ): (value: object) => Promise<void> {
    const repo = this.queries.repo(entity);
    const { metadata } = repo;
    const { driver } = this.dataSource;
    const viaQueryBuilder = async (value: object): Promise<void> => {
      await this.queries.insert(repo, value, conflict);
    };
    const columns = metadata.columns.filter((c) => c.isInsert);
    const plainColumns = columns.every(
      (c) =>
        !c.isGenerated &&
        !c.isVersion &&
        !c.isDiscriminator &&
        !c.isVirtual &&
        !c.isVirtualProperty &&
        !c.isCreateDate &&
        !c.isUpdateDate &&
        !c.isDeleteDate &&
        c.default === undefined &&
        !c.embeddedMetadata &&
        !c.relationMetadata &&
        !c.referencedColumn &&
        !c.propertyPath.includes('.') &&
        !['json', 'jsonb', 'simple-json'].includes(String(c.type)) &&
        !driver.spatialTypes.includes(c.type as never),
    );
    if (!plainColumns || metadata.beforeInsertListeners.length || metadata.afterInsertListeners.length)
      return viaQueryBuilder;
    const esc = (name: string) => driver.escape(name);
    // What the query builder writes for a column without value.
    const none = SQLITE_TYPES.has(this.dataSource.options.type) ? 'NULL' : 'DEFAULT';
    const into = `INSERT INTO ${tableSql(this.dataSource, metadata)} (${columns.map((c) => esc(c.databaseName)).join(', ')})`;
    // `repo.create` starts from a new instance: a class's field initializers are its values too.
    const initial = metadata.create() as ObjectLiteral;
    // One statement per set of columns with values (the session's optional columns vary).
    const bySet = new Map<string, (values: unknown[]) => Promise<ObjectLiteral[]>>();
    return async (value) => {
      // Subscribers see the query builder's inserts: with any, it inserts.
      if (this.dataSource.subscribers.length) return viaQueryBuilder(value);
      const given = value as ObjectLiteral;
      const values: unknown[] = [];
      let set = '';
      for (const column of columns) {
        const raw =
          given[column.propertyName] !== undefined ? given[column.propertyName] : initial[column.propertyName];
        if (typeof raw === 'function') return viaQueryBuilder(value);
        const prepared: unknown = driver.preparePersistentValue(raw, column);
        if (prepared === undefined) set += '0';
        else {
          set += '1';
          values.push(prepared);
        }
      }
      let run = bySet.get(set);
      if (!run) {
        let index = 0;
        const slots = columns.map((_c, i) => (set[i] === '1' ? driver.createParameter(`p${index}`, index++) : none));
        run = statementRunner(this.dataSource, `${into} VALUES (${slots.join(', ')})`, this.prepared, 'insert');
        bySet.set(set, run);
      }
      try {
        await run(values);
      } catch (error) {
        throw mapWriteError(error, conflict);
      }
    };
  }

  private buildSelect(
    entity: EntityClass<ObjectLiteral>,
    keys: readonly string[],
    through?: { entity: EntityClass<ObjectLiteral>; on: readonly [string, string] },
    orderBy?: readonly string[],
  ): Statement {
    const esc = (name: string) => this.dataSource.driver.escape(name);
    const metadata = this.dataSource.getMetadata(entity);
    const part = selectedPart(metadata, (c) => c.databaseName, { primary: true });
    const params = new Params(this.dataSource);
    let from = `${tableSql(this.dataSource, metadata)} ${esc('t')}`;
    let keyed = { metadata, alias: 't' };
    if (through) {
      const joined = this.dataSource.getMetadata(through.entity);
      const [its, own] = through.on;
      from +=
        ` INNER JOIN ${tableSql(this.dataSource, joined)} ${esc('j')}` +
        ` ON ${esc('j')}.${esc(columnOf(joined, its).databaseName)} = ${esc('t')}.${esc(columnOf(metadata, own).databaseName)}`;
      keyed = { metadata: joined, alias: 'j' };
    }
    const conditions = [
      ...this.keyConditions(keyed.metadata, keyed.alias, keys, params),
      ...scopeConditions(this.dataSource, metadata, 't', (v) => params.fixed(v)),
    ];
    const select = part.columns.map(({ column }) => `${esc('t')}.${esc(column.databaseName)}`);
    // `orderBy('t.<property>', 'ASC')`, then `addOrderBy` for each next one.
    const order = orderBy?.length
      ? ` ORDER BY ${orderBy.map((p) => `${esc('t')}.${esc(columnOf(metadata, p).databaseName)} ASC`).join(', ')}`
      : '';
    const sql = `SELECT ${select.join(', ')} FROM ${from} WHERE ${conditions.join(' AND ')}${order}`;
    return this.statement(sql, params, part);
  }

  private buildDelete(entity: EntityClass<ObjectLiteral>, keys: readonly string[]): Statement {
    const esc = (name: string) => this.dataSource.driver.escape(name);
    const metadata = this.dataSource.getMetadata(entity);
    // What the old `RETURNING *` hydrated: the selectable columns.
    const part = selectedPart(metadata, (c) => c.databaseName);
    const params = new Params(this.dataSource);
    const conditions = [
      ...this.keyConditions(metadata, undefined, keys, params),
      ...scopeConditions(this.dataSource, metadata, undefined, (v) => params.fixed(v)),
    ];
    const returning = part.columns.map(({ column }) => esc(column.databaseName));
    const sql =
      `DELETE FROM ${tableSql(this.dataSource, metadata)} WHERE ${conditions.join(' AND ')}` +
      ` RETURNING ${returning.join(', ')}`;
    return this.statement(sql, params, part);
  }

  /** `column = ?` per key, and again with `BINARY` on MySQL/MariaDB (as `TypeOrmQueries.where`). */
  private keyConditions(
    metadata: EntityMetadata,
    alias: string | undefined,
    keys: readonly string[],
    params: Params,
  ): string[] {
    const esc = (name: string) => this.dataSource.driver.escape(name);
    return keys.flatMap((property, k) => {
      const column = (alias ? `${esc(alias)}.` : '') + esc(columnOf(metadata, property).databaseName);
      const equal = [`${column} = ${params.key(k)}`];
      if (this.mysql) equal.push(`BINARY ${column} = ${params.key(k)}`);
      return equal;
    });
  }

  private statement(sql: string, params: Params, part: LookupPart): Statement {
    const run = statementRunner(this.dataSource, sql, this.prepared, 'statement');
    const read = plainRowReader(this.dataSource, part);
    // `Array.from`, not the driver's array's `map`: a list made in this module's realm (a driver's
    // native array may come from another one, whose `map` would make its own kind of array).
    return async (values) => Array.from(await run(params.values(values)), read);
  }
}

/** A statement's parameters in order: each a key's value or a fixed value (discriminators). */
class Params {
  private readonly slots: ({ key: number } | { value: unknown })[] = [];

  constructor(private readonly dataSource: DataSource) {}

  /** The placeholder of the value of key `k`. */
  key(k: number): string {
    return this.add({ key: k });
  }

  /** The placeholder of a fixed value. */
  fixed(value: unknown): string {
    return this.add({ value });
  }

  /** The values to send, for the keys' values. */
  values(keys: KeyValues): unknown[] {
    return this.slots.map((s) => ('key' in s ? keys[s.key] : s.value));
  }

  private add(slot: { key: number } | { value: unknown }): string {
    const index = this.slots.push(slot) - 1;
    return this.dataSource.driver.createParameter(`p${index}`, index);
  }
}
