import { Logger } from '@nestjs/common';
import type { Adapter, AdapterMethod } from '../adapters/adapter.interface.js';
import { defaultCookies, mergeCookies } from './cookies.js';
import { AuthConfigurationError, AuthError } from '../errors/auth.errors.js';
import type { ProviderType } from '../providers/provider.types.js';
import { validateOAuthProvider } from './oauth.validate.js';
import { validateEmailProvider } from './email.validate.js';
import { validateCredentialsProvider } from './credentials.validate.js';
import { validateWebAuthnProvider } from './webauthn.validate.js';
import type { AuthModuleExtras, AuthModuleOptions, LoggerInstance } from './auth-options.interface.js';
import { AUTH_DEFAULTS, defaultCallbacks, defaultSessionToken } from './defaults.js';
import type { InternalProvider, ResolvedAuthConfig } from './resolved-config.js';

const PROVIDER_TYPES = new Set<ProviderType>(['oauth', 'oidc', 'email', 'credentials', 'webauthn']);
const URL_SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Adapter methods each feature calls (checked at bootstrap, and again by AdapterService at run time). */
export const REQUIRED_ADAPTER_METHODS = {
  database: ['createUser', 'getUser', 'getUserByEmail', 'getUserByAccount', 'updateUser', 'linkAccount', 'createSession', 'getSessionAndUser', 'updateSession', 'deleteSession'],
  email: ['createVerificationToken', 'useVerificationToken', 'getUserByEmail', 'createUser', 'updateUser'],
  webauthn: ['createUser', 'getUser', 'getUserByEmail', 'linkAccount', 'getAccount', 'getUserByAccount', 'getAuthenticator', 'createAuthenticator', 'listAuthenticatorsByUserId', 'updateAuthenticatorCounter'],
  oauth: ['createUser', 'getUser', 'getUserByEmail', 'getUserByAccount', 'linkAccount'],
  credentials: ['createUser', 'getUserByAccount', 'linkAccount'],
} satisfies Record<string, AdapterMethod[]>;

/** Runs the provider's own validation (one function per kind, owned by that kind's flow). */
function validateProvider(provider: InternalProvider, problems: string[], ctx: { hasAdapter: boolean }): void {
  if (provider.type === 'oauth' || provider.type === 'oidc') validateOAuthProvider(provider, problems, ctx);
  else if (provider.type === 'email') validateEmailProvider(provider, problems, ctx);
  else if (provider.type === 'credentials') validateCredentialsProvider(provider, problems, ctx);
  else validateWebAuthnProvider(provider, problems, ctx);
}

/**
 * Turns the module options, the extras, the adapter and the environment into the configuration the
 * flows use. Every problem is collected and reported at once, each with what to do.
 */
