import type { IncomingHttpHeaders } from 'node:http';
import { safeJson } from '../util/safe-json.js';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { AuthRequest, AuthResponse } from '../types/http.types.js';
import type { SessionLookup } from '../session/session.types.js';
import { MAX_COOKIE_HEADER } from '../session/session-cookie.js';
import { firstHeader, resolvePublicUrl, type RequestTarget } from '../core/public-origin.js';
import { BASE_RESPONSE_HEADERS, PAGE_HEADERS } from './response-headers.js';

/** What the session readers need of a request, on any platform (Express and Fastify requests both have it). */
export interface HttpRequestLike {
  headers: IncomingHttpHeaders;
  socket?: unknown;
  /** `https` behind a proxy the platform trusts (Express `trust proxy`, Fastify `trustProxy`). */
  protocol?: string;
}

/** Whether the request gets the secure cookie names (cheap: used by the guard on every request). */
export function isSecureRequest(req: HttpRequestLike, config: ResolvedAuthConfig): boolean {
  if (config.useSecureCookies !== undefined) return config.useSecureCookies;
  if (config.url) return config.url.protocol === 'https:';
  if ((req.socket as { encrypted?: boolean } | undefined)?.encrypted) return true;
  // Without X-Forwarded-Proto only the socket can say https (skips the platform's trust-proxy lookup).
  const forwarded = req.headers['x-forwarded-proto'];
  if (forwarded === undefined) return false;
  if (req.protocol === 'https') return true;
  return config.trustHost && firstHeader(forwarded) === 'https';
}

/** Parses the Cookie header; malformed pairs are dropped, never thrown. */
export function requestCookies(header: string | undefined): Record<string, string> {
  if (!header) return {};
  if (header.length > MAX_COOKIE_HEADER) return {};
  try {
    // Every value is a string (undecodable ones are kept as sent); the object has no prototype.
    return parseCookie(header) as Record<string, string>;
  } catch {
    return {};
  }
}

/**
 * A request's session credentials read from its headers. The session cookie is read from the
 * Cookie header itself (`cookieHeader`); the other cookies are parsed only when something asks for
 * `cookies` (clearing a bad session cookie, a non-default reader), once. The header and the parsed
 * cookies live in private fields behind getters, so a copy (`{ ...lookup, cookies }`) carries
 * neither, and can never pair new cookies with the old header.
 */
export class HeaderSessionLookup implements SessionLookup {
  readonly #header: string | undefined;
  #parsed: Record<string, string> | undefined;

  constructor(
    header: string | undefined,
    readonly authorization: string | undefined,
    readonly secure: boolean,
  ) {
    this.#header = header;
  }

  get cookieHeader(): string | undefined {
    return this.#header;
  }

  get cookies(): Record<string, string> {
    return (this.#parsed ??= requestCookies(this.#header));
  }
}

/** The session credentials of an HTTP request (Express or Fastify): what the guard and `AuthService` read. */
export function sessionLookupOf(req: HttpRequestLike, config: ResolvedAuthConfig): SessionLookup {
  const header = req.headers.cookie;
  return new HeaderSessionLookup(
    typeof header === 'string' ? header : undefined,
    req.headers.authorization,
    isSecureRequest(req, config),
  );
}

/** Adds a `Set-Cookie` header to an Express response or a Fastify reply (both keep earlier ones). */
export function appendSetCookie(res: unknown, cookie: { name: string; value: string; options: object }): void {
  const value = stringifySetCookie({ name: cookie.name, value: cookie.value, ...cookie.options });
  const target = res as { append?: (n: string, v: string) => unknown; header?: (n: string, v: string) => unknown };
  if (typeof target.append === 'function') target.append('Set-Cookie', value);
  else if (typeof target.header === 'function') target.header('set-cookie', value);
}

/** What a platform's request gives {@link buildAuthRequest}. */
export interface RawRequestParts extends RequestTarget {
  method: string;
  body: unknown;
  ip: unknown;
}

/** Builds the plain request the flows see from what a platform's request holds. */
export function buildAuthRequest(parts: RawRequestParts, config: ResolvedAuthConfig): AuthRequest {
  const url = resolvePublicUrl(parts, config);
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(parts.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
  const { body } = parts;
  return {
    method: parts.method.toUpperCase(),
    url,
    headers,
    cookies: requestCookies(headers.cookie),
    query,
    body: body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {},
    ip: typeof parts.ip === 'string' ? parts.ip : undefined,
  };
}

/** The few operations {@link writeAuthResponse} needs of a platform's response object. */
export interface ResponseSink {
  readonly sent: boolean;
  status(code: number): void;
  header(name: string, value: string): void;
  cookie(cookie: { name: string; value: string; options: object }): void;
  end(body?: string): void;
}

/**
 * Writes a flow's response through a platform's sink: every answer of the module goes through here,
 * with the headers every answer carries ({@link BASE_RESPONSE_HEADERS}) set first and the response's
 * own `headers` over them. `X-Auth-Return-Redirect` turns a redirect into `200 {url}`.
 */
export function writeAuthResponse(
  requestHeaders: IncomingHttpHeaders,
  res: ResponseSink,
  response: AuthResponse,
): void {
  if (res.sent) return;
  for (const [k, v] of Object.entries(BASE_RESPONSE_HEADERS)) res.header(k, v);
  for (const c of response.cookies ?? []) res.cookie(c);
  for (const [k, v] of Object.entries(response.headers ?? {})) res.header(k, v);
  if (response.redirect) {
    if (requestHeaders['x-auth-return-redirect']) {
      res.status(200);
      res.header('Content-Type', 'application/json; charset=utf-8');
      res.end(safeJson({ url: response.redirect }));
      return;
    }
    res.status(response.status ?? 302);
    res.header('Location', response.redirect);
    res.end();
    return;
  }
  res.status(response.status ?? 200);
  if (response.html !== undefined) {
    for (const [k, v] of Object.entries(PAGE_HEADERS)) res.header(k, v);
    res.header('Content-Type', 'text/html; charset=utf-8');
    res.end(response.html);
  } else if (response.json !== undefined) {
    res.header('Content-Type', 'application/json; charset=utf-8');
    res.end(safeJson(response.json));
  } else if (response.body !== undefined) {
    res.header('Content-Type', response.body.contentType);
    res.end(response.body.content);
  } else {
    res.end();
  }
}
