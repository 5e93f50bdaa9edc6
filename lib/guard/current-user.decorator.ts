import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { CREDENTIAL, SESSION_CREDENTIAL, type AuthUser, type CredentialInfo } from '../session/session.types.js';
import { requestSession, type AuthenticatedRequest } from './auth.guard.js';
import { contextHolder, rpcUser } from './guard-context.js';

/** The user of a GraphQL, WebSocket or RPC call (HTTP is read first, directly). */
function contextUser(context: ExecutionContext): AuthUser | undefined {
  const holder = contextHolder(context);
  if (!holder) return undefined;
  return context.getType() === 'rpc' ? rpcUser(holder) : (holder as AuthenticatedRequest).user;
}

/**
 * The signed-in user, set by `AuthGuard`; `@CurrentUser('email')` injects one property.
 * `undefined` on routes the guard did not run on (or `@Public()` routes).
 */
export const CurrentUser = createParamDecorator((property: string | undefined, context: ExecutionContext) => {
  // args[0] is what switchToHttp().getRequest() returns, without the closures it attaches.
  const user =
    context.getType() === 'http' ? context.getArgByIndex<AuthenticatedRequest>(0).user : contextUser(context);
  return property ? user?.[property] : user;
});

/**
 * The session (as `GET /auth/session` returns it), set by `AuthGuard`. `@AuthSession('credential')`
 * injects what the request's credential is instead (`CredentialInfo`: `kind` `'session'`,
 * `'accessToken'` or `'apiKey'`, its `scopes` (`null`: not limited), an access token's `clientId`,
 * an API key's `keyId`).
 */
export const AuthSession = createParamDecorator((property: 'credential' | undefined, context: ExecutionContext) => {
  const holder = context.getType() === 'http' ? context.getArgByIndex<object>(0) : contextHolder(context);
  const session = holder ? requestSession(holder) : undefined;
  if (property !== 'credential') return session;
  if (!session) return undefined;
  return ((session as unknown as Record<symbol, CredentialInfo | undefined>)[CREDENTIAL] ??
    SESSION_CREDENTIAL) as CredentialInfo;
});
