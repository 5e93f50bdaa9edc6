import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import { redirectMatches, type ResolvedNativeClient } from '../config/native-apps.options.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { RequestErrorLog } from '../core/error-log.js';
import type { RequestContext } from '../core/request-context.js';
import { AdapterService } from '../core/adapter.service.js';
import { InvalidCheck, MissingCSRF, ReauthenticationRequired } from '../errors/auth.errors.js';
import { loadRenderers } from '../pages/load-renderers.js';
import { dateMs } from '../util/instant.js';
import { AccessTokens } from '../session/access-tokens.js';
import { SessionList } from '../session/session-list.js';
import { SessionReader } from '../session/session-reader.js';
import type { SessionState } from '../session/session.types.js';
import { ChecksService } from '../sign-in/checks.service.js';
import { WaysInGate } from '../sign-in/ways-in.gate.js';
import type { AuthRequest, AuthResponse } from '../types/http.types.js';
import { AuthorizationCodes, CHALLENGE } from './authorization-codes.js';
import { NativeAppError } from './native-app.error.js';
import { RefreshTokens } from './refresh-tokens.js';

/** The answers that carry tokens or codes are never stored (RFC 6749 section 5.1). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
/** The check cookie's provider: the authorization request is this module's, not a provider's. */
const CHECK = 'native-app';
/** Seconds an authorization request waits for its user to sign in. */
const REQUEST_MAX_AGE = 900;
/** The authorization request's parameters, as the continue form posts them back. */
const REQUEST_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
] as const;
const STATE_MAX = 512;
/**
 * User agents of embedded web views (RFC 8252 section 8.12): Android's WebView (`; wv)`), social
 * apps' in-app browsers, and iOS's WKWebView (WebKit on a phone without Safari's token; Safari,
 * SFSafariViewController, ASWebAuthenticationSession and other iOS browsers all carry it).
 */
const EMBEDDED = [
  /; wv\)/,
  /\bFBAN\/|\bFBAV\/|\bInstagram\b|\bLine\//,
  /^(?=.*\bAppleWebKit\/)(?=.*\bMobile\/)(?!.*\bSafari\/).*/,
];

type AuthorizeRequest = Record<(typeof REQUEST_PARAMS)[number], string> & { prompt: string };

/**
 * The routes of native apps (RFC 8252): `GET|POST {basePath}/authorize` (in the system browser: the
 * user signs in with any method, or confirms the session the browser has, and the app gets a
 * one-time code on its redirect URI), `POST {basePath}/token` (the code, with its PKCE verifier, or a
 * refresh token, for an access token and a refresh token), `POST {basePath}/revoke` (RFC 7009: the
 * app signs out) and `GET {basePath}/jwks` (the access tokens' public keys).
 */
