/**
 * Every error the library raises. Each class has a stable `type` (Auth.js's name where it has
 * one): the `?error=` value of the error page and the `type` of JSON error bodies. Messages say
 * what to do and never contain secrets, tokens, codes or cookies.
 */

export { AuthError, ServerAuthError, SignInError, type AuthErrorBody, type ErrorPageKind } from './auth-error.base.js';
export * from './configuration.errors.js';
import { AuthError, ServerAuthError, SignInError, type AuthErrorBody, type ErrorPageKind } from './auth-error.base.js';
import { MissingAdapterMethods } from './configuration.errors.js';

// ---- request errors ---------------------------------------------------------------------------

/** The route, method or action does not exist (400). */
export class UnknownAction extends AuthError {
  static override readonly type = 'UnknownAction';
  static override readonly status = 404;
}
/** The provider id is unknown, or the provider does not support the action. */
export class InvalidProvider extends AuthError {
  static override readonly type = 'InvalidProvider';
}
/** The request body, query or a header is malformed or too large. */
export class InvalidRequest extends AuthError {
  static override readonly type = 'InvalidRequest';
}
/** The CSRF token was missing or did not match the CSRF cookie. */
export class MissingCSRF extends SignInError {
  static override readonly type = 'MissingCSRF';
  static override readonly status = 403;
}
/** The `signIn` callback refused the user (403). */
export class AccessDenied extends AuthError {
  static override readonly type = 'AccessDenied';
  static override readonly status = 403;
}
/** A storage call failed. */
export class AdapterError extends ServerAuthError {
  static override readonly type: string = 'AdapterError';
}
/** Which uniqueness rule or guard a storage write ran into. */
export type AdapterConflictKind =
  | 'user'
  | 'user.email'
  | 'account'
  | 'session'
  | 'verificationToken'
  | 'authenticator'
  | 'authenticator.counter'
  | 'twoFactor'
  | 'apiKey'
  | 'signingKey';
/**
 * A write refused by a uniqueness rule (a second account for the same provider account, an email
 * already taken...) or by a compare-and-set (`authenticator.counter`: another request used the
 * authenticator first). Nothing was written. The message names the rule, never the values.
 */
export class AdapterConflictError extends AdapterError {
  static override readonly type = 'AdapterConflict';
  constructor(
    readonly conflict: AdapterConflictKind,
    message?: string,
    options?: { cause?: unknown },
  ) {
    super(message ?? `Storage refused the write: ${conflict} must be unique.`, options);
  }
}
/** An update or a link named a record that does not exist (unknown user, credential...). Nothing was written. */
export class AdapterNotFoundError extends AdapterError {
  static override readonly type = 'AdapterNotFound';
  constructor(
    readonly record: 'user' | 'session' | 'authenticator',
    message?: string,
  ) {
    super(message ?? `Storage has no such ${record}.`);
  }
}
/** An unexpected failure inside a callback route. */
export class CallbackRouteError extends ServerAuthError {
  static override readonly type = 'CallbackRouteError';
}
/** An `events.*` handler threw (logged only). */
export class EventError extends ServerAuthError {
  static override readonly type = 'EventError';
}
/** Sign-out failed on the server side (logged only; the cookie is still cleared). */
export class SignOutError extends ServerAuthError {
  static override readonly type = 'SignOutError';
}
/** The session cookie could not be decoded (logged only; read as no session). */
export class JWTSessionError extends ServerAuthError {
  static override readonly type = 'JWTSessionError';
}
/** The database session lookup failed (logged only; read as no session). */
export class SessionTokenError extends ServerAuthError {
  static override readonly type = 'SessionTokenError';
}
/**
 * A back-channel logout token was refused (`POST /backchannel-logout/:provider` answers 400):
 * `reason` says which rule it broke. Nothing was ended.
 */
