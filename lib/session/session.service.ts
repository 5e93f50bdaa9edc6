import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { AdapterSession, AdapterUser } from '../adapters/adapter.interface.js';
import { AdapterService } from '../core/adapter.service.js';
import type { CookiesOptions } from '../config/auth-options.interface.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AuthError, EventError, JWTSessionError, SessionTokenError, SignOutError } from '../errors/auth.errors.js';
import type { Account, JWT, Profile, Session, User } from '../types/common.types.js';
import type { AuthResponse, ResponseCookie } from '../types/http.types.js';
import { createJwtCodec } from './jwt.js';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from '../rate-limit/rate-limit.store.js';
import type { RequestContext } from '../core/request-context.js';
import { clearSessionCookie, readSessionCookie, writeSessionCookie } from './session-cookie.js';
import { checkTimeClaims, dateMs, isExpiredDate, numericDateMs } from '../util/instant.js';

/** The signed-in user, as `@CurrentUser()` injects it. `id` is always present. */
export type AuthUser = User & { id: string } & Record<string, unknown>;

/** What the guard and `/session` need to find a session. */
export interface SessionLookup {
  cookies: Record<string, string>;
  /** The `Authorization` header, for `Bearer <session token>`. */
  authorization?: string;
  /** Whether the request uses the secure cookie names. */
  secure: boolean;
}

/** The outcome of reading a request's session. */
export type SessionState =
  | { status: 'none' }
  | { status: 'invalid' | 'expired'; clearCookies: ResponseCookie[] }
  | {
      status: 'active';
      user: AuthUser;
      session: Session;
      strategy: 'jwt' | 'database';
      /** The raw session token (JWE or database token). */
      sessionToken: string;
      /** The decoded JWT (JWT strategy). */
      token?: JWT;
      /** The stored session (database strategy). */
      stored?: AdapterSession;
      /** True when the token came from `Authorization: Bearer`. */
      bearer: boolean;
    };

/** A decoded JWT, kept per exact cookie value until it expires. */
interface CachedJwt {
  token: JWT;
  expMs: number;
  /** The session's `expires` as sent (ISO string). */
  expires: string;
  /** The user as the default callbacks shape it; absent with custom callbacks (they run every time). */
  user?: AuthUser;
  /** With `session.jwtRevocation`: the id the token is revoked by. */
  revocationId?: string;
}
/** A looked-up database session, served from memory until `until` (`session.cacheTtl`). */
interface CachedDb {
  session: AdapterSession;
  user: AdapterUser;
  until: number;
  /** What the default `session` callback makes of it; absent with a custom callback. */
  shaped?: { user: AuthUser; session: Session };
}
/** Where a request's session token came from, or the verdict when there is none to look up. */
type TokenSource = { raw: string; bearer: boolean } | Exclude<SessionState, { status: 'active' }>;

const JWT_CACHE_MAX = 10_000;
/** Revoked JWT ids kept in memory (each until its token's expiry); the oldest goes when full. */
const JWT_REVOKED_MAX = 100_000;
const DB_CACHE_MAX = 10_000;
const NO_SESSION: SessionState = Object.freeze({ status: 'none' });

/**
 * Reads, creates, extends and ends sessions for both strategies. Reading runs on every guarded
 * request: JWTs are decoded once per distinct cookie value (bounded cache, expiry still checked),
 * database sessions cost one `getSessionAndUser` call (or none within `session.cacheTtl`). With the
 * default callbacks a cache hit is answered synchronously ({@link SessionService.readCached}).
 */
