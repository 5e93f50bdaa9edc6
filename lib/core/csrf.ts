import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CookieOption } from '../config/auth-options.interface.js';
import type { ResponseCookie } from './http.types.js';

/**
 * The signed double-submit CSRF token (Auth.js's format): the cookie holds `<token>|<hash>` with
 * `hash = sha256_hex(token + secret)`. A cookie signed with any of the secrets is trusted (rotation);
 * new cookies are signed with the first.
 */
export interface CsrfState {
  token: string;
  /** True when the request is a POST whose body carried the token of a valid cookie. */
  verified: boolean;
  /** The cookie to set when the token was minted for this request. */
  cookie?: ResponseCookie;
}

export function resolveCsrf(
  cookieValue: string | undefined,
  bodyToken: unknown,
  isPost: boolean,
  secrets: readonly string[],
  cookie: CookieOption,
): CsrfState {
  if (cookieValue) {
    const [token, hash] = cookieValue.split('|');
    if (token && hash && token.length <= 256 && secrets.some((s) => safeEqual(hash, sign(token, s)))) {
      const verified = isPost && typeof bodyToken === 'string' && safeEqual(bodyToken, token);
      return { token, verified };
    }
  }
  const token = randomBytes(32).toString('hex');
  return {
    token,
    verified: false,
    cookie: { name: cookie.name, value: `${token}|${sign(token, secrets[0])}`, options: cookie.options },
  };
}

function sign(token: string, secret: string): string {
  return createHash('sha256').update(`${token}${secret}`).digest('hex');
}

/** Constant-time comparison of two strings (compares their SHA-256 digests, so lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}
