import type { DataSource, ObjectLiteral } from 'typeorm';
import { dialectOf } from './schema-entities.js';
import type { ColumnMetadata, LookupPart } from './plain-statements.js';

// How a plain statement's row (the session lookup's, PlainStatements') becomes plain objects.

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
  /** A SQLite `datetime` column without transformer: its text read by {@link sqliteDatetimeMs}. */
  sqliteDate: boolean;
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
  const sqlite = dialectOf(String(dataSource.options.type)) === 'sqlite';
  const readers: ColumnReader[] = part.columns.map(({ alias, column }, i) => {
    const nested = Boolean(column.embeddedMetadata) || column.propertyPath.includes('.');
    const type = String(driver.normalizeType(column)).toLowerCase();
    const plain = !nested && !column.transformer;
    return {
      key: at === undefined ? alias : at + i,
      property: column.propertyName,
      column,
      nested,
      direct: plain && STRING_TYPES.has(type),
      sqliteDate: sqlite && plain && (column.type === 'datetime' || column.type === Date),
    };
  });
  // An entity class whose fields have initializers (`kind = 'member'`) gets them as the query
  // builder would: created through the metadata, then copied. The default entities have none.
  const initialized = Object.keys(part.metadata.create() as object).length > 0;
  return (row) => {
    const entity: ObjectLiteral = initialized ? (part.metadata.create() as ObjectLiteral) : {};
    for (const r of readers) {
      const raw = (row as Record<string | number, unknown>)[r.key];
      let value: unknown;
      if (r.direct) value = raw;
      else {
        const ms = r.sqliteDate && typeof raw === 'string' ? sqliteDatetimeMs(raw) : undefined;
        value = ms === undefined ? driver.prepareHydratedValue(raw, r.column) : new Date(ms);
      }
      if (r.nested) r.column.setEntityValue(entity, value);
      else entity[r.property] = value;
    }
    return initialized ? { ...entity } : entity;
  };
}

/** Days in each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const CHAR_0 = 48;

/**
 * The instant of a SQLite `datetime` as TypeORM writes it (`YYYY-MM-DD HH:MM:SS.SSS`, UTC), read
 * without the driver's two regular expressions, its string rewrite and `Date`'s string parser:
 * the same instant TypeORM's `prepareHydratedValue` gives, for a valid date from year 1000 on.
 * Any other text (another format, a date the calendar does not have, a non-digit) is `undefined`,
 * and the caller leaves it to TypeORM, which reads it as it always did.
 */
export function sqliteDatetimeMs(text: string): number | undefined {
  if (text.length !== 23 || text[4] !== '-' || text[7] !== '-' || text[10] !== ' ') return undefined;
  if (text[13] !== ':' || text[16] !== ':' || text[19] !== '.') return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hours = digitsAt(text, 11, 2);
  const minutes = digitsAt(text, 14, 2);
  const seconds = digitsAt(text, 17, 2);
  const millis = digitsAt(text, 20, 3);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hours < 0 || hours > 23) return undefined;
  if (minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59 || millis < 0) return undefined;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > MONTH_DAYS[month - 1]! + (month === 2 && leap ? 1 : 0)) return undefined;
  return Date.UTC(year, month - 1, day, hours, minutes, seconds, millis);
}

/** The number written by `count` decimal digits of `text` from `from`; -1 when one is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - CHAR_0;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}
