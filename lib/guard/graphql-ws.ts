import type { IncomingHttpHeaders } from 'node:http';
import { SessionTokenError, type GuardRejection } from '../errors/auth.errors.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { sessionLookupOf } from '../http/auth-request.factory.js';
import type { SessionReader } from '../session/session-reader.js';
import type { SessionState } from '../session/session.types.js';
import type { ContextRequest } from './guard-context.js';

/**
 * GraphQL subscriptions over `graphql-ws`: the connection is authenticated once, on
 * `connection_init` (`onConnect`), from the session cookie of the upgrade request or
 * `connectionParams.authorization` (`Bearer <session token>`); each operation then gets a request
 * made of those credentials as `req` in its context ({@link graphqlContext}), so `AuthGuard` checks
 * the session again when a subscription starts (a session revoked since is refused) and
 * `@CurrentUser()` / `@AuthSession()` work in `@Subscription` resolvers.
 *
 * Structural types only: `lib/` never imports `graphql-ws` or `@nestjs/graphql` (optional peers).
 */

/** The part of graphql-ws's connection context these hooks read (`Context` of `graphql-ws`). */
export interface GraphqlWsConnection {
  readonly connectionParams?: Readonly<Record<string, unknown>>;
  /** `graphql-ws/use/ws`: the `ws` socket and the upgrade request. */
  readonly extra: unknown;
}

/** The close code a refused connection gets; its reason is the stable type (`SessionRequired`, ...). */
export const GRAPHQL_WS_UNAUTHORIZED = 4401;

/** What `AuthService.graphqlWsOptions()` gives `subscriptions: { 'graphql-ws': { ... } }`. */
export interface GraphqlWsAuthOptions {
  /**
   * Reads the session at `connection_init`; `false` (the socket closed with
   * {@link GRAPHQL_WS_UNAUTHORIZED} and the reason) without an active one.
   */
  onConnect(ctx: GraphqlWsConnection): Promise<boolean>;
}

/** The request each connection's operations get, by graphql-ws `extra` (one per connection). */
const connections = new WeakMap<object, ContextRequest>();

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const REASONS: Record<Exclude<SessionState['status'], 'active'>, GuardRejection> = {
  none: 'SessionRequired',
  expired: 'SessionExpired',
  invalid: 'InvalidSession',
  limited: 'RateLimited',
};

/**
 * Whether the upgrade request may be authenticated by its cookie: a browser sends the cookie with a
 * WebSocket upgrade started by any site, so a cross-origin upgrade is read as if it had no cookie.
 * The origin must be the configured `url`'s, or (without `url`) the host the upgrade was sent to,
 * or one of `trustedOrigins`.
 */
function sameOrigin(headers: IncomingHttpHeaders, config: ResolvedAuthConfig): boolean {
  const origin = headers.origin;
  if (origin === undefined) return true; // not a browser: nothing sends cookies on its behalf
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  // A front end the app trusts (`trustedOrigins`) may open a subscription with its cookie too.
  if (config.trustedOrigins.has(parsed.origin)) return true;
  if (config.url) return parsed.origin === config.url.origin;
  return typeof headers.host === 'string' && parsed.host === headers.host.toLowerCase();
}

/** The credentials of a connection as a request-like object: the upgrade's cookie (same origin) and the params' bearer. */
function connectionRequest(ctx: GraphqlWsConnection, config: ResolvedAuthConfig): ContextRequest {
  const extra = isObject(ctx.extra) ? ctx.extra : {};
  const upgrade = isObject(extra.request) && isObject(extra.request.headers) ? extra.request : undefined;
  const upgradeHeaders = (upgrade?.headers ?? {}) as IncomingHttpHeaders;
  const authorization = ctx.connectionParams?.authorization;
  const headers: IncomingHttpHeaders = {};
  if (typeof authorization === 'string') headers.authorization = authorization;
  if (typeof upgradeHeaders.cookie === 'string' && sameOrigin(upgradeHeaders, config))
    headers.cookie = upgradeHeaders.cookie;
  if (upgradeHeaders['x-forwarded-proto'] !== undefined)
    headers['x-forwarded-proto'] = upgradeHeaders['x-forwarded-proto'];
  return { headers, socket: upgrade?.socket };
}

/** Closes a refused connection with 4401 and the reason (graphql-ws then sends nothing more). */
function refuse(ctx: GraphqlWsConnection, reason: GuardRejection): false {
  const socket = isObject(ctx.extra) ? ctx.extra.socket : undefined;
  if (isObject(socket) && typeof socket.close === 'function')
    (socket.close as (code: number, reason: string) => void)(GRAPHQL_WS_UNAUTHORIZED, reason);
  // graphql-ws closes with 4403 "Forbidden" on `false` if the socket is still open.
  return false;
}

/** The `onConnect` hook of {@link GraphqlWsAuthOptions}, for `AuthService`. */
export function graphqlWsAuth(reader: SessionReader, config: ResolvedAuthConfig): GraphqlWsAuthOptions {
  return {
    async onConnect(ctx) {
      const request = connectionRequest(ctx, config);
      let state: SessionState;
      try {
        state = await reader.read(sessionLookupOf(request, config));
      } catch (error) {
        // A throwing `jwt`/`session` callback: refused, as the guard does (fail closed).
        config.logger.error(
          new SessionTokenError('Reading the session failed; the connection was refused.', { cause: error }),
        );
        return refuse(ctx, 'InvalidSession');
      }
      if (state.status !== 'active') return refuse(ctx, REASONS[state.status]);
      if (isObject(ctx.extra)) connections.set(ctx.extra, request);
      return true;
    },
  };
}

/**
 * The GraphQL `context` for HTTP and graphql-ws alike: `{ req }` with the Express request
 * (`{ req, res }` from `@as-integrations/express5`), the Fastify request (`(request, reply)` from
 * `@as-integrations/fastify`), or, for a subscription, the credentials its connection was
 * authenticated with in `onConnect` (none when `onConnect` did not let it in: the guard refuses it).
 */
export function graphqlContext(arg: unknown, reply?: unknown): { req: object; res?: unknown } {
  if (isObject(arg) && 'connectionInitReceived' in arg && 'extra' in arg) {
    const known = isObject(arg.extra) ? connections.get(arg.extra) : undefined;
    // A copy per operation: the guard leaves each operation's user and session on its own request.
    return { req: { headers: { ...(known?.headers ?? {}) }, socket: known?.socket } };
  }
  if (isObject(arg) && isObject(arg.req)) return { req: arg.req, res: arg.res };
  return { req: isObject(arg) ? arg : { headers: {} }, res: reply };
}
