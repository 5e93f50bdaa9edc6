import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { CookieOption } from '../config/auth-options.interface.js';
import { MissingCSRF } from '../errors/auth.errors.js';
import type { AuthRequest, ResponseCookie } from '../types/http.types.js';
import { constantTimeEqual } from '../util/constant-time.js';

/**
 * The signed double-submit CSRF token (Auth.js's format): the cookie holds `<token>|<hash>` with
 * `hash = sha256_hex(token + secret)`. A cookie signed with any of the secrets is trusted (rotation);
 * new cookies are signed with the first.
 *
 * Beyond Auth.js, a token is bound to the signed-in user: for a request with a session, the token
 * is `<nonce>.<hmac(secret, nonce, user id)>`, and only a token bound to that user verifies. A
 * cookie and token pair taken from another browser (the attacker's own, planted in the victim's
 * browser) is then refused once the victim is signed in. Auth.js still accepts these cookies: the
 * token stays an opaque string and the cookie keeps Auth.js's format.
 */
export interface CsrfState {
  token: string;
  /** True when the request is a POST whose body carried the token of a valid cookie. */
  verified: boolean;
  /** The cookie to set when the token was minted for this request. */
  cookie?: ResponseCookie;
  /**
   * True when the request carried a valid CSRF cookie of this site that is not bound to the
   * signed-in user: a token fetched before this sign-in (or for another user). It is refused like
   * any other; the answer says to fetch a new token (`csrfRefusal`).
   */
  issuedBeforeSignIn?: true;
}

/**
 * The CSRF state of a request: the token of a valid cookie (bound to `boundTo` when given), or a
 * new token with its cookie.
 *
 * @param boundTo the id of the signed-in user, when the request has a session
 */
export function resolveCsrf(
  cookieValue: string | undefined,
  bodyToken: unknown,
  isPost: boolean,
  secrets: readonly string[],
  cookie: CookieOption,
  boundTo?: string,
): CsrfState {
  let issuedBeforeSignIn = false;
  if (cookieValue) {
    const [token, hash] = cookieValue.split('|');
    if (token && hash && token.length <= 256 && secrets.some((s) => constantTimeEqual(hash, sign(token, s)))) {
      if (isBoundTo(token, boundTo, secrets)) {
        const verified = isPost && typeof bodyToken === 'string' && constantTimeEqual(bodyToken, token);
        // A token of the form this site mints, not bound to this user: the one a client kept
        // from before the sign-in (the cookie was replaced since, by GET /csrf or a refusal).
        if (!verified && isPost && boundTo !== undefined && isForeignToken(bodyToken, boundTo, secrets))
          return { token, verified, issuedBeforeSignIn: true };
        return { token, verified };
      }
      // Signed by this site but not for this user: never accepted (a pair planted from another
      // browser looks the same), only named, so the answer can say what to do.
      issuedBeforeSignIn = true;
    }
  }
  const nonce = randomBytes(32).toString('hex');
  const token = boundTo === undefined ? nonce : `${nonce}.${binding(nonce, boundTo, secrets[0])}`;
  return {
    token,
    verified: false,
    cookie: { name: cookie.name, value: `${token}|${sign(token, secrets[0])}`, options: cookie.options },
    ...(issuedBeforeSignIn ? { issuedBeforeSignIn: true as const } : {}),
  };
}

/**
 * The `MissingCSRF` of a request whose token did not verify. A token fetched before the sign-in
 * gets a message that says to fetch a new one (the answer already carries its cookie); any other
 * gets `hint`, how the route takes its token.
 */
export function csrfRefusal(
  ctx: { csrfIssuedBeforeSignIn?: boolean; config: { basePath: string } },
  hint: string,
): MissingCSRF {
  if (ctx.csrfIssuedBeforeSignIn)
    return new MissingCSRF(
      `The CSRF token was issued before this sign-in (tokens are bound to the signed-in user): fetch a new token after signing in (GET ${ctx.config.basePath}/csrf), then send it again.`,
    );
  return new MissingCSRF(hint);
}

/** True when `token` may be used by a request of `boundTo` (any token when there is no session). */
function isBoundTo(token: string, boundTo: string | undefined, secrets: readonly string[]): boolean {
  if (boundTo === undefined) return true;
  const dot = token.indexOf('.');
  if (dot <= 0) return false;
  const nonce = token.slice(0, dot);
  const mac = token.slice(dot + 1);
  return secrets.some((s) => constantTimeEqual(mac, binding(nonce, boundTo, s)));
}

/** A token in the form this site mints (a nonce, bound or not) that is not bound to `boundTo`. */
function isForeignToken(value: unknown, boundTo: string, secrets: readonly string[]): boolean {
  return typeof value === 'string' && MINTED_TOKEN.test(value) && !isBoundTo(value, boundTo, secrets);
}

const MINTED_TOKEN = /^[0-9a-f]{64}(\.[0-9a-f]{64})?$/;

function binding(nonce: string, userId: string, secret: string): string {
  return createHmac('sha256', secret).update(`nestjs-auth csrf binding\0${nonce}\0${userId}`).digest('hex');
}

function sign(token: string, secret: string): string {
  return createHash('sha256').update(`${token}${secret}`).digest('hex');
}

const NO_ORIGINS: ReadonlySet<string> = new Set();

/**
 * Refuses a state-changing request that a browser says comes from another site: `Sec-Fetch-Site`
 * `cross-site` or `same-site` (a sibling subdomain is another site here), or an `Origin` other than
 * the app's. `Origin: null` passes only with `Sec-Fetch-Site: same-origin` (Chromium sends `null`
 * on a page's own form posts under `Referrer-Policy: no-referrer`). Clients that send neither
 * header (not browsers) are not a CSRF vector and pass; the CSRF token is checked either way.
 *
 * `trusted` (`trustedOrigins`): front ends on other origins whose `Origin` passes.
 *
 * @throws MissingCSRF
 */
export function assertSameOrigin(
  request: Pick<AuthRequest, 'headers'>,
  origin: string,
  trusted: ReadonlySet<string> = NO_ORIGINS,
): void {
  const { origin: sentOrigin, 'sec-fetch-site': site } = request.headers;
  // A front end the app lists in `trustedOrigins`: the browser names it in `Origin`, which a page
  // cannot forge, on every cross-origin POST.
  if (sentOrigin !== undefined && trusted.has(sentOrigin)) return;
  const sameSiteFetch = site === undefined || site === 'same-origin' || site === 'none';
  const originOk =
    sentOrigin === undefined || sentOrigin === origin || (sentOrigin === 'null' && site === 'same-origin');
  if (!sameSiteFetch || !originOk) {
    throw new MissingCSRF(
      "The request came from another site; submit the form from this site's own pages (a front end on another origin must be listed in `trustedOrigins`).",
    );
  }
}
