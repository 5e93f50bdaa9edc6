import {
  SESSION_DETAIL_FIELDS,
  type AdapterAccount,
  type AdapterSession,
  type AdapterSessionInfo,
  type AdapterTwoFactor,
} from '../adapter.interface.js';

// Rows as `DrizzleAdapter` returns them: plain objects with the contract's keys, as `TypeOrmAdapter`
// and `MemoryAdapter` return them.

/** A session with SPEC's three fields only. */
export function specSessionOf(row: Record<string, unknown>): AdapterSession {
  return { sessionToken: row.sessionToken as string, userId: row.userId as string, expires: row.expires as Date };
}

/** A session row as the device list reads it: SPEC's fields and every detail, `null` when absent. */
export function sessionInfoOf(row: Record<string, unknown>): AdapterSessionInfo {
  const info: Record<string, unknown> = { ...specSessionOf(row) };
  for (const field of SESSION_DETAIL_FIELDS) info[field] = row[field] ?? null;
  return info as unknown as AdapterSessionInfo;
}

/** An account without the `null`s of its unset token columns (the type has them optional). */
export function accountOf(row: Record<string, unknown>): AdapterAccount {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null && v !== undefined)) as AdapterAccount;
}

/** A factor with the contract's fields only, its optional ones `null` when empty. */
export function twoFactorOf(row: Record<string, unknown>): AdapterTwoFactor {
  const f = row as unknown as AdapterTwoFactor;
  return {
    id: f.id,
    userId: f.userId,
    type: f.type,
    name: f.name ?? null,
    secret: f.secret,
    confirmedAt: f.confirmedAt ?? null,
    createdAt: f.createdAt,
    lastUsedAt: f.lastUsedAt ?? null,
    lastUsedStep: f.lastUsedStep === null || f.lastUsedStep === undefined ? null : Number(f.lastUsedStep),
  };
}

/** A list of words as a space-separated column stores it; an empty list is `NULL`. */
export function joinWords(words: readonly string[]): string | null {
  return words.length ? words.join(' ') : null;
}

/**
 * A space-separated column as a list of words (`NULL` and empty text: none). Split on single
 * spaces, so text that is no list of words (two spaces in a row) reads as one with an empty word,
 * which the stored-form checks refuse.
 */
export function splitWords(value: unknown): unknown {
  if (value === null || value === undefined) return [];
  return typeof value === 'string' ? (value ? value.split(' ') : []) : value;
}
