import type { Adapter } from '../adapters/adapter.interface.js';
import { defaultCookies, mergeCookies } from './cookies.js';
import { AuthConfigurationError } from '../errors/auth.errors.js';
import { REQUIRED_ADAPTER_METHODS, requireAdapterMethods } from './adapter-requirements.js';
import type { AuthModuleExtras, AuthModuleOptions } from './auth-options.interface.js';
import { AUTH_DEFAULTS, defaultCallbacks, defaultRedirect, defaultSessionToken } from './defaults.js';
import { createLogger } from './logger.js';
import { messageProblems, resolveMessages } from './messages/page-messages.js';
import { optionKeyProblems } from './option-keys.js';
import { pageOptionProblems } from './page-options.validate.js';
import { resolveProviders } from './resolve-providers.js';
import { resolveAccessToken } from './access-token.options.js';
import { resolveApiKeys } from './api-keys.options.js';
import { nativeAppsGiven, resolveNativeApps } from './native-apps.options.js';
import { resolveTwoFactor } from './two-factor.options.js';
import { resolveTrustedOrigins } from './trusted-origins.js';
import type { ProviderKind } from './provider-kind.js';
import { revocationBusProblems } from './revocation-bus.validate.js';
import type { ResolvedAuthConfig } from './resolved-config.js';
import { isHttpUrl, nonNegativeNumber, positiveNumber, wholeNumber } from './value-checks.js';

/** The largest `session.cacheMaxEntries` and `session.cacheMaxBytes` accepted (a typo, not a plan). */
const MAX_CACHE_ENTRIES = 10_000_000;
const MAX_CACHE_BYTES = 2 ** 32;

// Kept importable from here: specs elsewhere build provider configs with it.
export { deepMerge } from './resolve-providers.js';

/**
 * Turns the module options, the extras, the adapter and the environment into the configuration the
 * flows use, checking each provider by the sign-in method (`kinds`) that serves its type. Every
 * problem is collected and reported at once, each with what to do. The app's entry point is
 * `resolveConfig` in lib/sign-in-methods.ts, which passes the registered methods.
 */