@Injectable()
export class SessionService {
  private readonly codecs: { plain: ReturnType<typeof createJwtCodec>; secure: ReturnType<typeof createJwtCodec> };
  private readonly jwtCache = new Map<string, CachedJwt>();
  private readonly dbCache = new Map<string, CachedDb>();
  /** True when the user supplied jwt/session callbacks: they run on every read. */
  private readonly customCallbacks: boolean;
  /** `session.jwtRevocation`: revoked JWT ids (`sid:` or `jti:`) and when their tokens expire. */
  private readonly revokedJwts = new Map<string, number>();
  /** The shared store revocations go to and every JWT read asks (a shared `rateLimit.store`), or null. */
  private readonly revocationStore: RateLimitStore | null;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    @Inject(RateLimitStore) store: RateLimitStore,
  ) {
    this.revocationStore = config.session.jwtRevocation && !(store instanceof MemoryRateLimitStore) ? store : null;
    const { secrets, cookies, jwt } = config;
    this.codecs = {
      plain: createJwtCodec(secrets, cookies.plain.sessionToken.name, jwt.maxAge),
      secure: createJwtCodec(secrets, cookies.secure.sessionToken.name, jwt.maxAge),
    };
    this.customCallbacks = config.callbacks.session !== DEFAULT_SESSION_CB || config.callbacks.jwt !== DEFAULT_JWT_CB;
  }

  /** The cookie names and options for a request. */
  cookiesFor(secure: boolean): CookiesOptions {
    return secure ? this.config.cookies.secure : this.config.cookies.plain;
  }

  /**
   * Reads the session of a request, without side effects beyond deleting an expired database row.
   * With `fresh`, a database session is looked up even within `session.cacheTtl` (and the cache
   * entry refreshed with the answer); JWT sessions have nothing to look up.
   */
  async read(lookup: SessionLookup, options: { fresh?: boolean } = {}): Promise<SessionState> {
    const source = this.tokenOf(lookup);
    if (!('raw' in source)) return source;
    if (this.config.session.strategy === 'jwt') return this.cachedState(source.raw, source.bearer) ?? this.readJwt(source.raw, lookup, source.bearer);
    return (options.fresh ? undefined : this.cachedState(source.raw, source.bearer)) ?? this.readDatabase(source.raw, lookup, source.bearer, options.fresh === true);
  }

  /**
   * The session of a request when it can be told without waiting: no token, a malformed one, or a
   * cache hit (a JWT decoded before and not expired, a database session within `cacheTtl`) with
   * the default callbacks. `undefined` means: call {@link read}. The guard uses it to answer
   * without a promise on the hot path.
   */
  readCached(lookup: SessionLookup): SessionState | undefined {
    const source = this.tokenOf(lookup);
    return 'raw' in source ? this.cachedState(source.raw, source.bearer) : source;
  }

  /** The session token of a request (cookie first, then `Authorization: Bearer`), or the verdict. */
  private tokenOf(lookup: SessionLookup): TokenSource {
    const raw = readSessionCookie(lookup.cookies, this.cookiesFor(lookup.secure).sessionToken.name);
    if (raw) return raw.length > 16_384 ? { status: 'invalid', clearCookies: this.clearFor(lookup, false) } : { raw, bearer: false };
    if (!lookup.authorization) return NO_SESSION as TokenSource;
    const token = parseBearer(lookup.authorization);
    if (token) return { raw: token, bearer: true };
    return /^bearer\s/i.test(lookup.authorization) ? { status: 'invalid', clearCookies: [] } : (NO_SESSION as TokenSource);
  }

  /** The deletion cookies for a bad session cookie (none for a bearer token: there is no cookie). */
  private clearFor(lookup: SessionLookup, bearer: boolean): ResponseCookie[] {
    if (bearer) return [];
    const cookie = this.cookiesFor(lookup.secure).sessionToken;
    return clearSessionCookie(lookup.cookies, cookie.name, cookie.options);
  }

  /** The active session served from memory, when the token is cached, current and needs no callback. */
  private cachedState(raw: string, bearer: boolean): SessionState | undefined {
    const now = Date.now();
    if (this.config.session.strategy === 'jwt') {
      const cached = this.jwtCache.get(raw);
      if (!cached?.user || cached.expMs <= now) return undefined;
      // With revocation, a shared store must be asked (async) and a revoked id answers in readJwt.
      if (this.config.session.jwtRevocation && (this.revocationStore || (this.revokedJwts.get(cached.revocationId ?? '') ?? 0) > now)) return undefined;
      return this.jwtState(raw, cached as CachedJwt & { user: AuthUser }, bearer);
    }
    const cached = this.dbCache.get(raw);
    if (!cached?.shaped || cached.until <= now || isExpiredDate(cached.session.expires, now)) return undefined;
    const user = { ...cached.shaped.user };
    return { status: 'active', strategy: 'database', user, session: { ...cached.shaped.session, user }, stored: cached.session, sessionToken: raw, bearer };
  }

  /** The active state of a decoded JWT with the default callbacks. */
  private jwtState(raw: string, cached: CachedJwt & { user: AuthUser }, bearer: boolean): SessionState {
    // A copy per request: a handler that changes its user must not change the next request's.
    const user = { ...cached.user };
    return { status: 'active', strategy: 'jwt', user, session: { user, expires: cached.expires }, token: cached.token, sessionToken: raw, bearer };
  }

  private async readJwt(raw: string, lookup: SessionLookup, bearer: boolean): Promise<SessionState> {
    const now = Date.now();
    let cached = this.jwtCache.get(raw);
    if (!cached || cached.expMs <= now) {
      if (cached) this.jwtCache.delete(raw);
      let token: JWT | null;
      try {
        token = this.config.jwt.decode
          ? await this.config.jwt.decode({ token: raw, secret: this.config.secrets, salt: this.cookiesFor(lookup.secure).sessionToken.name })
          : await (lookup.secure ? this.codecs.secure : this.codecs.plain).decode(raw);
      } catch {
        this.config.logger.debug(`${JWTSessionError.type}: the session cookie could not be decoded`);
        token = null;
      }
      // A custom `jwt.decode` may return anything: its time claims get the same checks as ours.
      const verdict = token && typeof token === 'object' ? checkTimeClaims(token, now) : { status: 'invalid' as const };
      if (verdict.status !== 'valid') return { status: verdict.status, clearCookies: this.clearFor(lookup, bearer) };
      const expMs = verdict.expMs;
      token = token!;
      cached = { token, expMs, expires: new Date(expMs).toISOString() };
      if (this.config.session.jwtRevocation) cached.revocationId = this.revocationId(token);
      if (!this.customCallbacks) {
        cached.user = { id: String(token.sub ?? ''), name: token.name ?? null, email: token.email ?? null, image: (token.picture as string | null) ?? null };
      }
      if (this.jwtCache.size >= JWT_CACHE_MAX) this.jwtCache.delete(this.jwtCache.keys().next().value!);
      this.jwtCache.set(raw, cached);
    }
    if (this.config.session.jwtRevocation) {
      let revoked: boolean;
      try {
        revoked = await this.isRevoked(cached.token, now);
      } catch (error) {
        // Fail closed, as a failed database lookup does: no session, the cookie kept for later.
        this.logError(new SessionTokenError('The JWT revocation list could not be read (rateLimit.store).', { cause: error }));
        return { status: 'invalid', clearCookies: [] };
      }
      if (revoked) return { status: 'invalid', clearCookies: this.clearFor(lookup, bearer) };
    }
    if (cached.user) return this.jwtState(raw, cached as CachedJwt & { user: AuthUser }, bearer);
    const { token, expires } = cached;
    const shaped = await this.config.callbacks.jwt({ token, user: undefined as unknown as User });
    if (!shaped) return { status: 'invalid', clearCookies: this.clearFor(lookup, bearer) };
    const session = await this.config.callbacks.session({
      session: { user: { name: shaped.name, email: shaped.email, image: shaped.picture as string | null | undefined }, expires } as never,
      token: shaped,
      user: undefined as unknown as AdapterUser,
    });
    const user = { ...(session.user ?? {}), id: String((session.user as User | undefined)?.id ?? shaped.sub ?? '') } as AuthUser;
    return { status: 'active', strategy: 'jwt', user, session, token: shaped, sessionToken: raw, bearer };
  }

  private async readDatabase(raw: string, lookup: SessionLookup, bearer: boolean, fresh = false): Promise<SessionState> {
    const now = Date.now();
    const ttl = this.config.session.cacheTtl;
    let found: { session: AdapterSession; user: AdapterUser } | null = null;
    const cached = ttl > 0 && !fresh ? this.dbCache.get(raw) : undefined;
    if (cached && cached.until > now) {
      found = cached;
    } else {
      try {
        const adapter = this.adapters.require('getSessionAndUser', 'deleteSession', 'updateSession');
        found = await adapter.getSessionAndUser(this.storedToken(raw));
        // What storage returns is checked, not trusted: no session or user object is no session,
        // and an expiry that is not a valid Date counts as passed (the row is then deleted).
        if (found && (!found.session || !found.user || found.user.id === undefined || found.user.id === null)) found = null;
        if (found && isExpiredDate(found.session.expires, now)) {
          await adapter.deleteSession(this.storedToken(raw));
          this.dbCache.delete(raw);
          return { status: 'expired', clearCookies: this.clearFor(lookup, bearer) };
        }
        if (found) found = await this.extendIfDue(found, now);
      } catch (error) {
        this.logError(error instanceof AuthError ? error : new SessionTokenError('The session lookup failed.', { cause: error }));
        return { status: 'invalid', clearCookies: [] };
      }
      if (!found) {
        this.dbCache.delete(raw);
        return { status: 'invalid', clearCookies: this.clearFor(lookup, bearer) };
      }
    }
    const expiresMs = dateMs(found.session.expires);
    if (expiresMs === undefined || expiresMs <= now) return { status: 'expired', clearCookies: this.clearFor(lookup, bearer) };
    const expires = new Date(expiresMs).toISOString();
    const shaped = await this.config.callbacks.session({
      session: { ...found.session, user: found.user, expires } as never,
      user: found.user,
      token: undefined as unknown as JWT,
    });
    const user = { ...(shaped.user ?? {}), id: String((shaped.user as User | undefined)?.id ?? found.user.id) } as AuthUser;
    if (ttl > 0 && found !== cached) {
      if (this.dbCache.size >= DB_CACHE_MAX) this.dbCache.delete(this.dbCache.keys().next().value!);
      const entry: CachedDb = { ...found, until: Math.min(now + ttl * 1000, expiresMs) };
      if (!this.customCallbacks) entry.shaped = { user: { ...user }, session: { ...shaped, user: { ...user } } };
      this.dbCache.set(raw, entry);
    }
    return { status: 'active', strategy: 'database', user, session: shaped, stored: found.session, sessionToken: raw, bearer };
  }

  /**
   * The id a JWT is revoked by: its `sid` (set at sign-in with `jwtRevocation`, kept when the
   * cookie is re-issued, so every copy of the session goes), else its `jti`.
   */
  private revocationId(token: JWT): string | undefined {
    if (typeof token.sid === 'string' && token.sid) return `sid:${token.sid}`;
    if (typeof token.jti === 'string' && token.jti) return `jti:${token.jti}`;
    return undefined;
  }

  private revokedLocally(token: JWT, now: number): boolean {
    const id = this.revocationId(token);
    return id !== undefined && (this.revokedJwts.get(id) ?? 0) > now;
  }

  private async isRevoked(token: JWT, now: number): Promise<boolean> {
    if (this.revokedLocally(token, now)) return true;
    const id = this.revocationId(token);
    if (!id || !this.revocationStore) return false;
    const record = await this.revocationStore.get(`jwt-revoked:${id}`);
    return record !== null && record.count > 0;
  }

  /**
   * Revokes a JWT session (every copy of it, by `sid`) for as long as any copy could still be valid:
   * the later of this token's expiry and now + `jwt.maxAge` (a copy re-issued a moment ago, held
   * elsewhere, lives that long).
   */
  private async revokeJwt(token: JWT): Promise<void> {
    const id = this.revocationId(token);
    const now = Date.now();
    const until = Math.max(numericDateMs(token.exp) ?? 0, now + this.config.jwt.maxAge * 1000);
    if (!id) return;
    if (this.revokedJwts.size >= JWT_REVOKED_MAX) {
      for (const [key, expiry] of this.revokedJwts) if (expiry <= now) this.revokedJwts.delete(key);
      if (this.revokedJwts.size >= JWT_REVOKED_MAX) this.revokedJwts.delete(this.revokedJwts.keys().next().value!);
    }
    this.revokedJwts.set(id, until);
    await this.revocationStore?.increment(`jwt-revoked:${id}`, until - now);
  }

  /** What the store keys a database session by: the token, or with `session.hashTokens` its SHA-256. */
  private storedToken(raw: string): string {
    return this.config.session.hashTokens ? createHash('sha256').update(raw).digest('hex') : raw;
  }

  /**
   * Extends a database session's expiry at most once per `updateAge` (SPEC section 3). `null` when
   * the adapter says the session is gone (deleted between the lookup and the update: a sign-out on
   * another instance); an adapter that returns nothing (`undefined`) is trusted to have updated it.
   */
  private async extendIfDue(found: { session: AdapterSession; user: AdapterUser }, now: number) {
    const { maxAge, updateAge } = this.config.session;
    // Called with a session whose expiry was checked valid: dateMs is defined here.
    const dueAt = dateMs(found.session.expires)! - maxAge * 1000 + updateAge * 1000;
    if (dueAt > now) return found;
    const expires = new Date(now + maxAge * 1000);
    const updated = await this.adapters.require('updateSession').updateSession({ sessionToken: found.session.sessionToken, expires });
    if (updated === null) return null;
    return { session: updated ?? { ...found.session, expires }, user: found.user };
  }

  /**
   * Starts a new session for `user` after a successful sign-in (a new token every time) and returns
   * the cookies to set. Returns `null` cookies when the `jwt` callback ended the session.
   */
  async create(
    ctx: RequestContext,
    user: User & { id?: string },
    details: { account?: Account | null; profile?: Profile; isNewUser?: boolean },
  ): Promise<ResponseCookie[]> {
    const cookie = ctx.cookies.sessionToken;
    const { maxAge } = this.config.session;
    const expires = new Date(Date.now() + maxAge * 1000);
    if (this.config.session.strategy === 'jwt') {
      const defaults: JWT = { name: user.name ?? null, email: user.email ?? null, picture: user.image ?? null, sub: user.id };
      // A session id that survives re-issued cookies, so revoking it revokes every copy.
      if (this.config.session.jwtRevocation) defaults.sid = randomUUID();
      const token = await this.config.callbacks.jwt({
        token: defaults,
        user,
        account: details.account ?? null,
        profile: details.profile,
        isNewUser: details.isNewUser,
        trigger: details.isNewUser ? 'signUp' : 'signIn',
      });
      if (!token) return clearSessionCookie(ctx.request.cookies, cookie.name, cookie.options);
      const value = await this.encodeJwt(ctx.secure, token);
      return writeSessionCookie(ctx.request.cookies, cookie.name, value, { ...cookie.options, expires });
    }
    if (!user.id) throw new SessionTokenError('A database session needs a stored user; the sign-in returned no user id.');
    const sessionToken = this.config.session.generateSessionToken();
    const created = await this.adapters.require('createSession').createSession({ sessionToken: this.storedToken(sessionToken), userId: user.id, expires });
    // The cookie carries the token itself (the store may hold only its hash).
    const value = this.config.session.hashTokens ? sessionToken : created.sessionToken;
    return writeSessionCookie(ctx.request.cookies, cookie.name, value, { ...cookie.options, expires: created.expires });
  }

  private encodeJwt(secure: boolean, token: JWT): Promise<string> {
    const salt = this.cookiesFor(secure).sessionToken.name;
    if (this.config.jwt.encode) {
      return Promise.resolve(this.config.jwt.encode({ token, salt, secret: this.config.secrets, maxAge: this.config.jwt.maxAge }));
    }
    return (secure ? this.codecs.secure : this.codecs.plain).encode(token);
  }

  /** `GET /session` and `POST /session` (update): the session as JSON, with the cookie rolled. */
  async sessionRoute(ctx: RequestContext, update?: { data: unknown }): Promise<AuthResponse> {
    const cookie = ctx.cookies.sessionToken;
    const state = await this.read({ cookies: ctx.request.cookies, authorization: ctx.request.headers.authorization, secure: ctx.secure });
    if (state.status !== 'active') {
      return { json: null, cookies: state.status === 'none' ? [] : state.clearCookies };
    }
    const expires = new Date(Date.now() + this.config.session.maxAge * 1000);
    if (state.strategy === 'jwt') {
      const token = await this.config.callbacks.jwt({
        token: state.token!,
        user: undefined as unknown as User,
        ...(update ? { trigger: 'update' as const, session: update.data } : {}),
      });
      if (!token) return { json: null, cookies: clearSessionCookie(ctx.request.cookies, cookie.name, cookie.options) };
      const session = await this.config.callbacks.session({
        session: { user: { name: token.name, email: token.email, image: token.picture as string | null | undefined }, expires: expires.toISOString() } as never,
        token,
        user: undefined as unknown as AdapterUser,
      });
      const cookies = state.bearer ? [] : writeSessionCookie(ctx.request.cookies, cookie.name, await this.encodeJwt(ctx.secure, token), { ...cookie.options, expires });
      this.emit('session', { session, token });
      return { json: session, cookies };
    }
    let session = state.session;
    if (update) {
      const stored = state.stored!;
      session = await this.config.callbacks.session({
        session: { ...stored, user: state.user, expires: stored.expires.toISOString() } as never,
        user: state.user as unknown as AdapterUser,
        token: undefined as unknown as JWT,
        newSession: update.data,
        trigger: 'update',
      });
    }
    const cookies = state.bearer ? [] : writeSessionCookie(ctx.request.cookies, cookie.name, state.sessionToken, { ...cookie.options, expires });
    this.emit('session', { session });
    return { json: session, cookies };
  }

  /** Ends the request's session: deletes the database row (if any) and returns the clearing cookies. */
  async signOut(ctx: RequestContext): Promise<ResponseCookie[]> {
    const cookie = ctx.cookies.sessionToken;
    const raw = readSessionCookie(ctx.request.cookies, cookie.name);
    try {
      if (raw && this.config.session.strategy === 'database') {
        this.dbCache.delete(raw);
        const deleted = await this.adapters.require('deleteSession').deleteSession(this.storedToken(raw));
        this.emit('signOut', { session: deleted ?? null });
      } else if (raw) {
        this.jwtCache.delete(raw);
        // Decoded for the signOut event's `token` (and revocation); the cookies to clear are built below.
        const state = await this.readJwt(raw, { cookies: {}, secure: ctx.secure }, true);
        const decoded = this.jwtCache.get(raw)?.token;
        this.jwtCache.delete(raw);
        if (state.status === 'active' && decoded && this.config.session.jwtRevocation) await this.revokeJwt(decoded);
        this.emit('signOut', { token: state.status === 'active' ? state.token ?? null : null });
      }
    } catch (error) {
      this.logError(new SignOutError('Signing out on the server failed; the cookie was cleared anyway.', { cause: error }));
    }
    return clearSessionCookie(ctx.request.cookies, cookie.name, cookie.options);
  }

  /**
   * Ends a session by token (used by AuthService and a new sign-in): deletes a database session;
   * with `session.jwtRevocation`, revokes a JWT read by `read` just before.
   */
  async revoke(sessionToken: string): Promise<void> {
    this.dbCache.delete(sessionToken);
    // A JWT read just before (the caller's `read`) is in the cache, decoded: its id is what goes.
    const decoded = this.jwtCache.get(sessionToken)?.token;
    this.jwtCache.delete(sessionToken);
    if (this.config.session.strategy === 'database') await this.adapters.require('deleteSession').deleteSession(this.storedToken(sessionToken));
    else if (decoded && this.config.session.jwtRevocation) await this.revokeJwt(decoded);
  }

  /** Forgets this instance's cached database sessions of a user (after they were deleted). */
  forgetUser(userId: string): void {
    for (const [token, entry] of this.dbCache) if (entry.user.id === userId) this.dbCache.delete(token);
  }

  /** The signed-in user of a request context, or null. */
  async getCurrentUser(ctx: RequestContext): Promise<AuthUser | null> {
    const state = await this.read({ cookies: ctx.request.cookies, authorization: ctx.request.headers.authorization, secure: ctx.secure });
    return state.status === 'active' && state.user.id ? state.user : null;
  }

  /** Fires an event; a handler that throws is logged and never breaks the request. */
  emit<K extends keyof ResolvedAuthConfig['events']>(name: K, message: Parameters<NonNullable<ResolvedAuthConfig['events'][K]>>[0]): void {
    const handler = this.config.events[name] as ((m: unknown) => unknown) | undefined;
    if (!handler) return;
    Promise.resolve()
      .then(() => handler(message))
      .catch((error) => this.logError(new EventError(`The ${String(name)} event handler threw: ${(error as Error)?.message ?? error}`)));
  }

  private logError(error: Error): void {
    this.config.logger.error(error);
  }
}

import { defaultCallbacks } from '../config/defaults.js';
const DEFAULT_SESSION_CB = defaultCallbacks.session;
const DEFAULT_JWT_CB = defaultCallbacks.jwt;

/** The token of `Authorization: Bearer <token>` (percent-decoded), or undefined when malformed. */
function parseBearer(header: string): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  if (!match || match[1].length > 16_384) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}
