import { Inject, Injectable } from '@nestjs/common';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { RequestContext } from '../core/request-context.js';
import { SessionTokenError } from '../errors/auth.errors.js';
import type { JWT, Session, User } from '../types/common.types.js';
import { dateMs, isoStringOfMs } from '../util/instant.js';
import { AccessTokens } from './access-tokens.js';
import { ApiKeyReader } from './api-keys.js';
import { JwtRevocation } from './jwt-revocation.js';
import { SessionCache, type CachedDb, type CachedJwt } from './session-cache.js';
import { SessionCodec } from './session-codec.js';
import { SessionDevices } from './session-devices.js';
import { DatabaseSessionStore, type StoredSession } from './session-store.js';
import { signedInAtOfToken } from './recent-sign-in.js';
import { assuranceOfToken, type Assurance } from './assurance.js';
import type { AuthUser, SessionLookup, SessionState } from './session.types.js';

type ActiveState = Extract<SessionState, { status: 'active' }>;

/**
 * Reads a request's session for both strategies: finds the token ({@link SessionCodec}), answers
 * from the {@link SessionCache} when it can, else decodes the JWT (and asks {@link JwtRevocation})
 * or looks the session up in the {@link DatabaseSessionStore}, runs the `jwt`/`session` callbacks
 * and caches the answer.
 */
