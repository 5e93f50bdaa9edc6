// The MemoryAdapter's store helpers: map keys for composite keys, deep copies (so callers never
// share an object with the store), the stored forms of rows, and the compare-and-swap of account tokens.
import {
  SESSION_DETAIL_FIELDS,
  type AccountTokens,
  type AdapterAccount,
  type AdapterAuthenticator,
  type AdapterRefreshFamily,
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

/** A valid date, copied (of any realm: jest's VM contexts have a `Date` of their own); `null` otherwise. */
function validDate(value: unknown): Date | null {
  if (Object.prototype.toString.call(value) !== '[object Date]') return null;
  const time = (value as Date).getTime();
  return Number.isNaN(time) ? null : new Date(time);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** A refresh-token family's generation: a whole number from 0 that a rotation can still add one to. */
export function isRefreshGeneration(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && Number.isSafeInteger((value as number) + 1);
}

/** `amr` values: method names (RFC 8176), each non-empty and without spaces (stored space-separated). */
function amrValues(value: unknown): string[] | null {
  if (!Array.isArray(value)) return null;
  return value.every((v) => nonEmptyString(v) && !/\s/.test(v)) ? [...(value as string[])] : null;
}

/**
 * A refresh-token family as stored, and as an adapter returns a stored one: a copy with the
 * contract's fields only, or `null` when a field is not of its type (an id, user, client or hash that
 * is no non-empty string, a generation that is no whole number from 0, a date that is no valid date,
 * an `amr` that is no list of method names). A stored family that fails reads as missing: fail closed.
 */
export function storedRefreshFamily(family: AdapterRefreshFamily): AdapterRefreshFamily | null {
  const f = family as Partial<Record<keyof AdapterRefreshFamily, unknown>>;
  const [rotatedAt, expires, authTime] = [validDate(f.rotatedAt), validDate(f.expires), validDate(f.authTime)];
  const amr = amrValues(f.amr);
  const texts = [f.id, f.userId, f.clientId, f.tokenHash];
  if (!texts.every(nonEmptyString) || !isRefreshGeneration(f.generation)) return null;
  if (!rotatedAt || !expires || !authTime || !amr) return null;
  return {
    id: family.id,
    userId: family.userId,
    clientId: family.clientId,
    generation: family.generation,
    tokenHash: family.tokenHash,
    rotatedAt,
    expires,
    authTime,
    amr,
  };
}

/** What `rotateRefreshFamily` writes: the next generation and `next`'s fields, copied. */
export type RefreshRotation = Pick<AdapterRefreshFamily, 'generation' | 'tokenHash' | 'rotatedAt' | 'expires'>;

/**
 * The write of `rotateRefreshFamily(id, from, next)`, or `null` when `from` is no generation (no
 * stored family can be at it: nothing is written). A `next` whose fields are not of their types is a
 * `TypeError`, before anything is written.
 */
export function refreshRotation(
  from: number,
  next: Pick<AdapterRefreshFamily, 'tokenHash' | 'rotatedAt' | 'expires'>,
): RefreshRotation | null {
  const [rotatedAt, expires] = [validDate(next?.rotatedAt), validDate(next?.expires)];
  if (!rotatedAt || !expires || !nonEmptyString(next.tokenHash))
    throw new TypeError('rotateRefreshFamily: `next` needs a tokenHash and valid rotatedAt and expires dates.');
  if (!isRefreshGeneration(from)) return null;
  return { generation: from + 1, tokenHash: next.tokenHash, rotatedAt, expires };
}

/** `createRefreshFamily`'s input as stored; a `TypeError` (before anything is written) when it is not a valid family. */
export function newRefreshFamily(family: AdapterRefreshFamily): AdapterRefreshFamily {
  const stored = storedRefreshFamily(family);
  if (!stored)
    throw new TypeError(
      'createRefreshFamily: not a valid refresh-token family (non-empty id, userId, clientId and tokenHash, a whole generation from 0, valid dates, amr method names).',
    );
  return stored;
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
