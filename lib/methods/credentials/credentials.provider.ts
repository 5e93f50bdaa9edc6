import type { Awaitable, User } from '../../types/common.types.js';
import type { CredentialInput, CredentialsConfig, CredentialsLockoutOptions } from './credentials.types.js';

/** Defaults of the credentials provider's brute-force protection and input bounds (the docs quote them). */
export const CREDENTIALS_DEFAULTS = {
  /** Failed attempts per identifier in a window. @default 5 */
  maxAttempts: 5,
  /** Failed attempts per client IP (IPv6: per /64) in a window. @default 30 */
  maxAttemptsPerIp: 30,
  /** Window length in seconds. @default 900 */
  windowSeconds: 900,
  /** Longest accepted credentials field, in characters. @default 1024 */
  maxInputLength: 1024,
} as const;

/** What `Credentials()` takes: every field of {@link CredentialsConfig} but `type`; `authorize` is required. */
export type CredentialsUserConfig<C extends Record<string, CredentialInput> = Record<string, CredentialInput>> =
  Partial<Omit<CredentialsConfig<C>, 'type' | 'options' | 'authorize'>> & {
    /** Checks the submitted credentials: the user (with a stable `id`), or `null` to refuse. */
    authorize: (credentials: Partial<Record<keyof C, unknown>>, request: Request) => Awaitable<User | null>;
  };

/**
 * Sign-in with credentials the app checks itself (e.g. email and password), with JWT **and**
 * database sessions. `authorize` returns the user (with a stable `id`) or `null`; with an adapter
 * the user is stored on first sign-in with an account of type `credentials`.
 *
 * Defaults: id `credentials`, name `Credentials`, no fields, lockout after 5 failed attempts per
 * identifier (30 per IP) in 15 minutes.
 *
 * @example
 * ```ts
 * Credentials({
 *   credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
 *   async authorize({ email, password }) {
 *     const user = await users.findByEmail(String(email));
 *     // Always verify, even for an unknown user: the dummy hash makes both take the same time.
 *     if (!(await verifyPassword(String(password), user?.passwordHash ?? null))) return null;
 *     return { id: user!.id, email: user!.email, name: user!.name };
 *   },
 * })
 * ```
 */
export function Credentials<C extends Record<string, CredentialInput> = Record<string, CredentialInput>>(
  config: CredentialsUserConfig<C>,
): CredentialsConfig<C> {
  return {
    id: 'credentials',
    name: 'Credentials',
    type: 'credentials',
    credentials: {} as C,
    // No default `authorize`: forgetting it is reported at bootstrap instead of refusing everyone.
    authorize: undefined as unknown as CredentialsConfig<C>['authorize'],
    options: config as Record<string, unknown>,
  };
}

/** The lockout settings with defaults applied, or `null` when turned off. */
export function resolveLockout(
  config: Pick<CredentialsConfig, 'credentials' | 'lockout'>,
): Required<CredentialsLockoutOptions> | null {
  if (config.lockout === false) return null;
  const lockout = config.lockout ?? {};
  return {
    maxAttempts: lockout.maxAttempts ?? CREDENTIALS_DEFAULTS.maxAttempts,
    maxAttemptsPerIp: lockout.maxAttemptsPerIp ?? CREDENTIALS_DEFAULTS.maxAttemptsPerIp,
    windowSeconds: lockout.windowSeconds ?? CREDENTIALS_DEFAULTS.windowSeconds,
    identifierField: lockout.identifierField ?? defaultIdentifierField(config.credentials),
  };
}

function defaultIdentifierField(credentials: Record<string, CredentialInput> | undefined): string {
  const fields = credentials && typeof credentials === 'object' ? Object.keys(credentials) : [];
  if (fields.includes('email')) return 'email';
  if (fields.includes('username')) return 'username';
  return fields[0] ?? 'email';
}
