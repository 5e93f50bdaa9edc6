import type { AdapterSession, AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_DEFAULTS } from '../config/defaults.js';
import type { JWT, Session } from '../types/common.types.js';
import type { AuthUser } from './session.types.js';
import type { Assurance } from './assurance.js';

// What the session cache holds, its bounds and how it counts memory (the cache is session-cache.ts).

/** A decoded JWT, kept per exact cookie value until it expires. */
export interface CachedJwt {
  token: JWT;
  expMs: number;
  /** The session's `expires` as sent (ISO string). */
  expires: string;
  /** The user as the default callbacks shape it; absent with custom callbacks (they run every time). */
  user?: AuthUser;
  /** With `session.jwtRevocation`: the id the token is revoked by. */
  revocationId?: string;
  /** The token's `auth_time` (when the user signed in), or null. */
  signedInAt: Date | null;
}

/** A looked-up database session, served from memory until `until` (`session.cacheTtl`). */
export interface CachedDb {
  session: AdapterSession;
  user: AdapterUser;
  until: number;
  /** What the default `session` callback makes of it; absent with a custom callback. */
  shaped?: { user: AuthUser; session: Session };
  /** The session's `createdAt`, once a recent sign-in check looked it up (it never changes). */
  signedInAt?: Date | null;
  /** The session's assurance (`amr` column), once `@RequireAal()` looked it up (it never changes). */
  assurance?: Assurance;
}

/** Decoded JWTs kept at most by default (`session.cacheMaxEntries`); the oldest goes when full. */
export const JWT_CACHE_MAX = AUTH_DEFAULTS.sessionCacheMaxEntries;
/** Database sessions kept at most by default (`session.cacheMaxEntries`, with `session.cacheTtl`). */
export const DB_CACHE_MAX = AUTH_DEFAULTS.sessionCacheMaxEntries;
/** Bytes each map may hold by default, as counted ({@link jwtEntryBytes}; `session.cacheMaxBytes`). */
export const CACHE_MAX_BYTES = AUTH_DEFAULTS.sessionCacheMaxBytes;

/**
 * The memory a cached JWT is counted for, from its token alone (so removing an entry subtracts
 * exactly what adding it counted): the token (a byte a character, kept as its own copy), the
 * decoded claims and shaped user (their strings are what the JWE encrypts, about 3/4 of its
 * length, held once), and the objects around them (entry, claims, user, expiry, map, eviction
 * queue and admission slots). Calibrated on V8's heap after a GC (Node.js 20, 64-bit, 2,000
 * entries): the session cookie of a password sign-in measured 1,904 bytes (counted 1,874), one
 * with a 1,000-character `picture` URL 4,264 (counted 4,543).
 */
export const jwtEntryBytes = (raw: string) => 2 * raw.length + 750;
/**
 * The memory a cached database session is counted for: its token (kept as its own copy, and again
 * in the session row), the session and user rows as the adapter returns them (objects, dates,
 * strings), the user shaped by the default `session` callback, and the map, queue and admission
 * slots. Calibrated as {@link jwtEntryBytes}: a 64-character token's session and user read by the
 * TypeORM adapter on SQLite measured 1,739 bytes (counted 1,728).
 */
export const dbEntryBytes = (raw: string) => 2 * raw.length + 1600;

/**
 * A copy of a token that holds nothing else. A token read from a header is a slice of it, and V8
 * keeps a slice's whole header alive (every other cookie of the request, kilobytes) for as long
 * as the slice: the cache copies what it keeps. Through UTF-8, which copies a well-formed string
 * exactly (and costs well under a microsecond, once per entry); any other is kept as it is.
 */
export function ownCopy(raw: string): string {
  const copy = Buffer.from(raw, 'utf8').toString('utf8');
  return copy === raw ? copy : raw;
}
/**
 * Characters of a token the JWT cache is keyed by: its last ones (a JWE ends with its authentication
 * tag). V8 hashes each request's new string over every character: 0.6-0.7 µs for a 500-character
 * token, under 0.1 µs for 32. The entry keeps the whole token, which must equal the one looked up.
 */
const JWT_KEY_CHARS = 32;
export const jwtKeyOf = (raw: string) => (raw.length > JWT_KEY_CHARS ? raw.slice(-JWT_KEY_CHARS) : raw);
/** A cached JWT under its key, with the whole token it was decoded from; emptied once dropped. */
export interface JwtSlot {
  raw: string;
  entry: CachedJwt | undefined;
}
