import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { InvalidRequest, UntrustedHost } from '../errors/auth.errors.js';

/** `host[:port]` as a Host header may carry it: a DNS name, IPv4, or a bracketed IPv6 address. */
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
/** The start of an absolute-form request target (RFC 9112 section 3.2.2): a scheme and a colon. */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** Longest request target looked at; anything longer is refused before parsing. */
const MAX_TARGET_LENGTH = 16_384;

/** What {@link resolvePublicUrl} needs of a request; any platform can fill it in. */
export interface RequestTarget {
  /** The request target as received (`req.originalUrl` / `req.url`): origin-form or absolute-form. */
  target: string;
  /** Request headers (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** Whether the connection itself is TLS. */
  encrypted: boolean;
}

/**
 * The public origin of the app, `scheme://host[:port]`: the `url` option (AUTH_URL) when set;
 * otherwise, with `trustHost`, `X-Forwarded-Proto` / `X-Forwarded-Host` or the Host header. Never
 * the request target. Without `url` and without `trustHost` the request is refused, because every
 * absolute URL built from it (a magic link, an OAuth `redirect_uri`) would follow whatever Host an
 * attacker sends.
 *
 * @throws UntrustedHost without `url` and `trustHost`; InvalidRequest for a missing or malformed Host
 */
export function publicOrigin(
  request: Pick<RequestTarget, 'headers' | 'encrypted'>,
  config: Pick<ResolvedAuthConfig, 'url' | 'trustHost'>,
): string {
  if (config.url) return config.url.origin;
  if (!config.trustHost) {
    throw new UntrustedHost(
      'Set the `url` option (or AUTH_URL) to the public origin, or `trustHost: true` behind a proxy you control.',
    );
  }
  const forwardedProto = firstHeader(request.headers['x-forwarded-proto'])?.toLowerCase();
  const host = firstHeader(request.headers['x-forwarded-host']) ?? firstHeader(request.headers.host);
  const proto =
    forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : request.encrypted ? 'https' : 'http';
  if (!host || !HOST.test(host)) throw new InvalidRequest('The Host header is missing or malformed.');
  return `${proto}://${host.toLowerCase()}`;
}

/**
 * The absolute URL of a request: its path and query on the {@link publicOrigin}. The request
 * target contributes the path and query only. An absolute-form target (`GET http://host/path`)
 * is accepted when it names the public host, and refused when it names another host, carries
 * credentials or another scheme: Node hands such targets to the app as they came, and a URL
 * resolved against one would take its origin from the attacker.
 *
 * @throws UntrustedHost / InvalidRequest (see {@link publicOrigin}); InvalidRequest for a target that
 *   is malformed, too long, or names another host
 */
export function resolvePublicUrl(request: RequestTarget, config: Pick<ResolvedAuthConfig, 'url' | 'trustHost'>): URL {
  const origin = publicOrigin(request, config);
  const { target } = request;
  if (typeof target !== 'string' || target.length === 0 || target.length > MAX_TARGET_LENGTH) {
    throw new InvalidRequest('The request target is missing or too long.');
  }
  let pathAndQuery: string;
  if (target.startsWith('/')) {
    pathAndQuery = target;
  } else if (ABSOLUTE_FORM.test(target)) {
    pathAndQuery = pathOfAbsoluteTarget(target, new URL(origin).host);
  } else {
    throw new InvalidRequest('The request target must be a path (or an absolute URL of this host).');
  }
  let url: URL;
  try {
    // Concatenated, never resolved against the origin: `//evil.example/x` stays a path here.
    url = new URL(origin + pathAndQuery);
  } catch {
    throw new InvalidRequest('The request URL is malformed.');
  }
  if (url.origin !== origin) throw new InvalidRequest('The request URL is malformed.');
  return url;
}

/** The path and query of an absolute-form target that names `expectedHost`; refuses anything else. */
function pathOfAbsoluteTarget(target: string, expectedHost: string): string {
  let parsed: URL;
  try {
    parsed = new URL(target);
  } catch {
    throw new InvalidRequest('The request target is a malformed absolute URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidRequest('The request target names a scheme other than http or https.');
  }
  if (
    parsed.username ||
    parsed.password ||
    target
      .slice(parsed.protocol.length + 2)
      .split(/[/?#]/, 1)[0]
      .includes('@')
  ) {
    throw new InvalidRequest('The request target carries credentials; send a path instead.');
  }
  if (parsed.host !== expectedHost) {
    throw new InvalidRequest('The request target names another host than this app; send a path instead.');
  }
  return `${parsed.pathname}${parsed.search}`;
}

/** The first value of a header that may be repeated or a comma-separated list. */
export function firstHeader(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0]?.trim() || undefined;
}
