import type { Adapter } from '../adapters/adapter.interface.js';
import { API_KEY_ADAPTER_METHODS } from '../adapters/adapter-extensions.js';
import type { ApiKeyOptions } from './auth-options.interface.js';

/** `apiKeys` as the module runs with it. */
export interface ResolvedApiKeys {
  prefix: string;
  /** `null`: no per-key limit. */
  rateLimit: { limit: number; windowSeconds: number } | null;
  maxPerUser: number;
  cacheTtl: number;
}

const KEYS: ReadonlySet<string> = new Set(
  Object.keys({ prefix: 0, rateLimit: 0, maxPerUser: 0, cacheTtl: 0 } satisfies Record<keyof ApiKeyOptions, 0>),
);
const PREFIX = /^[a-z][a-z0-9]{1,15}$/;

/**
 * Checks and resolves `apiKeys` (`null` when absent). Each problem is pushed as one sentence saying
 * what to write instead; the adapter must have every {@link API_KEY_ADAPTER_METHODS}.
 */
export function resolveApiKeys(option: unknown, adapter: Adapter | null, problems: string[]): ResolvedApiKeys | null {
  if (option === undefined || option === null || option === false) return null;
  if (typeof option !== 'object' || Array.isArray(option)) {
    problems.push('apiKeys must be an object (e.g. {}); leave it out to turn API keys off.');
    return null;
  }
  const o = option as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!KEYS.has(key)) problems.push(`apiKeys.${key} is not an option; the options are ${[...KEYS].join(', ')}.`);
  const whole = (value: unknown, at: string, fallback: number, min: number, max: number): number => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      problems.push(`${at} must be a whole number from ${min} to ${max}, not ${JSON.stringify(v)}.`);
      return fallback;
    }
    return v;
  };
  const prefix = o.prefix ?? 'nak';
  if (typeof prefix !== 'string' || !PREFIX.test(prefix))
    problems.push(
      `apiKeys.prefix must be 2 to 16 lower-case letters and digits, starting with a letter (e.g. 'acme'), not ${JSON.stringify(prefix)}.`,
    );
  let rateLimit: ResolvedApiKeys['rateLimit'] = { limit: 600, windowSeconds: 60 };
  if (o.rateLimit === false) rateLimit = null;
  else if (o.rateLimit !== undefined) {
    const r = o.rateLimit as Record<string, unknown> | null;
    if (typeof r !== 'object' || r === null) problems.push('apiKeys.rateLimit must be { limit, window } or false.');
    else
      rateLimit = {
        limit: whole(r.limit, 'apiKeys.rateLimit.limit', 600, 1, 1_000_000),
        windowSeconds: whole(r.window, 'apiKeys.rateLimit.window', 60, 1, 86_400),
      };
  }
  const resolved: ResolvedApiKeys = {
    prefix: typeof prefix === 'string' && PREFIX.test(prefix) ? prefix : 'nak',
    rateLimit,
    maxPerUser: whole(o.maxPerUser, 'apiKeys.maxPerUser', 20, 1, 1000),
    cacheTtl: whole(o.cacheTtl, 'apiKeys.cacheTtl', 60, 0, 3600),
  };
  if (!adapter) {
    problems.push(
      'apiKeys needs storage for the keys but no adapter is available: configure a TypeORM data source (the default TypeOrmAdapter stores them in `api_keys`) or pass an `adapter` (MissingAdapter).',
    );
    return resolved;
  }
  const missing = [...API_KEY_ADAPTER_METHODS, 'getUser'].filter(
    (m) => typeof (adapter as unknown as Record<string, unknown>)[m] !== 'function',
  );
  if (missing.length)
    problems.push(
      `apiKeys: the adapter lacks ${missing.join(', ')} (MissingAdapterMethods): use TypeOrmAdapter with its ApiKeyEntity (table api_keys, migration AuthApiKeys…) or MemoryAdapter, or implement ApiKeyAdapter.`,
    );
  return resolved;
}
