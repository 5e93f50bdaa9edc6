import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { CookiesOptions } from '../config/auth-options.interface.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { JWTSessionError } from '../errors/auth.errors.js';
import type { JWT } from '../types/common.types.js';
import type { ResponseCookie } from '../types/http.types.js';
import { checkTimeClaims } from '../util/instant.js';
import { createJwtCodec, type JwtCodec } from './jwt.js';
import { clearSessionCookie, readSessionCookie, sessionCookieInHeader } from './session-cookie.js';
import type { SessionLookup, SessionState, TokenSource } from './session.types.js';

/** The longest session token read from a cookie or a bearer header; longer is refused unread. */
const MAX_TOKEN_LENGTH = 16_384;
const NO_SESSION: SessionState = Object.freeze({ status: 'none' });
/** `Authorization: Bearer <token>`, and any header that says Bearer (module constants: a literal is a new RegExp per call). */
const BEARER = /^bearer\s+(\S+)\s*$/i;
const BEARER_SCHEME = /^bearer\s/i;

/** A decoded session JWT whose time claims passed, or why it did not. */
export type DecodedJwt = { status: 'valid'; token: JWT; expMs: number } | { status: 'expired' | 'invalid' };

/**
 * Between a request and its session token: finds the token (session cookie, chunks joined, or
 * `Authorization: Bearer`), builds the cookies that clear a bad one, and encodes and decodes session
 * JWTs (or calls the user's `jwt.encode`/`jwt.decode`), checking the time claims of what comes out.
 */
@Injectable()
export class SessionCodec {
  /**
   * One codec per cookie name (the salt), its keys derived on first use: an app served over http
   * only never derives the `__Secure-` name's keys, and start-up derives none (the secrets were
   * checked when the configuration was resolved).
   */
  private readonly codecs: { plain?: JwtCodec; secure?: JwtCodec } = {};

  constructor(@Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig) {}

  private codecFor(secure: boolean): JwtCodec {
    const key = secure ? 'secure' : 'plain';
    return (this.codecs[key] ??= createJwtCodec(
      this.config.secrets,
      this.config.cookies[key].sessionToken.name,
      this.config.jwt.maxAge,
    ));
  }

  /** The cookie names and options for a request. */
  cookiesFor(secure: boolean): CookiesOptions {
    return secure ? this.config.cookies.secure : this.config.cookies.plain;
  }

  /** The session token of a request (cookie first, then `Authorization: Bearer`), or the verdict. */
  tokenOf(lookup: SessionLookup): TokenSource {
    const name = this.cookiesFor(lookup.secure).sessionToken.name;
    const header = lookup.cookieHeader;
    let raw = header === undefined ? null : sessionCookieInHeader(header, name);
    if (raw === null) raw = readSessionCookie(lookup.cookies, name);
    if (raw)
      return raw.length > MAX_TOKEN_LENGTH
        ? { status: 'invalid', clearCookies: this.clearFor(lookup, false) }
        : { raw, bearer: false };
    if (!lookup.authorization) return NO_SESSION as TokenSource;
    const token = parseBearer(lookup.authorization);
    if (token) return { raw: token, bearer: true };
    return BEARER_SCHEME.test(lookup.authorization)
      ? { status: 'invalid', clearCookies: [] }
      : (NO_SESSION as TokenSource);
  }

  /** The deletion cookies for a bad session cookie (none for a bearer token: there is no cookie). */
  clearFor(lookup: SessionLookup, bearer: boolean): ResponseCookie[] {
    if (bearer) return [];
    const cookie = this.cookiesFor(lookup.secure).sessionToken;
    return clearSessionCookie(lookup.cookies, cookie.name, cookie.options);
  }

  /**
   * Decodes a session JWT and checks its `exp` (required), `nbf` and `iat` against `now`. A token
   * that does not decrypt, or a custom `jwt.decode` that throws or returns a non-object, is `invalid`.
   */
  async decode(raw: string, secure: boolean, now: number): Promise<DecodedJwt> {
    let token: JWT | null;
    try {
      token = this.config.jwt.decode
        ? await this.config.jwt.decode({
            token: raw,
            secret: this.config.secrets,
            salt: this.cookiesFor(secure).sessionToken.name,
          })
        : await this.codecFor(secure).decode(raw);
    } catch {
      this.config.logger.debug(`${JWTSessionError.type}: the session cookie could not be decoded`);
      token = null;
    }
    // A custom `jwt.decode` may return anything: its time claims get the same checks as ours.
    const verdict = token && typeof token === 'object' ? checkTimeClaims(token, now) : { status: 'invalid' as const };
    return verdict.status === 'valid'
      ? { status: 'valid', token: token!, expMs: verdict.expMs }
      : { status: verdict.status };
  }

  /**
   * {@link decode} without a promise, for the default decoder (the guard's cache-miss path);
   * `undefined` with a custom `jwt.decode`, which may be async: call {@link decode}.
   */
  decodeSync(raw: string, secure: boolean, now: number): DecodedJwt | undefined {
    if (this.config.jwt.decode) return undefined;
    const result = this.codecFor(secure).inspectSync(raw, now);
    if (result.status !== 'valid') return result;
    const verdict = checkTimeClaims(result.payload, now);
    return verdict.status === 'valid'
      ? { status: 'valid', token: result.payload, expMs: verdict.expMs }
      : { status: verdict.status };
  }

  /** Encodes a session JWT for the request's cookie name (or calls the user's `jwt.encode`). */
  encode(secure: boolean, token: JWT): Promise<string> {
    const salt = this.cookiesFor(secure).sessionToken.name;
    if (this.config.jwt.encode) {
      return Promise.resolve(
        this.config.jwt.encode({ token, salt, secret: this.config.secrets, maxAge: this.config.jwt.maxAge }),
      );
    }
    return this.codecFor(secure).encode(token);
  }
}

/** The token of `Authorization: Bearer <token>` (percent-decoded), or undefined when malformed. */
function parseBearer(header: string): string | undefined {
  const match = BEARER.exec(header);
  if (!match || match[1].length > MAX_TOKEN_LENGTH) return undefined;
  // Without a `%` there is nothing to decode (and decoding costs more than the rest of a cache hit).
  if (!match[1].includes('%')) return match[1];
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}
