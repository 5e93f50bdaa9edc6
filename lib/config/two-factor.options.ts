import type { Adapter } from '../adapters/adapter.interface.js';
import { TWO_FACTOR_ADAPTER_METHODS } from '../adapters/adapter-extensions.js';

export { TWO_FACTOR_ADAPTER_METHODS };
import type { TwoFactorOptions, TwoFactorPolicy } from './auth-options.interface.js';

/** `twoFactor` as the module runs with it. */
export interface ResolvedTwoFactor {
  policy: TwoFactorPolicy;
  /** `undefined`: the host of the request's origin. */
  issuer: string | undefined;
  pendingMaxAge: number;
  maxAttempts: number;
  lockoutWindow: number;
  backupCodes: number;
  /** Seconds a remembered browser skips the second factor; 0: not offered. */
  rememberDevice: number;
  /** Whether a code by email is offered as the second factor. */
  emailCode: boolean;
}

const KEYS: ReadonlySet<string> = new Set(
  Object.keys({
    policy: 0,
    issuer: 0,
    pendingMaxAge: 0,
    maxAttempts: 0,
    lockoutWindow: 0,
    backupCodes: 0,
    rememberDevice: 0,
    emailCode: 0,
  } satisfies Record<keyof TwoFactorOptions, 0>),
);

/**
 * Checks and resolves the `twoFactor` option: `null` when absent. Each problem is pushed as one
 * sentence saying what to write instead; the adapter must have every {@link TWO_FACTOR_ADAPTER_METHODS}.
 */
export function resolveTwoFactor(
  option: unknown,
  adapter: Adapter | null,
  problems: string[],
): ResolvedTwoFactor | null {
  if (option === undefined || option === null || option === false) return null;
  if (typeof option !== 'object' || Array.isArray(option)) {
    problems.push('twoFactor must be an object (e.g. { policy: "optional" }); leave it out to turn two-factor off.');
    return null;
  }
  const o = option as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!KEYS.has(key)) problems.push(`twoFactor.${key} is not an option; the options are ${[...KEYS].join(', ')}.`);
  const policy = o.policy ?? 'optional';
  if (policy !== 'optional' && policy !== 'required' && typeof policy !== 'function')
    problems.push(
      `twoFactor.policy must be 'optional', 'required' or a function (user) => boolean, not ${JSON.stringify(policy)}.`,
    );
  if (o.issuer !== undefined && (typeof o.issuer !== 'string' || !o.issuer.trim() || o.issuer.includes(':')))
    problems.push('twoFactor.issuer must be a non-empty name without ":" (authenticator apps show it), e.g. "Acme".');
  const count = (key: string, fallback: number, min: number, max: number): number => {
    const value = o[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      problems.push(`twoFactor.${key} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}.`);
      return fallback;
    }
    return value;
  };
  const resolved: ResolvedTwoFactor = {
    policy: policy as TwoFactorPolicy,
    issuer: typeof o.issuer === 'string' ? o.issuer.trim() : undefined,
    pendingMaxAge: count('pendingMaxAge', 300, 30, 3600),
    maxAttempts: count('maxAttempts', 5, 1, 100),
    lockoutWindow: count('lockoutWindow', 900, 1, 86_400),
    backupCodes: count('backupCodes', 10, 1, 50),
    rememberDevice: o.rememberDevice === undefined ? 0 : count('rememberDevice', 30, 1, 365) * 86_400,
    emailCode: o.emailCode === true,
  };
  if (o.emailCode !== undefined && typeof o.emailCode !== 'boolean')
    problems.push(`twoFactor.emailCode must be true or false, not ${JSON.stringify(o.emailCode)}.`);
  if (!adapter) {
    problems.push(
      'twoFactor needs storage for the factors but no adapter is available: configure a TypeORM data source (the default TypeOrmAdapter stores them in `two_factors`) or pass an `adapter` with the two-factor methods (MissingAdapter).',
    );
    return resolved;
  }
  const missing = TWO_FACTOR_ADAPTER_METHODS.filter(
    (m) => typeof (adapter as Record<string, unknown>)[m] !== 'function',
  );
  if (missing.length)
    problems.push(
      `twoFactor: the adapter lacks ${missing.join(', ')} (MissingAdapterMethods): use TypeOrmAdapter with its TwoFactorEntity (table two_factors, migration AuthTwoFactor…) or MemoryAdapter, or implement TwoFactorAdapter.`,
    );
  return resolved;
}
