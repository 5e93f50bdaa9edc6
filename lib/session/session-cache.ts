import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import { defaultCallbacks } from '../config/defaults.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { ExpiringMap } from '../util/expiring-map.js';
import { isExpiredDate } from '../util/instant.js';
import { CacheAdmission } from './cache-admission.js';
import { EvictionOrder } from './eviction-order.js';
import { JwtRevocation } from './jwt-revocation.js';
import { RevocationBroadcast } from './revocation-broadcast.js';
import {
  DB_CACHE_MAX,
  dbEntryBytes,
  jwtEntryBytes,
  jwtKeyOf,
  ownCopy,
  type CachedDb,
  type CachedJwt,
  type JwtSlot,
} from './cache-entries.js';
import type { AuthUser, SessionState } from './session.types.js';

export {
  CACHE_MAX_BYTES,
  DB_CACHE_MAX,
  JWT_CACHE_MAX,
  dbEntryBytes,
  jwtEntryBytes,
  type CachedDb,
  type CachedJwt,
} from './cache-entries.js';

/**
 * With a revocation bus: how long (ms) a revoked token or user is not cached again. A revocation is
 * broadcast when the cache forgets it, which may be before the row is deleted: a lookup in between
 * still finds the row, and must not put it back in a cache for `cacheTtl`.
 */
export const REVOKED_NOT_CACHED_MS = 10_000;

/**
 * The sessions this process remembers, by raw token: decoded JWTs (until they expire) and database
 * sessions (for `session.cacheTtl`). Each map is bounded by `session.cacheMaxEntries` entries and
 * by `session.cacheMaxBytes` bytes as {@link jwtEntryBytes} and {@link dbEntryBytes} count them
 * (an entry larger than the whole bound is not kept), and an entry never outlives what it caches
 * (a JWT its `exp`, a database session its `expires`). With the default callbacks a hit is
 * answered synchronously ({@link SessionCache.hit}): that is the guard's hot path.
 */
