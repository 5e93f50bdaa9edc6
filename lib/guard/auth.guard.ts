import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { SessionReader } from '../session/session-reader.js';
import type { AuthUser, SessionLookup, SessionState } from '../session/session.types.js';
import { SessionTokenError, type GuardRejection } from '../errors/auth.errors.js';
import { RequestErrorLog } from '../core/error-log.js';
import type { Session } from '../types/common.types.js';
import { appendSetCookie, sessionLookupOf } from '../http/auth-request.factory.js';
import { SESSION_SLOT, type SlottedRequest } from '../http/request-slots.js';
import { isRecentSignIn } from '../session/recent-sign-in.js';
import type { Assurance } from '../session/assurance.js';
import { contextSource, loadContextException, setContextUser } from './guard-context.js';
import {
  FRESH,
  contextLookup,
  credentialRefusal,
  guardRefusal,
  readRoutePolicy,
  rejectionOf,
  type ActiveState,
  type RoutePolicy,
} from './guard-policy.js';

/** Where the guard leaves the user: `req.user`, as Passport does. */
export interface AuthenticatedRequest extends Request {
  user?: AuthUser;
}

/**
 * The sessions the guard let in (`@AuthSession()`, {@link requestSession}): in the slot an Express
 * request is given as it arrives ({@link SESSION_SLOT}), else by request in a WeakMap (Fastify,
 * WebSocket clients, RPC payloads): a property added to a request after it was built costs more.
 */
const sessionsByRequest = new WeakMap<object, Session>();

/** The session `AuthGuard` found for a request (what `@AuthSession()` injects), or undefined. */
export function requestSession(req: object): Session | undefined {
  return ((req as SlottedRequest)[SESSION_SLOT] as Session | null | undefined) ?? sessionsByRequest.get(req);
}

/** Leaves the session where {@link requestSession} finds it. */
function keepSession(holder: object, session: Session): void {
  if ((holder as SlottedRequest)[SESSION_SLOT] !== undefined) (holder as SlottedRequest)[SESSION_SLOT] = session;
  else sessionsByRequest.set(holder, session);
}

/**
 * The responses of the requests the guard let in, kept only with `session.tokens` (JWT strategy):
 * where `AuthService.getAccessToken(request, provider)` writes the session cookie a refresh rewrote.
 */
const responsesByRequest = new WeakMap<object, object>();

/** The HTTP response (Express response, Fastify reply) of a request `AuthGuard` let in, with `session.tokens`. */
export function requestResponse(req: object): object | undefined {
  return responsesByRequest.get(req);
}

