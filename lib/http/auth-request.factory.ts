import type { Request, Response } from 'express';
import { safeJson } from '../util/safe-json.js';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { AuthRequest, AuthResponse } from '../types/http.types.js';
import { firstHeader, resolvePublicUrl, type RequestTarget } from '../core/public-origin.js';
import { PAGE_HEADERS, setBaseHeaders } from './response-headers.js';

/** Whether the request gets the secure cookie names (cheap: used by the guard on every request). */
export function isSecureRequest(req: Request, config: ResolvedAuthConfig): boolean {
  if (config.useSecureCookies !== undefined) return config.useSecureCookies;
  if (config.url) return config.url.protocol === 'https:';
  if ((req.socket as { encrypted?: boolean } | undefined)?.encrypted) return true;
  // Without X-Forwarded-Proto only the socket can say https (skips Express's trust-proxy lookup).
  const forwarded = req.headers['x-forwarded-proto'];
  if (forwarded === undefined) return false;
  if (req.secure) return true;
  return config.trustHost && firstHeader(forwarded) === 'https';
}

/** Parses the Cookie header; malformed pairs are dropped, never thrown. */
export function requestCookies(header: string | undefined): Record<string, string> {
  if (!header) return {};
  if (header.length > 32_768) return {};
  try {
    // Every value is a string (undecodable ones are kept as sent); the object has no prototype.
    return parseCookie(header) as Record<string, string>;
  } catch {
    return {};
  }
}

/** Builds the plain request the flows see. */
export function toAuthRequest(req: Request, config: ResolvedAuthConfig): AuthRequest {
  const url = resolvePublicUrl(targetOf(req), config);
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
  const body =
    req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  return {
    method: req.method.toUpperCase(),
    url,
    headers,
    cookies: requestCookies(headers.cookie),
    query,
    body,
    ip: typeof req.ip === 'string' ? req.ip : undefined,
  };
}

/**
 * Writes a flow's response to Express: every answer of the module goes through here, with the
 * headers every answer carries ({@link BASE_RESPONSE_HEADERS}) set first and the response's own
 * `headers` over them. `X-Auth-Return-Redirect` turns a redirect into `200 {url}`.
 */
export function writeAuthResponse(req: Request, res: Response, response: AuthResponse): void {
  if (res.headersSent) return;
  setBaseHeaders(res);
  for (const c of response.cookies ?? []) {
    res.append('Set-Cookie', stringifySetCookie({ name: c.name, value: c.value, ...c.options }));
  }
  for (const [k, v] of Object.entries(response.headers ?? {})) res.setHeader(k, v);
  if (response.redirect) {
    if (req.headers['x-auth-return-redirect']) {
      res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(safeJson({ url: response.redirect }));
      return;
    }
    res
      .status(response.status ?? 302)
      .setHeader('Location', response.redirect)
      .end();
    return;
  }
  res.status(response.status ?? 200);
  if (response.html !== undefined) {
    for (const [k, v] of Object.entries(PAGE_HEADERS)) res.setHeader(k, v);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(response.html);
  } else if (response.json !== undefined) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(safeJson(response.json));
  } else if (response.body !== undefined) {
    res.setHeader('Content-Type', response.body.contentType);
    res.end(response.body.content);
  } else {
    res.end();
  }
}

/** What the origin rules need of an Express request. */
function targetOf(req: Request): RequestTarget {
  return {
    target: req.originalUrl ?? req.url,
    headers: req.headers,
    encrypted: (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true,
  };
}
