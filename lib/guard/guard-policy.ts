import { ForbiddenException, HttpException, UnauthorizedException } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { GuardRejection } from '../errors/auth.errors.js';
import { HeaderSessionLookup, sessionLookupOf } from '../http/auth-request.factory.js';
import {
  AUTH_POLICY_KEY,
  IS_PUBLIC_KEY,
  type AuthRouteOptions,
  type CredentialKind,
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
  /** `@Auth({ accept })`: the credential kinds taken. */
  accept: ReadonlySet<CredentialKind>;
  /** `@Auth({ scopes })`: the scopes required (none: empty). */
  scopes: readonly string[];
  /** True when a session alone passes the route as before `@Auth()` (it accepts sessions and asks no scope). */
  sessionsPass: boolean;
}

/** The credentials a route takes without `@Auth()`: sessions and access tokens, never an API key. */
const DEFAULT_ACCEPT: ReadonlySet<CredentialKind> = new Set(['session', 'accessToken']);

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
    ...credentialPolicy(reflector.getAllAndOverride<AuthRouteOptions | undefined>(AUTH_POLICY_KEY, targets)),
  };
}

/** The credential part of a route's policy, from its `@Auth()`. */
function credentialPolicy(
  options: AuthRouteOptions | undefined,
): Pick<RoutePolicy, 'accept' | 'scopes' | 'sessionsPass'> {
  const accept = options?.accept ? new Set(options.accept) : DEFAULT_ACCEPT;
  const scopes = options?.scopes ?? [];
  return { accept, scopes, sessionsPass: accept.has('session') && scopes.length === 0 };
}

/** The kind of credential an active state came from. */
export function kindOf(state: ActiveState): CredentialKind {
  return state.strategy === 'access-token' ? 'accessToken' : state.strategy === 'api-key' ? 'apiKey' : 'session';
}

/**
 * The scopes a credential is limited to, or `null` when it is not limited: a session (it is the
 * user), an access token without a `scope` claim (a native app's).
 */
export function scopesOf(state: ActiveState): readonly string[] | null {
  if (state.strategy !== 'access-token' && state.strategy !== 'api-key') return null;
  const scope = state.token?.scope;
  if (state.strategy === 'access-token' && scope === undefined) return null;
  return typeof scope === 'string' && scope ? scope.split(' ') : [];
}

/** Why a route refuses an active credential (its kind, a missing scope), or undefined when it passes. */
export function credentialRefusal(state: ActiveState, policy: RoutePolicy): GuardRejection | undefined {
  if (!policy.accept.has(kindOf(state))) return 'CredentialNotAccepted';
  if (policy.scopes.length === 0) return undefined;
  const held = scopesOf(state);
  return held === null || policy.scopes.every((s) => held.includes(s)) ? undefined : 'InsufficientScope';
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
  if (state.status === 'limited') return 'RateLimited';
  return state.status === 'none' ? 'SessionRequired' : state.status === 'expired' ? 'SessionExpired' : 'InvalidSession';
}

const MESSAGES: Record<GuardRejection, string> = {
  SessionRequired: 'Sign in to access this resource.',
  SessionExpired: 'Your session has expired. Sign in again.',
  InvalidSession: 'The session is invalid or was revoked. Sign in again.',
  ReauthenticationRequired: 'This action needs a recent sign-in. Sign in again, then retry.',
  SecondFactorRequired:
    'This action needs a sign-in with a second factor. Sign in again with your authenticator app or a passkey, then retry.',
  CredentialNotAccepted:
    'This resource does not take this kind of credential (a session, an access token or an API key): use one it accepts.',
  InsufficientScope: 'The credential lacks a scope this resource requires: use one that has it.',
  RateLimited: 'Too many requests with this API key: wait for the time Retry-After says, then retry.',
};

/** The HTTP status of each refusal: 401 but for a missing scope (403) and a rate limit (429). */
export function refusalStatus(reason: GuardRejection): 401 | 403 | 429 {
  return reason === 'InsufficientScope' ? 403 : reason === 'RateLimited' ? 429 : 401;
}

/**
 * The error that refuses a call of context `type`: 401 with a stable `error` type over HTTP; in
 * GraphQL, over WebSockets and RPC what `contextRefusal` builds, each carrying `{ error: reason, message }`.
 */
export function guardRefusal(type: string, reason: GuardRejection): Error {
  if (type !== 'http') return contextRefusal(type, reason, MESSAGES[reason]);
  const status = refusalStatus(reason);
  const body = { statusCode: status, error: reason, message: MESSAGES[reason] };
  if (status === 403) return new ForbiddenException(body);
  if (status === 429) return new HttpException(body, 429);
  return new UnauthorizedException(body);
}
