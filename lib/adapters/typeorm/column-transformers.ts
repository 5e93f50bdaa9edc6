import type { ValueTransformer } from 'typeorm';

/**
 * `bigint` columns come back as strings from PostgreSQL and MySQL (they may exceed 2^53); the
 * values stored here (epoch seconds, signature counters up to 2^32) always fit in a number.
 */
export const bigintToNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null | undefined) => (value === null || value === undefined ? value : Number(value)),
};

/**
 * A list of words (`amr` method references) in a text column, space-separated as `sessions.amr`
 * stores them; an empty list is `NULL`. A list whose words hold spaces does not come back as it went
 * in: the adapter checks what it writes and what it reads (`storedRefreshFamily`).
 */
export const spaceSeparated: ValueTransformer = {
  to: (value: unknown) => (Array.isArray(value) ? (value.length ? value.join(' ') : null) : value),
  from: (value: unknown) =>
    value === null || value === undefined ? [] : typeof value === 'string' ? (value ? value.split(' ') : []) : value,
};
