// The MemoryAdapter's store helpers: map keys for composite keys, deep copies (so callers never
// share an object with the store), the stored forms of rows, and the compare-and-swap of account tokens.
import {
  SESSION_DETAIL_FIELDS,
  type AccountTokens,
  type AdapterAccount,
  type AdapterAuthenticator,
  type AdapterSession,
  type AdapterSessionDetails,
  type AdapterTwoFactor,
} from './adapter.interface.js';

export type AccountKey = Pick<AdapterAccount, 'provider' | 'providerAccountId'>;

/** Users without an address (some providers give none) are not in the unique email index, as NULLs in SQL. */
export function hasEmail(user: { email?: string | null }): user is { email: string } {
  return typeof user.email === 'string';
}

export function accountKey(key: AccountKey): string {
  // NUL cannot appear in either part coming from a provider, so the pair maps to one key.
  return `${key.provider}\u0000${key.providerAccountId}`;
}

export function tokenKey(key: { identifier: string; token: string }): string {
  return `${key.identifier}\u0000${key.token}`;
}

/**
 * A deep copy that keeps `Date`s as dates. Not `structuredClone`: it builds objects of the host's
 * realm, so `instanceof Date` fails in VM contexts (jest) where the caller's `Date` is another one.
 */
export function copy<T>(value: T): T {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = copy(v);
    return out as T;
  }
  return value;
}

export function copyOrNull<T>(value: T | undefined): T | null {
  return value === undefined ? null : copy(value);
}

/** The object without its `undefined` properties (a partial update leaves those fields alone). */
export function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Deletes the entries whose value matches; returns how many went. */
export function deleteWhere<V>(map: Map<string, V>, matches: (value: V) => boolean): number {
  let count = 0;
  for (const [key, value] of map) {
    if (!matches(value)) continue;
    map.delete(key);
    count++;
  }
  return count;
}

/** The session details (`SESSION_DETAIL_FIELDS`) given in `value`, copied; absent ones left out. */
export function sessionDetailsOf(value: object): AdapterSessionDetails {
  const out: Record<string, unknown> = {};
  for (const field of SESSION_DETAIL_FIELDS) {
    const v = (value as Record<string, unknown>)[field];
    if (v !== undefined) out[field] = copy(v);
  }
  return out as AdapterSessionDetails;
}

/** A copy of a stored session with SPEC's fields only (what lookups return). */
export function specSession(session: AdapterSession): AdapterSession {
  return { sessionToken: session.sessionToken, userId: session.userId, expires: new Date(session.expires) };
}

/** An authenticator as stored: a copy without its `undefined` properties, the optional columns `null` when absent. */
export function storedAuthenticator(authenticator: AdapterAuthenticator): AdapterAuthenticator {
  return {
    ...copy(definedOnly(authenticator)),
    transports: authenticator.transports ?? null,
    name: authenticator.name ?? null,
    lastUsedAt: authenticator.lastUsedAt ?? null,
  };
}

/** A second factor as stored: a copy with the contract's fields only, the optional ones `null` when absent. */
export function storedTwoFactor(factor: AdapterTwoFactor): AdapterTwoFactor {
  return copy({
    id: factor.id,
    userId: factor.userId,
    type: factor.type,
    name: factor.name ?? null,
    secret: factor.secret,
    confirmedAt: factor.confirmedAt ?? null,
    createdAt: factor.createdAt,
    lastUsedAt: factor.lastUsedAt ?? null,
    lastUsedStep: factor.lastUsedStep ?? null,
  });
}

/**
 * The compare-and-swap of `MemoryAdapter.updateAccountTokens`: the stored account with `next`'s
 * tokens written (`null` clears a column, `undefined` leaves it), or `null` when there is no account
 * or its `refresh_token` / `expires_at` no longer equal `match`'s. `stored` itself is not changed.
 */
export function swappedTokens(
  stored: AdapterAccount | undefined,
  match: { refresh_token: string | null; expires_at: number | null },
  next: AccountTokens,
): AdapterAccount | null {
  if (!stored) return null;
  if ((stored.refresh_token ?? null) !== match.refresh_token || (stored.expires_at ?? null) !== match.expires_at)
    return null;
  const updated = { ...stored } as Record<string, unknown>;
  for (const [k, v] of Object.entries(next)) {
    if (v === undefined) continue;
    if (v === null) delete updated[k];
    else updated[k] = v;
  }
  return updated as AdapterAccount;
}
