import type { Adapter } from '../adapters/adapter.interface.js';
import type { ProviderType } from '../providers/provider.types.js';
import { REQUIRED_ADAPTER_METHODS, requireAdapterMethods } from './adapter-requirements.js';
import { validateOAuthProvider } from './oauth.validate.js';
import { validateEmailProvider } from './email.validate.js';
import { validateCredentialsProvider } from './credentials.validate.js';
import { validateWebAuthnProvider } from './webauthn.validate.js';
import type { AuthModuleOptions } from './auth-options.interface.js';
import type { InternalProvider } from './resolved-config.js';

const PROVIDER_TYPES = new Set<ProviderType>(['oauth', 'oidc', 'email', 'credentials', 'webauthn']);
const URL_SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Runs the provider's own validation (one function per kind, owned by that kind's flow). */
function validateProvider(provider: InternalProvider, problems: string[], ctx: { hasAdapter: boolean }): void {
  if (provider.type === 'oauth' || provider.type === 'oidc') validateOAuthProvider(provider, problems, ctx);
  else if (provider.type === 'email') validateEmailProvider(provider, problems, ctx);
  else if (provider.type === 'credentials') validateCredentialsProvider(provider, problems, ctx);
  else validateWebAuthnProvider(provider, problems, ctx);
}

/** What the providers' checks depend on besides the providers themselves. */
export interface ProviderContext {
  env: NodeJS.ProcessEnv;
  adapter: Adapter | null;
  hasAdapter: boolean;
  strategy: 'jwt' | 'database';
}

/**
 * The `providers` option normalised (functions called, options merged, env defaults applied) and
 * checked: ids, types, endpoints, the adapter methods each kind needs, and each kind's own rules.
 * Problems go to `problems`; a provider with a fatal one is left out.
 */
export function resolveProviders(
  rawProviders: AuthModuleOptions['providers'] | undefined,
  { env, adapter, hasAdapter, strategy }: ProviderContext,
  problems: string[],
): InternalProvider[] {
  const providers: InternalProvider[] = [];
  if (!Array.isArray(rawProviders)) {
    problems.push('`providers` must be an array of providers, e.g. [GitHub(), Email({ server, from })].');
  } else {
    const seen = new Set<string>();
    rawProviders.forEach((raw, index) => {
      const provider = normaliseProvider(raw, env, index, problems);
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
      if (!PROVIDER_TYPES.has(provider.type)) {
        problems.push(
          `${where}: unknown type ${JSON.stringify(provider.type)}; use one of oauth, oidc, email, credentials, webauthn.`,
        );
        return;
      }
      if (typeof provider.name !== 'string' || provider.name.length === 0) {
        problems.push(`${where}: a \`name\` is required (it labels the sign-in button).`);
      }
      const c = provider.config;
      if (provider.type === 'oauth' || provider.type === 'oidc') {
        const hasDiscovery = typeof c.issuer === 'string' || typeof c.wellKnown === 'string';
        const hasEndpoints = ['authorization', 'token', 'userinfo'].every((k) => endpointUrl(c[k]) !== undefined);
        const oidcWithoutUserinfo =
          provider.type === 'oidc' &&
          ['authorization', 'token'].every((k) => endpointUrl(c[k]) !== undefined) &&
          c.idToken !== false;
        if (!hasDiscovery && !hasEndpoints && !oidcWithoutUserinfo) {
          problems.push(
            `${where}: set \`issuer\` (or \`wellKnown\`) for discovery, or all of \`authorization\`, \`token\` and \`userinfo\` URLs (InvalidEndpoints).`,
          );
        }
        requireAdapterMethods(
          `${where} (OAuth sign-in with an adapter)`,
          REQUIRED_ADAPTER_METHODS.oauth,
          adapter,
          problems,
          true,
        );
      } else if (provider.type === 'email') {
        requireAdapterMethods(`${where} (email sign-in)`, REQUIRED_ADAPTER_METHODS.email, adapter, problems);
      } else if (provider.type === 'webauthn') {
        requireAdapterMethods(`${where} (passkeys)`, REQUIRED_ADAPTER_METHODS.webauthn, adapter, problems);
      } else if (provider.type === 'credentials') {
        if (typeof c.authorize !== 'function')
          problems.push(`${where}: \`authorize(credentials, request)\` is required (MissingAuthorize).`);
        if (strategy === 'database')
          requireAdapterMethods(
            `${where} (credentials with database sessions)`,
            REQUIRED_ADAPTER_METHODS.credentials,
            adapter,
            problems,
          );
      }
      try {
        validateProvider(provider, problems, { hasAdapter });
      } catch (error) {
        problems.push(`${where}: validation failed: ${(error as Error).message}`);
      }
      providers.push(provider);
    });
  }
  return providers;
}

/** Calls provider functions, merges a factory's `options` over its defaults and applies env defaults. */
function normaliseProvider(
  raw: unknown,
  env: NodeJS.ProcessEnv,
  index: number,
  problems: string[],
): InternalProvider | null {
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
  const envId = typeof provider.id === 'string' ? provider.id.toUpperCase().replace(/-/g, '_') : '';
  if (provider.type === 'oauth' || provider.type === 'oidc') {
    provider.config.clientId ??= env[`AUTH_${envId}_ID`];
    provider.config.clientSecret ??= env[`AUTH_${envId}_SECRET`];
    provider.config.issuer ??= env[`AUTH_${envId}_ISSUER`];
    if (provider.config.issuer === undefined) delete provider.config.issuer;
  } else if (provider.type === 'email') {
    provider.config.apiKey ??= env[`AUTH_${envId}_KEY`];
    if (provider.config.apiKey === undefined) delete provider.config.apiKey;
  }
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

function endpointUrl(endpoint: unknown): string | undefined {
  if (typeof endpoint === 'string') return endpoint;
  if (endpoint && typeof endpoint === 'object' && typeof (endpoint as { url?: unknown }).url === 'string') {
    return (endpoint as { url: string }).url;
  }
  return undefined;
}
