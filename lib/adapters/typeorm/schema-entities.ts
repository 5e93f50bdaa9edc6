import { createHash } from 'node:crypto';
import { EntitySchema, type EntitySchemaColumnOptions, type ValueTransformer } from 'typeorm';
import type { TypeOrmAdapterEntities } from './auth-entities.js';
import { bigintToNumber } from './column-transformers.js';
import {
  AUTH_FIELDS,
  OPTIONAL_AUTH_FIELDS,
  PRESET_DIALECTS,
  presetMapping,
  type AuthDateStorage,
  type AuthField,
  type AuthRecord,
  type AuthSchemaDialect,
  type AuthSchemaMapping,
  type AuthSchemaOption,
} from './schema-mapping.js';

/** The property name of a record's surrogate key: selected never, so never returned. */
export const ROW_ID = '__rowId';

/** A mapping resolved for one dialect, with the entity schemas built from it. */
export interface ResolvedAuthSchema {
  name: string;
  dialect: AuthSchemaDialect;
  mapping: AuthSchemaMapping;
  entities: Readonly<TypeOrmAdapterEntities>;
  /** The entity schemas, for the data source's `entities`. */
  list: readonly EntitySchema[];
}

const cache = new Map<string, ResolvedAuthSchema>();

/**
 * The TypeORM entity schemas of a preset or mapping on a dialect. List them in the data source's
 * `entities`; the same call always gives the same instances. They never synchronise: the tables are
 * the other application's.
 *
 * @example
 * TypeOrmModule.forRoot({ type: 'postgres', url, entities: authSchemaEntities('authjs-pg', 'postgres') })
 */
export function authSchemaEntities(schema: AuthSchemaOption, dialect: AuthSchemaDialect): EntitySchema[] {
  return [...resolveAuthSchema(schema, dialect).list];
}

/** The dialect of a TypeORM driver type, or `undefined` for one the presets do not cover. */
export function dialectOf(type: string): AuthSchemaDialect | undefined {
  if (type === 'postgres') return 'postgres';
  if (type === 'mysql' || type === 'mariadb') return 'mysql';
  if (type === 'better-sqlite3' || type === 'sqlite' || type === 'sqljs') return 'sqlite';
  return undefined;
}

export function resolveAuthSchema(schema: AuthSchemaOption, dialect: AuthSchemaDialect): ResolvedAuthSchema {
  const name =
    typeof schema === 'string'
      ? schema
      : `mapping-${createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 12)}`;
  const key = `${name}:${dialect}`;
  const cached = cache.get(key);
  if (cached) return cached;
  if (typeof schema === 'string' && !PRESET_DIALECTS[schema]?.includes(dialect))
    throw new Error(`nestjs-auth: the schema preset "${String(schema)}" does not exist for ${dialect}.`);
  const mapping = typeof schema === 'string' ? presetMapping(schema, dialect) : schema;
  const build = <R extends AuthRecord>(record: R) =>
    entitySchema(`nestjs-auth:${key}:${record}`, record, mapping, dialect);
  const User = build('user');
  const Account = build('account');
  const Session = build('session');
  const VerificationToken = build('verificationToken');
  const Authenticator = mapping.authenticator ? build('authenticator') : undefined;
  const entities = { User, Account, Session, VerificationToken, Authenticator: Authenticator ?? Session };
  const resolved: ResolvedAuthSchema = {
    name,
    dialect,
    mapping,
    entities: Object.freeze(entities) as unknown as TypeOrmAdapterEntities,
    list: Object.freeze([User, Account, Session, VerificationToken, ...(Authenticator ? [Authenticator] : [])]),
  };
  cache.set(key, resolved);
  return resolved;
}

/** The column name of a SPEC field in a mapping. */
export function columnName<R extends AuthRecord>(mapping: AuthSchemaMapping, record: R, field: AuthField<R>): string {
  const table = mapping[record] as { columns?: Partial<Record<string, string>> } | undefined;
  return table?.columns?.[field] ?? field;
}

const PRIMARY: Record<AuthRecord, readonly string[]> = {
  user: ['id'],
  account: ['provider', 'providerAccountId'],
  session: ['sessionToken'],
  verificationToken: ['identifier', 'token'],
  authenticator: ['credentialID'],
};
const OPTIONAL = new Set([
  'name',
  'email',
  'emailVerified',
  'image',
  'refresh_token',
  'access_token',
  'expires_at',
  'token_type',
  'scope',
  'id_token',
  'session_state',
  'transports',
]);

