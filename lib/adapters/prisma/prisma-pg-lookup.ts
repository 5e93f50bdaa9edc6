import { LookupBatcher, lookupStatementName } from '../lookup-batcher.js';

// `PrismaAdapter.getSessionAndUser` on PostgreSQL, which the guard calls on every request: one join
// written from the client's data model, the lookups of one event-loop turn batched into one
// statement (`= ANY($1)`), run through the client's `$queryRawUnsafe` or, when the app hands the
// adapter the `pg` Pool its `PrismaPg` driver adapter runs on, as a named prepared statement on
// that pool, past Prisma's query pipeline.

/** A row of the lookup: the session's and the user's fields under their field names. */
export type LookupRow = Record<string, unknown>;

/**
 * The node-postgres `Pool` (from `pg`) that the client's driver adapter was given
 * (`new PrismaPg(pool)`): the part of it `PrismaAdapter` calls.
 */
export interface PrismaAdapterPgPool {
  /** pg's `pool.query(config)`: a named prepared statement, its parameters, the parsers of its column types. */
  query(config: {
    name: string;
    text: string;
    values: unknown[];
    types: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
  }): Promise<{ rows: Record<string, unknown>[] }>;
}

/** The lookup's SQL, and whether every field it reads is a `String` or a `DateTime`. */
interface LookupSql {
  single: string;
  many: string;
  /** Strings and DateTimes only: what the pool path reads as Prisma does (see {@link PG_TYPES}). */
  plainTypes: boolean;
}

type Model = {
  dbName?: string | null;
  fields?: { name: string; dbName?: string | null; kind: string; type?: string }[];
};

/**
 * The session-and-user lookup on PostgreSQL, with the tables and columns the client's data model
 * names (`@@map`, `@map`), each read back under its field's name: `single` for one token (`$1`),
 * `many` for several (`$1` an array, `= ANY($1)`); `null` when the data model cannot be read or lacks
 * a field (the lookup then goes through `findFirst`).
 */
function sessionLookupPg(prisma: object): LookupSql | null {
  const models = (prisma as { _runtimeDataModel?: { models?: Record<string, Model> } })._runtimeDataModel?.models;
  const session = models?.Session;
  const user = models?.User;
  if (!session?.fields || !user?.fields) return null;
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const fieldOf = (model: Model, field: string) => model.fields!.find((f) => f.name === field && f.kind === 'scalar');
  const column = (model: Model, field: string): string | null => {
    const found = fieldOf(model, field);
    return found ? quote(found.dbName ?? found.name) : null;
  };
  const read = [
    ...['sessionToken', 'userId', 'expires'].map((f) => ['s', session, f] as const),
    ...['id', 'name', 'email', 'emailVerified', 'image'].map((f) => ['u', user, f] as const),
  ];
  const selected = read.map(([alias, model, f]) => {
    const c = column(model, f);
    return c ? `${alias}.${c} AS ${quote(f)}` : null;
  });
  const userId = column(session, 'userId');
  const id = column(user, 'id');
  const token = column(session, 'sessionToken');
  if (selected.some((c) => c === null) || !userId || !id || !token) return null;
  const table = (model: Model, name: string) => quote(model.dbName ?? name);
  const from =
    `SELECT ${selected.join(', ')} FROM ${table(session, 'Session')} s INNER JOIN ${table(user, 'User')} u ` +
    `ON u.${id} = s.${userId}`;
  return {
    single: `${from} WHERE s.${token} = $1 LIMIT 1`,
    many: `${from} WHERE s.${token} = ANY($1)`,
    plainTypes: read.every(([, model, f]) => ['String', 'DateTime'].includes(fieldOf(model, f)?.type ?? '')),
  };
}

/**
 * The batched session lookup of a PostgreSQL client: on `pgPool` when given (and the fields are
 * `String`s and `DateTime`s), else through `$queryRawUnsafe`; `undefined` when the client is no
 * PostgreSQL one or its data model cannot be read (the adapter then uses `findFirst`).
 */
export function prismaSessionLookup(
  prisma: object,
  pgPool: PrismaAdapterPgPool | undefined,
): { path: 'pg-pool' | 'raw'; batcher: LookupBatcher<LookupRow> } | undefined {
  const provider = (prisma as { _activeProvider?: unknown })._activeProvider;
  const raw = (prisma as { $queryRawUnsafe?: unknown }).$queryRawUnsafe;
  const sql = provider === 'postgresql' ? sessionLookupPg(prisma) : null;
  if (!sql) return undefined;
  const tokenOf = (row: LookupRow) => row.sessionToken;
  if (pgPool && sql.plainTypes) {
    const run = async (text: string, value: unknown) =>
      (await pgPool.query({ name: lookupStatementName(text), text, values: [value], types: PG_TYPES })).rows;
    return {
      path: 'pg-pool',
      batcher: new LookupBatcher(
        async (token) => (await run(sql.single, token))[0],
        (tokens) => run(sql.many, tokens),
        tokenOf,
      ),
    };
  }
  if (typeof raw !== 'function') return undefined;
  const run = (text: string, value: unknown) => raw.call(prisma, text, value) as Promise<LookupRow[]>;
  return {
    path: 'raw',
    batcher: new LookupBatcher(
      async (token) => (await run(sql.single, token))[0],
      (tokens) => run(sql.many, tokens),
      tokenOf,
    ),
  };
}

const TIMESTAMP = /^(\d{4,})-(\d\d)-(\d\d)(?: (\d\d):(\d\d):(\d\d)(\.\d+)?)?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?$/;

/**
 * A `timestamp`, `timestamptz` or `date` as PostgreSQL writes it (ISO DateStyle) as a `Date`, as
 * Prisma reads it: a `timestamp` (no zone, Prisma's default `DateTime` column) and a `date` as UTC.
 * Anything else (`infinity`, BC dates) is an invalid `Date`.
 */
export function pgDateTime(text: string): Date {
  const m = TIMESTAMP.exec(text);
  if (!m) return new Date(Number.NaN);
  const [
    ,
    year,
    month,
    day,
    hour = '0',
    minute = '0',
    second = '0',
    fraction = '',
    sign,
    oh = '0',
    om = '0',
    os = '0',
  ] = m;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: years 0-99 stay themselves.
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), Number(`${fraction.slice(1)}00`.slice(0, 3)));
  const offset = (Number(oh) * 3600 + Number(om) * 60 + Number(os)) * 1000;
  return new Date(date.getTime() - (sign === '-' ? -offset : offset));
}

const TIME_TYPES = new Set([1114, 1184, 1082]); // timestamp, timestamptz, date
const text = (value: string) => value;

/**
 * The pool path's column parsers: the lookup reads `String`s (text, varchar, uuid: their text) and
 * `DateTime`s (see {@link pgDateTime}) only, so no parser of pg's is needed.
 */
const PG_TYPES = {
  getTypeParser: (oid: number): ((value: string) => unknown) => (TIME_TYPES.has(oid) ? pgDateTime : text),
};