@Injectable()
export class SessionReader {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly codec: SessionCodec,
    private readonly cache: SessionCache,
    private readonly revocation: JwtRevocation,
    private readonly store: DatabaseSessionStore,
    private readonly devices: SessionDevices,
    private readonly accessTokens: AccessTokens,
    private readonly apiKeys: ApiKeyReader,
  ) {
    this.syncJwt =
      config.session.strategy === 'jwt' && cache.shapes && !config.jwt.decode && !config.session.jwtRevocation;
    this.syncDb = config.session.strategy === 'database' && cache.shapes;
  }

  /**
   * Reads the session of a request, without side effects beyond deleting an expired database row.
   * With `fresh`, a database session is looked up even within `session.cacheTtl` (and the cache
   * entry refreshed with the answer); JWT sessions have nothing to look up.
   */
  async read(lookup: SessionLookup, options: { fresh?: boolean } = {}): Promise<SessionState> {
    const source = this.codec.tokenOf(lookup);
    if (!('raw' in source)) return source;
    if (source.bearer) {
      if (this.accessTokens.accepts(source.raw)) return this.accessTokens.read(source.raw);
      if (this.apiKeys.accepts(source.raw)) return this.apiKeys.read(source.raw);
    }
    if (this.config.session.strategy === 'jwt')
      return this.cache.hit(source.raw, source.bearer) ?? this.readJwt(source.raw, lookup, source.bearer);
    return (
      (options.fresh ? undefined : this.cache.hit(source.raw, source.bearer)) ??
      this.readDatabase(source.raw, lookup, source.bearer, options.fresh === true)
    );
  }

  /**
   * The session of a request when it can be told without waiting: no token, a malformed one, or a
   * cache hit with the default callbacks; with them too, a JWT (default decoder) or a database
   * session whose adapter looks up synchronously. `undefined` means: call {@link read}.
   */
  readCached(lookup: SessionLookup): SessionState | undefined {
    const source = this.codec.tokenOf(lookup);
    if (!('raw' in source)) return source;
    if (source.bearer) {
      if (this.accessTokens.accepts(source.raw)) return this.accessTokens.readSync(source.raw);
      if (this.apiKeys.accepts(source.raw)) return this.apiKeys.readSync(source.raw);
    }
    const hit = this.cache.hit(source.raw, source.bearer);
    if (hit) return hit;
    if (this.syncJwt) return this.readJwtSync(source.raw, lookup, source.bearer);
    return this.syncDb ? this.readDatabaseSync(source.raw, lookup, source.bearer) : undefined;
  }

  /**
   * When the user of an active session signed in (see `SessionState.signedInAt`): a JWT's claim, or
   * a database session's `createdAt`, looked up once per session (one `listSessionsByUserId`) and
   * remembered with the cached session. `null` when unknown; throws when the adapter fails.
   */
  signedInAt(state: ActiveState): Date | null | Promise<Date | null> {
    if (state.signedInAt !== undefined) return state.signedInAt;
    if (state.strategy === 'jwt') return null;
    return this.store.signedInAt(state.sessionToken, state.stored?.userId ?? state.user.id).then((at) => {
      const entry = this.cache.db(state.sessionToken);
      if (entry) entry.signedInAt = at;
      state.signedInAt = at;
      return at;
    });
  }

  /**
   * What the sign-in of an active session proved (see `assurance.ts`): a JWT's `amr` claim, or a
   * database session's `amr` column, looked up once per session and remembered with the cached
   * session. One factor when unknown; throws when the adapter fails.
   */
  assurance(state: ActiveState): Assurance | Promise<Assurance> {
    if (state.strategy !== 'database') return assuranceOfToken(state.token);
    const entry = this.cache.db(state.sessionToken);
    if (entry?.assurance) return entry.assurance;
    return this.store.assurance(state.sessionToken, state.stored?.userId ?? state.user.id).then((found) => {
      const current = this.cache.db(state.sessionToken);
      if (current) current.assurance = found;
      return found;
    });
  }

  /** The signed-in user of a request context, or null. */
  async currentUser(ctx: RequestContext): Promise<AuthUser | null> {
    const state = await this.read({
      cookies: ctx.request.cookies,
      authorization: ctx.request.headers.authorization,
      secure: ctx.secure,
    });
    return state.status === 'active' && state.user.id ? state.user : null;
  }

  /**
   * True for database sessions with the default callbacks: the `session` callback answers
   * synchronously, and what it makes of a stored session is {@link defaultDbShape}.
   */
  private readonly syncDb: boolean;

  /** {@link readDatabase} without a promise, when the store can look up synchronously; else `undefined`. */
  private readDatabaseSync(raw: string, lookup: SessionLookup, bearer: boolean): SessionState | undefined {
    const now = Date.now();
    const result = this.store.findSync(raw, now);
    if (!result) return undefined;
    if (result.status !== 'found') return this.refusedDb(result.status, raw, lookup, bearer);
    const expiresMs = dateMs(result.session.expires);
    if (expiresMs === undefined || expiresMs <= now)
      return { status: 'expired', clearCookies: this.codec.clearFor(lookup, bearer) };
    const found: StoredSession = { session: result.session, user: result.user };
    return this.activeDb(raw, bearer, found, defaultDbShape(found.user, expiresMs), now, expiresMs, undefined);
  }

  /**
   * True when a JWT missing from the cache can be read without waiting: the default decoder (it
   * decrypts synchronously), the default callbacks and no revocation list to ask.
   */
  private readonly syncJwt: boolean;

  /** {@link readJwt} for the case {@link syncJwt} allows: decode, cache, answer, no promise. */
  private readJwtSync(raw: string, lookup: SessionLookup, bearer: boolean): SessionState {
    const now = Date.now();
    const decoded = this.codec.decodeSync(raw, lookup.secure, now)!;
    if (decoded.status !== 'valid') {
      // An entry this token may have left (it expired): gone with it. A valid token's replaces it.
      this.cache.forgetJwt(raw);
      return { status: decoded.status, clearCookies: this.codec.clearFor(lookup, bearer) };
    }
    // Asked before an entry is built: see passingJwtState.
    if (!this.cache.takesJwt(raw)) return passingJwtState(raw, decoded.token, decoded.expMs, bearer);
    const cached = this.entryOf(decoded.token, decoded.expMs);
    this.cache.storeJwt(raw, cached);
    return this.cache.jwtState(raw, cached as CachedJwt & { user: AuthUser }, bearer);
  }

  /** The cache entry of a decoded JWT: with its shaped user under the default callbacks. */
  private entryOf(token: JWT, expMs: number): CachedJwt {
    const cached: CachedJwt = {
      token,
      expMs,
      expires: isoStringOfMs(expMs),
      signedInAt: signedInAtOfToken(token),
    };
    if (this.config.session.jwtRevocation) cached.revocationId = this.revocation.idOf(token);
    if (this.cache.shapes) {
      cached.user = {
        id: String(token.sub ?? ''),
        name: token.name ?? null,
        email: token.email ?? null,
        image: (token.picture as string | null) ?? null,
      };
    }
    return cached;
  }

  /** Reads a JWT session: decoded once per distinct token (cached until it expires), then checked. */
  async readJwt(raw: string, lookup: SessionLookup, bearer: boolean): Promise<SessionState> {
    const now = Date.now();
    let cached = this.cache.jwt(raw);
    if (!cached || cached.expMs <= now) {
      if (cached) this.cache.forgetJwt(raw);
      const decoded = await this.codec.decode(raw, lookup.secure, now);
      if (decoded.status !== 'valid')
        return { status: decoded.status, clearCookies: this.codec.clearFor(lookup, bearer) };
      cached = this.entryOf(decoded.token, decoded.expMs);
      this.cache.keepJwt(raw, cached);
    }
    if (this.config.session.jwtRevocation) {
      let revoked: boolean;
      try {
        revoked = await this.revocation.isRevoked(cached.token, now);
      } catch (error) {
        // Fail closed, as a failed database lookup does: no session, the cookie kept for later.
        this.config.logger.error(
          new SessionTokenError('The JWT revocation list could not be read (rateLimitStore).', { cause: error }),
        );
        return { status: 'invalid', clearCookies: [] };
      }
      if (revoked) return { status: 'invalid', clearCookies: this.codec.clearFor(lookup, bearer) };
      // The session index's "last seen", at most once per updateAge (never on a cache hit).
      this.devices.touchJwt(cached.token, now);
    }
    if (cached.user) return this.cache.jwtState(raw, cached as CachedJwt & { user: AuthUser }, bearer);
    const { token, expires } = cached;
    const shaped = await this.config.callbacks.jwt({ token, user: undefined as unknown as User });
    if (!shaped) return { status: 'invalid', clearCookies: this.codec.clearFor(lookup, bearer) };
    const session = await this.config.callbacks.session({
      session: {
        user: { name: shaped.name, email: shaped.email, image: shaped.picture as string | null | undefined },
        expires,
      } as never,
      token: shaped,
      user: undefined as unknown as AdapterUser,
    });
    const user = {
      ...(session.user ?? {}),
      id: String((session.user as User | undefined)?.id ?? shaped.sub ?? ''),
    } as AuthUser;
    const { signedInAt } = cached;
    return { status: 'active', strategy: 'jwt', user, session, token: shaped, sessionToken: raw, bearer, signedInAt };
  }

  /** Reads a database session: one `getSessionAndUser` (none within `session.cacheTtl`), then the `session` callback. */
  private async readDatabase(
    raw: string,
    lookup: SessionLookup,
    bearer: boolean,
    fresh: boolean,
  ): Promise<SessionState> {
    const now = Date.now();
    const ttl = this.config.session.cacheTtl;
    const cached = ttl > 0 && !fresh ? this.cache.db(raw) : undefined;
    let found: StoredSession;
    if (cached && cached.until > now) {
      found = cached;
    } else {
      const result = await this.store.find(raw, now);
      if (result.status !== 'found') return this.refusedDb(result.status, raw, lookup, bearer);
      found = { session: result.session, user: result.user };
    }
    const expiresMs = dateMs(found.session.expires);
    if (expiresMs === undefined || expiresMs <= now)
      return { status: 'expired', clearCookies: this.codec.clearFor(lookup, bearer) };
    const shaped = this.syncDb
      ? defaultDbShape(found.user, expiresMs)
      : await this.config.callbacks.session(this.callbackArgs(found, expiresMs));
    return this.activeDb(raw, bearer, found, shaped, now, expiresMs, cached);
  }

  /** The `session` callback's arguments for a stored session. */
  private callbackArgs(found: StoredSession, expiresMs: number) {
    const expires = isoStringOfMs(expiresMs);
    return {
      session: { ...found.session, user: found.user, expires } as never,
      user: found.user,
      token: undefined as unknown as JWT,
    };
  }

  /** The state of a store answer other than found: a failed lookup keeps the cookie (the fault may be ours). */
  private refusedDb(
    status: 'expired' | 'missing' | 'failed',
    raw: string,
    lookup: SessionLookup,
    bearer: boolean,
  ): SessionState {
    if (status === 'failed') return { status: 'invalid', clearCookies: [] };
    // The row is gone: every instance will find out from the store; nothing to broadcast.
    this.cache.dropDb(raw);
    return { status: status === 'expired' ? 'expired' : 'invalid', clearCookies: this.codec.clearFor(lookup, bearer) };
  }

  /** The active state of a current database session, shaped by the `session` callback; cached with `cacheTtl`. */
  private activeDb(
    raw: string,
    bearer: boolean,
    found: StoredSession,
    shaped: Session,
    now: number,
    expiresMs: number,
    cached: CachedDb | undefined,
  ): SessionState {
    const ttl = this.config.session.cacheTtl;
    const user = {
      ...(shaped.user ?? {}),
      id: String((shaped.user as User | undefined)?.id ?? found.user.id),
    } as AuthUser;
    // As for JWTs (passingJwtState): an entry only for a session the cache takes.
    if (ttl > 0 && found !== cached && this.cache.takesDb(raw)) {
      const entry: CachedDb = { ...found, until: Math.min(now + ttl * 1000, expiresMs) };
      if (cached?.signedInAt !== undefined) entry.signedInAt = cached.signedInAt;
      if (this.cache.shapes) entry.shaped = { user: { ...user }, session: { ...shaped, user: { ...user } } };
      this.cache.storeDb(raw, entry);
    }
    return {
      status: 'active',
      strategy: 'database',
      user,
      session: shaped,
      stored: found.session,
      sessionToken: raw,
      bearer,
      signedInAt: cached?.signedInAt,
    };
  }
}

