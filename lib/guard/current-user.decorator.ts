import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { requestSession, type AuthenticatedRequest } from './auth.guard.js';

/**
 * The signed-in user, set by `AuthGuard`; `@CurrentUser('email')` injects one property.
 * `undefined` on routes the guard did not run on (or `@Public()` routes).
 */
export const CurrentUser = createParamDecorator((property: string | undefined, context: ExecutionContext) => {
  // args[0] is what switchToHttp().getRequest() returns, without the closures it attaches.
  const user = context.getArgByIndex<AuthenticatedRequest>(0).user;
  return property ? user?.[property] : user;
});

/** The session (as `GET /auth/session` returns it), set by `AuthGuard`. */
export const AuthSession = createParamDecorator((_: unknown, context: ExecutionContext) => {
  return requestSession(context.getArgByIndex<object>(0));
});
