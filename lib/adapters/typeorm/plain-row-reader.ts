import type { DataSource, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata, LookupPart } from './session-lookup.js';

// How the session lookup's row becomes plain objects (split from session-lookup.ts).

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
  /** Where the value is in the row: its alias, or its index in an array row. */
  key: string | number;
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
 * once per plan; runs on every uncached database-session request. With `at`, rows are arrays (the
 * select list's values in order) and this part's columns start at index `at`.
 */
export function plainRowReader(
  dataSource: DataSource,
  part: LookupPart,
  at?: number,
): (row: ObjectLiteral) => ObjectLiteral {
  const { driver } = dataSource;
  const readers: ColumnReader[] = part.columns.map(({ alias, column }, i) => {
    const nested = Boolean(column.embeddedMetadata) || column.propertyPath.includes('.');
    const type = String(driver.normalizeType(column)).toLowerCase();
    return {
      key: at === undefined ? alias : at + i,
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
      const raw = (row as Record<string | number, unknown>)[r.key];
      const value = r.direct ? raw : driver.prepareHydratedValue(raw, r.column);
      if (r.nested) r.column.setEntityValue(entity, value);
      else entity[r.property] = value;
    }
    return initialized ? { ...entity } : entity;
  };
}
