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
