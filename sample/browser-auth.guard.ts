import { type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AuthGuard, type GuardRejection } from '../lib/index.js';

/**
 * `AuthGuard` for pages: a browser without a session is sent to the sign-in page (and back here
 * afterwards) instead of getting the 401 JSON body APIs get. This is the subclassing the guard's
 * `protected` hooks are for.
 */
@Injectable()
export class BrowserAuthGuard extends AuthGuard {
  protected override handleUnauthenticated(context: ExecutionContext, reason: GuardRejection): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const target = new URL(`${this.config.basePath}/signin`, 'http://placeholder.invalid');
    target.searchParams.set('callbackUrl', req.originalUrl);
    if (reason !== 'SessionRequired') target.searchParams.set('error', 'SessionRequired');
    // Answered here; Nest's exception filter skips responses already sent.
    // `redirect(url)` is a 302 on Express and Fastify alike.
    res.redirect(`${target.pathname}${target.search}`);
    return false;
  }
}
