import type { Awaitable, User } from '../../types/common.types.js';
import type { CommonProviderOptions, InternalProviderOptions } from '../../providers/provider.types.js';

/** The type of credentials providers. */
export type CredentialsProviderType = 'credentials';

export type { CredentialInput } from '../../providers/provider.types.js';
import type { CredentialInput } from '../../providers/provider.types.js';

/** A credentials (username/password or similar) provider. */
export interface CredentialsConfig<C extends Record<string, CredentialInput> = Record<string, CredentialInput>>
  extends CommonProviderOptions, InternalProviderOptions {
  type: 'credentials';
  /** The form's inputs, keyed by field name. */
  credentials: C;
  /**
   * Checks the submitted credentials. Return the user, or `null` to refuse with `CredentialsSignin`.
   * Throw a `CredentialsSignin` subclass to set a `code` shown to the user.
   */
  authorize: (credentials: Partial<Record<keyof C, unknown>>, request: Request) => Awaitable<User | null>;
  /**
   * Brute-force protection of this provider's callback; `false` turns it off (only if the app limits
   * attempts itself).
   * @default { maxAttempts: 5, maxAttemptsPerIp: 30, windowSeconds: 900 }
   */
  lockout?: CredentialsLockoutOptions | false;
  /**
   * Longest accepted value of each credentials field, in characters; longer submissions are refused
   * with `InvalidRequest` before `authorize` runs.
   * @default 1024
   */
  maxInputLength?: number;
  /**
   * Where the app keeps its users' password hashes (the library stores none): lets
   * `AuthService.setPassword` and `POST {basePath}/account/password` set or change a password with
   * `hashPassword`/`verifyPassword`. Without it, changing passwords is not offered.
   */
  passwordStore?: PasswordStore;
}

/** The app's storage of password hashes, for `AuthService.setPassword` (see `CredentialsConfig.passwordStore`). */
export interface PasswordStore {
  /** The user's stored hash (`hashPassword`'s PHC string), or `null` when they have no password yet. */
  getPasswordHash(userId: string): Awaitable<string | null | undefined>;
  /** Stores the user's new hash (replacing any old one). */
  setPasswordHash(userId: string, hash: string): Awaitable<void>;
  /** Shortest accepted new password, in characters (after NFKC normalisation). @default 8 */
  minLength?: number;
}

/**
 * Limits on failed sign-in attempts. Attempts are counted per identifier (the value of
 * `identifierField`, trimmed and lower-cased) and per client IP (IPv6 per /64) in fixed windows;
 * once a count reaches its limit, further attempts are refused with `RateLimited` until the window
 * ends. A successful sign-in clears the identifier's count.
 */
export interface CredentialsLockoutOptions {
  /** Failed attempts allowed per identifier in one window. @default 5 */
  maxAttempts?: number;
  /** Failed attempts allowed per client IP (all identifiers together) in one window. @default 30 */
  maxAttemptsPerIp?: number;
  /** Length of a window in seconds, from its first failed attempt. @default 900 (15 minutes) */
  windowSeconds?: number;
  /**
   * The credentials field that names the account.
   * @default 'email', else 'username', when `credentials` has such a field; otherwise the first field
   */
  identifierField?: string;
}
