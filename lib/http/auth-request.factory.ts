import type { Request, Response } from 'express';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { UntrustedHost, InvalidRequest } from '../errors/auth.errors.js';
import type { AuthRequest, AuthResponse } from '../core/http.types.js';

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The public origin of a request: the `url` option (AUTH_URL) when set; otherwise, with `trustHost`,
 * `X-Forwarded-Proto`/`X-Forwarded-Host` or the Host header. Without either, absolute URLs (magic
 * links, OAuth callbacks) would follow an attacker-chosen Host, so the request is refused.
 */
export function requestOrigin(req: Request, config: ResolvedAuthConfig): string {
  if (config.url) return config.url.origin;
  if (!config.trustHost) {
    throw new UntrustedHost('Set the `url` option (or AUTH_URL) to the public origin, or `trustHost: true` behind a proxy you control.');
  }
  const forwardedHost = firstHeader(req.headers['x-forwarded-host']);
  const forwardedProto = firstHeader(req.headers['x-forwarded-proto']);
  const host = forwardedHost ?? firstHeader(req.headers.host);
  const proto = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : req.protocol;
  if (!host || !HOST.test(host)) throw new InvalidRequest('The Host header is missing or malformed.');
  return `${proto === 'https' ? 'https' : 'http'}://${host.toLowerCase()}`;
}

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
  const origin = requestOrigin(req, config);
  let url: URL;
  try {
    url = new URL(req.originalUrl ?? req.url, origin);
  } catch {
    throw new InvalidRequest('The request URL is malformed.');
  }
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
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

/** Writes a flow's response to Express. `X-Auth-Return-Redirect` turns a redirect into `200 {url}`. */
export function writeAuthResponse(req: Request, res: Response, response: AuthResponse): void {
  for (const c of response.cookies ?? []) {
    res.append('Set-Cookie', stringifySetCookie({ name: c.name, value: c.value, ...c.options }));
  }
  // Auth URLs carry codes, states and tokens in their query: never send them to other sites in
  // Referer. (`same-origin`, not `no-referrer`: with the latter Chromium sends `Origin: null` on the
  // pages' own form POSTs, which same-origin checks must then refuse.)
  res.setHeader('Referrer-Policy', 'same-origin');
  // Browsers must take JSON as JSON and HTML as HTML, whatever they look like.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  for (const [k, v] of Object.entries(response.headers ?? {})) res.setHeader(k, v);
  if (response.redirect) {
    if (req.headers['x-auth-return-redirect']) {
      // The URL may carry a state or a code: not for any cache.
      if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'private, no-cache, no-store');
      res.status(200).json({ url: response.redirect });
      return;
    }
    res.status(response.status ?? 302).setHeader('Location', response.redirect).end();
    return;
  }
  res.status(response.status ?? 200);
  if (response.html !== undefined) {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    // The pages hold forms that sign in and out: never inside another site's frame (clickjacking).
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
    res.send(response.html);
  } else if (response.json !== undefined) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(JSON.stringify(response.json));
  } else {
    res.end();
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0]?.trim() || undefined;
}
