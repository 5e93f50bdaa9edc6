import { Inject, Injectable, Optional } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { InternalProvider, ResolvedAuthConfig } from '../config/resolved-config.js';
import {
  AuthError,
  InvalidProvider,
  MissingCSRF,
  UnknownAction,
  CredentialsSignin,
  RateLimited,
  isClientError,
} from '../errors/auth.errors.js';
import { webAuthnClientScript } from '../pages/webauthn-client.js';
import { clientText, RequestErrorLog } from '../core/error-log.js';
import { renderErrorPage, errorPageStatus } from '../pages/error.page.js';
import { renderSignInPage } from '../pages/signin.page.js';
import { renderSignOutPage } from '../pages/signout.page.js';
import { renderVerifyRequestPage } from '../pages/verify-request.page.js';
import { resolveCallbackUrl } from '../core/callback-url.js';
import { CredentialsService } from '../flows/credentials/credentials.service.js';
import { assertSameOrigin, resolveCsrf } from '../core/csrf.js';
import { EmailService } from '../flows/email/email.service.js';
import type { AuthRequest, AuthResponse } from '../types/http.types.js';
import { OAuthService } from '../flows/oauth/oauth.service.js';
import type { ProviderContext, ProviderFlow, RequestContext } from '../core/request-context.js';
import { SessionService } from '../session/session.service.js';
import { SignInRedirect } from '../sign-in/sign-in-callback.js';
import { WebAuthnService } from '../flows/webauthn/webauthn.service.js';

/** The routes under `basePath`, as Auth.js names them. */
export type AuthAction =
  | 'providers'
  | 'csrf'
  | 'session'
  | 'signin'
  | 'signout'
  | 'callback'
  | 'verify-request'
  | 'error'
  | 'webauthn-options'
  | 'webauthn-client'
  | 'unknown';

/** Answers of OAuth callbacks, successful or not: their URL carried a code and a state. */
const NO_REFERRER = { 'Referrer-Policy': 'no-referrer' };
/** Actions whose GET answer shows the CSRF token (in JSON or a page's forms). */
const SHOWS_CSRF_TOKEN = new Set<AuthAction>(['csrf', 'signin', 'signout']);

/**
 * Dispatches a request to the right action and provider flow, enforces CSRF, resolves the
 * callback URL, and turns every error into a redirect to the error or sign-in page (or a JSON
 * body for API actions). Never throws.
 */