export function resolveConfig(
  options: AuthModuleOptions,
  extras: AuthModuleExtras,
  adapter: Adapter | null,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedAuthConfig {
  const problems: string[] = [];
  if (!options || typeof options !== 'object') {
    throw new AuthConfigurationError(['AuthModule options must be an object with at least `providers`.']);
  }

  // ---- secret ----
  const secrets = resolveSecrets(options.secret, env);
  if (secrets.length === 0) {
    problems.push('No secret: set the AUTH_SECRET environment variable or the `secret` option (32+ random characters, e.g. `openssl rand -base64 33`).');
  }
  secrets.forEach((s, i) => {
    if (typeof s !== 'string' || s.length < AUTH_DEFAULTS.minSecretLength) {
      problems.push(`secret${secrets.length > 1 ? `[${i}]` : ''} is too short (${typeof s === 'string' ? s.length : 0} characters): use at least ${AUTH_DEFAULTS.minSecretLength} random characters.`);
    }
  });

  // ---- basePath ----
  const basePath = normaliseBasePath(extras.basePath ?? AUTH_DEFAULTS.basePath);
  if (basePath === null) {
    problems.push(`basePath ${JSON.stringify(extras.basePath)} is not a URL path: use something like '/auth' or '/api/auth'.`);
  }

  // ---- session ----
  const hasAdapter = adapter != null;
  const session = options.session ?? {};
  const strategy = session.strategy ?? (hasAdapter ? 'database' : 'jwt');
  if (session.strategy !== undefined && session.strategy !== 'jwt' && session.strategy !== 'database') {
    problems.push(`session.strategy must be 'jwt' or 'database', not ${JSON.stringify(session.strategy)}.`);
  }
  const maxAge = positiveNumber(session.maxAge, AUTH_DEFAULTS.sessionMaxAge, 'session.maxAge', problems);
  const updateAge = nonNegativeNumber(session.updateAge, AUTH_DEFAULTS.sessionUpdateAge, 'session.updateAge', problems);
  const cacheTtl = nonNegativeNumber(session.cacheTtl, AUTH_DEFAULTS.sessionCacheTtl, 'session.cacheTtl', problems);
  for (const flag of ['jwtRevocation', 'hashTokens'] as const) {
    if (session[flag] !== undefined && typeof session[flag] !== 'boolean') {
      problems.push(`session.${flag} must be true or false, not ${JSON.stringify(session[flag])}.`);
    }
  }
  if (strategy === 'database') requireAdapterMethods('database sessions', REQUIRED_ADAPTER_METHODS.database, adapter, problems);

  // ---- providers ----
  const providers: InternalProvider[] = [];
  if (!Array.isArray(options.providers)) {
    problems.push('`providers` must be an array of providers, e.g. [GitHub(), Email({ server, from })].');
  } else {
    const seen = new Set<string>();
    options.providers.forEach((raw, index) => {
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
        problems.push(`${where}: unknown type ${JSON.stringify(provider.type)}; use one of oauth, oidc, email, credentials, webauthn.`);
        return;
      }
      if (typeof provider.name !== 'string' || provider.name.length === 0) {
        problems.push(`${where}: a \`name\` is required (it labels the sign-in button).`);
      }
      const c = provider.config;
      if (provider.type === 'oauth' || provider.type === 'oidc') {
        const hasDiscovery = typeof c.issuer === 'string' || typeof c.wellKnown === 'string';
        const hasEndpoints = ['authorization', 'token', 'userinfo'].every((k) => endpointUrl(c[k]) !== undefined);
        const oidcWithoutUserinfo = provider.type === 'oidc' && ['authorization', 'token'].every((k) => endpointUrl(c[k]) !== undefined) && c.idToken !== false;
        if (!hasDiscovery && !hasEndpoints && !oidcWithoutUserinfo) {
          problems.push(`${where}: set \`issuer\` (or \`wellKnown\`) for discovery, or all of \`authorization\`, \`token\` and \`userinfo\` URLs (InvalidEndpoints).`);
        }
        requireAdapterMethods(`${where} (OAuth sign-in with an adapter)`, REQUIRED_ADAPTER_METHODS.oauth, adapter, problems, true);
      } else if (provider.type === 'email') {
        requireAdapterMethods(`${where} (email sign-in)`, REQUIRED_ADAPTER_METHODS.email, adapter, problems);
      } else if (provider.type === 'webauthn') {
        requireAdapterMethods(`${where} (passkeys)`, REQUIRED_ADAPTER_METHODS.webauthn, adapter, problems);
      } else if (provider.type === 'credentials') {
        if (typeof c.authorize !== 'function') problems.push(`${where}: \`authorize(credentials, request)\` is required (MissingAuthorize).`);
        if (strategy === 'database') requireAdapterMethods(`${where} (credentials with database sessions)`, REQUIRED_ADAPTER_METHODS.credentials, adapter, problems);
      }
      try {
        validateProvider(provider, problems, { hasAdapter });
      } catch (error) {
        problems.push(`${where}: validation failed: ${(error as Error).message}`);
      }
      providers.push(provider);
    });
  }

  // ---- pages, url, cookies ----
  for (const [key, value] of Object.entries(options.pages ?? {})) {
    if (typeof value !== 'string' || !(value.startsWith('/') || /^https?:\/\//.test(value))) {
      problems.push(`pages.${key} must be a path starting with '/' (or an absolute http(s) URL), not ${JSON.stringify(value)}.`);
    }
  }
  let url: URL | undefined;
  const rawUrl = options.url ?? env.AUTH_URL;
  if (rawUrl) {
    try {
      url = new URL(rawUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    } catch {
      problems.push(`url ${JSON.stringify(rawUrl)} (or AUTH_URL) must be the app's public origin, e.g. 'https://app.example.com'.`);
      url = undefined;
    }
  }
  const redirectProxyUrl = options.redirectProxyUrl ?? env.AUTH_REDIRECT_PROXY_URL;
  if (redirectProxyUrl !== undefined && !isHttpUrl(redirectProxyUrl)) {
    problems.push(`redirectProxyUrl must be an absolute http(s) URL, not ${JSON.stringify(redirectProxyUrl)}.`);
  }
  if (!hasAdapter && strategy === 'database' && session.strategy === 'database') {
    problems.push('session.strategy is \'database\' but no adapter is available: configure a TypeORM data source (TypeOrmModule.forRoot with autoLoadEntities) or pass `adapter`.');
  }

  if (problems.length) throw new AuthConfigurationError(problems);

  const debug = options.debug === true;
  return {
    secrets,
    basePath: basePath!,
    providers,
    providerById: new Map(providers.map((p) => [p.id, p])),
    session: {
      strategy,
      maxAge,
      updateAge,
      cacheTtl,
      jwtRevocation: session.jwtRevocation === true,
      hashTokens: session.hashTokens === true,
      generateSessionToken: session.generateSessionToken ?? defaultSessionToken,
    },
    jwt: { maxAge: options.jwt?.maxAge ?? maxAge, encode: options.jwt?.encode, decode: options.jwt?.decode },
    callbacks: { ...defaultCallbacks, ...(options.callbacks ?? {}) },
    events: options.events ?? {},
    pages: options.pages ?? {},
    theme: { ...AUTH_DEFAULTS.theme, ...(options.theme ?? {}) },
    cookies: {
      plain: mergeCookies(defaultCookies(false), options.cookies),
      secure: mergeCookies(defaultCookies(true), options.cookies),
    },
    useSecureCookies: options.useSecureCookies,
    trustHost: options.trustHost ?? Boolean(env.AUTH_TRUST_HOST === 'true' || env.AUTH_TRUST_HOST === '1' || env.AUTH_URL || env.NODE_ENV !== 'production'),
    url,
    redirectProxyUrl,
    debug,
    logger: createLogger(options.logger, debug),
    hasAdapter,
  };
}

/** `secret` option, else AUTH_SECRET (with AUTH_SECRET_1..3 for rotation, newest first, as Auth.js). */
function resolveSecrets(secret: string | string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  if (Array.isArray(secret)) return secret.filter((s) => s !== undefined && s !== '');
  if (typeof secret === 'string' && secret !== '') return [secret];
  const fromEnv: string[] = [];
  if (env.AUTH_SECRET) fromEnv.push(env.AUTH_SECRET);
  for (const i of [1, 2, 3]) {
    const s = env[`AUTH_SECRET_${i}`];
    if (s) fromEnv.unshift(s);
  }
  return fromEnv;
}

function normaliseBasePath(path: unknown): string | null {
  if (typeof path !== 'string') return null;
  const trimmed = '/' + path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '/') return null;
  return /^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed) ? trimmed : null;
}

