// The base classes of every error the library raises (see auth.errors.ts).
import { HttpException } from '@nestjs/common';

/** Where a user is sent for this error: the error page, or the sign-in page with a message. */
export type ErrorPageKind = 'error' | 'signIn';

/** The JSON body Nest sends for an `AuthError` thrown out of a route (`getResponse()`). */
export interface AuthErrorBody {
  statusCode: number;
  /** The stable type (`LastSignInMethod`, `InvalidRequest`...); absent for a server fault. */
  error?: string;
  message: string;
}

const SERVER_FAULT_MESSAGE = 'Internal server error';

/**
 * `HttpException` as the runtime base of the client-facing errors, typed as a plain `Error` so the
 * error classes keep their own constructors: Nest's default exception handling answers such an
 * error with its status and body (`getStatus()`, `getResponse()`) and does not log it.
 */
const HttpErrorBase = HttpException as unknown as abstract new (
  response: string,
  status: number,
  options?: { cause?: unknown },
) => Error;

/**
 * The base of every error the library raises. Each has a stable `type` and an HTTP status
 * (`getStatus()`): thrown out of one of your routes (an `AuthService` call), a client's mistake
 * (`LastSignInMethod`, `InvalidRequest`, `ReauthenticationRequired`...) is a Nest `HttpException`,
 * answered `<status> { statusCode, error: type, message }` without any filter. Server faults
 * (`ServerAuthError`: storage, configuration) are not: Nest logs them and answers `500`.
 */
export abstract class AuthError extends HttpErrorBase {
  /** Stable machine-readable type of the error. */
  static readonly type: string = 'AuthError';
  /** The HTTP status of this error when it reaches Nest's exception handling. */
  static readonly status: number = 400;
  /** Which page shows the error. */
  readonly kind: ErrorPageKind = 'error';

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message ?? '', new.target.status, options);
    this.message = message ?? '';
    // The class name, which users search for (`AuthConfigurationError: ...` in a stack trace); the
    // stable `type` (`Configuration`) is what the error page and JSON bodies carry.
    this.name = new.target.name || new.target.type;
  }

  /** True for the client-facing errors and for the server faults (`ServerAuthError`) alike. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return (
      Function.prototype[Symbol.hasInstance].call(this, value) ||
      (this === AuthError && Function.prototype[Symbol.hasInstance].call(ServerAuthErrorBase, value))
    );
  }

  /** The stable type of this error (the static `type` of its class). */
  get type(): string {
    return (this.constructor as typeof AuthError).type;
  }

  /** The HTTP status Nest answers with (the static `status` of its class). */
  getStatus(): number {
    return (this.constructor as typeof AuthError).status;
  }

  /** The JSON body Nest answers with: `{ statusCode, error: type, message }`. */
  getResponse(): AuthErrorBody {
    return { statusCode: this.getStatus(), error: this.type, message: this.message };
  }
}

/** Errors shown on the sign-in page (`?error=<type>`). */
export abstract class SignInError extends AuthError {
  override readonly kind: ErrorPageKind = 'signIn';
}

/**
 * The runtime base of the server faults: a plain `Error` (not an `HttpException`), so that one
 * thrown out of a route is logged by Nest and answered `500 Internal server error`, its message
 * never shown. `instanceof AuthError` holds for it.
 */
abstract class ServerAuthErrorBase extends Error {
  static readonly type: string = 'AuthError';
  static readonly status: number = 500;
  readonly kind: ErrorPageKind = 'error';

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name || new.target.type;
  }

  get type(): string {
    return (this.constructor as typeof ServerAuthErrorBase).type;
  }

  getStatus(): number {
    return (this.constructor as typeof ServerAuthErrorBase).status;
  }

  getResponse(): AuthErrorBody {
    return { statusCode: this.getStatus(), message: SERVER_FAULT_MESSAGE };
  }
}

/**
 * The base of the errors that report a fault of the server, its configuration, its storage or a
 * provider (`AuthConfigurationError`, `AdapterError`...): `AuthError`s that are not HTTP exceptions.
 */
export const ServerAuthError = ServerAuthErrorBase as unknown as typeof AuthError;
export type ServerAuthError = AuthError;
