import { SetMetadata } from '@nestjs/common';

/** Metadata key read by `AuthGuard`. */
export const IS_PUBLIC_KEY = 'nestjs-auth:public';

/**
 * Opts a handler or a controller out of a global `AuthGuard`. On a handler, `@Public(false)` undoes
 * its controller's `@Public()`.
 */
export const Public = (isPublic = true): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_KEY, isPublic);

/** Metadata key read by `AuthGuard`. */
export const SKIP_SESSION_CACHE_KEY = 'nestjs-auth:skip-session-cache';

/**
 * On a handler or controller: the guard asks the database on every request even when
 * `session.cacheTtl` is on, so a session revoked on another instance is refused at once here
 * (payments, account settings). The cache entry is refreshed with the answer. No effect on JWT
 * sessions, which have no database to ask.
 */
export const SkipSessionCache = (skip = true): MethodDecorator & ClassDecorator =>
  SetMetadata(SKIP_SESSION_CACHE_KEY, skip);

/** Metadata key read by `AuthGuard`: the recent sign-in window of a route, or `true` for the configured one. */
export const REQUIRE_RECENT_SIGN_IN_KEY = 'nestjs-auth:require-recent-sign-in';

/**
 * On a handler or controller: the guard lets the request in only when the user signed in within
 * `seconds` (default `account.recentSignInMaxAge`, 600); otherwise it refuses it like a missing
 * session, with the reason `ReauthenticationRequired` (an unknown sign-in time counts as too old).
 */
export const RequireRecentSignIn = (seconds?: number): MethodDecorator & ClassDecorator => {
  if (seconds !== undefined && (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0))
    throw new TypeError(`@RequireRecentSignIn(seconds): seconds must be a positive number, not ${String(seconds)}.`);
  return SetMetadata(REQUIRE_RECENT_SIGN_IN_KEY, seconds ?? true);
};

/** Metadata key read by `AuthGuard`: the assurance level a route needs (`@RequireAal`). */
export const REQUIRE_AAL_KEY = 'nestjs-auth:require-aal';

/**
 * On a handler or controller: the guard lets the request in only when the session's sign-in
 * proved two factors (AAL2: a password, magic link or provider sign-in completed with a second
 * factor, or a passkey that verified the user); otherwise it refuses it with the reason
 * `SecondFactorRequired`. A session that does not record what it proved counts as one factor.
 * `@RequireAal(1)` on a handler undoes its controller's `@RequireAal(2)`.
 */
export const RequireAal = (level: 1 | 2 = 2): MethodDecorator & ClassDecorator => {
  if (level !== 1 && level !== 2)
    throw new TypeError(`@RequireAal(level): level must be 1 or 2, not ${String(level)}.`);
  return SetMetadata(REQUIRE_AAL_KEY, level);
};

/** The metadata key of `@Auth()`. */
export const AUTH_POLICY_KEY = 'nestjs-auth:auth';

/**
 * The kinds of credential a route may accept: `session` (the session cookie, or a session token as
 * `Authorization: Bearer`), `accessToken` (an access token: a native app's, or one a signed-in user
 * got), `apiKey` (an API key, `apiKeys`).
 */
export type CredentialKind = 'session' | 'accessToken' | 'apiKey';

/** What `@Auth()` says of a route. */
export interface AuthRouteOptions {
  /** The credentials the route takes; any other is refused with `401 CredentialNotAccepted`. @default ['session', 'accessToken'] */
  accept?: CredentialKind[];
  /**
   * Scopes the credential must have, every one; a credential without one is refused with
   * `403 InsufficientScope`. A session has every scope (it is the user); an access token without a
   * `scope` claim too (a native app's); an access token with one, and an API key, only theirs.
   */
  scopes?: string[];
}

const KINDS: ReadonlySet<string> = new Set(['session', 'accessToken', 'apiKey']);

/**
 * What `AuthGuard` accepts on a route (or every route of a controller): which credentials, with
 * which scopes, in every context (HTTP, GraphQL, WebSockets, RPC). Use it with the guard
 * (`@UseGuards(AuthGuard)` or `globalGuard: true`). The handler's `@Auth()` replaces its controller's.
 *
 * @throws TypeError at declaration for an unknown kind, an empty `accept` or a malformed scope
 */
export const Auth = (options: AuthRouteOptions = {}): MethodDecorator & ClassDecorator => {
  const accept = options.accept ?? ['session', 'accessToken'];
  if (!Array.isArray(accept) || accept.length === 0 || accept.some((k) => !KINDS.has(k)))
    throw new TypeError(`@Auth({ accept }) takes a non-empty list of 'session', 'accessToken', 'apiKey'.`);
  const scopes = options.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !/^[A-Za-z0-9_.:/-]{1,64}$/.test(s)))
    throw new TypeError('@Auth({ scopes }) takes a list of scope names (letters, digits, _ . : / -).');
  return SetMetadata(
    AUTH_POLICY_KEY,
    Object.freeze({ accept: Object.freeze([...accept]), scopes: Object.freeze([...scopes]) }),
  );
};
