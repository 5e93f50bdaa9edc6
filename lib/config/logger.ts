import { Logger } from '@nestjs/common';
import { AuthError } from '../errors/auth.errors.js';
import type { LoggerInstance } from './auth-options.interface.js';

/** The default logger: Nest's Logger; never logs more than the error's type and message. */
export function createLogger(custom: Partial<LoggerInstance> | undefined, debug: boolean): LoggerInstance {
  const nest = new Logger('AuthModule');
  return {
    error:
      custom?.error ??
      ((error: Error) => {
        const type = error instanceof AuthError ? error.type : error.name;
        nest.error(`[${type}] ${error.message}`);
      }),
    warn: custom?.warn ?? ((code: string) => nest.warn(code)),
    // A custom debug logger gets the metadata redacted too: the redaction is the module's promise.
    debug: custom?.debug
      ? (message: string, metadata?: unknown) =>
          custom.debug!(message, metadata === undefined ? undefined : redactSecrets(metadata))
      : (message: string, metadata?: unknown) => {
          if (debug) nest.debug(metadata === undefined ? message : `${message} ${safeJson(metadata)}`);
        },
  };
}

const SECRET_KEYS = /token|secret|code|cookie|password|verifier|nonce|state|authorization|challenge|key/i;

/** A copy of debug metadata (as JSON data) with anything that looks like a secret redacted. */
export function redactSecrets(value: unknown): unknown {
  const json = safeJson(value);
  return json === undefined || json === '[unserialisable]' ? json : (JSON.parse(json) as unknown);
}

/** Debug metadata with anything that looks like a secret redacted. */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (key, v) => (key && SECRET_KEYS.test(key) ? '[redacted]' : v));
  } catch {
    return '[unserialisable]';
  }
}