@Injectable()
export class NativeAppRoutes {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly codes: AuthorizationCodes,
    private readonly refreshTokens: RefreshTokens,
    private readonly accessTokens: AccessTokens,
    private readonly reader: SessionReader,
    private readonly sessions: SessionList,
    private readonly checks: ChecksService,
    private readonly adapters: AdapterService,
    private readonly errorLog: RequestErrorLog,
    private readonly gate: WaysInGate,
  ) {}

  /** Whether native apps are on (else the routes answer as unknown ones). */
  get enabled(): boolean {
    return this.config.nativeApps !== null && this.accessTokens.enabled;
  }

  /**
   * `GET {basePath}/authorize` (and `POST`, the "Continue" form of a browser already signed in).
   * A request that cannot be answered to its app (unknown client, unregistered redirect URI) gets a
   * page here; every other refusal goes back to the app as `?error=`.
   */
  async authorize(ctx: RequestContext): Promise<AuthResponse> {
    const post = ctx.request.method === 'POST';
    const source = post ? ctx.request.body : ctx.request.query;
    const p = Object.fromEntries(
      [...REQUEST_PARAMS, 'prompt'].map((k) => [k, typeof source[k] === 'string' ? (source[k] as string) : '']),
    ) as AuthorizeRequest;
    const client = this.config.nativeApps!.clients.get(p.client_id);
    if (!client)
      return this.errorPage(
        ctx,
        'invalid_client',
        `The app "${p.client_id.slice(0, 64)}" is not registered (nativeApps.clients).`,
      );
    if (!redirectMatches(client, p.redirect_uri))
      return this.errorPage(
        ctx,
        'invalid_request',
        'redirect_uri is not one of the redirect URIs registered for this app (matched exactly).',
      );
    try {
      this.checkRequest(ctx.request, p);
      const state = await this.reader.read({ cookies: ctx.request.cookies, secure: ctx.secure });
      const active = state.status === 'active' && state.user.id ? state : undefined;
      // The session must be recent, as for any new way in: an old (or stolen) cookie signs in again.
      const recent = active && (await this.recent(active)) ? active : undefined;
      if (post) {
        if (!ctx.csrfVerified) throw new MissingCSRF('The form expired: go back to the app and start again.');
        if (!recent) return await this.toSignIn(ctx, p);
        return await this.issue(ctx, client, p, recent);
      }
      if (recent && (await this.signedInForThis(ctx, p, recent))) return await this.issue(ctx, client, p, recent);
      if (recent && p.prompt !== 'login') return await this.continuePage(ctx, client, p, recent);
      return await this.toSignIn(ctx, p);
    } catch (error) {
      if (error instanceof NativeAppError) return this.backToApp(p, error);
      throw error;
    }
  }

  /** `POST {basePath}/token`: `authorization_code` (with PKCE) and `refresh_token` grants. */
  async token(request: AuthRequest): Promise<AuthResponse> {
    return this.answer(request, async (client) => {
      const b = request.body;
      if (b.grant_type === 'authorization_code') {
        const grant = await this.codes.redeem(b.code, {
          clientId: client.clientId,
          redirectUri: b.redirect_uri,
          verifier: b.code_verifier,
        });
        const user = await this.adapters.require('getUser').getUser(grant.userId);
        if (!user) throw new NativeAppError('invalid_grant', 'The user of this code no longer exists.');
        return this.refreshTokens.start({
          familyId: this.codes.familyIdOf(grant.jti),
          user,
          client,
          amr: grant.amr,
          authTime: new Date(grant.authTime),
          request,
        });
      }
      if (b.grant_type === 'refresh_token') return this.refreshTokens.refresh(b.refresh_token, client.clientId);
      if (typeof b.grant_type !== 'string' || !b.grant_type)
        throw new NativeAppError('invalid_request', 'grant_type is missing: authorization_code or refresh_token.');
      throw new NativeAppError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
    });
  }

  /** `POST {basePath}/revoke` (RFC 7009): ends the sign-in of a refresh token or an access token. */
  async revoke(request: AuthRequest): Promise<AuthResponse> {
    return this.answer(request, async (client) => {
      const token = request.body.token;
      if (typeof token !== 'string' || !token) throw new NativeAppError('invalid_request', 'token is missing.');
      if (this.accessTokens.accepts(token)) {
        const state = await this.accessTokens.read(token);
        if (state.status === 'active' && state.token?.client_id === client.clientId) await this.sessions.endApp(state);
      } else {
        await this.refreshTokens.revoke(token, client.clientId);
      }
      // RFC 7009 section 2.2: an unknown or invalid token is answered as a revoked one.
      return {};
    });
  }

  /**
   * Runs a token or revocation request of a registered client: OAuth's error shape for a refusal,
   * and no 5xx body that says more than that the server failed.
   */
  private async answer(
    request: AuthRequest,
    handle: (client: ResolvedNativeClient) => Promise<object>,
  ): Promise<AuthResponse> {
    try {
      if (request.method !== 'POST') throw new NativeAppError('invalid_request', 'Use POST.');
      const client = this.clientOf(request);
      return { json: await handle(client), headers: NO_STORE };
    } catch (error) {
      if (error instanceof NativeAppError) {
        this.config.logger.debug('native_app_refused', { error: error.code, reason: error.description });
        return {
          status: error.status,
          json: { error: error.code, error_description: error.description },
          headers: { ...NO_STORE, ...(error.status === 401 ? { 'WWW-Authenticate': 'Basic realm="token"' } : {}) },
        };
      }
      this.errorLog.report(error);
      return {
        status: 500,
        json: { error: 'server_error', error_description: 'The server could not answer; try again later.' },
        headers: NO_STORE,
      };
    }
  }

  /** The registered client a token or revocation request names (`client_id`: public clients, no secret). */
  private clientOf(request: AuthRequest): ResolvedNativeClient {
    const id = request.body.client_id;
    if (request.headers.authorization)
      throw new NativeAppError(
        'invalid_client',
        'Native apps are public clients: send client_id in the body and no Authorization header.',
      );
    if (typeof id !== 'string' || !id) throw new NativeAppError('invalid_client', 'client_id is missing.');
    const client = this.config.nativeApps!.clients.get(id);
    if (!client) throw new NativeAppError('invalid_client', 'client_id is not a registered app (nativeApps.clients).');
    return client;
  }

  /** Whether the gate lets this session start an app's sign-in (`account.recentSignInMaxAge`). */
  private async recent(state: ActiveState): Promise<boolean> {
    try {
      await this.gate.check(state, 'app-sign-in');
      return true;
    } catch (error) {
      if (error instanceof ReauthenticationRequired) return false;
      throw error;
    }
  }

  /** What an authorization request must hold, besides its client and redirect URI. */
  private checkRequest(request: AuthRequest, p: AuthorizeRequest): void {
    const agent = request.headers['user-agent'] ?? '';
    if (EMBEDDED.some((re) => re.test(agent)))
      throw new NativeAppError(
        'invalid_request',
        'Sign-in does not work in an embedded web view: open the authorization URL in the system browser (RFC 8252).',
      );
    if (p.response_type !== 'code')
      throw new NativeAppError('unsupported_response_type', 'response_type must be code.');
    if (p.code_challenge_method !== 'S256')
      throw new NativeAppError('invalid_request', 'PKCE is required: code_challenge_method must be S256.');
    if (!CHALLENGE.test(p.code_challenge))
      throw new NativeAppError(
        'invalid_request',
        'code_challenge must be the base64url SHA-256 of the verifier (43 characters).',
      );
    if (p.state.length > STATE_MAX)
      throw new NativeAppError('invalid_request', `state must be at most ${STATE_MAX} characters.`);
  }

  /**
   * Whether the browser's session began after this very request sent its user to sign in (a check
   * cookie holds the request's digest and when), so the code goes to the app without asking again.
   */
  private async signedInForThis(ctx: RequestContext, p: AuthorizeRequest, state: ActiveState): Promise<boolean> {
    if (!ctx.request.cookies[ctx.cookies.nativeAuthorize.name]) return false;
    let opened;
    try {
      opened = await this.checks.open(ctx, 'nativeAuthorize', CHECK);
    } catch (error) {
      if (error instanceof InvalidCheck) return false;
      throw error;
    }
    const started = typeof opened.data?.t === 'number' ? opened.data.t : Infinity;
    if (opened.value !== digestOf(p)) return false;
    const signedInAt = await this.reader.signedInAt(state);
    // Whole seconds: a JWT's `auth_time` is one.
    const at = dateMs(signedInAt);
    return at !== undefined && at >= Math.floor(started / 1000) * 1000;
  }

  /** To the sign-in page, back here afterwards; the check cookie remembers this request. */
  private async toSignIn(ctx: RequestContext, p: AuthorizeRequest): Promise<AuthResponse> {
    await this.checks.seal(ctx, 'nativeAuthorize', digestOf(p), {
      provider: CHECK,
      maxAge: REQUEST_MAX_AGE,
      data: { t: Date.now() },
    });
    const back = new URL(`${ctx.authUrl}/authorize`);
    for (const k of REQUEST_PARAMS) if (p[k]) back.searchParams.set(k, p[k]);
    const signIn = new URL(this.config.pages.signIn ?? `${ctx.authUrl}/signin`, ctx.origin);
    signIn.searchParams.set('callbackUrl', back.href);
    return { redirect: signIn.href, headers: NO_STORE };
  }

  /** "Continue to {app}": a signed-in browser's user confirms (a POST with the CSRF token). */
  private async continuePage(
    ctx: RequestContext,
    client: ResolvedNativeClient,
    p: AuthorizeRequest,
    state: ActiveState,
  ): Promise<AuthResponse> {
    const { renderAppAuthorizePage } = await loadRenderers();
    const request = Object.fromEntries(REQUEST_PARAMS.filter((k) => p[k]).map((k) => [k, p[k]]));
    const other = new URL(`${ctx.authUrl}/authorize`);
    for (const [k, v] of Object.entries(request)) other.searchParams.set(k, v);
    other.searchParams.set('prompt', 'login');
    const user = state.user.email ?? state.user.name ?? state.user.id;
    return {
      headers: NO_STORE,
      html: renderAppAuthorizePage({
        action: `${ctx.authUrl}/authorize`,
        csrfToken: ctx.csrfToken,
        request,
        app: client.name,
        user: String(user),
        otherAccountUrl: other.href,
        theme: this.config.theme,
        messages: this.config.messages,
      }),
    };
  }

  /** The code, on the app's redirect URI. */
  private async issue(
    ctx: RequestContext,
    client: ResolvedNativeClient,
    p: AuthorizeRequest,
    state: ActiveState,
  ): Promise<AuthResponse> {
    const [assurance, signedInAt] = await Promise.all([this.reader.assurance(state), this.reader.signedInAt(state)]);
    const code = await this.codes.issue({
      userId: state.user.id,
      clientId: client.clientId,
      redirectUri: p.redirect_uri,
      challenge: p.code_challenge,
      amr: [...assurance.amr],
      // Unknown: as old as can be, so a recent sign-in check refuses it (fail closed).
      authTime: dateMs(signedInAt) ?? 0,
    });
    if (ctx.request.cookies[ctx.cookies.nativeAuthorize.name]) this.checks.discard(ctx, 'nativeAuthorize');
    return { redirect: this.redirectUri(p, { code }), headers: NO_STORE };
  }

  /** A refusal the app can read: `error`, `error_description`, `state` and `iss` on its redirect URI. */
  private backToApp(p: AuthorizeRequest, error: NativeAppError): AuthResponse {
    this.config.logger.debug('native_app_authorize_refused', { error: error.code, reason: error.description });
    return {
      redirect: this.redirectUri(p, { error: error.code, error_description: error.description }),
      headers: NO_STORE,
    };
  }

  /** The app's redirect URI with the answer, `state` and `iss` (RFC 9207) added to its query. */
  private redirectUri(p: AuthorizeRequest, values: Record<string, string>): string {
    const url = new URL(p.redirect_uri);
    for (const [k, v] of Object.entries(values)) url.searchParams.set(k, v);
    // A state too long to be one (refused for that) is not echoed: the Location header stays bounded.
    if (p.state && p.state.length <= STATE_MAX) url.searchParams.set('state', p.state);
    url.searchParams.set('iss', this.config.accessToken.issuer!);
    return url.href;
  }

  private async errorPage(ctx: RequestContext, code: string, message: string): Promise<AuthResponse> {
    this.config.logger.debug('native_app_authorize_refused', { error: code, reason: message });
    const { renderAppErrorPage } = await loadRenderers();
    return {
      status: 400,
      headers: NO_STORE,
      html: renderAppErrorPage({ message, theme: this.config.theme, messages: this.config.messages }),
    };
  }
}

type ActiveState = Extract<SessionState, { status: 'active' }>;

/** A digest of an authorization request, so the check cookie answers only that request. */
function digestOf(p: AuthorizeRequest): string {
  return createHash('sha256')
    .update(JSON.stringify(REQUEST_PARAMS.map((k) => p[k])))
    .digest('base64url');
}