function entitySchema<R extends AuthRecord>(
  name: string,
  record: R,
  mapping: AuthSchemaMapping,
  dialect: AuthSchemaDialect,
): EntitySchema {
  const table = mapping[record]!;
  const columns: Record<string, EntitySchemaColumnOptions> = {};
  for (const field of AUTH_FIELDS[record] as readonly AuthField<R>[]) {
    const column: EntitySchemaColumnOptions = {
      name: columnName(mapping, record, field),
      nullable: OPTIONAL.has(field),
      primary: !table.rowId && PRIMARY[record].includes(field),
      ...typeOf(field, mapping, dialect),
    };
    if (record === 'user' && field === 'id' && mapping.userId === 'database') column.generated = 'increment';
    columns[field] = column;
  }
  // Beyond SPEC, only when the mapping names the column (Auth.js's tables do not have them).
  for (const field of OPTIONAL_AUTH_FIELDS[record] as readonly string[]) {
    const name = (table.columns as Partial<Record<string, string>> | undefined)?.[field];
    if (name) columns[field] = { name, nullable: true, ...typeOf(field, mapping, dialect) };
  }
  if (table.rowId) {
    columns[ROW_ID] = {
      name: table.rowId.column,
      primary: true,
      select: false,
      ...(table.rowId.strategy === 'database' ? { type: 'integer', generated: 'increment' } : { type: 'varchar' }),
    };
  }
  return new EntitySchema({ name, tableName: table.table, columns, synchronize: false });
}

/** The fields stored as dates (SPEC's and the optional ones). */
export const DATE_FIELDS = new Set(['emailVerified', 'expires', 'lastUsedAt', 'createdAt', 'lastSeenAt']);

type ColumnType = Pick<EntitySchemaColumnOptions, 'type' | 'transformer' | 'precision'>;

function typeOf(field: string, mapping: AuthSchemaMapping, dialect: AuthSchemaDialect): ColumnType {
  if (field === 'id' || field === 'userId')
    return mapping.idType === 'integer' ? { type: 'integer', transformer: integerId } : { type: 'varchar' };
  if (DATE_FIELDS.has(field)) return dateType(mapping.dates ?? 'native', dialect);
  if (field === 'expires_at' || field === 'counter') return { type: 'bigint', transformer: bigintToNumber };
  if (field === 'credentialBackedUp') return { type: 'boolean' };
  return { type: 'varchar' };
}

function dateType(storage: AuthDateStorage, dialect: AuthSchemaDialect): ColumnType {
  switch (storage) {
    case 'native':
      return dialect === 'postgres' ? { type: 'timestamptz' } : { type: 'datetime', precision: 3 };
    case 'utc':
      return { type: 'varchar', transformer: utcTimestamp };
    case 'epoch-ms':
      return { type: 'bigint', transformer: epochMs };
    case 'epoch-ms-string':
      return { type: 'varchar', transformer: epochMsString };
  }
}

/** Integer ids (`SERIAL`) as the strings of SPEC's types. */
const integerId: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : String(value)),
};

/** A date as UTC in a column without time zone: written as text, read back as UTC. */
const utcTimestamp: ValueTransformer = {
  to: (value: unknown) => (value instanceof Date ? value.toISOString().replace('T', ' ').replace('Z', '') : value),
  from: (value: unknown) => {
    if (value === null || value === undefined) return value;
    // Drivers parse a timestamp without time zone as local time: its fields are the UTC ones.
    if (value instanceof Date)
      return new Date(
        Date.UTC(
          value.getFullYear(),
          value.getMonth(),
          value.getDate(),
          value.getHours(),
          value.getMinutes(),
          value.getSeconds(),
          value.getMilliseconds(),
        ),
      );
    return new Date(`${String(value).replace(' ', 'T')}Z`);
  },
};

const epochMs: ValueTransformer = {
  to: (value: unknown) => (value instanceof Date ? value.getTime() : value),
  from: (value: unknown) => (value === null || value === undefined ? value : new Date(Number(value))),
};

const epochMsString: ValueTransformer = {
  to: (value: unknown) => (value instanceof Date ? String(value.getTime()) : value),
  from: (value: unknown) =>
    value === null || value === undefined ? value : new Date(Number.parseInt(String(value), 10)),
};
