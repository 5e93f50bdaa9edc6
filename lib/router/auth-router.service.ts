import { Inject, Injectable, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { InternalProvider, ResolvedAuthConfig } from '../config/resolved-config.js';
import { assertSameOrigin, csrfRefusal } from '../core/csrf.js';
import { clientText, RequestErrorLog } from '../core/error-log.js';
import type { ProviderContext, ProviderFlow, RequestContext } from '../core/request-context.js';
import { InvalidProvider, SessionRequired, UnknownAction } from '../errors/auth.errors.js';

/** Answers that carry a token are never stored (RFC 6749 section 5.1). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
import { SIGN_IN_METHODS, type ChallengeFlow, type SignInMethod } from '../sign-in/sign-in-method.js';
import type { SignInFormRenderer } from '../pages/page.types.js';
import { AccountRoutes } from '../account/account-routes.js';
import { NativeAppRoutes } from '../native-apps/native-apps.routes.js';
import { AccessTokens } from '../session/access-tokens.js';
import { UserAccessTokens } from '../tokens/user-access-tokens.js';
import { SessionIssuer } from '../session/session-issuer.js';
import { SessionReader } from '../session/session-reader.js';
import type { AuthRequest, AuthResponse } from '../types/http.types.js';
import type { AuthAction } from './auth-action.js';
import { errorResponse, withCookies } from './error-response.js';
import {
  errorPage,
  publicProvider,
  signInPage,
  signOutPage,
  verifyRequestPage,
  webauthnClient,
} from './page-routes.js';
import { RequestContextFactory } from './request-context.factory.js';

export type { AuthAction } from './auth-action.js';

/**
 * The action table: dispatches a request to the right action and to the flow of the provider's
 * sign-in method (one hop; the methods come from the registry, `SIGN_IN_METHODS`), enforces CSRF
 * and same-origin POSTs, and turns every error into an answer (`error-response.ts`). Never throws.
 */
@Injectable()
export class AuthRouterService {
  /** Each provider type's flow (the flow of the method that serves it), looked up on first use. */
  private byType?: Map<string, ProviderFlow>;
  private forms?: Record<string, SignInFormRenderer>;
  private challengeFlow?: ChallengeFlow | null;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly sessions: SessionIssuer,
    private readonly reader: SessionReader,
    private readonly contexts: RequestContextFactory,
    private readonly errorLog: RequestErrorLog,
    @Inject(SIGN_IN_METHODS) private readonly methods: readonly SignInMethod[],
    private readonly moduleRef: ModuleRef,
    @Optional() private readonly account?: AccountRoutes,
    @Optional() private readonly nativeApps?: NativeAppRoutes,
    @Optional() private readonly userTokens?: UserAccessTokens,
    @Optional() private readonly accessTokens?: AccessTokens,
  ) {}

  private get flows(): Map<string, ProviderFlow> {
    if (!this.byType) {
      // Built whole before it is kept: a flow that cannot be resolved fails every request alike.
      const byType = new Map<string, ProviderFlow>();
      for (const method of this.methods) {
        if (!method.flow) continue;
        const flow = this.moduleRef.get(method.flow, { strict: true });
        for (const type of method.types) byType.set(type, flow);
      }
      this.byType = byType;
    }
    return this.byType;
  }

  /** The routes of the sign-ins a step holds: the first method's `challenge` that has one. */
  private get challenge(): ChallengeFlow | undefined {
    if (this.challengeFlow === undefined) {
      const type = this.methods.find((m) => m.challenge)?.challenge;
      this.challengeFlow = type ? this.moduleRef.get(type, { strict: true }) : null;
    }
    return this.challengeFlow ?? undefined;
  }

  /** The sign-in page's forms the registered methods contribute, by provider type. */
  private get methodForms(): Record<string, SignInFormRenderer> {
    this.forms ??= Object.fromEntries(
      this.methods.flatMap((m) => (m.form ? m.types.map((t) => [t, m.form!.bind(m)] as const) : [])),
    );
    return this.forms;
  }

  /** The flows that take part in sign-out (federated sign-out enabled). */
  private get signOutFlows(): ProviderFlow[] {
    return [...new Set(this.flows.values())].filter((f) => f.federatedSignOut?.enabled);
  }

  /** Handles one request. `providerId` is the second path segment, when the route has one. */
  async handle(request: AuthRequest, action: AuthAction, providerId?: string): Promise<AuthResponse> {
    let ctx: RequestContext | undefined;
    try {
      if (action === 'webauthn-client') return await webauthnClient(this.config, request);
      // Native apps' token routes take no cookie, CSRF token or callback URL: no request context.
      if (action === 'jwks' && this.accessTokens?.enabled && (request.method === 'GET' || request.method === 'HEAD'))
        return { json: this.accessTokens.jwks(), headers: { 'Cache-Control': 'public, max-age=300' } };
      if (this.nativeApps?.enabled) {
        if ((action === 'token' || action === 'revoke') && request.method === 'POST')
          return await this.nativeApps[action](request);
      }
      ctx = await this.contexts.create(request, action);
      const response = await this.dispatch(ctx, action, providerId);
      return withCookies(response, ctx);
    } catch (error) {
      // A callback from another site (or from no known provider) answers its error without a Referer.
      const noReferrer = action === 'callback' && this.callbackFromElsewhere(providerId);
      return errorResponse(this.config, this.errorLog, error, { request, action, ctx, providerId, noReferrer });
    }
  }

  private async dispatch(ctx: RequestContext, action: AuthAction, providerId?: string): Promise<AuthResponse> {
    const method = ctx.request.method;
    const get = method === 'GET' || method === 'HEAD';
    const post = method === 'POST';
    // Every state-changing POST must come from this site, besides carrying the CSRF token; the
    // OAuth `form_post` callback is cross-site by design (the provider's page posts it).
    // Back-channel logout comes from the provider's server, authenticated by the token it carries.
    if (post && !(action === 'callback' && this.crossSiteCallback(providerId)) && action !== 'backchannel-logout')
      assertSameOrigin(ctx.request, ctx.origin, this.config.trustedOrigins);
    switch (action) {
      case 'providers':
        if (!get) break;
        return { json: Object.fromEntries(this.config.providers.map((p) => [p.id, publicProvider(ctx, p)])) };
      case 'csrf':
        if (!get) break;
        return { json: { csrfToken: ctx.csrfToken } };
      case 'session':
        if (get) return this.sessions.sessionRoute(ctx);
        if (post) {
          if (!ctx.csrfVerified)
            throw csrfRefusal(ctx, 'The CSRF token was missing or wrong: send `csrfToken` from GET /csrf in the body.');
          return this.sessions.sessionRoute(ctx, { data: ctx.request.body.data });
        }
        break;
      case 'signin':
        if (get && !providerId)
          return await signInPage(this.config, ctx, { forms: this.methodForms, browserScript: this.browserScript });
        if (post && providerId) {
          if (!ctx.csrfVerified)
            throw csrfRefusal(
              ctx,
              'The CSRF token was missing or wrong: submit the form from the sign-in page, or send `csrfToken` from GET /csrf.',
            );
          const pctx = this.providerContext(ctx, providerId);
          const flow = this.flow(pctx.provider);
          if (!flow.signIn) return { redirect: `${ctx.authUrl}/signin` };
          return flow.signIn(pctx);
        }
        break;
      case 'link':
        if (post && providerId) {
          if (!ctx.csrfVerified)
            throw csrfRefusal(
              ctx,
              'The CSRF token was missing or wrong: submit the form from your account page, or send `csrfToken` from GET /csrf.',
            );
          const pctx = this.providerContext(ctx, providerId);
          const flow = this.flow(pctx.provider);
          if (!flow.link)
            throw new InvalidProvider(
              `Only OAuth and OpenID Connect providers can be linked; ${clientText(providerId)} is not one.`,
            );
          return flow.link(pctx);
        }
        break;
      case 'callback':
        if ((get || post) && providerId) {
          if (method === 'HEAD') break;
          const pctx = this.providerContext(ctx, providerId);
          const flow = this.flow(pctx.provider);
          if (flow.callbackIsFormPost) {
            if (!post) throw new UnknownAction(`${clientText(pctx.provider.name)} takes a form POST, not a GET.`);
            if (!ctx.csrfVerified)
              throw csrfRefusal(
                ctx,
                'The CSRF token was missing or wrong: submit the form from the sign-in page, or send `csrfToken` from GET /csrf.',
              );
          }
          return flow.callback(pctx);
        }
        break;
      case 'signout':
        if (get) return await signOutPage(this.config, ctx);
        if (post) {
          if (!ctx.csrfVerified)
            throw csrfRefusal(
              ctx,
              'The CSRF token was missing or wrong: submit the sign-out form, or send `csrfToken` from GET /csrf.',
            );
          // Federated sign-out: the user (read before the session goes) is sent on to the provider.
          const federation = this.signOutFlows;
          const user = federation.length ? await this.reader.currentUser(ctx) : null;
          const cookies = await this.sessions.signOut(ctx);
          let federated: string | undefined;
          for (const flow of user ? federation : [])
            federated ??= await flow.federatedSignOut!.endSessionUrl(user!.id, ctx.callbackUrl);
          return { redirect: federated ?? ctx.callbackUrl, cookies };
        }
        break;
      case 'backchannel-logout':
        if (post && providerId) {
          const pctx = this.providerContext(ctx, providerId);
          const flow = this.flow(pctx.provider);
          if (!flow.backchannelLogout)
            throw new InvalidProvider(`Provider ${clientText(providerId)} takes no back-channel logout.`);
          return flow.backchannelLogout(pctx);
        }
        break;
      case 'verify-request':
        if (!get) break;
        return await verifyRequestPage(this.config, ctx, this.linkMaxAge(ctx.request.query.provider));
      case 'error':
        if (!get) break;
        return await errorPage(this.config, ctx);
      case 'account':
        // The account page and its API: `providerId` is the path below `/account` ('' for the page).
        if (this.account) return this.account.handle(ctx, providerId ?? '');
        break;
      case 'two-factor': {
        // A sign-in a step holds (a second factor pending): the step's own page and answer.
        const challenge = this.config.twoFactor ? this.challenge : undefined;
        if (!challenge) break;
        if (get) return challenge.page(ctx);
        if (post) {
          if (!ctx.csrfVerified)
            throw csrfRefusal(
              ctx,
              'The CSRF token was missing or wrong: submit the form of the two-factor page, or send `csrfToken` from GET /two-factor.',
            );
          return challenge.submit(ctx);
        }
        break;
      }
      case 'access-token': {
        // A token for the signed-in user (`issueAccessToken`): a cookie session proves the form is
        // this site's with the CSRF token; a session token as a bearer needs none.
        if (!post || !this.accessTokens?.enabled || !this.userTokens) break;
        const state = await this.reader.read({
          cookies: ctx.request.cookies,
          authorization: ctx.request.headers.authorization,
          secure: ctx.secure,
        });
        if (state.status !== 'active') throw new SessionRequired('Sign in first.');
        if (!state.bearer && !ctx.csrfVerified)
          throw csrfRefusal(ctx, 'The CSRF token was missing or wrong: send `csrfToken` (GET /csrf) or X-CSRF-Token.');
        const b = ctx.request.body;
        return {
          json: await this.userTokens.issue(state, { audience: b.audience, scope: b.scope }),
          headers: NO_STORE,
        };
      }
      case 'authorize':
        // A native app's sign-in, in the system browser (`nativeApps`).
        // HEAD answers like GET without its side effects: no code, no check cookie.
        if (this.nativeApps?.enabled && method === 'HEAD') return { status: 200, headers: NO_STORE };
        if (this.nativeApps?.enabled && (get || post)) return await this.nativeApps.authorize(ctx);
        break;
      case 'webauthn-options':
        if (get && providerId) {
          const pctx = this.providerContext(ctx, providerId);
          const flow = this.flow(pctx.provider);
          if (!flow.options)
            throw new InvalidProvider(`Provider ${JSON.stringify(providerId)} is not a WebAuthn provider.`);
          return flow.options(pctx);
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

  /** The configured provider of an id from the request, if any. */
  private configured(providerId: string | undefined): InternalProvider | undefined {
    return providerId === undefined ? undefined : this.config.providerById.get(providerId);
  }

  /** Whether a configured provider's flow runs in the browser script (the sign-in page loads it). */
  private get browserScript(): boolean {
    return this.config.providers.some((p) => this.flows.get(p.type)?.usesBrowserScript === true);
  }

  /** The lifetime of the link a provider's flow sent (the verify-request page states it), if it says. */
  private linkMaxAge(providerId: string | undefined): number | undefined {
    const provider = this.configured(providerId);
    return provider && this.flows.get(provider.type)?.linkMaxAge?.(provider);
  }

  /**
   * For an error answer: whether the callback came from another site, or names no known provider
   * (both: no Referer). True too when the flows cannot be resolved (the answer is an error already).
   */
  private callbackFromElsewhere(providerId: string | undefined): boolean {
    try {
      return this.configured(providerId) === undefined || this.crossSiteCallback(providerId);
    } catch {
      return true;
    }
  }

  /** Whether the provider's callback may come from another site (an unknown id: no). */
  private crossSiteCallback(providerId: string | undefined): boolean {
    const provider = this.configured(providerId);
    return provider !== undefined && this.flows.get(provider.type)?.crossSiteCallback === true;
  }

  private flow(provider: InternalProvider): ProviderFlow {
    const flow = this.flows.get(provider.type);
    if (!flow) throw new InvalidProvider(`Providers of type ${provider.type} are not supported.`);
    return flow;
  }
}
