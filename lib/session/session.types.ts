import type { AdapterSession } from '../adapters/adapter.interface.js';
import type { JWT, Session, User } from '../types/common.types.js';
import type { ResponseCookie } from '../types/http.types.js';
import type { CredentialKind } from '../core/public.decorator.js';

/** Where an access token's or API key's session says what it came from (a symbol: JSON leaves it out). */
export const CREDENTIAL = Symbol.for('nestjs-auth.credential');

/** What a request's credential is, as `@AuthSession('credential')` injects it. */
export interface CredentialInfo {
  kind: CredentialKind;
  /** The scopes it is limited to; `null`: not limited (a session, a native app's token). */
  scopes: readonly string[] | null;
  /** An access token's `client_id` (a native app's id, or `session`). */
  clientId?: string;
  /** An API key's id. */
  keyId?: string;
}

/** The credential of a session (cookie or session token): the user, every scope. */
export const SESSION_CREDENTIAL: CredentialInfo = Object.freeze({ kind: 'session', scopes: null });

/** The signed-in user, as `@CurrentUser()` injects it. `id` is always present. */
export type AuthUser = User & { id: string } & Record<string, unknown>;

/** What the guard and `/session` need to find a session. */
export interface SessionLookup {
  cookies: Record<string, string>;
  /**
   * The Cookie header the cookies come from, when there is one: the session cookie is read from it
   * without parsing the others (`sessionCookieInHeader`); `cookies` may then be parsed lazily.
   */
  cookieHeader?: string;
  /** The `Authorization` header, for `Bearer <session token>`. */
  authorization?: string;
  /** Whether the request uses the secure cookie names. */
  secure: boolean;
}

/** The outcome of reading a request's session. */
export type SessionState =
  | { status: 'none' }
  | { status: 'invalid' | 'expired'; clearCookies: ResponseCookie[] }
  /** An API key over its rate limit (`apiKeys.rateLimit`): refused with `429` and `Retry-After`. */
  | { status: 'limited'; retryAfter: number; clearCookies: ResponseCookie[] }
  | {
      status: 'active';
      user: AuthUser;
      session: Session;
      /**
       * `access-token`: an access token (`Authorization: Bearer`, see `AccessTokens`); `api-key`: an
       * API key (see `ApiKeyReader`).
       */
      strategy: 'jwt' | 'database' | 'access-token' | 'api-key';
      /** The raw session token (JWE, database token or access token). */
      sessionToken: string;
      /** The decoded JWT (JWT strategy), or an access token's claims. */
      token?: JWT;
      /** The stored session (database strategy). */
      stored?: AdapterSession;
      /** True when the token came from `Authorization: Bearer`. */
      bearer: boolean;
      /**
       * When the user last proved who they are (signed in): a JWT's `auth_time` claim, a database
       * session's `createdAt`. `null`: unknown (a recent sign-in check refuses it). `undefined`: not
       * read yet (database sessions: `SessionReader.signedInAt(state)` looks it up).
       */
      signedInAt?: Date | null;
    };

/** Where a request's session token came from, or the verdict when there is none to look up. */
export type TokenSource = { raw: string; bearer: boolean } | Exclude<SessionState, { status: 'active' }>;

/**
 * A request's own copy of a cached bearer state (an access token's, an API key's): a handler that
 * edits `req.user`, the session, its credential's scopes or the claims changes nothing for the
 * next request served from the cache.
 */
export function ownBearerState(state: Extract<SessionState, { status: 'active' }>): SessionState {
  // Built from literals of the shapes both producers make (no spread of the state or of a session
  // with a symbol key, which V8 copies on its slow path): this runs on every cached bearer request.
  // One copy of the user for the state and its session, as a cookie session's hit gives.
  const held = state.session as unknown as { user: AuthUser; expires: string } & Record<symbol, unknown>;
  const user = { ...state.user };
  const session: Record<string | symbol, unknown> = { user, expires: held.expires };
  const credential = held[CREDENTIAL] as CredentialInfo | undefined;
  if (credential) session[CREDENTIAL] = { ...credential, scopes: credential.scopes && [...credential.scopes] };
  return {
    status: 'active',
    strategy: state.strategy,
    user,
    session: session as never,
    token: state.token && { ...state.token },
    sessionToken: state.sessionToken,
    bearer: state.bearer,
    signedInAt: state.signedInAt,
  };
}
