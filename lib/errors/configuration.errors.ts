import { ServerAuthError } from './auth-error.base.js';

// ---- configuration (reported at bootstrap) ---------------------------------------------------

/** The options given to `AuthModule` are invalid; `problems` lists every problem with what to do. */
export class AuthConfigurationError extends ServerAuthError {
  static override readonly type = 'Configuration';
  constructor(
    readonly problems: string[],
    options?: { cause?: unknown },
  ) {
    super(
      `nestjs-auth: invalid AuthModule options (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  - ${p}`).join('\n'),
      options,
    );
  }
}
export class MissingSecret extends ServerAuthError {
  static override readonly type = 'MissingSecret';
}
export class MissingAdapter extends ServerAuthError {
  static override readonly type = 'MissingAdapter';
}
/** A flow needs adapter methods the configured adapter does not implement. Nothing was written. */
export class MissingAdapterMethods extends ServerAuthError {
  static override readonly type = 'MissingAdapterMethods';
  constructor(
    readonly methods: string[],
    message?: string,
  ) {
    super(
      message ??
        `The adapter does not implement ${methods.join(', ')}; implement them or configure an adapter that does.`,
    );
  }
}
export class InvalidEndpoints extends ServerAuthError {
  static override readonly type = 'InvalidEndpoints';
}
export class UnsupportedStrategy extends ServerAuthError {
  static override readonly type = 'UnsupportedStrategy';
}
export class MissingAuthorize extends ServerAuthError {
  static override readonly type = 'MissingAuthorize';
}
export class UntrustedHost extends ServerAuthError {
  static override readonly type = 'UntrustedHost';
}
export class InvalidCallbackUrl extends ServerAuthError {
  static override readonly type = 'InvalidCallbackUrl';
}
export class DuplicateConditionalUI extends ServerAuthError {
  static override readonly type = 'DuplicateConditionalUI';
}
export class MissingWebAuthnAutocomplete extends ServerAuthError {
  static override readonly type = 'MissingWebAuthnAutocomplete';
}
