import type { ObjectLiteral, Repository } from 'typeorm';
import {
  SESSION_DETAIL_FIELDS,
  type AdapterSession,
  type AdapterSessionDetails,
  type AdapterSessionInfo,
} from '../adapter.interface.js';
import { plain } from './typeorm-queries.js';

// Sessions as devices beyond SPEC (issue 21): the optional columns of `sessions`. The default
// entity has them (migration `AuthSessionDetails…`); Auth.js's tables have them only when a schema
// mapping names them; a custom entity may leave them out. Lookups never return them.

const DETAILS: ReadonlySet<string> = new Set(SESSION_DETAIL_FIELDS);

/** True for a property of the optional session columns (left out of the session lookup). */
export function isSessionDetail(property: string): boolean {
  return DETAILS.has(property);
}

/** The details among `values` the session entity has columns for (none for a table without them). */
export function storableDetails(repo: Repository<ObjectLiteral>, values: object): AdapterSessionDetails {
  const out: Record<string, unknown> = {};
  for (const field of SESSION_DETAIL_FIELDS) {
    const value = (values as Record<string, unknown>)[field];
    if (value !== undefined && repo.metadata.findColumnWithPropertyName(field)) out[field] = value;
  }
  return out as AdapterSessionDetails;
}

/** A session row as `updateSession`/`deleteSession` return it: without the optional columns. */
export function specSessionOf(row: ObjectLiteral | null | undefined): AdapterSession | null {
  const found = plain(row);
  if (!found) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(found)) if (!DETAILS.has(key)) out[key] = value;
  return out as unknown as AdapterSession;
}

/** A session row as `listSessionsByUserId` returns it: every column, absent details as `null`. */
export function sessionInfoOf(row: ObjectLiteral): AdapterSessionInfo {
  const found = plain(row) as Record<string, unknown>;
  for (const field of SESSION_DETAIL_FIELDS) found[field] ??= null;
  return found as unknown as AdapterSessionInfo;
}
