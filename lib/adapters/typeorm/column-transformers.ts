import type { ValueTransformer } from 'typeorm';

/**
 * `bigint` columns come back as strings from PostgreSQL and MySQL (they may exceed 2^53); the
 * values stored here (epoch seconds, signature counters up to 2^32) always fit in a number.
 */
export const bigintToNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null | undefined) => (value === null || value === undefined ? value : Number(value)),
};
