import { type CanActivate, type ExecutionContext, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { stringifySetCookie } from 'cookie';
import { AUTH_CONFIG } from '../auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { SessionService, type AuthUser, type SessionState } from '../core/session.service.js';
import type { GuardRejection } from '../errors/auth.errors.js';
import type { Session } from '../types/common.types.js';
import { isSecureRequest, requestCookies } from './auth-request.factory.js';
import { IS_PUBLIC_KEY } from './public.decorator.js';

/** Where the guard leaves what it found on the request. */
export interface AuthenticatedRequest extends Request {
  user?: AuthUser;
  authSession?: Session;
}

const MESSAGES: Record<GuardRejection, string> = {
  SessionRequired: 'Sign in to access this resource.',
  SessionExpired: 'Your session has expired. Sign in again.',
  InvalidSession: 'The session is invalid or was revoked. Sign in again.',
};

/**
 * Protects routes: reads the session from the session cookie or `Authorization: Bearer <token>`,
 * puts the user on the request (`@CurrentUser()`), and answers 401 `{ error: <reason> }` otherwise.
 * Use it per route (`@UseGuards(AuthGuard)`) or globally (`globalGuard: true`, opt out with `@Public()`).
 * The hooks are `protected` so a subclass can, say, redirect browsers to the sign-in page.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    protected readonly reflector: Reflector,
    protected readonly sessions: SessionService,
    @Inject(AUTH_CONFIG) protected readonly config: ResolvedAuthConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.shouldSkip(context)) return true;
    const req = this.getRequest(context);
    const state = await this.sessions.read({
      cookies: requestCookies(req.headers.cookie),
      authorization: req.headers.authorization,
      secure: isSecureRequest(req, this.config),
    });
    if (state.status === 'active') {
      req.user = state.user;
      req.authSession = state.session;
      return true;
    }
    if (state.status !== 'none' && state.clearCookies.length) this.clearCookies(context, state);
    return this.handleUnauthenticated(context, state.status === 'none' ? 'SessionRequired' : state.status === 'expired' ? 'SessionExpired' : 'InvalidSession');
  }

  /** True for routes marked `@Public()` (handler first, then controller). */
  protected shouldSkip(context: ExecutionContext): boolean {
    return this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()]) === true;
  }

  /** The HTTP request; override for GraphQL (`GqlExecutionContext`) or WebSockets. */
  protected getRequest(context: ExecutionContext): AuthenticatedRequest {
    return context.switchToHttp().getRequest<AuthenticatedRequest>();
  }

  /** The HTTP response, used to clear a bad session cookie; override with `getRequest`. */
  protected getResponse(context: ExecutionContext): Response | undefined {
    return context.getType() === 'http' ? context.switchToHttp().getResponse<Response>() : undefined;
  }

  /** Refuses the request. The default throws 401 with a stable `error` type. */
  protected handleUnauthenticated(_context: ExecutionContext, reason: GuardRejection): boolean {
    throw new UnauthorizedException({ statusCode: 401, error: reason, message: MESSAGES[reason] });
  }

  private clearCookies(context: ExecutionContext, state: Extract<SessionState, { clearCookies: unknown }>): void {
    const res = this.getResponse(context);
    if (!res || typeof res.append !== 'function') return;
    for (const c of state.clearCookies) res.append('Set-Cookie', stringifySetCookie({ name: c.name, value: c.value, ...c.options }));
  }
}
