import { UnauthorizedException } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { GuardRejection } from '../errors/auth.errors.js';
import { HeaderSessionLookup, sessionLookupOf } from '../http/auth-request.factory.js';
import {
  IS_PUBLIC_KEY,
  REQUIRE_AAL_KEY,
  REQUIRE_RECENT_SIGN_IN_KEY,
  SKIP_SESSION_CACHE_KEY,
} from '../core/public.decorator.js';
import type { SessionLookup, SessionState } from '../session/session.types.js';
import { contextRefusal, type ContextRequest } from './guard-context.js';

/**
 * `AuthGuard`'s pure parts: the policy a route's decorators set, the session lookup of a non-HTTP
 * call, and the refusal for a reason. No state: the guard keeps the policies it read, per route.
 */

/** What a route's decorators ask of the guard, read once per route. */
export interface RoutePolicy {
  /** `@Public()` */
  public: boolean;
  /** `@SkipSessionCache()` */
  uncached: boolean;
  /** `@RequireRecentSignIn()`: the window in seconds, or undefined. */
  recentSignIn: number | undefined;
  /** `@RequireAal()`: the assurance level the session's sign-in must have reached, or undefined. */
  aal: 2 | undefined;
}

/** The read options of `@SkipSessionCache()`, one frozen object for every request. */
export const FRESH = Object.freeze({ fresh: true });

export type ActiveState = Extract<SessionState, { status: 'active' }>;

/** The window of `@RequireRecentSignIn(seconds?)` metadata: its seconds, the default for `true`, else none. */
function recentWindow(value: number | boolean | undefined, fallback: number): number | undefined {
  if (typeof value === 'number') return value;
  return value === true ? fallback : undefined;
}

/** The route's `@Public()`, `@SkipSessionCache()`, `@RequireRecentSignIn()` and `@RequireAal()`, handler first, then controller. */
export function readRoutePolicy(
  reflector: Reflector,
  handler: Function,
  controller: Function,
  recentSignInMaxAge: number,
): RoutePolicy {
  const targets = [handler, controller];
  return {
    public: reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets) === true,
    uncached: reflector.getAllAndOverride<boolean>(SKIP_SESSION_CACHE_KEY, targets) === true,
    recentSignIn: recentWindow(
      reflector.getAllAndOverride<number | boolean | undefined>(REQUIRE_RECENT_SIGN_IN_KEY, targets),
      recentSignInMaxAge,
    ),
    aal: reflector.getAllAndOverride<number | undefined>(REQUIRE_AAL_KEY, targets) === 2 ? 2 : undefined,
  };
}

/** The session lookup of a non-HTTP call: its request's cookie and headers, a bearer given outside them first. */
export function contextLookup(
  request: ContextRequest,
  authorization: string | undefined,
  config: ResolvedAuthConfig,
): SessionLookup {
  const http = sessionLookupOf(request as Request, config);
  return authorization === undefined ? http : new HeaderSessionLookup(http.cookieHeader, authorization, http.secure);
}

/** Why a session that is not active is refused. */
export function rejectionOf(state: Exclude<SessionState, ActiveState>): GuardRejection {
  return state.status === 'none' ? 'SessionRequired' : state.status === 'expired' ? 'SessionExpired' : 'InvalidSession';
}

const MESSAGES: Record<GuardRejection, string> = {
  SessionRequired: 'Sign in to access this resource.',
  SessionExpired: 'Your session has expired. Sign in again.',
  InvalidSession: 'The session is invalid or was revoked. Sign in again.',
  ReauthenticationRequired: 'This action needs a recent sign-in. Sign in again, then retry.',
  SecondFactorRequired:
    'This action needs a sign-in with a second factor. Sign in again with your authenticator app or a passkey, then retry.',
};

/**
 * The error that refuses a call of context `type`: 401 with a stable `error` type over HTTP; in
 * GraphQL, over WebSockets and RPC what `contextRefusal` builds, each carrying `{ error: reason, message }`.
 */
export function guardRefusal(type: string, reason: GuardRejection): Error {
  if (type !== 'http') return contextRefusal(type, reason, MESSAGES[reason]);
  return new UnauthorizedException({ statusCode: 401, error: reason, message: MESSAGES[reason] });
}
