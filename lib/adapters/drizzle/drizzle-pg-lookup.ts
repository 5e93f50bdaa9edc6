import { entityKind, eq, fillPlaceholders, getTableColumns, sql, type Column, type SQL } from 'drizzle-orm';
import type { AdapterSession, AdapterUser } from '../adapter.interface.js';
import { LookupBatcher, lookupStatementName } from '../lookup-batcher.js';
import type { Loose } from './drizzle-queries.js';

// `DrizzleAdapter.getSessionAndUser` on drizzle-orm/node-postgres, which the guard calls on every
// request: the SQL Drizzle builds for the join, run as a named prepared statement on the app's
// `pg` client (`db.$client`) with the lookups of one event-loop turn batched, rows read as Drizzle
// reads them (its columns' `mapFromDriverValue`) without its per-query machinery.

/** A session and its user, as `getSessionAndUser` returns them. */
export interface DrizzleSessionAndUser {
  session: AdapterSession;
  user: AdapterUser;
}

/** The part of a `pg` Pool (or Client) the lookup uses. */
interface PgQueryable {
  query(config: {
    name: string;
    text: string;
    values: unknown[];
    rowMode: 'array';
    types: TypeParsers;
  }): Promise<{ rows: unknown[][] }>;
}

/** pg's `types` option: the parser of each column type's text. */
interface TypeParsers {
  getTypeParser(oid: number, format?: string): (value: string) => unknown;
}

/**
 * The types whose text Drizzle's node-postgres driver keeps as text (its columns parse it:
 * timestamps without time zone as UTC, dates as the column's mode asks): timestamptz, timestamp,
 * date, interval and their arrays.
 */
const TEXT_TYPES = new Set([1184, 1114, 1082, 1186, 1185, 1115, 1182, 1187, 1231]);

/** One column of the lookup's row: where its value goes and the column that reads it. */
interface Field {
  part: 'session' | 'user';
  key: string;
  column: Column;
}

/**
 * The node-postgres client of a `drizzle-orm/node-postgres` database (`db.$client`, a Pool or a
 * Client), or `undefined` for any other driver (their clients have other calls).
 */
export function nodePgClientOf(db: Loose): PgQueryable | undefined {
  const kind: unknown = db?.constructor?.[entityKind];
  const client: unknown = db?.$client;
  if (kind !== 'NodePgDatabase' || typeof (client as PgQueryable | undefined)?.query !== 'function') return undefined;
  return client as PgQueryable;
}

/** pg's own type parsers, or `undefined` when `pg` cannot be imported from here. */
async function pgTypeParsers(): Promise<TypeParsers | undefined> {
  try {
    const pg = (await import('pg' as string)) as { default?: { types?: TypeParsers }; types?: TypeParsers };
    const types = pg.default?.types ?? pg.types;
    return typeof types?.getTypeParser === 'function' ? types : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The session lookup on node-postgres: built once from the tables, then per token one batched
 * statement (see {@link LookupBatcher}). Drizzle's logger and cache do not see it; it only reads.
 */
export class DrizzlePgSessionLookup {
  private readonly fields: Field[];
  private readonly single: { name: string; text: string; params: unknown[] };
  private readonly many: { name: string; text: string; params: unknown[] };
  private readonly batcher: LookupBatcher<unknown[]>;
  private types?: TypeParsers;
  private typesLoaded?: Promise<TypeParsers | undefined>;

  /**
   * @param fallback - The lookup through Drizzle, for when `pg`'s type parsers cannot be loaded (a
   *   layout where this package cannot import `pg`).
   */
  constructor(
    db: Loose,
    private readonly client: PgQueryable,
    sessions: Loose,
    users: Loose,
    private readonly fallback: (token: string) => Promise<DrizzleSessionAndUser | null>,
  ) {
    this.fields = [
      { part: 'session', key: 'sessionToken', column: sessions.sessionToken },
      { part: 'session', key: 'userId', column: sessions.userId },
      { part: 'session', key: 'expires', column: sessions.expires },
      ...Object.entries(getTableColumns(users) as Record<string, Column>).map(([key, column]): Field => ({
        part: 'user',
        key,
        column,
      })),
    ];
    // A flat selection under keys of ours: Drizzle selects the columns in this order, so the row's
    // values are read by position (`rowMode: 'array'`) whatever the columns' names.
    const selection = Object.fromEntries(this.fields.map((f, i) => [`c${i}`, f.column]));
    const statement = (where: SQL, limit?: number) => {
      let query = db.select(selection).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(where);
      if (limit) query = query.limit(limit);
      const { sql: text, params } = query.toSQL() as { sql: string; params: unknown[] };
      return { name: lookupStatementName(text), text, params };
    };
    this.single = statement(eq(sessions.sessionToken, sql.placeholder('token')), 1);
    this.many = statement(sql`${sessions.sessionToken} = any(${sql.placeholder('tokens')})`);
    this.batcher = new LookupBatcher<unknown[]>(
      async (token) => (await this.run(this.single, { token }))[0],
      (tokens) => this.run(this.many, { tokens }),
      (row) => row[0],
    );
  }

  /** The session of `sessionToken` and its user, or `null`. */
  async find(sessionToken: string): Promise<DrizzleSessionAndUser | null> {
    if (!this.types) {
      this.types = await (this.typesLoaded ??= pgTypeParsers().then(rawTimes));
      if (!this.types) return this.fallback(sessionToken);
    }
    const row = await this.batcher.lookup(sessionToken);
    return row ? this.read(row) : null;
  }

  private async run(
    statement: { name: string; text: string; params: unknown[] },
    values: Record<string, unknown>,
  ): Promise<unknown[][]> {
    const { name, text, params } = statement;
    const result = await this.client.query({
      name,
      text,
      values: fillPlaceholders(params, values),
      rowMode: 'array',
      types: this.types!,
    });
    return result.rows;
  }

  /** A row as Drizzle reads it: each value through its column, `null` kept. */
  private read(row: unknown[]): DrizzleSessionAndUser {
    const session: Record<string, unknown> = {};
    const user: Record<string, unknown> = {};
    const { fields } = this;
    for (let i = 0; i < fields.length; i++) {
      const { part, key, column } = fields[i];
      const value = row[i];
      (part === 'session' ? session : user)[key] = value === null ? null : column.mapFromDriverValue(value);
    }
    return { session: session as unknown as AdapterSession, user: user as unknown as AdapterUser };
  }
}

/** pg's parsers, with the types Drizzle reads from their text left as text (as its driver does). */
function rawTimes(types: TypeParsers | undefined): TypeParsers | undefined {
  if (!types) return undefined;
  const text = (value: string) => value;
  return { getTypeParser: (oid, format) => (TEXT_TYPES.has(oid) ? text : types.getTypeParser(oid, format)) };
}
