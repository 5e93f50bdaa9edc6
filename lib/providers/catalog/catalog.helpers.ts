import { OAuthCallbackError } from '../../errors/auth.errors.js';
import type { TokenSet, User } from '../../types/common.types.js';
import { readCappedBody } from '../../util/read-capped.js';

/** What the catalogue's custom requests need from the provider the flow hands them. */
export interface CatalogProviderContext {
  id?: string;
  name?: string;
  clientId?: string;
  clientSecret?: string;
  /** Absolute callback URL (`redirect_uri`), when the flow provides it. */
  callbackUrl?: string;
  customFetch?: (url: string, init: RequestInit) => Promise<Response>;
  token?: unknown;
  userinfo?: unknown;
}

/** How long a vendor API call made by a catalogue factory may take before it is abandoned. */
export const VENDOR_REQUEST_TIMEOUT_MS = 10_000;

/** Largest vendor API answer read by a catalogue factory (profiles are a few kilobytes). */
export const VENDOR_MAX_RESPONSE_BYTES = 512 * 1024;

/**
 * The URL of an endpoint as the flow hands it over (a string, a `URL`, or `{ url }`), else `fallback`.
 * Custom requests read it from the provider so that a user's `url` override (a proxy, a test
 * server) is honoured.
 */
export function endpointUrl(endpoint: unknown, fallback?: string): URL {
  if (typeof endpoint === 'string') return new URL(endpoint);
  if (endpoint instanceof URL) return new URL(endpoint.href);
  if (endpoint && typeof endpoint === 'object') {
    const url = (endpoint as { url?: unknown }).url;
    if (typeof url === 'string') return new URL(url);
    if (url instanceof URL) return new URL(url.href);
  }
  if (fallback === undefined) throw new OAuthCallbackError('The provider has no URL for this endpoint; set its `url`.');
  return new URL(fallback);
}

/**
 * Calls a vendor API (with the provider's `customFetch` when set) and parses the JSON body. A
 * non-2xx answer, a timeout or a body that is not JSON becomes an {@link OAuthCallbackError} that
 * names the provider and the HTTP status, never the token.
 */
export async function vendorJson<T>(
  provider: CatalogProviderContext,
  url: URL | string,
  init: RequestInit = {},
): Promise<T> {
  const doFetch = provider.customFetch ?? fetch;
  const label = provider.name ?? provider.id ?? 'The provider';
  let response: Response;
  try {
    response = await doFetch(String(url), {
      ...init,
      headers: { accept: 'application/json', ...(init.headers as Record<string, string> | undefined) },
      signal: init.signal ?? AbortSignal.timeout(VENDOR_REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new OAuthCallbackError(
      `${label}: the request to ${new URL(String(url)).origin} failed (${(error as Error).name}).`,
      { cause: error },
    );
  }
  const origin = new URL(String(url)).origin;
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new OAuthCallbackError(`${label}: ${origin} answered HTTP ${response.status}.`);
  }
  const text = await readCapped(response, VENDOR_MAX_RESPONSE_BYTES);
  if (text === undefined) throw new OAuthCallbackError(`${label}: the answer of ${origin} is too large.`);
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new OAuthCallbackError(`${label}: ${origin} did not answer with JSON.`, { cause: error });
  }
}

/** The body as text, or `undefined` when it is larger than `max` bytes (reading stops there). */
async function readCapped(response: Response, max: number): Promise<string | undefined> {
  return (await readCappedBody(response, max))?.toString('utf8');
}

/** `Authorization: Bearer <access token>` (other schemes through `scheme`). */
export function authorizationHeader(tokens: TokenSet, scheme = 'Bearer'): Record<string, string> {
  if (typeof tokens.access_token !== 'string' || tokens.access_token === '') {
    throw new OAuthCallbackError('The token response carried no access_token.');
  }
  return { authorization: `${scheme} ${tokens.access_token}` };
}

/** The standard OpenID Connect claims `standardClaimsUser` reads. */
export interface StandardClaims {
  sub?: string | null;
  id?: string | number | null;
  name?: string | null;
  nickname?: string | null;
  preferred_username?: string | null;
  email?: string | null;
  picture?: unknown;
}

/**
 * The user of a standard OpenID Connect profile: `sub` as the id, `name` (else nickname or
 * preferred username), `email` and `picture`.
 */
export function standardClaimsUser(profile: StandardClaims): User {
  return {
    id: accountId(profile.sub ?? profile.id),
    name: profile.name ?? profile.nickname ?? profile.preferred_username ?? null,
    email: profile.email ?? null,
    image: typeof profile.picture === 'string' ? profile.picture : null,
  };
}

/**
 * The account id from a vendor's id field: a non-empty string, or a finite number as a string;
 * otherwise `undefined`, which the flow refuses. Never `'undefined'`: an answer without an id must
 * not become an account that every such answer signs in to.
 */
export function accountId(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  return undefined;
}

/** Joins name parts, skipping empty ones; `null` when nothing is left. */
export function joinName(...parts: Array<string | null | undefined>): string | null {
  const name = parts
    .filter((p) => typeof p === 'string' && p.trim() !== '')
    .join(' ')
    .trim();
  return name === '' ? null : name;
}

/**
 * A token response rebuilt with a JSON body (for `token.conform`): keeps the status, drops the
 * length header that no longer matches.
 */
export function jsonResponse(body: unknown, from: Response, dropHeaders: string[] = []): Response {
  const headers = new Headers(from.headers);
  for (const name of ['content-length', 'content-encoding', ...dropHeaders]) headers.delete(name);
  headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(body), { status: from.status, statusText: from.statusText, headers });
}

/**
 * Reads an env var at factory time: for the few defaults that must be known when the factory runs
 * (a URL built from the client id or the instance URL), before the module applies
 * `AUTH_<ID>_ID` / `AUTH_<ID>_SECRET` / `AUTH_<ID>_ISSUER` itself.
 */
export function envDefault(name: string): string | undefined {
  const value = typeof process === 'undefined' ? undefined : process.env[name];
  return value === '' ? undefined : value;
}

/** Removes trailing slashes from a base URL. */
export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
