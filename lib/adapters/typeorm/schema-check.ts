import type { DataSource, EntityMetadata } from 'typeorm';
import { AuthConfigurationError } from '../../errors/auth.errors.js';
import type { AuthSchemaOption } from './schema-mapping.js';
import { DATE_FIELDS, dialectOf, resolveAuthSchema, ROW_ID, type ResolvedAuthSchema } from './schema-entities.js';

// Existing-schema mode: the tables belong to another application, so they are checked, never
// created or altered. Every difference is reported at once.

type Family = 'text' | 'integer' | 'date' | 'boolean' | 'uuid';

const FAMILIES: [Family, RegExp][] = [
  ['uuid', /^uuid$/i],
  ['boolean', /bool|^bit$/i],
  ['date', /timestamp|datetime|^date$/i],
  ['integer', /int|serial|^numeric|^decimal/i],
  ['text', /char|text|clob|^string$/i],
];

function familyOf(sqlType: string): Family | undefined {
  return FAMILIES.find(([, re]) => re.test(sqlType))?.[0];
}

/** The SQL types a field's column may have, by the mapping's id and date storage. */
function accepted(schema: ResolvedAuthSchema, property: string, rowIdDatabase: boolean): Family[] {
  const { mapping } = schema;
  if (property === ROW_ID) return rowIdDatabase ? ['integer'] : ['text', 'uuid'];
  if (property === 'id' || property === 'userId') {
    if (mapping.idType === 'integer') return ['integer'];
    return ['text', 'uuid'];
  }
  if (DATE_FIELDS.has(property)) {
    // SQLite has no date type: the declared one is whatever the DDL said (Prisma: DATETIME holding ms).
    if (schema.dialect === 'sqlite') return ['date', 'text', 'integer'];
    switch (mapping.dates ?? 'native') {
      case 'native':
      case 'utc':
        return ['date'];
      case 'epoch-ms':
        return ['integer'];
      case 'epoch-ms-string':
        return ['text'];
    }
  }
  if (property === 'expires_at' || property === 'counter') return ['integer'];
  if (property === 'credentialBackedUp') return ['boolean', 'integer'];
  return ['text'];
}

/** SPEC fields the adapter may write `null` into; their columns must accept it. */
const NULLABLE = new Set([
  'name',
  'emailVerified',
  'image',
  'transports',
  'expires_at',
  'lastUsedAt',
  'createdAt',
  'lastSeenAt',
  'userAgent',
  'ip',
  'providerSid',
  'amr',
]);

/**
 * The differences between the tables a mapping needs and the database: missing tables and
 * columns, incompatible types, columns that refuse a null the adapter writes, and columns the
 * adapter does not know that refuse an insert without them (`NOT NULL` with no default).
 */
export async function schemaDifferences(dataSource: DataSource, schema: ResolvedAuthSchema): Promise<string[]> {
  const problems: string[] = [];
  const runner = dataSource.createQueryRunner();
  try {
    for (const entity of schema.list) {
      if (!dataSource.hasMetadata(entity)) {
        problems.push(
          `the data source does not list the entities of schema "${schema.name}": add ` +
            `authSchemaEntities(${JSON.stringify(schema.name)}, '${schema.dialect}') to its \`entities\``,
        );
        break;
      }
      const metadata: EntityMetadata = dataSource.getMetadata(entity);
      const table = await runner.getTable(metadata.tablePath);
      if (!table) {
        problems.push(`table "${metadata.tableName}" does not exist`);
        continue;
      }
      for (const column of metadata.columns) {
        const where = `"${metadata.tableName}"."${column.databaseName}"`;
        const found = table.findColumnByName(column.databaseName);
        if (!found) {
          problems.push(`column ${where} does not exist (field ${column.propertyName})`);
          continue;
        }
        const wanted = accepted(schema, column.propertyName, column.generationStrategy === 'increment');
        const family = familyOf(found.type);
        if (!family || !wanted.includes(family))
          problems.push(`column ${where} is ${found.type}, expected ${wanted.join(' or ')}`);
        if (NULLABLE.has(column.propertyName) && !found.isNullable)
          problems.push(`column ${where} is NOT NULL, but ${column.propertyName} may be null`);
      }
      for (const extra of table.columns) {
        if (metadata.findColumnWithDatabaseName(extra.name)) continue;
        if (
          !extra.isNullable &&
          extra.default === undefined &&
          !extra.isGenerated &&
          extra.generationStrategy === undefined
        )
          problems.push(
            `column "${metadata.tableName}"."${extra.name}" is NOT NULL without a default and not in the mapping: inserts would fail`,
          );
      }
    }
  } finally {
    await runner.release();
  }
  return problems;
}

/** The `schema` option resolved for a data source's dialect, or `AuthConfigurationError`. */
export function schemaForDataSource(dataSource: DataSource, option: AuthSchemaOption): ResolvedAuthSchema {
  const dialect = dialectOf(dataSource.options.type);
  if (!dialect)
    throw new AuthConfigurationError([
      `TypeOrmAdapter: schema presets support PostgreSQL, MySQL/MariaDB and SQLite, not ${dataSource.options.type}`,
    ]);
  try {
    return resolveAuthSchema(option, dialect);
  } catch (error) {
    throw new AuthConfigurationError([(error as Error).message]);
  }
}

/** Throws one `AuthConfigurationError` listing every difference between the schema and the database. */
export async function assertSchema(dataSource: DataSource, schema: ResolvedAuthSchema): Promise<void> {
  const problems = await schemaDifferences(dataSource, schema);
  if (problems.length)
    throw new AuthConfigurationError(problems.map((p) => `TypeOrmAdapter schema "${schema.name}": ${p}`));
}