/**
 * The state {@link SessionCache.jwtState} gives, for a decoded JWT the cache did not take, built
 * without a cache entry. Not a shortcut: V8 allocates an object literal in the old generation once
 * enough of those its code line made have outlived a young-generation collection, which the entries
 * of a cache filling up do. A token the full cache refuses (most of them, with many more users than
 * it holds) would then get its entry there, as garbage that keeps the young strings it points at
 * alive until a full collection. In a loop over 50,000 tokens, a miss took 14 µs that way and
 * 8.3 µs this way (the decryption alone: 7-8 µs), each young-generation collection 7 ms, not 0.7.
 * So these literals are this function's own, never kept.
 */
function passingJwtState(raw: string, token: JWT, expMs: number, bearer: boolean): SessionState {
  const user: AuthUser = {
    id: String(token.sub ?? ''),
    name: token.name ?? null,
    email: token.email ?? null,
    image: (token.picture as string | null) ?? null,
  };
  return {
    status: 'active',
    strategy: 'jwt',
    user,
    session: { user, expires: isoStringOfMs(expMs) },
    token,
    sessionToken: raw,
    bearer,
    signedInAt: signedInAtOfToken(token),
  };
}

/**
 * What the default `session` callback makes of a stored session (its user's id, name, email and
 * image; the expiry as an ISO string), built without the callback's argument objects: a database
 * lookup under the default callbacks, synchronous or not, runs this instead of the callback.
 */
function defaultDbShape(u: AdapterUser, expiresMs: number): Session {
  return {
    user: { id: u.id, name: u.name ?? null, email: u.email ?? null, image: u.image ?? null } as Session['user'],
    expires: isoStringOfMs(expiresMs),
  };
}
