import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { resolveCallbackUrl } from '../core/callback-url.js';
import { resolveCsrf } from '../core/csrf.js';
import type { RequestContext } from '../core/request-context.js';
import { SessionCodec } from '../session/session-codec.js';
import { SessionReader } from '../session/session-reader.js';
import type { AuthRequest, ResponseCookie } from '../types/http.types.js';
import type { AuthAction } from './auth-action.js';

/** Actions whose GET answer shows the CSRF token (in JSON or a page's forms). */
const SHOWS_CSRF_TOKEN = new Set<AuthAction>(['csrf', 'signin', 'signout', 'account', 'two-factor', 'authorize']);

/** Builds the per-request context every action and flow works with. */
@Injectable()
export class RequestContextFactory {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly codec: SessionCodec,
    private readonly reader: SessionReader,
  ) {}

  /**
   * The per-request context: origin, cookie names, CSRF token, callback URL. The origin is the
   * request URL's, which the HTTP layer builds from `url` or trusted headers only
   * (`resolvePublicUrl`), never from the request target.
   */
  async create(request: AuthRequest, action: AuthAction): Promise<RequestContext> {
    const { config } = this;
    const secure = config.useSecureCookies ?? request.url.protocol === 'https:';
    const cookies = this.codec.cookiesFor(secure);
    const origin = request.url.origin;
    const isPost = request.method === 'POST';
    const csrfCookie = request.cookies[cookies.csrfToken.name];
    // The CSRF token is bound to the signed-in user: looked up where a token is checked (a POST
    // without the cookie fails anyway) or shown (also when the cookie is new: a token minted for a
    // signed-in browser without one must be bound to its user, or its next POST is refused).
    const boundTo = (isPost ? csrfCookie : SHOWS_CSRF_TOKEN.has(action))
      ? await this.csrfSubject(request.cookies, secure)
      : undefined;
    // The account API and the second factor also take the token in a header (SPAs sending JSON).
    const submitted =
      action === 'account' || action === 'two-factor' || action === 'access-token'
        ? (request.body.csrfToken ?? request.headers['x-csrf-token'])
        : request.body.csrfToken;
    const csrf = resolveCsrf(csrfCookie, submitted, isPost, config.secrets, cookies.csrfToken, boundTo);
    const callback = await resolveCallbackUrl({
      bodyValue: request.body.callbackUrl,
      queryValue: request.query.callbackUrl,
      cookieValue: request.cookies[cookies.callbackUrl.name],
      origin,
      redirect: config.callbacks.redirect,
      cookie: cookies.callbackUrl,
      logger: config.logger,
    });
    const responseCookies: ResponseCookie[] = [];
    if (csrf.cookie) responseCookies.push(csrf.cookie);
    if (callback.cookie) responseCookies.push(callback.cookie);
    return {
      request,
      config,
      origin,
      authUrl: `${origin}${config.basePath}`,
      secure,
      cookies,
      callbackUrl: callback.url,
      csrfToken: csrf.token,
      csrfVerified: csrf.verified,
      ...(csrf.issuedBeforeSignIn ? { csrfIssuedBeforeSignIn: true } : {}),
      responseCookies,
    };
  }

  /**
   * Who the CSRF token must be bound to: the user of the request's session cookie, or `undefined`
   * without a live one. A bearer token is not looked at: it is not sent by browsers on their own,
   * so it is no CSRF vector.
   */
  private async csrfSubject(cookies: Record<string, string>, secure: boolean): Promise<string | undefined> {
    const state = this.reader.readCached({ cookies, secure }) ?? (await this.reader.read({ cookies, secure }));
    return state.status === 'active' ? state.user.id : undefined;
  }
}
