import type { AdapterSession, AdapterUser } from '../adapters/adapter.interface.js';
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

/** Decoded JWTs kept at most; the oldest goes when full. */
export const JWT_CACHE_MAX = 10_000;
/** Database sessions kept at most (`session.cacheTtl`); the oldest goes when full. */
export const DB_CACHE_MAX = 10_000;
/** Estimated bytes each map may hold (see {@link jwtEntryBytes}); the oldest entries go first. */
export const CACHE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The memory a cached JWT is counted for: the token string (UTF-16) plus its decoded claims and
 * shaped user, which together take no more than the token itself (a JWE is longer than the JSON it
 * encrypts), plus a fixed overhead. An estimate from the key alone, so that removing an entry
 * subtracts exactly what adding it counted.
 */
export const jwtEntryBytes = (raw: string) => 4 * raw.length + 256;
/** The memory a cached database session is counted for: its token, and the session and user rows. */
export const dbEntryBytes = (raw: string) => 2 * raw.length + 1024;
/**
 * Characters of a token the JWT cache is keyed by: its last ones (a JWE ends with its authentication
 * tag). V8 hashes each request's new string over every character: 0.6-0.7 µs for a 500-character
 * token, under 0.1 µs for 32. The entry keeps the whole token, which must equal the one looked up.
 */
const JWT_KEY_CHARS = 32;
export const jwtKeyOf = (raw: string) => (raw.length > JWT_KEY_CHARS ? raw.slice(-JWT_KEY_CHARS) : raw);
/** A cached JWT under its key, with the whole token it was decoded from. */
export interface JwtSlot {
  raw: string;
  entry: CachedJwt;
}
