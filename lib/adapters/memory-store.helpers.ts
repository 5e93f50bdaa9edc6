// The MemoryAdapter's store helpers: map keys for composite keys, deep copies (so callers never
// share an object with the store), the stored forms of rows, and the compare-and-swap of account tokens.
import {
  SESSION_DETAIL_FIELDS,
  type AccountTokens,
  type AdapterAccount,
  type AdapterApiKey,
  type AdapterAuthenticator,
  type AdapterRefreshFamily,
  type AdapterSession,
  type AdapterSessionDetails,
  type AdapterSigningKey,
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

/**
 * A list of words, copied: `amr` values (RFC 8176 method names) or an API key's scopes, each
 * non-empty and without spaces (stored space-separated); `null` otherwise.
 */
function words(value: unknown): string[] | null {
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
  const amr = words(f.amr);
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

/** A date or `null`, copied; `undefined` when it is neither (not of its type). */
function nullableDate(value: unknown): Date | null | undefined {
  return value === null ? null : (validDate(value) ?? undefined);
}

/** A string of 1 to `max` UTF-16 units (never more than the column holds: every store refuses or keeps the same). */
function textUpTo(value: unknown, max: number): value is string {
  return nonEmptyString(value) && value.length <= max;
}

/**
 * The column sizes of `api_keys` (`ApiKeyEntity`), which every store keeps to, so a key one store
 * takes is a key every store takes. `scopes`: the space-separated text.
 */
export const API_KEY_LIMITS = Object.freeze({ id: 32, name: 100, keyHash: 64, hint: 8, scopes: 1000 });

/** An API key's name: text up to `API_KEY_LIMITS.name` (empty allowed). */
function isApiKeyName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= API_KEY_LIMITS.name;
}

/**
 * An API key as stored, and as an adapter returns a stored one: a copy with the contract's fields
 * only, or `null` when a field is not of its type (an id, user, hash or hint that is no non-empty
 * string of its size, a name that is no string of its size, scopes that are no list of words, a
 * date that is no valid date, `expires`/`lastUsedAt` neither a date nor `null`). A stored key that
 * fails reads as missing: the key stops working (fail closed).
 */
export function storedApiKey(key: AdapterApiKey): AdapterApiKey | null {
  const k = key as Partial<Record<keyof AdapterApiKey, unknown>>;
  const [createdAt, expires, lastUsedAt] = [
    validDate(k.createdAt),
    nullableDate(k.expires),
    nullableDate(k.lastUsedAt),
  ];
  const scopes = words(k.scopes);
  if (!textUpTo(k.id, API_KEY_LIMITS.id) || !nonEmptyString(k.userId) || !isApiKeyName(k.name)) return null;
  if (!textUpTo(k.keyHash, API_KEY_LIMITS.keyHash) || !textUpTo(k.hint, API_KEY_LIMITS.hint)) return null;
  if (!scopes || scopes.join(' ').length > API_KEY_LIMITS.scopes) return null;
  if (!createdAt || expires === undefined || lastUsedAt === undefined) return null;
  return {
    id: key.id,
    userId: key.userId,
    name: key.name,
    keyHash: key.keyHash,
    hint: key.hint,
    scopes,
    createdAt,
    expires,
    lastUsedAt,
  };
}

/** `createApiKey`'s input as stored; a `TypeError` (before anything is written) when it is not a valid key. */
export function newApiKey(key: AdapterApiKey): AdapterApiKey {
  const stored = storedApiKey(key);
  if (!stored)
    throw new TypeError(
      `createApiKey: not a valid API key (non-empty id up to ${API_KEY_LIMITS.id} characters, userId, keyHash up to ${API_KEY_LIMITS.keyHash} and hint up to ${API_KEY_LIMITS.hint}; a name up to ${API_KEY_LIMITS.name}; scopes as words without spaces, ${API_KEY_LIMITS.scopes} characters in all; a valid createdAt; expires and lastUsedAt dates or null).`,
    );
  return stored;
}

/**
 * What `updateApiKey` writes: the patch's `name` and `lastUsedAt` (copied), the fields it leaves out
 * absent. A patch whose fields are not of their types is a `TypeError`, before anything is written.
 */
export function apiKeyPatch(
  patch: Partial<Pick<AdapterApiKey, 'name' | 'lastUsedAt'>>,
): Partial<Pick<AdapterApiKey, 'name' | 'lastUsedAt'>> {
  const { name, lastUsedAt } = (patch ?? {}) as Partial<Record<'name' | 'lastUsedAt', unknown>>;
  const out: Partial<Pick<AdapterApiKey, 'name' | 'lastUsedAt'>> = {};
  if (name !== undefined) {
    if (!isApiKeyName(name))
      throw new TypeError(`updateApiKey: \`name\` must be text up to ${API_KEY_LIMITS.name} characters.`);
    out.name = name;
  }
  if (lastUsedAt !== undefined) {
    const date = nullableDate(lastUsedAt);
    if (date === undefined) throw new TypeError('updateApiKey: `lastUsedAt` must be a valid date or null.');
    out.lastUsedAt = date;
  }
  return out;
}

/** A signing key's rotation slot: a whole number from 0. */
export function isSigningKeySlot(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Text that parses as a JSON object (a JWK), not an array or a primitive. */
function isJsonObject(value: unknown): value is string {
  if (!nonEmptyString(value)) return false;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/** The column sizes of `signing_keys` (`SigningKeyEntity`) that every store keeps to. */
export const SIGNING_KEY_LIMITS = Object.freeze({ id: 64, alg: 16 });

/**
 * A signing key as stored, and as an adapter returns a stored one: a copy with the contract's fields
 * only, or `null` when a field is not of its type (an id or alg that is no non-empty string of its
 * size, a public key that is no JSON object, an empty private key, a slot that is no whole number
 * from 0, a date that is no valid date, `removesAt` neither a date nor `null`). A stored key that
 * fails reads as missing: it neither signs nor is published (fail closed).
 */
export function storedSigningKey(key: AdapterSigningKey): AdapterSigningKey | null {
  const k = key as Partial<Record<keyof AdapterSigningKey, unknown>>;
  const [createdAt, activatesAt, removesAt] = [
    validDate(k.createdAt),
    validDate(k.activatesAt),
    nullableDate(k.removesAt),
  ];
  if (!textUpTo(k.id, SIGNING_KEY_LIMITS.id) || !textUpTo(k.alg, SIGNING_KEY_LIMITS.alg)) return null;
  if (!isJsonObject(k.publicJwk) || !nonEmptyString(k.privateKey) || !isSigningKeySlot(k.slot)) return null;
  if (!createdAt || !activatesAt || removesAt === undefined) return null;
  return {
    id: key.id,
    alg: key.alg,
    publicJwk: key.publicJwk,
    privateKey: key.privateKey,
    slot: key.slot,
    createdAt,
    activatesAt,
    removesAt,
  };
}

/** `createSigningKey`'s input as stored; a `TypeError` (before anything is written) when it is not a valid key. */
export function newSigningKey(key: AdapterSigningKey): AdapterSigningKey {
  const stored = storedSigningKey(key);
  if (!stored)
    throw new TypeError(
      `createSigningKey: not a valid signing key (non-empty id up to ${SIGNING_KEY_LIMITS.id} characters and alg up to ${SIGNING_KEY_LIMITS.alg}, a publicJwk of JSON object text, a non-empty privateKey, a whole slot from 0, valid createdAt and activatesAt, removesAt a date or null).`,
    );
  return stored;
}

/**
 * What `updateSigningKey` writes: the patch's `activatesAt` and `removesAt` (copied), the fields it
 * leaves out absent. A patch whose fields are not of their types is a `TypeError`, before anything
 * is written.
 */
export function signingKeyPatch(
  patch: Partial<Pick<AdapterSigningKey, 'activatesAt' | 'removesAt'>>,
): Partial<Pick<AdapterSigningKey, 'activatesAt' | 'removesAt'>> {
  const { activatesAt, removesAt } = (patch ?? {}) as Partial<Record<'activatesAt' | 'removesAt', unknown>>;
  const out: Partial<Pick<AdapterSigningKey, 'activatesAt' | 'removesAt'>> = {};
  if (activatesAt !== undefined) {
    const date = validDate(activatesAt);
    if (!date) throw new TypeError('updateSigningKey: `activatesAt` must be a valid date.');
    out.activatesAt = date;
  }
  if (removesAt !== undefined) {
    const date = nullableDate(removesAt);
    if (date === undefined) throw new TypeError('updateSigningKey: `removesAt` must be a valid date or null.');
    out.removesAt = date;
  }
  return out;
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
