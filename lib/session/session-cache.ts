import { Inject, Injectable } from '@nestjs/common';
import type { AdapterSession, AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import { defaultCallbacks } from '../config/defaults.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { JWT, Session } from '../types/common.types.js';
import { isExpiredDate } from '../util/instant.js';
import { JwtRevocation } from './jwt-revocation.js';
import type { AuthUser, SessionState } from './session.types.js';

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
 * The sessions this process remembers, by raw token: decoded JWTs (until they expire) and database
 * sessions (for `session.cacheTtl`). Both maps are bounded, by entries and by estimated memory, and
 * an entry never outlives what it caches (a JWT its `exp`, a database session its `expires`). With the default callbacks a hit is
 * answered synchronously ({@link SessionCache.hit}): that is the guard's hot path.
 */
@Injectable()
export class SessionCache {
  private readonly jwts = new Map<string, CachedJwt>();
  private readonly dbs = new Map<string, CachedDb>();
  /** Estimated bytes held by each map. */
  private jwtBytes = 0;
  private dbBytes = 0;
  /** True with the default `jwt` and `session` callbacks: entries keep their shaped user. */
  readonly shapes: boolean;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly revocation: JwtRevocation,
  ) {
    this.shapes =
      config.callbacks.session === defaultCallbacks.session && config.callbacks.jwt === defaultCallbacks.jwt;
  }

  /** The active session served from memory, when the token is cached, current and needs no callback. */
  hit(raw: string, bearer: boolean): SessionState | undefined {
    const now = Date.now();
    if (this.config.session.strategy === 'jwt') {
      const cached = this.jwts.get(raw);
      if (!cached?.user || cached.expMs <= now) return undefined;
      // With revocation, a shared store must be asked (async) and a revoked id answers in the reader.
      if (this.config.session.jwtRevocation && !this.revocation.clearedLocally(cached.revocationId, now))
        return undefined;
      return this.jwtState(raw, cached as CachedJwt & { user: AuthUser }, bearer);
    }
    const cached = this.dbs.get(raw);
    if (!cached?.shaped || cached.until <= now || isExpiredDate(cached.session.expires, now)) return undefined;
    const user = { ...cached.shaped.user };
    return {
      status: 'active',
      strategy: 'database',
      user,
      session: { ...cached.shaped.session, user },
      stored: cached.session,
      sessionToken: raw,
      bearer,
      signedInAt: cached.signedInAt,
    };
  }

  /** The active state of a decoded JWT with the default callbacks. */
  jwtState(raw: string, cached: CachedJwt & { user: AuthUser }, bearer: boolean): SessionState {
    // A copy per request: a handler that changes its user must not change the next request's.
    const user = { ...cached.user };
    return {
      status: 'active',
      strategy: 'jwt',
      user,
      session: { user, expires: cached.expires },
      token: cached.token,
      sessionToken: raw,
      bearer,
      signedInAt: cached.signedInAt,
    };
  }

  /** The decoded JWT kept for a token (expired or not), or undefined. */
  jwt(raw: string): CachedJwt | undefined {
    return this.jwts.get(raw);
  }

  /** Keeps a decoded JWT; the oldest entry goes when the cache is full. */
  keepJwt(raw: string, entry: CachedJwt): void {
    this.forgetJwt(raw);
    const bytes = jwtEntryBytes(raw);
    if (bytes > CACHE_MAX_BYTES) return;
    while (this.jwts.size >= JWT_CACHE_MAX || this.jwtBytes + bytes > CACHE_MAX_BYTES)
      this.forgetJwt(this.jwts.keys().next().value!);
    this.jwts.set(raw, entry);
    this.jwtBytes += bytes;
  }

  /** Forgets a token's decoded JWT. */
  forgetJwt(raw: string): void {
    if (this.jwts.delete(raw)) this.jwtBytes -= jwtEntryBytes(raw);
  }

  /** Entries and estimated bytes held (JWTs, database sessions). */
  usage(): { jwts: number; jwtBytes: number; dbs: number; dbBytes: number } {
    return { jwts: this.jwts.size, jwtBytes: this.jwtBytes, dbs: this.dbs.size, dbBytes: this.dbBytes };
  }

  /** The database session kept for a token (current or not), or undefined. */
  db(raw: string): CachedDb | undefined {
    return this.dbs.get(raw);
  }

  /** Keeps a looked-up database session; the oldest entry goes when the cache is full. */
  keepDb(raw: string, entry: CachedDb): void {
    this.forgetDb(raw);
    const bytes = dbEntryBytes(raw);
    if (bytes > CACHE_MAX_BYTES) return;
    while (this.dbs.size >= DB_CACHE_MAX || this.dbBytes + bytes > CACHE_MAX_BYTES)
      this.forgetDb(this.dbs.keys().next().value!);
    this.dbs.set(raw, entry);
    this.dbBytes += bytes;
  }

  /** Forgets a token's database session. */
  forgetDb(raw: string): void {
    if (this.dbs.delete(raw)) this.dbBytes -= dbEntryBytes(raw);
  }

  /** Forgets the cached database sessions of a user (after they were deleted). */
  forgetUser(userId: string): void {
    for (const [token, entry] of this.dbs) if (entry.user.id === userId) this.forgetDb(token);
  }
}
