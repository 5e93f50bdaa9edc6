import type { AuthModuleOptions } from './auth-options.interface.js';
import type { ProviderCheckContext, ProviderKind } from './provider-kind.js';
import type { InternalProvider } from './resolved-config.js';

const URL_SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** What the providers' checks depend on besides the providers themselves. */
export type ProviderContext = Omit<ProviderCheckContext, 'where'>;

/**
 * The `providers` option normalised (functions called, options merged, env defaults applied) and
 * checked: ids, names, and then each provider by the sign-in method that serves its `type` (its
 * settings, the adapter methods it needs). Problems go to `problems`; a provider with a fatal one is
 * left out.
 */
export function resolveProviders(
  rawProviders: AuthModuleOptions['providers'] | undefined,
  ctx: ProviderContext,
  kinds: readonly ProviderKind[],
  problems: string[],
): InternalProvider[] {
  const providers: InternalProvider[] = [];
  const kindOf = new Map(kinds.flatMap((kind) => kind.types.map((type) => [type, kind] as const)));
  if (!Array.isArray(rawProviders)) {
    problems.push('`providers` must be an array of providers, e.g. [GitHub(), Email({ server, from })].');
    return providers;
  }
  const seen = new Set<string>();
  rawProviders.forEach((raw, index) => {
    const provider = normaliseProvider(raw, index, problems);
    if (!provider) return;
    const where = `providers[${index}] (${JSON.stringify(provider.id)})`;
    if (typeof provider.id !== 'string' || !URL_SAFE_ID.test(provider.id)) {
      problems.push(`${where}: the id must be URL-safe (letters, digits, '-' or '_', at most 64 characters).`);
      return;
    }
    if (seen.has(provider.id)) {
      problems.push(`${where}: the id is used by another provider; give each provider a unique \`id\`.`);
      return;
    }
    seen.add(provider.id);
    const kind = kindOf.get(provider.type);
    if (!kind) {
      problems.push(
        `${where}: unknown type ${JSON.stringify(provider.type)}; use one of ${[...kindOf.keys()].join(', ')}.`,
      );
      return;
    }
    if (typeof provider.name !== 'string' || provider.name.length === 0) {
      problems.push(`${where}: a \`name\` is required (it labels the sign-in button).`);
    }
    try {
      kind.applyEnv?.(provider.config, ctx.env, provider.id.toUpperCase().replace(/-/g, '_'));
      kind.validate(provider, problems, { ...ctx, where });
    } catch (error) {
      problems.push(`${where}: validation failed: ${(error as Error).message}`);
    }
    providers.push(provider);
  });
  return providers;
}

/** Calls provider functions, merges a factory's `options` over its defaults and applies env defaults. */
function normaliseProvider(raw: unknown, index: number, problems: string[]): InternalProvider | null {
  let value = raw;
  try {
    if (typeof value === 'function') value = (value as () => unknown)();
  } catch (error) {
    problems.push(`providers[${index}]: the provider function threw: ${(error as Error).message}`);
    return null;
  }
  if (!value || typeof value !== 'object') {
    problems.push(`providers[${index}] is not a provider config (got ${value === null ? 'null' : typeof value}).`);
    return null;
  }
  const { options, ...defaults } = value as Record<string, unknown> & { options?: Record<string, unknown> };
  const config = deepMerge(defaults, options ?? {});
  // Typed by its `type` from here on; resolveConfig and the provider's validator check the shape.
  const provider = { id: config.id, name: config.name, type: config.type, config } as InternalProvider;
  return provider;
}

/** Deep merge of plain objects (arrays, functions, class instances are replaced, not merged). */
export function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] = isPlainObject(value) && isPlainObject(current) ? deepMerge(current, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
