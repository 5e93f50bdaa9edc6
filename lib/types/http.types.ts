import type { SerializeOptions } from 'cookie';

/**
 * A request as the flows see it: plain data, no framework objects. Built once per request by
 * `http/auth-request.factory.ts`.
 */
export interface AuthRequest {
  /** Upper-case HTTP method. */
  method: string;
  /** The absolute URL of the request (origin from `url` option, trusted proxy headers, or Host). */
  url: URL;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** Cookies from the Cookie header (malformed pairs dropped). */
  cookies: Record<string, string>;
  /** Query parameters (first value of each). */
  query: Record<string, string>;
  /** Parsed JSON or form body; `{}` when there is none. Values are whatever the client sent. */
  body: Record<string, unknown>;
  /** The client's IP address, when known. */
  ip?: string;
}

/** A cookie to set (or delete: empty value and `maxAge: 0`). */
export interface ResponseCookie {
  name: string;
  value: string;
  options: SerializeOptions;
}

/**
 * What a flow answers; the HTTP layer writes it. Exactly one of `redirect`, `json`, `html`, `body`
 * is usual. The HTTP layer adds the headers every answer carries (`nosniff`, `Referrer-Policy`,
 * `Cache-Control: no-store`); `headers` override them.
 */
export interface AuthResponse {
  /** @default 302 with `redirect`, else 200 */
  status?: number;
  headers?: Record<string, string>;
  cookies?: ResponseCookie[];
  /** Absolute URL to redirect to (302, or `200 {url}` with `X-Auth-Return-Redirect`). */
  redirect?: string;
  json?: unknown;
  html?: string;
  /** Any other content (the browser script). */
  body?: { contentType: string; content: string };
}