@Injectable()
export class AuthRouterService {
  private readonly flows: Record<string, ProviderFlow | undefined>;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly sessions: SessionService,
    private readonly errorLog: RequestErrorLog,
    @Optional() oauth?: OAuthService,
    @Optional() email?: EmailService,
    @Optional() credentials?: CredentialsService,
    @Optional() private readonly webauthn?: WebAuthnService,
  ) {
    this.flows = { oauth, oidc: oauth, email, credentials, webauthn };
  }

  /** Handles one request. `providerId` is the second path segment, when the route has one. */
  async handle(request: AuthRequest, action: AuthAction, providerId?: string): Promise<AuthResponse> {
    let ctx: RequestContext | undefined;
    try {
      if (action === 'webauthn-client') return this.webauthnClient(request);
      ctx = await this.context(request, action);
      const response = await this.dispatch(ctx, action, providerId);
      return withCookies(response, ctx);
    } catch (error) {
      return this.errorResponse(error, request, action, ctx, providerId);
    }
  }

  /**
   * The per-request context: origin, cookie names, CSRF token, callback URL. The origin is the
   * request URL's, which the HTTP layer builds from `url` or trusted headers only
   * (`resolvePublicUrl`), never from the request target.
   */
  async context(request: AuthRequest, action: AuthAction = 'unknown'): Promise<RequestContext> {
    const { config } = this;
    const secure = config.useSecureCookies ?? request.url.protocol === 'https:';
    const cookies = this.sessions.cookiesFor(secure);
    const origin = request.url.origin;
    const isPost = request.method === 'POST';
    const csrfCookie = request.cookies[cookies.csrfToken.name];
    // The CSRF token is bound to the signed-in user: looked up where a token is checked or shown.
    const boundTo =
      csrfCookie && (isPost || SHOWS_CSRF_TOKEN.has(action))
        ? await this.csrfSubject(request.cookies, secure)
        : undefined;
    const csrf = resolveCsrf(csrfCookie, request.body.csrfToken, isPost, config.secrets, cookies.csrfToken, boundTo);
    const callback = await resolveCallbackUrl({
      bodyValue: request.body.callbackUrl,
      queryValue: request.query.callbackUrl,
      cookieValue: request.cookies[cookies.callbackUrl.name],
      origin,
      redirect: config.callbacks.redirect,
      cookie: cookies.callbackUrl,
      logger: config.logger,
    });
    const responseCookies = [];
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
      responseCookies,
    };
  }

  /**
   * Who the CSRF token must be bound to: the user of the request's session cookie, or `undefined`
   * without a live one. A bearer token is not looked at: it is not sent by browsers on their own,
   * so it is no CSRF vector.
   */
  private async csrfSubject(cookies: Record<string, string>, secure: boolean): Promise<string | undefined> {
    const state = this.sessions.readCached({ cookies, secure }) ?? (await this.sessions.read({ cookies, secure }));
    return state.status === 'active' ? state.user.id : undefined;
  }

  private async dispatch(ctx: RequestContext, action: AuthAction, providerId?: string): Promise<AuthResponse> {
    const method = ctx.request.method;
    const get = method === 'GET' || method === 'HEAD';
    const post = method === 'POST';
    // Every state-changing POST must come from this site, besides carrying the CSRF token; the
    // OAuth `form_post` callback is cross-site by design (the provider's page posts it).
    if (post && !(action === 'callback' && this.isOAuthProvider(providerId))) assertSameOrigin(ctx.request, ctx.origin);
    switch (action) {
      case 'providers':
        if (!get) break;
        return { json: Object.fromEntries(this.config.providers.map((p) => [p.id, this.publicProvider(ctx, p)])) };
      case 'csrf':
        if (!get) break;
        return { json: { csrfToken: ctx.csrfToken } };
      case 'session':
        if (get) return this.sessions.sessionRoute(ctx);
        if (post) {
          if (!ctx.csrfVerified)
            throw new MissingCSRF('The CSRF token was missing or wrong: send `csrfToken` from GET /csrf in the body.');
          return this.sessions.sessionRoute(ctx, { data: ctx.request.body.data });
        }
        break;
      case 'signin':
        if (get && !providerId) return this.signInPage(ctx);
        if (post && providerId) {
          if (!ctx.csrfVerified)
            throw new MissingCSRF(
              'The CSRF token was missing or wrong: submit the form from the sign-in page, or send `csrfToken` from GET /csrf.',
            );
          const pctx = this.providerContext(ctx, providerId);
          const flow = this.flow(pctx.provider);
          if (!flow.signIn) return { redirect: `${ctx.authUrl}/signin` };
          return flow.signIn(pctx);
        }
        break;
      case 'callback':
        if ((get || post) && providerId) {
          if (method === 'HEAD') break;
          const pctx = this.providerContext(ctx, providerId);
          if (pctx.provider.type === 'credentials') {
            if (!post) throw new UnknownAction('Credentials are submitted with POST.');
            if (!ctx.csrfVerified)
              throw new MissingCSRF(
                'The CSRF token was missing or wrong: submit the form from the sign-in page, or send `csrfToken` from GET /csrf.',
              );
          }
          return this.flow(pctx.provider).callback(pctx);
        }
        break;
      case 'signout':
        if (get) {
          if (this.config.pages.signOut) return { redirect: this.pageUrl(ctx, this.config.pages.signOut, {}) };
          return {
            html: renderSignOutPage({
              csrfToken: ctx.csrfToken,
              callbackUrl: ctx.callbackUrl,
              signOutUrl: `${ctx.authUrl}/signout`,
              theme: this.config.theme,
            }),
          };
        }
        if (post) {
          if (!ctx.csrfVerified)
            throw new MissingCSRF(
              'The CSRF token was missing or wrong: submit the sign-out form, or send `csrfToken` from GET /csrf.',
            );
          const cookies = await this.sessions.signOut(ctx);
          return { redirect: ctx.callbackUrl, cookies };
        }
        break;
      case 'verify-request':
        if (!get) break;
        if (this.config.pages.verifyRequest)
          return { redirect: this.pageUrl(ctx, this.config.pages.verifyRequest, ctx.request.query) };
        return { html: renderVerifyRequestPage({ url: ctx.origin, theme: this.config.theme }) };
      case 'error': {
        if (!get) break;
        const type = typeof ctx.request.query.error === 'string' ? ctx.request.query.error.slice(0, 64) : undefined;
        if (this.config.pages.error)
          return { redirect: this.pageUrl(ctx, this.config.pages.error, type ? { error: type } : {}) };
        return {
          status: errorPageStatus(type),
          html: renderErrorPage({
            error: type,
            url: ctx.origin,
            signInUrl: `${ctx.authUrl}/signin`,
            theme: this.config.theme,
          }),
        };
      }
      case 'webauthn-options':
        if (get && providerId) {
          const pctx = this.providerContext(ctx, providerId);
          if (pctx.provider.type !== 'webauthn' || !this.webauthn)
            throw new InvalidProvider(`Provider ${JSON.stringify(providerId)} is not a WebAuthn provider.`);
          return this.webauthn.options(pctx);
        }
        break;
    }
    if (action === 'unknown')
      throw new UnknownAction(
        `${clientText(method, 16)} ${clientText(ctx.request.url.pathname, 64)} is not an auth route.`,
      );
    throw new UnknownAction(
      `${clientText(method, 16)} ${this.config.basePath}/${action}${providerId ? `/${clientText(providerId)}` : ''} is not supported.`,
    );
  }

  /** `GET {basePath}/webauthn-client.js`: the browser half of passkeys, the same for everyone. */
  private webauthnClient(request: AuthRequest): AuthResponse {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      throw new UnknownAction(
        `${clientText(request.method, 16)} ${this.config.basePath}/webauthn-client.js is not supported.`,
      );
    const script = webAuthnClientScript();
    return {
      headers: { 'Cache-Control': 'public, max-age=3600' },
      body: { contentType: script.contentType, content: script.body },
    };
  }

  /** True when `providerId` names an OAuth/OIDC provider, or no known provider (its answers get no Referer either). */
  private isOAuthProvider(providerId: string | undefined): boolean {
    const type = providerId === undefined ? undefined : this.config.providerById.get(providerId)?.type;
    return type === undefined || type === 'oauth' || type === 'oidc';
  }

  private signInPage(ctx: RequestContext): AuthResponse {
    const { query } = ctx.request;
    if (this.config.pages.signIn) {
      const params: Record<string, string> = { callbackUrl: ctx.callbackUrl };
      if (query.error) params.error = query.error.slice(0, 64);
      if (query.code) params.code = query.code.slice(0, 64);
      return { redirect: this.pageUrl(ctx, this.config.pages.signIn, params) };
    }
    return {
      html: renderSignInPage({
        providers: this.config.providers.map((p) => ({
          ...this.publicProvider(ctx, p),
          style: p.config.style as never,
          credentials: p.config.credentials as never,
          formFields: p.config.formFields as never,
          enableConditionalUI: p.config.enableConditionalUI as boolean | undefined,
        })),
        csrfToken: ctx.csrfToken,
        callbackUrl: ctx.callbackUrl,
        error: query.error?.slice(0, 64),
        code: query.code?.slice(0, 64),
        email: query.email?.slice(0, 320),
        theme: this.config.theme,
        webauthnScriptUrl: this.config.providers.some((p) => p.type === 'webauthn')
          ? `${ctx.authUrl}/webauthn-client.js`
          : undefined,
      }),
    };
  }

  private publicProvider(ctx: RequestContext, p: InternalProvider) {
    return {
      id: p.id,
      name: p.name,
      type: p.type,
      signinUrl: `${ctx.authUrl}/signin/${p.id}`,
      callbackUrl: `${ctx.authUrl}/callback/${p.id}`,
    };
  }

  private providerContext(ctx: RequestContext, providerId: string): ProviderContext {
    const provider = this.config.providerById.get(providerId);
    if (!provider) throw new InvalidProvider(`There is no provider with id ${clientText(providerId)}.`);
    return {
      ...ctx,
      provider,
      signinUrl: `${ctx.authUrl}/signin/${provider.id}`,
      providerCallbackUrl: `${ctx.authUrl}/callback/${provider.id}`,
    };
  }

  private flow(provider: InternalProvider): ProviderFlow {
    const flow = this.flows[provider.type];
    if (!flow) throw new InvalidProvider(`Providers of type ${provider.type} are not supported.`);
    return flow;
  }

  private pageUrl(ctx: RequestContext, page: string, params: Record<string, string>): string {
    const url = new URL(page, ctx.origin);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    return url.href;
  }

  /** Every failure ends here: a redirect to the right page (or JSON for the session API), never a throw. */
  private errorResponse(
    error: unknown,
    request: AuthRequest,
    action: AuthAction,
    ctx?: RequestContext,
    providerId?: string,
  ): AuthResponse {
    if (error instanceof SignInRedirect) return withCookies({ redirect: error.url }, ctx);
    const authError = error instanceof AuthError ? error : undefined;
    const type = isClientError(error) ? error.type : 'Configuration';
    this.errorLog.report(error);
    if (error instanceof UnknownAction || action === 'unknown' || action === 'webauthn-client') {
      return withCookies(
        {
          status: 400,
          json: {
            error: type,
            message: isClientError(error)
              ? error.message
              : 'There was a problem with the server configuration. Check the server logs.',
          },
        },
        ctx,
      );
    }
    if (action === 'session' || action === 'providers' || action === 'csrf' || action === 'webauthn-options') {
      const status = error instanceof RateLimited ? 429 : type === 'Configuration' ? 500 : 400;
      const headers: Record<string, string> =
        error instanceof RateLimited ? { 'Retry-After': String(error.retryAfter) } : {};
      return withCookies(
        {
          status,
          headers,
          json: {
            error: type,
            message: isClientError(error)
              ? error.message
              : 'There was a problem with the server configuration. Check the server logs.',
          },
        },
        ctx,
      );
    }
    const origin = ctx?.origin ?? request.url.origin;
    const authUrl = `${origin}${this.config.basePath}`;
    const params: Record<string, string> = { error: type };
    if (error instanceof CredentialsSignin) params.code = error.code;
    const signInKind = authError?.kind === 'signIn';
    const page = signInKind ? this.config.pages.signIn : this.config.pages.error;
    const target = new URL(page ?? `${authUrl}/${signInKind ? 'signin' : 'error'}`, origin);
    for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
    const headers = action === 'callback' && this.isOAuthProvider(providerId) ? NO_REFERRER : undefined;
    return withCookies({ redirect: target.href, ...(headers ? { headers } : {}) }, ctx);
  }
}

function withCookies(response: AuthResponse, ctx?: RequestContext): AuthResponse {
  if (!ctx?.responseCookies.length) return response;
  return { ...response, cookies: [...ctx.responseCookies, ...(response.cookies ?? [])] };
}
