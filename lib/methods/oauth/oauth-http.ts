import type { NormalizedOAuthProvider } from './oauth.normalize.js';
import type { OAuth4WebApi } from '../../util/oauth4webapi.js';
import { readCappedBody } from '../../util/read-capped.js';

/** How long one request to a provider may take (discovery, token, userinfo, JWKS). */
export const OAUTH_HTTP_TIMEOUT_MS = 10_000;
/** Largest provider response read (discovery documents, JWKS, token and userinfo responses). */
export const OAUTH_MAX_RESPONSE_BYTES = 512 * 1024;
/** Hosts a provider may be reached on over plain http. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What oauth4webapi hands its `[customFetch]`; never follows redirects (it asks for `manual`). */
export type FetchInit = {
  method: string;
  headers: Record<string, string>;
  body?: unknown;
  redirect: 'manual';
  signal?: AbortSignal;
};

/** fetch with a timeout and a cap on the body size, through the provider's `customFetch` when it has one. */
export async function boundedFetch(
  url: string,
  init: FetchInit,
  customFetch?: (url: string, init: RequestInit) => Promise<Response>,
): Promise<Response> {
  const signal = init.signal
    ? AbortSignal.any([init.signal, AbortSignal.timeout(OAUTH_HTTP_TIMEOUT_MS)])
    : AbortSignal.timeout(OAUTH_HTTP_TIMEOUT_MS);
  const response = await (customFetch ?? fetch)(url, { ...(init as RequestInit), signal });
  if (!response.body || response.status === 204 || response.status === 304) return response;
  // Node's fetch reads no more of an unencoded body than its declared length: one within the cap
  // goes on as it is (read later under the same time limit), without copying it into a new Response.
  if (!customFetch && declaredWithin(response.headers, OAUTH_MAX_RESPONSE_BYTES)) return response;
  const body = await readCappedBody(response, OAUTH_MAX_RESPONSE_BYTES);
  if (!body) throw new Error(`the response from ${new URL(url).origin} is too large`);
  const headers = new Headers(response.headers);
  headers.delete('content-encoding');
  headers.delete('content-length');
  return new Response(new Uint8Array(body), { status: response.status, statusText: response.statusText, headers });
}

/**
 * Whether a response's body is bounded by its headers within `max` bytes: a `Content-Length` of at
 * most `max`, no `Transfer-Encoding`, and no `Content-Encoding` but `identity` (a compressed body's
 * length says nothing about what it decompresses to).
 */
function declaredWithin(headers: Headers, max: number): boolean {
  const length = headers.get('content-length');
  if (length === null || !/^\d{1,9}$/.test(length) || Number(length) > max) return false;
  const encoding = headers.get('content-encoding');
  return (
    headers.get('transfer-encoding') === null && (encoding === null || encoding.trim().toLowerCase() === 'identity')
  );
}

/**
 * oauth4webapi transport options (keyed by symbols of the loaded module `o`): bounded fetch, plain
 * http only for loopback hosts.
 */
export function oauthTransport(o: OAuth4WebApi, p: NormalizedOAuthProvider, target: string | URL) {
  return {
    [o.customFetch]: (url: string, init: FetchInit) => boundedFetch(url, init, p.customFetch),
    [o.allowInsecureRequests]: isLoopback(target),
  };
}

/** The URL, or undefined when the string is not one. */
export function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** True for URLs on localhost, 127.0.0.1 or [::1] (the only hosts reached over plain http). */
export function isLoopback(target: string | URL): boolean {
  const url = typeof target === 'string' ? safeUrl(target) : target;
  return url !== undefined && LOOPBACK.has(url.hostname);
}
