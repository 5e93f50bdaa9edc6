import type { Adapter } from '../adapters/adapter.interface.js';
import { REFRESH_TOKEN_ADAPTER_METHODS } from '../adapters/adapter-extensions.js';
import type { ResolvedAccessToken } from './access-token.options.js';
import type { NativeAppsOptions, NativeClientOptions } from './auth-options.interface.js';

/** How a registered redirect URI is matched (RFC 8252 section 7). */
export type RedirectKind = 'https' | 'scheme' | 'loopback';

/** A registered redirect URI as the module matches it. */
export interface RegisteredRedirect {
  kind: RedirectKind;
  /** As registered (compared exactly, but for a loopback URI's port). */
  uri: string;
  /** Loopback only: the host (`127.0.0.1` or `[::1]`) and what follows the port. */
  host?: string;
  rest?: string;
}

/** A registered native client. */
export interface ResolvedNativeClient {
  clientId: string;
  name: string;
  redirectUris: readonly RegisteredRedirect[];
}

/** `nativeApps` as the module runs with it. */
export interface ResolvedNativeApps {
  clients: ReadonlyMap<string, ResolvedNativeClient>;
  codeMaxAge: number;
  refreshMaxAge: number;
  reuseWindow: number;
}

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** A private-use scheme: a reversed domain name, so it has a dot (RFC 8252 section 7.1). */
const PRIVATE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;
/** Schemes that are not an app's, whatever their shape. */
const NOT_APP_SCHEMES = new Set([
  'http',
  'https',
  'javascript',
  'data',
  'file',
  'blob',
  'about',
  'vbscript',
  'ws',
  'wss',
]);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);
const REDIRECT_MAX = 2048;

const KEYS: ReadonlySet<string> = new Set(
  Object.keys({ clients: 0, codeMaxAge: 0, refreshMaxAge: 0, reuseWindow: 0 } satisfies Record<
    keyof NativeAppsOptions,
    0
  >),
);
const CLIENT_KEYS: ReadonlySet<string> = new Set(
  Object.keys({ clientId: 0, name: 0, redirectUris: 0 } satisfies Record<keyof NativeClientOptions, 0>),
);

/**
 * How a redirect URI is registered, or a sentence saying what is wrong with it. Loopback URIs are
 * `http://127.0.0.1` or `http://[::1]` (`localhost` is refused: RFC 8252 section 8.3 advises against
 * it, as a name may resolve elsewhere); claimed links are `https`; anything else must be a
 * private-use scheme named after a reversed domain.
 */
export function registeredRedirect(uri: unknown): RegisteredRedirect | string {
  if (typeof uri !== 'string' || !uri || uri.length > REDIRECT_MAX) return 'must be a URI of up to 2048 characters';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.hash || uri.includes('#')) return 'must not have a fragment (RFC 6749 section 3.1.2)';
  if (url.username || url.password) return 'must not carry credentials';
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') {
    if (url.href !== uri) return `must be written as it is sent, ${JSON.stringify(url.href)}`;
    return { kind: 'https', uri };
  }
  if (scheme === 'http') {
    if (url.hostname === 'localhost')
      return 'uses localhost: write http://127.0.0.1 (or http://[::1]) instead, as RFC 8252 section 8.3 advises';
    if (!LOOPBACK_HOSTS.has(url.hostname))
      return 'is http on a host other than 127.0.0.1 or [::1]: use https (a claimed link) or a private-use scheme';
    const loopback = loopbackParts(uri);
    if (!loopback) return `must be written as it is sent, ${JSON.stringify(url.href)}`;
    return { kind: 'loopback', uri, ...loopback };
  }
  if (NOT_APP_SCHEMES.has(scheme) || !PRIVATE_SCHEME.test(scheme))
    return `has the scheme "${scheme}": a private-use scheme is a domain the app owns, reversed (e.g. com.example.app:/oauth)`;
  return { kind: 'scheme', uri };
}

/** A loopback URI's host and what follows its port, when it is written as the URL parser writes it. */
function loopbackParts(uri: string): { host: string; rest: string } | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || url.username || url.password || url.hash)
    return null;
  const rest = url.pathname + url.search;
  // Written as parsed: no dot segments, no default port spelled out, nothing normalised away.
  if (`http://${url.host}${rest}` !== uri) return null;
  return { host: url.hostname, rest };
}

/**
 * Whether `requested` is one of the client's registered redirect URIs: exactly, character for
 * character, except that a registered loopback URI accepts any port (RFC 8252 section 7.3).
 */
export function redirectMatches(client: ResolvedNativeClient, requested: unknown): requested is string {
  if (typeof requested !== 'string' || !requested || requested.length > REDIRECT_MAX) return false;
  let loopback: { host: string; rest: string } | null | undefined;
  for (const registered of client.redirectUris) {
    if (registered.uri === requested) return true;
    if (registered.kind !== 'loopback') continue;
    loopback ??= loopbackParts(requested);
    if (loopback && loopback.host === registered.host && loopback.rest === registered.rest) return true;
  }
  return false;
}

