import { and, eq, getTableColumns, is, sql, type SQL, type Table } from 'drizzle-orm';
import { MySqlTable } from 'drizzle-orm/mysql-core';
import { PgTable } from 'drizzle-orm/pg-core';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { AdapterConflictKind } from '../../errors/auth.errors.js';
import { mapWriteError } from '../typeorm/write-errors.js';

// The statements `DrizzleAdapter` is built from, over one Drizzle database of any of the three
// dialects: rows matched by exact keys (also under MySQL's case-insensitive collations), the rows a
// write changed, deletes that return what they deleted, transactions (asynchronous on PostgreSQL
// and MySQL, synchronous on better-sqlite3) and drivers' constraint violations as typed errors.

/**
 * A Drizzle database or query builder of any dialect. The three dialects' builders have the same
 * calls but types that do not unify; the adapter's own tables fix the columns it reads.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

/** The SQL dialect of the tables given to `DrizzleAdapter`. */
export type DrizzleDialect = 'pg' | 'mysql' | 'sqlite';

/** The dialect of a Drizzle table; a `TypeError` for anything else. */
export function dialectOf(table: unknown): DrizzleDialect {
  if (is(table, PgTable)) return 'pg';
  if (is(table, MySqlTable)) return 'mysql';
  if (is(table, SQLiteTable)) return 'sqlite';
  throw new TypeError('DrizzleAdapter: `tables.users` is not a Drizzle table (pgTable, mysqlTable or sqliteTable).');
}

/** One statement of a transaction body: its rows (`all`) or its run result (`run`). */
export interface Step {
  kind: 'all' | 'run';
  query: Loose;
}

/** A transaction body: yields its statements, gets each one's result back, returns the outcome. */
export type TransactionBody<T> = (tx: Loose) => Generator<Step, T, Loose>;

/** The rows of a select or a `RETURNING` statement, in a transaction body. */
export const all = (query: Loose): Step => ({ kind: 'all', query });
/** The run result of an `UPDATE` or `DELETE` (see {@link affectedRows}), in a transaction body. */
export const run = (query: Loose): Step => ({ kind: 'run', query });

/** How many rows a write changed: node-postgres' `rowCount`, better-sqlite3's `changes`, mysql2's `affectedRows`. */
export function affectedRows(result: Loose): number {
  const header = Array.isArray(result) ? result[0] : result;
  return Number(header?.affectedRows ?? header?.rowCount ?? header?.changes ?? 0);
}

/** Property values that select rows, by table property name. */
export type Keys = Record<string, string | number>;

export class DrizzleQueries {
  constructor(
    readonly db: Loose,
    readonly dialect: DrizzleDialect,
  ) {}

  /** Whether the table has a column for `property`. */
  has(table: Table, property: string): boolean {
    return property in getTableColumns(table);
  }

  /**
   * `column = value`. On MySQL/MariaDB a text comparison is repeated with `BINARY`: a
   * case-insensitive collation (the server default) must not let `ABC` match `abc`; the plain
   * comparison keeps the index usable.
   */
  exact(column: Loose, value: string | number): SQL {
    const plain = eq(column, value);
    if (this.dialect !== 'mysql' || typeof value !== 'string') return plain;
    return and(plain, sql`BINARY ${column} = ${value}`)!;
  }

  /** `exact` for every key, joined with `AND`. */
  where(table: Loose, keys: Keys): SQL {
    return and(...Object.entries(keys).map(([property, value]) => this.exact(table[property], value)))!;
  }

  /** The given values that are columns of the table and not `undefined` (a partial write). */
  columnsOnly(table: Table, values: object): Record<string, unknown> {
    const columns = getTableColumns(table);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(values)) if (value !== undefined && key in columns) out[key] = value;
    return out;
  }

  /** The first row matching `keys` (every column), or `null`. */
  async first(table: Loose, keys: Keys): Promise<Record<string, unknown> | null> {
    const rows = (await this.db.select().from(table).where(this.where(table, keys)).limit(1)) as Loose[];
    return rows[0] ?? null;
  }

  /** Inserts rows; a unique violation is an `AdapterConflictError` of `conflict`'s kind, an unknown user an `AdapterNotFoundError`. */
  async insert(
    table: Table,
    values: object | object[],
    conflict: (error: unknown) => AdapterConflictKind,
  ): Promise<void> {
    try {
      await this.db.insert(table).values(values);
    } catch (error) {
      throw writeError(error, conflict);
    }
  }

  /** Sets `values` (non-empty) on the rows matching `where`; returns how many rows it changed. */
  async update(table: Table, where: SQL, values: Record<string, unknown>, conflict: () => AdapterConflictKind) {
    try {
      return affectedRows(await this.db.update(table).set(values).where(where));
    } catch (error) {
      throw writeError(error, conflict);
    }
  }

  /** Deletes the rows matching `where`; returns how many went. */
  async deleteAll(table: Table, where: SQL): Promise<number> {
    return affectedRows(await this.db.delete(table).where(where));
  }

  /**
   * Deletes the rows matching `where` and returns them, atomically: `DELETE ... RETURNING` on
   * PostgreSQL and SQLite; on MySQL/MariaDB (no `RETURNING` in Drizzle's MySQL dialect) a
   * transaction that locks the rows (`SELECT ... FOR UPDATE`) first, so of concurrent calls exactly
   * one gets them.
   */
  async deleteReturning(table: Table, where: SQL): Promise<Loose[]> {
    if (this.dialect !== 'mysql') return (await this.db.delete(table).where(where).returning()) as Loose[];
    return this.transaction(function* (tx) {
      const rows = (yield all(tx.select().from(table).where(where).for('update'))) as Loose[];
      if (rows.length) yield run(tx.delete(table).where(where));
      return rows;
    });
  }

  /**
   * Runs `body` in one transaction. better-sqlite3's transactions are synchronous (a callback that
   * awaits would commit before its statements ran): the body yields its statements, which run
   * synchronously there and are awaited on PostgreSQL and MySQL.
   */
  async transaction<T>(body: TransactionBody<T>): Promise<T> {
    if (this.dialect === 'sqlite') {
      return this.db.transaction((tx: Loose) => {
        const steps = body(tx);
        let next = steps.next();
        while (!next.done)
          next = steps.next(next.value.kind === 'all' ? next.value.query.all() : next.value.query.run());
        return next.value;
      }) as T;
    }
    return this.db.transaction(async (tx: Loose) => {
      const steps = body(tx);
      let next = steps.next();
      while (!next.done) next = steps.next(await next.value.query);
      return next.value;
    }) as Promise<T>;
  }

  /** `SELECT ... FOR UPDATE` where the dialect has it (SQLite runs one write transaction at a time). */
  locking(query: Loose): Loose {
    return this.dialect === 'sqlite' ? query : query.for('update');
  }
}

/**
 * A driver's unique or foreign-key violation (Drizzle wraps it in a `DrizzleQueryError` whose
 * `cause` it is) as the adapter contract's typed error; anything else unchanged.
 */
export function writeError(error: unknown, conflict: (error: unknown) => AdapterConflictKind): unknown {
  const wrapped = error as { cause?: unknown; query?: unknown };
  const driver = wrapped && typeof wrapped.query === 'string' && wrapped.cause ? wrapped.cause : error;
  const mapped = mapWriteError(driver, conflict);
  return mapped === driver ? error : mapped;
}
