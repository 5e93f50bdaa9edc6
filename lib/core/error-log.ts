import type { LoggerInstance } from '../config/auth-options.interface.js';
import {
  AuthError,
  EmailDeliveryError,
  isClientError,
  MissingAdapterMethods,
  OAuthProfileParseError,
  OAuthSignInError,
} from '../errors/auth.errors.js';

/**
 * The error types shown to the client (`isClientError`) that still report a fault of the server,
 * its configuration or a provider (an adapter without a method the route needs, a provider that
 * cannot be discovered, a `profile()` that throws): logged as errors.
 */
const SHOWN_SERVER_FAULTS = new Set<string>([
  MissingAdapterMethods.type,
  OAuthSignInError.type,
  OAuthProfileParseError.type,
]);

/**
 * True when the error is a client's mistake rather than a fault of the server: every type shown to
 * the client (`isClientError`: a wrong password, a replayed link, a missing CSRF token, a forged
 * logout token, a sign-in that is not recent enough, a route that does not exist, a provider
 * refusing a user...) but the {@link SHOWN_SERVER_FAULTS}. Such failures are logged as warnings,
 * never as errors, so a flood of hostile requests cannot bury real faults or page an operator.
 * Derived from the one list of client-facing types: a new one is a warning unless listed above.
 */
export function isClientMistake(error: unknown): error is AuthError {
  // An email that could not be sent is the server's fault, but for a recipient the server refused.
  if (error instanceof EmailDeliveryError) return recipientRefused(error.cause);
  return isClientError(error) && !SHOWN_SERVER_FAULTS.has(error.type);
}

/**
 * True when a mail transport's error says the server refused the recipient (nodemailer: `EENVELOPE`,
 * or a 5xx answer to `RCPT TO`), which a mistyped address causes; a connection, authentication or
 * timeout failure is not.
 */
function recipientRefused(cause: unknown): boolean {
  if (!cause || typeof cause !== 'object') return false;
  const { code, command, responseCode } = cause as { code?: unknown; command?: unknown; responseCode?: unknown };
  return code === 'EENVELOPE' || (command === 'RCPT TO' && typeof responseCode === 'number' && responseCode >= 500);
}

/** Lines of one kind logged per window; the rest are counted and reported once the window ends. */
const LINES_PER_WINDOW = 10;
const WINDOW_MS = 60_000;
/** Kinds tracked at once; beyond that the tracker starts over (it only bounds log volume). */
const MAX_KINDS = 1_000;

interface Window {
  start: number;
  logged: number;
  suppressed: number;
}

/**
 * Where request failures are logged: client mistakes as warnings, server faults as errors, each
 * kind (level and type) at most {@link LINES_PER_WINDOW} times a minute, with a count of the lines
 * left out. One per module instance (it belongs to the DI container, not the process).
 */
export class RequestErrorLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly logger: LoggerInstance,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logs a failure of a request at the level it deserves. Never throws. */
  report(error: unknown): void {
    try {
      const client = isClientMistake(error);
      const type = error instanceof AuthError ? error.type : error instanceof Error ? error.name : 'Error';
      const kind = `${client ? 'warn' : 'error'}:${type}`;
      const allowed = this.admit(kind);
      if (allowed === false) return;
      if (allowed > 0)
        this.logger.warn(`[${type}] ${allowed} similar message${allowed === 1 ? '' : 's'} left out in the last minute`);
      if (client) this.logger.warn(`[${type}] ${(error as Error).message}`);
      else this.logger.error(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // A logger that throws must not turn a handled failure into a crash.
    }
  }

  /** `false` when the line is over its kind's budget; else how many lines were left out before it. */
  private admit(kind: string): number | false {
    const now = this.now();
    let window = this.windows.get(kind);
    let leftOut = 0;
    if (!window || now - window.start >= WINDOW_MS) {
      leftOut = window?.suppressed ?? 0;
      if (!window && this.windows.size >= MAX_KINDS) this.windows.clear();
      window = { start: now, logged: 0, suppressed: 0 };
      this.windows.set(kind, window);
    }
    if (window.logged >= LINES_PER_WINDOW) {
      window.suppressed += 1;
      return false;
    }
    window.logged += 1;
    return leftOut;
  }
}

/**
 * A short, printable excerpt of a value a client sent, for messages and logs: at most `max`
 * characters, anything outside printable ASCII replaced by `?`, quoted. Never more of the input.
 */
export function clientText(value: unknown, max = 32): string {
  const text = typeof value === 'string' ? value : String(value);
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(cut.replace(/[^\x20-\x7e…]/g, '?'));
}