/** Whether the `nativeApps` option turns native apps on (then access tokens are needed). */
export function nativeAppsGiven(option: unknown): boolean {
  return option !== undefined && option !== null && option !== false;
}

/**
 * Checks and resolves `nativeApps` (`null` when absent), with the resolved `accessToken` its tokens
 * use. Each problem is pushed as one sentence saying what to write instead.
 */
export function resolveNativeApps(
  option: unknown,
  accessToken: ResolvedAccessToken,
  context: { adapter: Adapter | null },
  problems: string[],
): ResolvedNativeApps | null {
  if (!nativeAppsGiven(option)) return null;
  if (typeof option !== 'object' || Array.isArray(option)) {
    problems.push('nativeApps must be an object ({ clients: [...] }); leave it out to turn native apps off.');
    return null;
  }
  const o = option as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!KEYS.has(key)) problems.push(`nativeApps.${key} is not an option; the options are ${[...KEYS].join(', ')}.`);
  const count = (key: string, fallback: number, min: number, max: number): number => {
    const value = o[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      problems.push(
        `nativeApps.${key} must be a whole number of seconds from ${min} to ${max}, not ${JSON.stringify(value)}.`,
      );
      return fallback;
    }
    return value;
  };
  const clients = new Map<string, ResolvedNativeClient>();
  if (!Array.isArray(o.clients) || o.clients.length === 0)
    problems.push(
      "nativeApps.clients must list the apps, e.g. [{ clientId: 'ios', redirectUris: ['com.example.app:/oauth'] }].",
    );
  for (const [i, raw] of (Array.isArray(o.clients) ? o.clients : []).entries()) {
    const client = resolveClient(raw, `nativeApps.clients[${i}]`, problems);
    if (!client) continue;
    if (clients.has(client.clientId))
      problems.push(`nativeApps.clients: the client id "${client.clientId}" is listed twice.`);
    clients.set(client.clientId, client);
  }
  const resolved: ResolvedNativeApps = {
    clients,
    codeMaxAge: count('codeMaxAge', 60, 10, 600),
    refreshMaxAge: count('refreshMaxAge', 30 * 86_400, 300, 400 * 86_400),
    reuseWindow: count('reuseWindow', 30, 0, 300),
  };
  if (accessToken.issuer === null)
    problems.push(
      "nativeApps needs a stable issuer for its access tokens: set `url` (or AUTH_URL) to the API's public origin, or `accessToken.issuer` (e.g. 'https://api.example.com/auth').",
    );
  if (!context.adapter) {
    problems.push(
      'nativeApps needs storage for refresh tokens and sessions but no adapter is available: configure a TypeORM data source (the default TypeOrmAdapter stores them in `refresh_token_families`) or pass an `adapter` (MissingAdapter).',
    );
    return resolved;
  }
  const adapter = context.adapter as unknown as Record<string, unknown>;
  const needed = [
    ...REFRESH_TOKEN_ADAPTER_METHODS,
    'createSession',
    'getSessionAndUser',
    'deleteSession',
    'listSessionsByUserId',
    'getUser',
  ];
  const missing = needed.filter((m) => typeof adapter[m] !== 'function');
  if (missing.length)
    problems.push(
      `nativeApps: the adapter lacks ${missing.join(', ')} (MissingAdapterMethods): use TypeOrmAdapter with its RefreshFamilyEntity (table refresh_token_families, migration AuthRefreshFamilies…) or MemoryAdapter, or implement RefreshTokenAdapter.`,
    );
  return resolved;
}

function resolveClient(raw: unknown, at: string, problems: string[]): ResolvedNativeClient | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${at} must be an object ({ clientId, redirectUris }).`);
    return null;
  }
  const c = raw as Record<string, unknown>;
  for (const key of Object.keys(c))
    if (!CLIENT_KEYS.has(key))
      problems.push(`${at}.${key} is not an option; the options are ${[...CLIENT_KEYS].join(', ')}.`);
  if (typeof c.clientId !== 'string' || !CLIENT_ID.test(c.clientId)) {
    problems.push(
      `${at}.clientId must be 1 to 128 letters, digits, ".", "_" or "-", not ${JSON.stringify(c.clientId)}.`,
    );
    return null;
  }
  if (c.name !== undefined && (typeof c.name !== 'string' || !c.name.trim() || c.name.length > 100))
    problems.push(`${at}.name must be a name of up to 100 characters.`);
  const uris: RegisteredRedirect[] = [];
  if (!Array.isArray(c.redirectUris) || c.redirectUris.length === 0)
    problems.push(`${at}.redirectUris must list where the app receives the code, e.g. ['com.example.app:/oauth'].`);
  for (const uri of Array.isArray(c.redirectUris) ? c.redirectUris : []) {
    const registered = registeredRedirect(uri);
    if (typeof registered === 'string') problems.push(`${at}.redirectUris: ${JSON.stringify(uri)} ${registered}.`);
    else uris.push(registered);
  }
  return {
    clientId: c.clientId,
    name: typeof c.name === 'string' && c.name.trim() ? c.name.trim() : c.clientId,
    redirectUris: uris,
  };
}
