import { Injectable } from '@nestjs/common';
import type { CookiesOptions } from '../config/auth-options.interface.js';
import type { RequestContext } from '../core/request-context.js';
import type { JWT, User } from '../types/common.types.js';
import type { AuthResponse, ResponseCookie } from '../types/http.types.js';
import { SessionCache } from './session-cache.js';
import { SessionCodec } from './session-codec.js';
import type { SessionInfo } from './session-devices.js';
import { SessionIssuer, type SignInDetails } from './session-issuer.js';
import { SessionList } from './session-list.js';
import { SessionReader } from './session-reader.js';
import { DatabaseSessionStore } from './session-store.js';
import type { AuthUser, SessionLookup, SessionState } from './session.types.js';

export type { AuthUser, SessionLookup, SessionState } from './session.types.js';
export type { SessionInfo } from './session-devices.js';

type ActiveState = Extract<SessionState, { status: 'active' }>;

/**
 * Reads, creates, extends and ends sessions for both strategies; one door to the parts that do it
 * (codec, cache, store, reader, issuer). Reading runs on every guarded request: JWTs are decoded
 * once per distinct cookie value (bounded cache, expiry still checked), database sessions cost one
 * `getSessionAndUser` call (or none within `session.cacheTtl`). With the default callbacks a cache
 * hit is answered synchronously ({@link SessionService.readCached}).
 */
@Injectable()
export class SessionService {
  constructor(
    private readonly codec: SessionCodec,
    private readonly reader: SessionReader,
    private readonly issuer: SessionIssuer,
    private readonly cache: SessionCache,
    private readonly store: DatabaseSessionStore,
    private readonly list: SessionList,
  ) {}

  /** The cookie names and options for a request. */
  cookiesFor(secure: boolean): CookiesOptions {
    return this.codec.cookiesFor(secure);
  }

  /**
   * Reads the session of a request, without side effects beyond deleting an expired database row.
   * With `fresh`, a database session is looked up even within `session.cacheTtl` (and the cache
   * entry refreshed with the answer); JWT sessions have nothing to look up.
   */
  read(lookup: SessionLookup, options: { fresh?: boolean } = {}): Promise<SessionState> {
    return this.reader.read(lookup, options);
  }

  /**
   * The session of a request when it can be told without waiting: no token, a malformed one, or a
   * cache hit (a JWT decoded before and not expired, a database session within `cacheTtl`) with
   * the default callbacks. `undefined` means: call {@link read}. The guard uses it to answer
   * without a promise on the hot path.
   */
  readCached(lookup: SessionLookup): SessionState | undefined {
    return this.reader.readCached(lookup);
  }

  /**
   * Starts a new session for `user` after a successful sign-in (a new token every time) and returns
   * the cookies to set: clearing ones when the `jwt` callback ended the session.
   */
  create(ctx: RequestContext, user: User & { id?: string }, details: SignInDetails): Promise<ResponseCookie[]> {
    return this.issuer.create(ctx, user, details);
  }

  /** `GET /session` and `POST /session` (update): the session as JSON, with the cookie rolled. */
  sessionRoute(ctx: RequestContext, update?: { data: unknown }): Promise<AuthResponse> {
    return this.issuer.sessionRoute(ctx, update);
  }

  /** The cookies of a JWT session re-issued with new claims (`session.tokens` after a refresh). */
  reissueJwt(lookup: { cookies: Record<string, string>; secure: boolean }, token: JWT): Promise<ResponseCookie[]> {
    return this.issuer.reissueJwt(lookup, token);
  }

  /** Ends the request's session: deletes the database row (if any) and returns the clearing cookies. */
  signOut(ctx: RequestContext): Promise<ResponseCookie[]> {
    return this.issuer.signOut(ctx);
  }

  /**
   * Ends a session by token (used by AuthService and a new sign-in): deletes a database session;
   * with `session.jwtRevocation`, revokes a JWT read by `read` just before.
   */
  revoke(sessionToken: string): Promise<void> {
    return this.issuer.revoke(sessionToken);
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
   * Ends stored sessions of a user by their stored keys, as listed by the adapter (database rows,
   * and JWT index rows: those are revoked by `sid`, every copy of the cookie); the cache forgets them.
   */
  endStoredSessions(userId: string, keys: string[]): Promise<void> {
    return this.list.endKeys(userId, keys);
  }

  /**
   * The user's sessions as devices (see `SessionInfo`); `current`, an active session of the same
   * user, is marked. Throws `AuthConfigurationError` for JWT sessions without `jwtRevocation`.
   */
  listSessions(userId: string, current?: ActiveState): Promise<SessionInfo[]> {
    return this.list.list(userId, current);
  }

  /** Ends one of the user's sessions by its public id; `InvalidRequest` when the user has none such. */
  endSession(userId: string, id: unknown): Promise<void> {
    return this.list.end(userId, id);
  }

  /** Ends every session of the active session's user but that one; returns how many ended. */
  endOtherSessions(current: ActiveState): Promise<number> {
    return this.list.endOthers(current);
  }

  /** Forgets this instance's cached database sessions of a user (after they were deleted). */
  forgetUser(userId: string): void {
    this.cache.forgetUser(userId);
  }

  /** The signed-in user of a request context, or null. */
  async getCurrentUser(ctx: RequestContext): Promise<AuthUser | null> {
    const state = await this.reader.read({
      cookies: ctx.request.cookies,
      authorization: ctx.request.headers.authorization,
      secure: ctx.secure,
    });
    return state.status === 'active' && state.user.id ? state.user : null;
  }
}