export class LogoutTokenError extends AuthError {
  static override readonly type = 'LogoutTokenError';
  constructor(
    readonly reason:
      | 'Missing'
      | 'Signature'
      | 'Issuer'
      | 'Audience'
      | 'IssuedAt'
      | 'Expired'
      | 'Events'
      | 'Nonce'
      | 'Subject'
      | 'Replay'
      | 'Type'
      | 'Duplicate',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
/** Why `AuthService.getAccessToken` could not return a provider access token. */
export type RefreshTokenFailure =
  /** The user has no account at this provider. */
  | 'NoAccount'
  /** The account has no refresh token (never had one, or the provider refused it earlier): sign in again. */
  | 'NoRefreshToken'
  /** The provider refused the refresh token (`invalid_grant`): it was cleared; the user must sign in again. */
  | 'InvalidGrant'
  /** The provider could not be reached or failed (after retries); the stored tokens are untouched. */
  | 'ProviderUnavailable'
  /** Another instance's refresh overtook this one (its lease ran out); try again. */
  | 'Conflict'
  /** The request given to `getAccessToken(request, provider)` has no valid session. */
  | 'NoSession';

/** A provider's access token could not be returned; `reason` says why (never a token in the message). */
export class RefreshTokenError extends AuthError {
  static override readonly type = 'RefreshTokenError';
  constructor(
    readonly reason: RefreshTokenFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** 403 when the user must sign in with the provider (again), 503 unreachable, 409 a lost race, 401 no session. */
  override getStatus(): number {
    return REFRESH_STATUS[this.reason] ?? 403;
  }

  /** `{ statusCode, error: 'RefreshTokenError', reason, message }`. */
  override getResponse(): AuthErrorBody & { reason: RefreshTokenFailure } {
    return { ...super.getResponse(), reason: this.reason };
  }
}
const REFRESH_STATUS: Partial<Record<RefreshTokenFailure, number>> = {
  ProviderUnavailable: 503,
  Conflict: 409,
  NoSession: 401,
};
/** Too many attempts for this identifier or client; `retryAfter` is in seconds. */
export class RateLimited extends SignInError {
  static override readonly type = 'RateLimited';
  static override readonly status = 429;
  constructor(
    readonly retryAfter: number,
    message?: string,
  ) {
    super(message ?? `Too many attempts. Try again in ${retryAfter} seconds.`);
  }
}

// ---- OAuth / OIDC -------------------------------------------------------------------------------

/** A PKCE, state, nonce or WebAuthn-challenge check failed (missing, tampered, expired, other provider). */
export class InvalidCheck extends AuthError {
  static override readonly type = 'InvalidCheck';
}
/** The provider returned an error in the authorization response, or the token exchange failed. */
export class OAuthCallbackError extends SignInError {
  static override readonly type = 'OAuthCallbackError';
}
/** The account exists for another user, or the email belongs to a user without this account. */
export class OAuthAccountNotLinked extends SignInError {
  static override readonly type = 'OAuthAccountNotLinked';
  static override readonly status = 409;
}
/** `profile()` threw or returned no usable id. */
export class OAuthProfileParseError extends ServerAuthError {
  static override readonly type = 'OAuthProfileParseError';
}
/** Starting an OAuth sign-in failed (discovery, authorization URL). */
export class OAuthSignInError extends ServerAuthError {
  override readonly kind: ErrorPageKind = 'signIn';
  static override readonly type = 'OAuthSignInError';
}

// ---- email, credentials, webauthn --------------------------------------------------------------

/** The magic link is invalid, expired or already used (403). */
export class Verification extends AuthError {
  static override readonly type = 'Verification';
  static override readonly status = 403;
}
/** The sign-in email could not be sent, or the address was refused. */
export class EmailSignInError extends SignInError {
  static override readonly type = 'EmailSignin';
}

/**
 * An email (a sign-in link, an email change's confirmation, a second-factor code) could not be
 * sent: the mail server or your `sendVerificationRequest` failed. Its type is `EmailSignin`, as the
 * user sees it; in the log it is an error (a mail outage is a server fault), unless the mail server
 * refused the recipient (a mistyped address), which is the user's mistake.
 */
export class EmailDeliveryError extends EmailSignInError {}
/**
 * `authorize` refused the credentials. Subclass it and set `code` to tell the user why
 * (`?error=CredentialsSignin&code=<code>`).
 */
export class CredentialsSignin extends SignInError {
  static override readonly type = 'CredentialsSignin';
  static override readonly status = 401;
  /** Shown in the `code` query parameter; keep it free of secrets. @default 'credentials' */
  code = 'credentials';
}
/** A WebAuthn linking conflict. */
export class AccountNotLinked extends SignInError {
  static override readonly type = 'AccountNotLinked';
  static override readonly status = 409;
}
/** A WebAuthn registration or authentication failed verification. */
export class WebAuthnVerificationError extends AuthError {
  static override readonly type = 'WebAuthnVerificationError';
}
/**
 * Removing this passkey or account would leave the user no way to sign in (add another passkey or
 * account first).
 */
export class LastSignInMethod extends AuthError {
  static override readonly type = 'LastSignInMethod';
  static override readonly status = 409;
}
/** The new email address of `AuthService.changeEmail` already belongs to another user. */
export class EmailInUse extends AuthError {
  static override readonly type = 'EmailInUse';
  static override readonly status = 409;
}
/** `AuthService.setPassword`: the current password was missing or wrong (the user has one). */
export class WrongPassword extends AuthError {
  static override readonly type = 'WrongPassword';
  static override readonly status = 403;
}
/**
 * The link flow (`POST /link/:provider`) reached a provider account that is already linked to
 * another user: nothing was written, and nobody was signed in.
 */
export class AccountAlreadyLinked extends AuthError {
  static override readonly type = 'AccountAlreadyLinked';
  static override readonly status = 409;
}
/** The action needs a signed-in user (e.g. `POST /link/:provider` without a session). */
export class SessionRequired extends SignInError {
  static override readonly type = 'SessionRequired';
  static override readonly status = 401;
}

/**
 * The action needs a recent sign-in (`@RequireRecentSignIn()`, `account.recentSignInMaxAge`): the
 * user signed in longer ago than the window allows, or when is unknown. Sign in again, then retry.
 */
export class ReauthenticationRequired extends SignInError {
  static override readonly type = 'ReauthenticationRequired';
  static override readonly status = 403;
  constructor(
    /** The window the action asked for, in seconds. */
    readonly maxAge: number,
    message = `This action needs a sign-in within the last ${maxAge} seconds: sign in again, then retry.`,
  ) {
    super(message);
  }
}

/**
 * The route or action needs a session whose sign-in proved two factors (`@RequireAal(2)`,
 * `AuthService.requireAal`): sign in again with a second factor (or a passkey that verifies you),
 * or set one up first.
 */
export class SecondFactorRequired extends SignInError {
  static override readonly type = 'SecondFactorRequired';
  static override readonly status = 403;
  constructor(
    message = 'This action needs a sign-in with a second factor: sign in again with your authenticator app or a passkey (set one up on your account page first if you have none).',
  ) {
    super(message);
  }
}

/** A second-factor code that is wrong, malformed or already used: the user may try again. */
export class InvalidTwoFactorCode extends SignInError {
  static override readonly type = 'InvalidTwoFactorCode';
  static override readonly status = 400;
}

// ---- the guard -----------------------------------------------------------------------------------

/** Reasons the guard refuses a request (the `type` of its 401 body). */
export type GuardRejection =
  | 'SessionRequired'
  | 'SessionExpired'
  | 'InvalidSession'
  | 'ReauthenticationRequired'
  | 'SecondFactorRequired'
  /** A credential of a kind the route does not accept (`@Auth({ accept })`): 401. */
  | 'CredentialNotAccepted'
  /** A credential without a scope the route requires (`@Auth({ scopes })`): 403. */
  | 'InsufficientScope'
  /** An API key over its rate limit: 429 with `Retry-After`. */
  | 'RateLimited';

/**
 * Types safe to show to the client as-is; every other error is shown as `Configuration` (server
 * problem) so internals never leak. They are logged as warnings (the client's mistake) but for the
 * few that report a server fault (`isClientMistake` in core/error-log.ts).
 */
const CLIENT_SAFE = new Set<string>([
  LogoutTokenError.type,
  CredentialsSignin.type,
  OAuthAccountNotLinked.type,
  OAuthCallbackError.type,
  AccessDenied.type,
  Verification.type,
  MissingCSRF.type,
  AccountNotLinked.type,
  AccountAlreadyLinked.type,
  SessionRequired.type,
  LastSignInMethod.type,
  WebAuthnVerificationError.type,
  EmailSignInError.type,
  RateLimited.type,
  InvalidCheck.type,
  InvalidRequest.type,
  InvalidProvider.type,
  UnknownAction.type,
  MissingAdapterMethods.type,
  OAuthSignInError.type,
  OAuthProfileParseError.type,
  ReauthenticationRequired.type,
  SecondFactorRequired.type,
  InvalidTwoFactorCode.type,
  EmailInUse.type,
  WrongPassword.type,
]);

/** True when the error's `type` may be shown to the client. */
export function isClientError(error: unknown): error is AuthError {
  return error instanceof AuthError && CLIENT_SAFE.has(error.type);
}

/** A context type `AuthGuard` cannot read (`getType()` is neither http, graphql, ws nor rpc). */
export class UnsupportedContextError extends ServerAuthError {
  static override readonly type = 'UnsupportedContext';
  constructor(readonly contextType: string) {
    super(
      `AuthGuard cannot read a session in a "${contextType}" context (it reads http, graphql, ws and rpc); ` +
        'subclass AuthGuard and override canActivate() for this transport.',
    );
  }
}
