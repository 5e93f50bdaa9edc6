import type { AuthAction } from './auth-action.js';

/** An action the controller routes to (every one but the catch-all's `unknown`). */
export type RoutedAction = Exclude<AuthAction, 'unknown'>;

/**
 * What follows the action's path segment: nothing, a provider id (`signin/:provider`), or, for the
 * account page and API, the account path (`AccountRoutes.paths()`: '' for the page itself).
 */
export type AuthRouteSegment = 'none' | 'provider' | 'account-path';

/** One method of one route under `basePath` that the router answers. */
export interface AuthRoute {
  action: RoutedAction;
  /** `HEAD` is answered where `GET` is. */
  method: 'GET' | 'POST';
  segment: AuthRouteSegment;
}

/**
 * The first path segment of each action under `basePath`. A `Record` over every action, so a new
 * `AuthAction` does not compile until it has a path here (and `auth-routes.spec.ts` then asks for
 * its rows in {@link AUTH_ROUTES}).
 */
export const AUTH_ROUTE_PATHS: Readonly<Record<RoutedAction, string>> = Object.freeze({
  providers: 'providers',
  csrf: 'csrf',
  session: 'session',
  signin: 'signin',
  link: 'link',
  signout: 'signout',
  callback: 'callback',
  'verify-request': 'verify-request',
  error: 'error',
  'webauthn-options': 'webauthn-options',
  'webauthn-client': 'webauthn-client.js',
  'backchannel-logout': 'backchannel-logout',
  account: 'account',
  'two-factor': 'two-factor',
  authorize: 'authorize',
  token: 'token',
  revoke: 'revoke',
  jwks: 'jwks',
  'access-token': 'access-token',
});

/**
 * The action table as data: every (action, method, segment) the controller mounts and
 * `AuthRouterService` dispatches (`auth-routes.spec.ts` proves both against this list). Tests that
 * must reach every route, such as the route fuzzer, read it instead of a list of their own.
 */
export const AUTH_ROUTES: readonly AuthRoute[] = Object.freeze([
  { action: 'providers', method: 'GET', segment: 'none' },
  { action: 'csrf', method: 'GET', segment: 'none' },
  { action: 'session', method: 'GET', segment: 'none' },
  { action: 'session', method: 'POST', segment: 'none' },
  { action: 'signin', method: 'GET', segment: 'none' },
  { action: 'signin', method: 'POST', segment: 'provider' },
  { action: 'link', method: 'POST', segment: 'provider' },
  { action: 'callback', method: 'GET', segment: 'provider' },
  { action: 'callback', method: 'POST', segment: 'provider' },
  { action: 'signout', method: 'GET', segment: 'none' },
  { action: 'signout', method: 'POST', segment: 'none' },
  { action: 'verify-request', method: 'GET', segment: 'none' },
  { action: 'error', method: 'GET', segment: 'none' },
  { action: 'webauthn-options', method: 'GET', segment: 'provider' },
  { action: 'webauthn-client', method: 'GET', segment: 'none' },
  { action: 'backchannel-logout', method: 'POST', segment: 'provider' },
  { action: 'account', method: 'GET', segment: 'account-path' },
  { action: 'account', method: 'POST', segment: 'account-path' },
  { action: 'two-factor', method: 'GET', segment: 'none' },
  { action: 'two-factor', method: 'POST', segment: 'none' },
  { action: 'authorize', method: 'GET', segment: 'none' },
  { action: 'authorize', method: 'POST', segment: 'none' },
  { action: 'token', method: 'POST', segment: 'none' },
  { action: 'revoke', method: 'POST', segment: 'none' },
  { action: 'jwks', method: 'GET', segment: 'none' },
  { action: 'access-token', method: 'POST', segment: 'none' },
] as const satisfies readonly AuthRoute[]);