@Injectable()
export class SessionCache {
  private readonly jwts = new Map<string, JwtSlot>();
  private readonly dbs = new Map<string, CachedDb>();
  /** Which entry of each map is the oldest, found without scanning the map. */
  private readonly jwtOrder = new EvictionOrder<JwtSlot>();
  private readonly dbOrder = new EvictionOrder<CachedDb>();
  /** Entries and counted bytes each map may hold (`session.cacheMaxEntries`, `session.cacheMaxBytes`). */
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  /** When full of current entries, a token is kept on its second offer only ({@link CacheAdmission}). */
  private readonly jwtAdmission: CacheAdmission;
  private readonly dbAdmission: CacheAdmission;
  /** Bytes held by each map, as {@link jwtEntryBytes} and {@link dbEntryBytes} count them. */
  private jwtBytes = 0;
  private dbBytes = 0;
  /** True with the default `jwt` and `session` callbacks: entries keep their shaped user. */
  readonly shapes: boolean;
  /** Database sessions with a revocation bus: forgetting a session or a user tells the other instances. */
  private readonly broadcasts: boolean;
  /** With a revocation bus: each cached token's keyed hashes (token, user), and token hash → token. */
  private readonly hashes = new Map<string, { token: string; user: string }>();
  private readonly byHash = new Map<string, string>();
  /** With a revocation bus: token and user hashes revoked a moment ago (`s:`/`u:` + hash), not cached again. */
  private readonly revoked = new ExpiringMap<string, true>(DB_CACHE_MAX);

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly revocation: JwtRevocation,
    private readonly broadcast: RevocationBroadcast,
  ) {
    this.shapes =
      config.callbacks.session === defaultCallbacks.session && config.callbacks.jwt === defaultCallbacks.jwt;
    this.maxEntries = config.session.cacheMaxEntries;
    this.maxBytes = config.session.cacheMaxBytes;
    // Fingerprints of first offers: as many as twice the entries, at least a few (a small cache
    // still recognises a token coming back).
    this.jwtAdmission = new CacheAdmission(Math.max(64, 2 * this.maxEntries));
    this.dbAdmission = new CacheAdmission(Math.max(64, 2 * this.maxEntries));
    this.broadcasts = broadcast.enabled && config.session.strategy === 'database';
    if (this.broadcasts) {
      broadcast.on({
        s: (hash) => this.revokedHere('s', hash),
        u: (hash) => this.revokedHere('u', hash),
        reset: () => this.dropAllDbs(),
      });
    }
  }

  /** The active session served from memory, when the token is cached, current and needs no callback. */
  hit(raw: string, bearer: boolean): SessionState | undefined {
    const now = Date.now();
    if (this.config.session.strategy === 'jwt') {
      const cached = this.jwt(raw);
      if (!cached?.user || cached.expMs <= now) return undefined;
      // With revocation, a shared store must be asked (async) and a revoked id answers in the reader.
      if (this.config.session.jwtRevocation && !this.revocation.clearedLocally(cached.revocationId, now))
        return undefined;
      return this.jwtState(raw, cached as CachedJwt & { user: AuthUser }, bearer);
    }
    // `live`: false while a revocation bus is not subscribed. An empty map (`cacheTtl: 0`) is not asked.
    const cached = this.broadcast.live && this.dbs.size > 0 ? this.dbs.get(raw) : undefined;
    if (!cached?.shaped || cached.until <= now || isExpiredDate(cached.session.expires, now)) return undefined;
    const user = { ...cached.shaped.user };
    return {
      status: 'active',
      strategy: 'database',
      user,
      // The default `session` callback's shape (`shaped` exists only with it): no spread per hit.
      session: { user, expires: cached.shaped.session.expires },
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
    const slot = this.jwts.get(jwtKeyOf(raw));
    return slot !== undefined && slot.raw === raw ? slot.entry : undefined;
  }

  /** Keeps a decoded JWT, when {@link takesJwt} takes it. */
  keepJwt(raw: string, entry: CachedJwt): void {
    if (this.takesJwt(raw)) this.storeJwt(raw, entry);
  }

  /**
   * Whether the cache takes a token's decoded JWT now (call {@link storeJwt} with its entry next):
   * when full of current entries, a token is taken the second time it is offered only
   * ({@link CacheAdmission}), and this counts as its offer. Asked before the entry is built, so that
   * a token not taken gets none: see {@link SessionReader}'s `readJwtSync`.
   */
  takesJwt(raw: string): boolean {
    const bytes = jwtEntryBytes(raw);
    if (bytes > this.maxBytes || this.maxEntries === 0) return false;
    if (this.jwts.size < this.maxEntries && this.jwtBytes + bytes <= this.maxBytes) return true;
    const oldest = this.jwtOrder.peek(this.jwts);
    return !oldest?.entry || oldest.entry.expMs <= Date.now() || this.jwtAdmission.admits(raw);
  }

  /** Stores a decoded JWT {@link takesJwt} took; the oldest entries go to make room. */
  storeJwt(raw: string, entry: CachedJwt): void {
    const bytes = jwtEntryBytes(raw);
    // The token's own entry, or another token's ending the same way: replaced.
    this.dropJwtKey(jwtKeyOf(raw));
    if (bytes > this.maxBytes || this.maxEntries === 0) return;
    while (this.jwts.size >= this.maxEntries || this.jwtBytes + bytes > this.maxBytes)
      this.dropJwtKey(this.jwtOrder.oldest(this.jwts) ?? this.jwts.keys().next().value!);
    const own = ownCopy(raw);
    // A copy too: a slice would keep the whole token alive from the eviction queue after a drop.
    const key = ownCopy(jwtKeyOf(own));
    const slot: JwtSlot = { raw: own, entry };
    this.jwts.set(key, slot);
    this.jwtOrder.push(key, slot, this.jwts);
    this.jwtBytes += bytes;
  }

  /** Forgets a token's decoded JWT. */
  forgetJwt(raw: string): void {
    const key = jwtKeyOf(raw);
    if (this.jwts.get(key)?.raw === raw) this.dropJwtKey(key);
  }

  private dropJwtKey(key: string): void {
    const slot = this.jwts.get(key);
    if (slot === undefined) return;
    this.jwts.delete(key);
    this.jwtBytes -= jwtEntryBytes(slot.raw);
    // The eviction queue may still hold the slot (dropped out of order, it stays queued until the
    // queue is compacted): emptied, it keeps nothing the byte bound no longer counts.
    slot.raw = '';
    slot.entry = undefined;
  }

  /** Entries and estimated bytes held (JWTs, database sessions). */
  usage(): { jwts: number; jwtBytes: number; dbs: number; dbBytes: number } {
    return { jwts: this.jwts.size, jwtBytes: this.jwtBytes, dbs: this.dbs.size, dbBytes: this.dbBytes };
  }

  /** The database session kept for a token (current or not), or undefined (always, while a bus is down). */
  db(raw: string): CachedDb | undefined {
    return this.broadcast.live ? this.dbs.get(raw) : undefined;
  }

  /** Keeps a looked-up database session, when {@link takesDb} takes it. */
  keepDb(raw: string, entry: CachedDb): void {
    if (this.takesDb(raw)) this.storeDb(raw, entry);
  }

  /**
   * Drops a token's cached session (a new lookup answers for it), then tells whether the cache
   * takes the new one (call {@link storeDb} with its entry next): as {@link takesJwt}, a full cache
   * takes a token on its second offer only while its oldest entry is within its time.
   */
  takesDb(raw: string): boolean {
    this.dropDb(raw);
    const bytes = dbEntryBytes(raw);
    if (bytes > this.maxBytes || this.maxEntries === 0) return false;
    if (this.dbs.size < this.maxEntries && this.dbBytes + bytes <= this.maxBytes) return true;
    const oldest = this.dbOrder.peek(this.dbs);
    return !oldest || oldest.until <= Date.now() || this.dbAdmission.admits(raw);
  }

  /**
   * Stores a database session {@link takesDb} took; the oldest entries go to make room. With a
   * revocation bus, nothing is kept while it is down, nor a token or user revoked a moment ago.
   */
  storeDb(raw: string, entry: CachedDb): void {
    const bytes = dbEntryBytes(raw);
    if (bytes > this.maxBytes || this.maxEntries === 0) return;
    let hashes: { token: string; user: string } | undefined;
    if (this.broadcasts) {
      if (!this.broadcast.live) return;
      hashes = { token: this.broadcast.keyOf('s', raw), user: this.broadcast.keyOf('u', entry.user.id) };
      if (this.revoked.get(`s:${hashes.token}`) || this.revoked.get(`u:${hashes.user}`)) return;
    }
    // The token's previous entry (storeDb without takesDb) is replaced, not counted twice.
    this.dropDb(raw);
    while (this.dbs.size >= this.maxEntries || this.dbBytes + bytes > this.maxBytes)
      this.dropDb(this.dbOrder.oldest(this.dbs) ?? this.dbs.keys().next().value!);
    const own = ownCopy(raw);
    this.dbs.set(own, entry);
    this.dbOrder.push(own, entry, this.dbs);
    this.dbBytes += bytes;
    if (hashes) {
      this.hashes.set(own, hashes);
      this.byHash.set(hashes.token, own);
    }
  }

  /**
   * Forgets a token's database session because it ends (signed out, revoked): here, and on every
   * other instance through the revocation bus, when there is one.
   */
  forgetDb(raw: string): void {
    this.dropDb(raw);
    if (this.broadcasts) this.revokeEverywhere('s', this.broadcast.keyOf('s', raw));
  }

  /** Forgets a token's database session in this instance only (the row is gone, or the entry is replaced). */
  dropDb(raw: string): void {
    if (this.dbs.delete(raw)) this.dbBytes -= dbEntryBytes(raw);
    const hashes = this.hashes.get(raw);
    if (hashes) {
      this.hashes.delete(raw);
      this.byHash.delete(hashes.token);
    }
  }

  /**
   * Forgets the cached database sessions of a user (after they were deleted): here, and on every
   * other instance through the revocation bus, when there is one.
   */
  forgetUser(userId: string): void {
    for (const [token, entry] of this.dbs) if (entry.user.id === userId) this.dropDb(token);
    if (this.broadcasts) this.revokeEverywhere('u', this.broadcast.keyOf('u', userId));
  }

  /** Marks a revoked token or user hash here (not cached again for a moment) and tells the other instances. */
  private revokeEverywhere(kind: 's' | 'u', hash: string): void {
    this.revoked.set(`${kind}:${hash}`, true, Date.now() + REVOKED_NOT_CACHED_MS);
    void this.broadcast.publish(kind, hash);
  }

  /** Another instance revoked a token or a user (by hash): dropped from this cache, and not cached again for a moment. */
  private revokedHere(kind: 's' | 'u', hash: string): void {
    this.revoked.set(`${kind}:${hash}`, true, Date.now() + REVOKED_NOT_CACHED_MS);
    if (kind === 's') {
      const raw = this.byHash.get(hash);
      if (raw !== undefined) this.dropDb(raw);
      return;
    }
    for (const [raw, hashes] of this.hashes) if (hashes.user === hash) this.dropDb(raw);
  }

  /** Empties the database session cache (the bus connection changed: messages may have been missed). */
  private dropAllDbs(): void {
    this.dbs.clear();
    this.hashes.clear();
    this.byHash.clear();
    this.dbBytes = 0;
  }
}
