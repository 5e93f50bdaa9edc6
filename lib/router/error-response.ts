import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { RequestErrorLog } from '../core/error-log.js';
import type { RequestContext } from '../core/request-context.js';
import {
  AuthError,
  CredentialsSignin,
  RateLimited,
  ReauthenticationRequired,
  SessionRequired,
  UnknownAction,
  isClientError,
} from '../errors/auth.errors.js';
import { SignInRedirect } from '../sign-in/sign-in-callback.js';
import type { AuthRequest, AuthResponse } from '../types/http.types.js';
import type { AuthAction } from './auth-action.js';
import { wantsJson } from '../core/web-request.js';

/** Answers of callbacks from another site (OAuth), successful or not: their URL carried a code and a state. */
const NO_REFERRER = { 'Referrer-Policy': 'no-referrer' };
/** Actions that answer JSON, errors included. */
const JSON_ACTIONS = new Set<AuthAction>([
  'session',
  'providers',
  'csrf',
  'webauthn-options',
  'backchannel-logout',
  'account',
  'access-token',
  'token',
  'revoke',
  'jwks',
]);
const SERVER_PROBLEM = 'There was a problem with the server configuration. Check the server logs.';

export interface FailedRequest {
  request: AuthRequest;
  action: AuthAction;
  ctx?: RequestContext;
  providerId?: string;
  /** The answer sends no Referer: a callback from another site, or from no known provider (the router knows). */
  noReferrer?: boolean;
}

/**
 * Every failure ends here: a 400 JSON for unknown routes, JSON for the API actions, else a redirect
 * to the error or sign-in page with `?error=<type>`. Logged once (client mistakes as warnings).
 */
export function errorResponse(
  config: ResolvedAuthConfig,
  errorLog: RequestErrorLog,
  error: unknown,
  { request, action, ctx, providerId, noReferrer }: FailedRequest,
): AuthResponse {
  if (error instanceof SignInRedirect) return withCookies({ redirect: error.url }, ctx);
  const type = isClientError(error) ? error.type : 'Configuration';
  const message = isClientError(error) ? error.message : SERVER_PROBLEM;
  errorLog.report(error);
  if (error instanceof UnknownAction || action === 'unknown' || action === 'webauthn-client') {
    return withCookies({ status: 400, json: { error: type, message } }, ctx);
  }
  if (JSON_ACTIONS.has(action) || (action === 'two-factor' && wantsJson(request))) {
    // 403 for a sign-in that is too old, as the account API answers it: sign in again, then retry.
    const status =
      error instanceof RateLimited
        ? 429
        : error instanceof ReauthenticationRequired
          ? 403
          : error instanceof SessionRequired
            ? 401
            : type === 'Configuration'
              ? 500
              : 400;
    const headers: Record<string, string> =
      error instanceof RateLimited ? { 'Retry-After': String(error.retryAfter) } : {};
    return withCookies({ status, headers, json: { error: type, message } }, ctx);
  }
  if (action === 'signout' && request.method === 'POST') return refusedSignOut(config, request, ctx, type, message);
  const signInKind = error instanceof AuthError && error.kind === 'signIn';
  if (action === 'error' && !signInKind && !config.pages.error) {
    // The built-in error page failed itself (say, its renderers did not load): sending the browser
    // back to it would loop.
    const status = type === 'Configuration' ? 500 : 400;
    return withCookies({ status, body: { contentType: 'text/plain; charset=utf-8', content: message } }, ctx);
  }
  const origin = ctx?.origin ?? request.url.origin;
  const authUrl = `${origin}${config.basePath}`;
  const page = signInKind ? config.pages.signIn : config.pages.error;
  const target = new URL(page ?? `${authUrl}/${signInKind ? 'signin' : 'error'}`, origin);
  target.searchParams.set('error', type);
  if (error instanceof CredentialsSignin) target.searchParams.set('code', error.code);
  if (signInKind) keepSignInForm(config, request, providerId, target);
  return withCookies({ redirect: target.href, ...(noReferrer ? { headers: NO_REFERRER } : {}) }, ctx);
}

/**
 * A refused sign-out (a stale or missing CSRF token) says so, as the user is still signed in: a
 * browser script's `fetch` or XHR (`Sec-Fetch-Dest: empty`, no `X-Auth-Return-Redirect`), which
 * would follow a redirect to a page and see `200`, gets `400 { error, message }`; a form (or a
 * client that sends no `Sec-Fetch-Dest`) is sent back to the sign-out page with `?error=`, which
 * shows the message and the form again with a token that works.
 */
function refusedSignOut(
  config: ResolvedAuthConfig,
  request: AuthRequest,
  ctx: RequestContext | undefined,
  type: string,
  message: string,
): AuthResponse {
  if (request.headers['sec-fetch-dest'] === 'empty' && !request.headers['x-auth-return-redirect'])
    return withCookies({ status: type === 'Configuration' ? 500 : 400, json: { error: type, message } }, ctx);
  const origin = ctx?.origin ?? request.url.origin;
  const target = new URL(config.pages.signOut ?? `${origin}${config.basePath}/signout`, origin);
  target.searchParams.set('error', type);
  return withCookies({ redirect: target.href }, ctx);
}

/** An address as a person types it (no spaces or control characters, one `@`), at most 320 characters. */
const TYPED_EMAIL = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]{1,255}$/u;

/**
 * Lets the sign-in page show the error inside the form that failed: `provider=` names that form
 * (a configured provider only) and `email=` gives back the address typed in it (never a password or
 * any other field).
 */
function keepSignInForm(
  config: ResolvedAuthConfig,
  request: AuthRequest,
  providerId: string | undefined,
  target: URL,
): void {
  if (providerId === undefined || !config.providerById.has(providerId)) return;
  target.searchParams.set('provider', providerId);
  const email = request.body.email;
  if (typeof email === 'string' && email.length <= 320 && TYPED_EMAIL.test(email.trim()))
    target.searchParams.set('email', email.trim());
}

/** The response with the cookies the context collected (CSRF, callback URL) in front of its own. */
export function withCookies(response: AuthResponse, ctx?: RequestContext): AuthResponse {
  if (!ctx?.responseCookies.length) return response;
  return { ...response, cookies: [...ctx.responseCookies, ...(response.cookies ?? [])] };
}
