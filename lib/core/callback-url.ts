import type { CallbacksOptions, CookieOption } from '../config/auth-options.interface.js';
import type { LoggerInstance } from '../config/auth-options.interface.js';
import { defaultRedirect } from '../config/defaults.js';
import type { ResponseCookie } from '../types/http.types.js';

/**
 * Where to send the user after sign-in or sign-out: `callbackUrl` from the body or query, else the
 * callback-URL cookie, passed through the `redirect` callback. Malformed values and a throwing
 * callback fall back to the origin; the result is remembered in the cookie when it changed.
 */
export async function resolveCallbackUrl(params: {
  bodyValue: unknown;
  queryValue: string | undefined;
  cookieValue: string | undefined;
  origin: string;
  redirect: CallbacksOptions['redirect'];
  cookie: CookieOption;
  logger: LoggerInstance;
}): Promise<{ url: string; cookie?: ResponseCookie }> {
  const { origin, cookie } = params;
  const candidate =
    (typeof params.bodyValue === 'string' && params.bodyValue) || params.queryValue || params.cookieValue || origin;
  let url: string;
  try {
    const result = await params.redirect({ url: candidate, baseUrl: origin });
    // Whatever the callback returns must still be an http(s) URL (or a path on this origin).
    url = typeof result === 'string' ? toAbsolute(result, origin) : origin;
  } catch (error) {
    params.logger.error(error instanceof Error ? error : new Error('The redirect callback threw.'));
    url = defaultRedirect(candidate, origin);
  }
  if (url !== params.cookieValue && (params.bodyValue || params.queryValue)) {
    return { url, cookie: { name: cookie.name, value: url, options: cookie.options } };
  }
  return { url };
}

/** Absolute http(s) URL for `value` (paths resolve against `origin`); anything else → origin. */
export function toAbsolute(value: string, origin: string): string {
  try {
    if (value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\'))
      return new URL(value, origin).href;
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : origin;
  } catch {
    return origin;
  }
}