/** Calls provider functions, merges a factory's `options` over its defaults and applies env defaults. */
function normaliseProvider(raw: unknown, env: NodeJS.ProcessEnv, index: number, problems: string[]): InternalProvider | null {
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

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function positiveNumber(value: unknown, fallback: number, name: string, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    problems.push(`${name} must be a positive number of seconds, not ${JSON.stringify(value)}.`);
    return fallback;
  }
  return value;
}

function nonNegativeNumber(value: unknown, fallback: number, name: string, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    problems.push(`${name} must be zero or a positive number of seconds, not ${JSON.stringify(value)}.`);
    return fallback;
  }
  return value;
}

/**
 * Reports methods the adapter lacks for a feature. With `optional`, a missing adapter is fine (OAuth
 * runs stateless without one) but a present adapter must be complete.
 */
function requireAdapterMethods(feature: string, methods: AdapterMethod[], adapter: Adapter | null, problems: string[], optional = false): void {
  if (!adapter) {
    if (!optional) {
      problems.push(`${feature} needs storage but no adapter is available: add TypeOrmModule.forRoot({ ..., autoLoadEntities: true }) to your app (the default TypeOrmAdapter then stores everything), or pass \`adapter\` (e.g. MemoryAdapter for tests) to AuthModule (MissingAdapter).`);
    }
    return;
  }
  const missing = methods.filter((m) => typeof (adapter as Record<string, unknown>)[m] !== 'function');
  if (missing.length) {
    problems.push(`${feature}: the adapter lacks ${missing.join(', ')} (MissingAdapterMethods); implement them or use an adapter that has them.`);
  }
}

/** The default logger: Nest's Logger; never logs more than the error's type and message. */
function createLogger(custom: Partial<LoggerInstance> | undefined, debug: boolean): LoggerInstance {
  const nest = new Logger('AuthModule');
  return {
    error: custom?.error ?? ((error: Error) => {
      const type = error instanceof AuthError ? error.type : error.name;
      nest.error(`[${type}] ${error.message}`);
    }),
    warn: custom?.warn ?? ((code: string) => nest.warn(code)),
    debug: custom?.debug ?? ((message: string, metadata?: unknown) => {
      if (debug) nest.debug(metadata === undefined ? message : `${message} ${safeJson(metadata)}`);
    }),
  };
}

const SECRET_KEYS = /token|secret|code|cookie|password|verifier|nonce|state|authorization|challenge|key/i;

/** Debug metadata with anything that looks like a secret redacted. */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (key, v) => (key && SECRET_KEYS.test(key) ? '[redacted]' : v));
  } catch {
    return '[unserialisable]';
  }
}