/**
 * Protects routes: reads the session from the session cookie or `Authorization: Bearer <token>`,
 * puts the user on the request (`@CurrentUser()`), and answers 401 `{ error: <reason> }` otherwise.
 * Use it per route (`@UseGuards(AuthGuard)`) or globally (`globalGuard: true`, opt out with `@Public()`).
 * The hooks are `protected` so a subclass can, say, redirect browsers to the sign-in page.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  /** Route policies by handler, then controller (a handler can be inherited by several controllers). */
  private readonly routes = new WeakMap<Function, Map<Function, RoutePolicy>>();
  /** A subclass that overrides `getRequest` reads every context itself, as before contexts were read here. */
  private readonly ownRequest = this.getRequest !== AuthGuard.prototype.getRequest;
  /** A subclass that overrides `shouldSkip` decides which routes skip the guard. */
  private readonly ownSkip = this.shouldSkip !== AuthGuard.prototype.shouldSkip;
  /** `session.tokens`: a refresh may rewrite the cookie, so the response is kept for the route. */
  private readonly keepResponses: boolean;

  /**
   * Nest injects the guard (a subclass inherits this constructor); an app does not construct it.
   *
   * @internal
   */
  constructor(
    protected readonly reflector: Reflector,
    protected readonly sessions: SessionReader,
    @Inject(AUTH_CONFIG) protected readonly config: ResolvedAuthConfig,
    // Optional, so subclasses written against the three-argument constructor keep working.
    @Optional() private readonly errorLog?: RequestErrorLog,
  ) {
    this.keepResponses = config.session.strategy === 'jwt' && config.session.tokens === true;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    // The route's policy is read once per request (`shouldSkip` reads it too, unless overridden).
    const policy = this.policy(context);
    if (this.ownSkip ? this.shouldSkip(context) : policy.public) return true;
    if (context.getType() !== 'http' && !this.ownRequest) return this.activateContext(context, policy);
    const req = this.getRequest(context);
    return this.admitSession(context, req, req, sessionLookupOf(req, this.config), policy, true);
  }

  /**
   * GraphQL (`ctx.req`), WebSockets (the handshake or upgrade request) and RPC (the payload's
   * `authorization`): the same session read as HTTP, the user left where `@CurrentUser()` looks.
   * Any other context type fails with `UnsupportedContextError`, naming it.
   */
  private activateContext(context: ExecutionContext, policy: RoutePolicy): boolean | Promise<boolean> {
    if (this.config.rpc === 'skip' && context.getType() === 'rpc') return true;
    const loading = loadContextException(context.getType());
    if (loading) return loading.then(() => this.activateContext(context, policy));
    const { request, holder, authorization } = contextSource(context);
    // A socket keeps its user between messages: forget it until this message is let in.
    setContextUser(context, holder, undefined);
    const lookup = contextLookup(request, authorization, this.config);
    return this.admitSession(context, request as AuthenticatedRequest, holder, lookup, policy, false);
  }

  /**
   * The one read-then-decide pipeline of every context: a cache hit, a JWT the default decoder
   * reads, or no token at all is decided without a promise (this runs on every request); anything
   * else is read asynchronously first. `holder` is where the user goes (the request for HTTP; the
   * context's holder otherwise); `http` says which.
   */
  private admitSession(
    context: ExecutionContext,
    request: AuthenticatedRequest,
    holder: object,
    lookup: SessionLookup,
    policy: RoutePolicy,
    http: boolean,
  ): boolean | Promise<boolean> {
    const known = policy.uncached ? undefined : this.sessions.readCached(lookup);
    if (known) return this.decide(context, request, holder, known, policy, http);
    return this.readAndDecide(context, request, holder, lookup, policy, http);
  }

  /** The asynchronous read (database lookup, custom callbacks), then the decision; no closures. */
  private async readAndDecide(
    context: ExecutionContext,
    request: AuthenticatedRequest,
    holder: object,
    lookup: SessionLookup,
    policy: RoutePolicy,
    http: boolean,
  ): Promise<boolean> {
    let state: SessionState;
    try {
      state = await this.sessions.read(lookup, policy.uncached ? FRESH : undefined);
    } catch (error) {
      return this.failed(context, error);
    }
    return this.decide(context, request, holder, state, policy, http);
  }

  /**
   * A session read that threw (a `jwt`/`session` callback, a custom `jwt.decode`): logged, and the
   * request refused as `InvalidSession` (fail closed), never a 500 from deep inside the guard.
   * The cookie is kept: the fault may be the server's.
   */
  private failed(context: ExecutionContext, error: unknown): boolean {
    const failure = new SessionTokenError('Reading the session failed; the request was refused.', { cause: error });
    if (this.errorLog) this.errorLog.report(failure);
    else this.config.logger.error(failure);
    return this.handleUnauthenticated(context, 'InvalidSession');
  }

  /** Lets the request through with its user, or refuses it (see {@link handleUnauthenticated}). */
  private decide(
    context: ExecutionContext,
    request: AuthenticatedRequest,
    holder: object,
    state: SessionState,
    policy: RoutePolicy,
    http: boolean,
  ): boolean | Promise<boolean> {
    if (state.status === 'active') {
      // A session on a route without `@Auth()` limits passes as before: one comparison.
      if (!(policy.sessionsPass && (state.strategy === 'jwt' || state.strategy === 'database'))) {
        const refusal = credentialRefusal(state, policy);
        if (refusal) return this.handleUnauthenticated(context, refusal);
      }
      if (policy.recentSignIn !== undefined || policy.aal !== undefined)
        return this.checkAssurance(context, holder, state, policy, http);
      this.admit(context, holder, state, http);
      return true;
    }
    if (state.status !== 'none' && state.clearCookies.length) this.clearCookies(context, state);
    if (state.status === 'limited') this.setHeader(context, 'Retry-After', String(state.retryAfter));
    return this.handleUnauthenticated(context, rejectionOf(state));
  }

  /** Leaves the user where `@CurrentUser()` looks and the session where `requestSession` does. */
  private admit(context: ExecutionContext, holder: object, state: ActiveState, http: boolean): void {
    if (http) (holder as AuthenticatedRequest).user = state.user;
    else setContextUser(context, holder, state.user);
    keepSession(holder, state.session);
    if (http && this.keepResponses) {
      const res = this.getResponse(context);
      if (res) responsesByRequest.set(holder, res);
    }
  }

  /**
   * `@RequireRecentSignIn()` and `@RequireAal()`: lets an active session in only when its user
   * signed in within the window, and with two factors where the route asks for them (a database
   * session's sign-in time and assurance are looked up once, then cached with it); refuses it as
   * `ReauthenticationRequired` or `SecondFactorRequired` otherwise, an unknown value included.
   */
  private checkAssurance(
    context: ExecutionContext,
    holder: object,
    state: ActiveState,
    policy: RoutePolicy,
    http: boolean,
  ): boolean | Promise<boolean> {
    const seconds = policy.recentSignIn;
    const recent = (signedInAt: Date | null): boolean => isRecentSignIn(signedInAt, seconds!, Date.now());
    const strong = (assurance: Assurance): boolean => assurance.aal >= policy.aal!;
    const admit = (signedInAt: Date | null | undefined, assurance: Assurance | undefined): boolean => {
      if (seconds !== undefined && !recent(signedInAt ?? null))
        return this.handleUnauthenticated(context, 'ReauthenticationRequired');
      if (assurance && !strong(assurance)) return this.handleUnauthenticated(context, 'SecondFactorRequired');
      this.admit(context, holder, state, http);
      return true;
    };
    let signedInAt: ReturnType<SessionReader['signedInAt']> | undefined;
    let assurance: ReturnType<SessionReader['assurance']> | undefined;
    try {
      if (seconds !== undefined) signedInAt = this.sessions.signedInAt(state);
      if (policy.aal !== undefined) assurance = this.sessions.assurance(state);
    } catch (error) {
      return this.failed(context, error);
    }
    return signedInAt instanceof Promise || assurance instanceof Promise
      ? Promise.all([signedInAt, assurance]).then(
          ([at, level]) => admit(at, level),
          (error) => this.failed(context, error),
        )
      : admit(signedInAt as Date | null | undefined, assurance as Assurance | undefined);
  }

  /** True for routes marked `@Public()` (handler first, then controller). */
  protected shouldSkip(context: ExecutionContext): boolean {
    return this.policy(context).public;
  }

  /** The route's `@Public()` and `@SkipSessionCache()`, handler first, then controller. */
  private policy(context: ExecutionContext): RoutePolicy {
    const handler = context.getHandler();
    const controller = context.getClass();
    // Decorator metadata is fixed once the app runs: read it once per route, not on every request.
    const byController = typeof handler === 'function' ? this.routes.get(handler) : undefined;
    const known = byController?.get(controller);
    if (known) return known;
    const policy = readRoutePolicy(this.reflector, handler, controller, this.config.account.recentSignInMaxAge);
    if (typeof handler === 'function') {
      if (byController) byController.set(controller, policy);
      else this.routes.set(handler, new Map([[controller, policy]]));
    }
    return policy;
  }

  /**
   * The HTTP request. GraphQL, WebSocket and RPC calls are read by `contextSource`, unless a
   * subclass overrides this method: it is then asked for the request in every context.
   */
  protected getRequest(context: ExecutionContext): AuthenticatedRequest {
    // What `switchToHttp().getRequest()` returns, without the closures it attaches to the context.
    return context.getArgByIndex<AuthenticatedRequest>(0);
  }

  /** The HTTP response, used to clear a bad session cookie; override with `getRequest`. */
  protected getResponse(context: ExecutionContext): Response | undefined {
    return context.getType() === 'http' ? context.switchToHttp().getResponse<Response>() : undefined;
  }

  /**
   * Refuses the request. The default throws 401 with a stable `error` type; in GraphQL with
   * `extensions: { code: 'UNAUTHENTICATED', reason }`, over WebSockets a `WsException`, over RPC an
   * `RpcException`, each carrying `{ error: reason, message }`.
   */
  protected handleUnauthenticated(context: ExecutionContext, reason: GuardRejection): boolean {
    throw guardRefusal(context.getType<string>(), reason);
  }

  /** Sets a header of the HTTP answer (a refusal's `Retry-After`); nothing in other contexts. */
  private setHeader(context: ExecutionContext, name: string, value: string): void {
    const res = this.getResponse(context) as
      { header?: (n: string, v: string) => unknown; setHeader?: (n: string, v: string) => unknown } | undefined;
    if (typeof res?.header === 'function') res.header(name, value);
    else if (typeof res?.setHeader === 'function') res.setHeader(name, value);
  }

  private clearCookies(context: ExecutionContext, state: Extract<SessionState, { clearCookies: unknown }>): void {
    const res = this.getResponse(context);
    if (!res) return;
    for (const c of state.clearCookies) appendSetCookie(res, c);
  }
}
