// The base classes of every error the library raises (see auth.errors.ts).

/** Where a user is sent for this error: the error page, or the sign-in page with a message. */
export type ErrorPageKind = 'error' | 'signIn';

export abstract class AuthError extends Error {
  /** Stable machine-readable type of the error. */
  static readonly type: string = 'AuthError';
  /** Which page shows the error. */
  readonly kind: ErrorPageKind = 'error';

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    // The class name, which users search for (`AuthConfigurationError: ...` in a stack trace); the
    // stable `type` (`Configuration`) is what the error page and JSON bodies carry.
    this.name = new.target.name || new.target.type;
  }

  /** The stable type of this error (the static `type` of its class). */
  get type(): string {
    return (this.constructor as typeof AuthError).type;
  }
}

/** Errors shown on the sign-in page (`?error=<type>`). */
export abstract class SignInError extends AuthError {
  override readonly kind: ErrorPageKind = 'signIn';
}