export function resolveConfigWith(
  kinds: readonly ProviderKind[],
  options: AuthModuleOptions,
  extras: AuthModuleExtras,
  adapter: Adapter | null,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedAuthConfig {
  if (!options || typeof options !== 'object') {
    throw new AuthConfigurationError(['AuthModule options must be an object with at least `providers`.']);
  }
  const problems = optionKeyProblems(options, extras);

  // ---- secret ----
  const secrets = resolveSecrets(options.secret, env);
  if (secrets.length === 0) {
    problems.push(
      'No secret: set the AUTH_SECRET environment variable or the `secret` option (32+ random characters, e.g. `openssl rand -base64 33`).',
    );
  }
  secrets.forEach((s, i) => {
    if (typeof s !== 'string' || s.length < AUTH_DEFAULTS.minSecretLength) {
      problems.push(
        `secret${secrets.length > 1 ? `[${i}]` : ''} is too short (${typeof s === 'string' ? s.length : 0} characters): use at least ${AUTH_DEFAULTS.minSecretLength} random characters.`,
      );
    }
  });

  // ---- basePath ----
  const basePath = normaliseBasePath(extras.basePath ?? AUTH_DEFAULTS.basePath);
  if (basePath === null) {
    problems.push(
      `basePath ${JSON.stringify(extras.basePath)} is not a URL path: use something like '/auth' or '/api/auth'.`,
    );
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
  const cacheMaxEntries = wholeNumber(
    session.cacheMaxEntries,
    AUTH_DEFAULTS.sessionCacheMaxEntries,
    { name: 'session.cacheMaxEntries', max: MAX_CACHE_ENTRIES, unit: 'sessions' },
    problems,
  );
  const cacheMaxBytes = wholeNumber(
    session.cacheMaxBytes,
    AUTH_DEFAULTS.sessionCacheMaxBytes,
    { name: 'session.cacheMaxBytes', max: MAX_CACHE_BYTES, unit: 'bytes', example: '8 * 1024 * 1024' },
    problems,
  );
  for (const flag of ['jwtRevocation', 'hashTokens', 'tokens'] as const) {
    if (session[flag] !== undefined && typeof session[flag] !== 'boolean') {
      problems.push(`session.${flag} must be true or false, not ${JSON.stringify(session[flag])}.`);
    }
  }
  if (session.tokens === true && strategy !== 'jwt') {
    problems.push(
      "session.tokens keeps provider tokens in the JWT session: use it with session.strategy 'jwt' (with database sessions the tokens are on the accounts, for AuthService.getAccessToken).",
    );
  }
  const storeIp = session.storeIp === false ? 'none' : (session.storeIp ?? 'coarse');
  if (storeIp !== 'coarse' && storeIp !== 'full' && storeIp !== 'none')
    problems.push(`session.storeIp must be 'coarse', 'full', 'none' or false, not ${JSON.stringify(storeIp)}.`);
  if (strategy === 'database')
    requireAdapterMethods('database sessions', REQUIRED_ADAPTER_METHODS.database, adapter, problems);

  // ---- account ----
  const account = options.account ?? {};
  if (typeof account !== 'object' || account === null) problems.push('account must be an object.');
  const recentSignInMaxAge = positiveNumber(
    (account as { recentSignInMaxAge?: unknown }).recentSignInMaxAge,
    AUTH_DEFAULTS.recentSignInMaxAge,
    'account.recentSignInMaxAge',
    problems,
  );

  const twoFactor = resolveTwoFactor(options.twoFactor, adapter, problems);

  // ---- providers ----
  const providers = resolveProviders(options.providers, { env, adapter, hasAdapter, strategy }, kinds, problems);

  // ---- pages, url, cookies ----
  problems.push(...pageOptionProblems(options.pages), ...messageProblems(options.messages));
  let url: URL | undefined;
  const rawUrl = options.url ?? env.AUTH_URL;
  if (rawUrl) {
    try {
      url = new URL(rawUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    } catch {
      problems.push(
        `url ${JSON.stringify(rawUrl)} (or AUTH_URL) must be the app's public origin, e.g. 'https://app.example.com'.`,
      );
      url = undefined;
    }
  }
  const trustedOrigins = resolveTrustedOrigins(options.trustedOrigins, problems);
  const accessToken = resolveAccessToken(
    options.accessToken,
    { adapter, url, basePath: basePath ?? '/auth', required: nativeAppsGiven(options.nativeApps) },
    problems,
  );
  const nativeApps = resolveNativeApps(options.nativeApps, accessToken, { adapter }, problems);
  const apiKeys = resolveApiKeys(options.apiKeys, adapter, problems);
  const redirectProxyUrl = options.redirectProxyUrl ?? env.AUTH_REDIRECT_PROXY_URL;
  if (redirectProxyUrl !== undefined && !isHttpUrl(redirectProxyUrl)) {
    problems.push(`redirectProxyUrl must be an absolute http(s) URL, not ${JSON.stringify(redirectProxyUrl)}.`);
  }
  problems.push(...revocationBusProblems(extras.revocationBus));
  if (!hasAdapter && strategy === 'database' && session.strategy === 'database') {
    problems.push(
      "session.strategy is 'database' but no adapter is available: configure a TypeORM data source (TypeOrmModule.forRoot with autoLoadEntities) or pass `adapter`.",
    );
  }

  if (options.encryptAccountTokens !== undefined && typeof options.encryptAccountTokens !== 'boolean') {
    problems.push(`encryptAccountTokens must be true or false, not ${JSON.stringify(options.encryptAccountTokens)}.`);
  }
  if (options.rpc !== undefined && options.rpc !== 'token' && options.rpc !== 'skip') {
    problems.push(`rpc must be 'token' or 'skip', not ${JSON.stringify(options.rpc)}.`);
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
      cacheMaxEntries,
      cacheMaxBytes,
      jwtRevocation: session.jwtRevocation === true,
      hashTokens: session.hashTokens === true,
      tokens: session.tokens === true,
      storeIp,
      generateSessionToken: session.generateSessionToken ?? defaultSessionToken,
    },
    account: { recentSignInMaxAge },
    twoFactor,
    nativeApps,
    accessToken,
    apiKeys,
    jwt: { maxAge: options.jwt?.maxAge ?? maxAge, encode: options.jwt?.encode, decode: options.jwt?.decode },
    callbacks: {
      ...defaultCallbacks,
      // The default `redirect` also sends the user back to a trusted front-end origin.
      ...(trustedOrigins.size
        ? { redirect: ({ url: to, baseUrl }) => defaultRedirect(to, baseUrl, trustedOrigins) }
        : {}),
      ...(options.callbacks ?? {}),
    },
    events: options.events ?? {},
    pages: options.pages ?? {},
    theme: { ...AUTH_DEFAULTS.theme, ...(options.theme ?? {}) },
    messages: resolveMessages(options.messages),
    cookies: {
      plain: mergeCookies(defaultCookies(false), options.cookies),
      secure: mergeCookies(defaultCookies(true), options.cookies),
    },
    useSecureCookies: options.useSecureCookies,
    trustHost:
      options.trustHost ??
      Boolean(
        env.AUTH_TRUST_HOST === 'true' || env.AUTH_TRUST_HOST === '1' || env.AUTH_URL || env.NODE_ENV !== 'production',
      ),
    url,
    trustedOrigins,
    redirectProxyUrl,
    debug,
    encryptAccountTokens: options.encryptAccountTokens,
    rpc: options.rpc ?? 'token',
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
