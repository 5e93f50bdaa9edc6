import { type ExecutionContext, ForbiddenException, HttpException, UnauthorizedException } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { GuardRejection } from '../errors/auth.errors.js';
import type { AuthUser } from '../session/session.types.js';
import { UnsupportedContextError } from '../errors/auth.errors.js';

/**
 * GraphQL, WebSocket and RPC contexts, read from `context.getType()` and the raw handler arguments
 * so that `lib/` never imports `@nestjs/graphql`, `@nestjs/websockets` or `@nestjs/microservices`
 * (optional peers). HTTP never comes here: the guard reads it first, on its own path.
 */

/** A request-like object: the headers the session is read from (the socket, for `isSecureRequest`). */
export interface ContextRequest {
  headers: IncomingHttpHeaders;
  socket?: unknown;
  user?: AuthUser;
}

/** Where the guard reads the session of a non-HTTP call, and where it leaves the user. */
export interface ContextSource {
  /** Headers (Cookie, Authorization) and socket of the call. */
  request: ContextRequest;
  /** The object `@CurrentUser()` / `@AuthSession()` read: the request, the socket, or the RPC payload. */
  holder: object;
  /** A bearer token given outside the headers (socket.io `auth.token`, an RPC payload's `authorization`). */
  authorization?: string;
}

const EMPTY: ContextRequest = Object.freeze({ headers: Object.freeze({}) }) as ContextRequest;

/** Users of RPC calls, by payload: a payload is the client's, so `user` on it could be forged. */
const rpcUsers = new WeakMap<object, AuthUser>();

/** The user the guard let in for an RPC payload. */
export function rpcUser(payload: object): AuthUser | undefined {
  return rpcUsers.get(payload);
}

/** Leaves the user where `@CurrentUser()` reads it for this context. */
export function setContextUser(context: ExecutionContext, holder: object, user: AuthUser | undefined): void {
  if (context.getType() === 'rpc') {
    if (user) rpcUsers.set(holder, user);
    else rpcUsers.delete(holder);
  } else (holder as { user?: AuthUser }).user = user;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const bearer = (token: unknown) => (typeof token === 'string' && token ? `Bearer ${token}` : undefined);

/**
 * The request behind a GraphQL, WebSocket or RPC call.
 * - `graphql`: the resolver's arguments are `[root, args, ctx, info]`; the request is `ctx.req`
 *   (Apollo over Express: `context: ({ req }) => ({ req })`, the default of `@nestjs/apollo`).
 * - `ws`: the socket. socket.io: its handshake request and `handshake.auth.token`; ws: the upgrade
 *   request the gateway keeps as `client.request` in `handleConnection(client, request)`.
 * - `rpc`: the payload's `authorization` field (`Bearer <token>`); nothing else of it is trusted.
 */
export function contextSource(context: ExecutionContext): ContextSource {
  const type = context.getType<string>();
  if (type === 'graphql') {
    const ctx = context.getArgByIndex<unknown>(2);
    const req = isObject(ctx) ? ctx.req : undefined;
    if (!isObject(req) || !isObject(req.headers))
      throw new Error(
        'AuthGuard found no request in the GraphQL context: give it as `req` (context: ({ req }) => ({ req })).',
      );
    return { request: req as unknown as ContextRequest, holder: req };
  }
  if (type === 'ws') {
    const client = context.getArgByIndex<unknown>(0);
    if (!isObject(client)) return { request: EMPTY, holder: {} };
    const handshake = isObject(client.handshake) ? client.handshake : undefined;
    const req = isObject(client.request) ? client.request : isObject(client.upgradeReq) ? client.upgradeReq : undefined;
    const request = (req && isObject(req.headers) ? req : EMPTY) as unknown as ContextRequest;
    return { request, holder: client, authorization: bearer(isObject(handshake?.auth) && handshake.auth.token) };
  }
  if (type === 'rpc') {
    const payload = context.getArgByIndex<unknown>(0);
    if (!isObject(payload)) return { request: EMPTY, holder: {} };
    const authorization = typeof payload.authorization === 'string' ? payload.authorization : undefined;
    return { request: EMPTY, holder: payload, authorization };
  }
  throw new UnsupportedContextError(type);
}

/** The holder of a call for the decorators, without throwing (a `@Public()` handler in any context). */
export function contextHolder(context: ExecutionContext): object | undefined {
  const type = context.getType<string>();
  if (type === 'graphql') {
    const ctx = context.getArgByIndex<unknown>(2);
    return isObject(ctx) && isObject(ctx.req) ? ctx.req : undefined;
  }
  const first = context.getArgByIndex<unknown>(0);
  return isObject(first) ? first : undefined;
}

type ExceptionClass = new (error: object) => Error;
/** `WsException` / `RpcException` by context type, once loaded from the app's own copy of the package. */
const exceptions = new Map<string, ExceptionClass | undefined>();
const PACKAGES: Record<string, [string, string]> = {
  ws: ['@nestjs/websockets', 'WsException'],
  rpc: ['@nestjs/microservices', 'RpcException'],
};

/**
 * Loads the transport's exception class (its filter answers only its own class), once per context
 * type; undefined when nothing needs loading. A dynamic import, so the package stays an optional peer.
 */
export function loadContextException(type: string): Promise<void> | undefined {
  const pkg = PACKAGES[type];
  if (!pkg || exceptions.has(type)) return undefined;
  const specifier: string = pkg[0];
  return import(specifier).then(
    (mod: Record<string, ExceptionClass>) => void exceptions.set(type, mod[pkg[1]]),
    () => void exceptions.set(type, undefined),
  );
}

/**
 * The refusal for a non-HTTP call: GraphQL, a 401 whose `extensions` say `UNAUTHENTICATED` and the
 * reason; WebSockets, a `WsException`; RPC, an `RpcException` (each `{ status, error, message }`).
 */
export function contextRefusal(type: string, reason: GuardRejection, message: string): Error {
  const statusCode = reason === 'InsufficientScope' ? 403 : reason === 'RateLimited' ? 429 : 401;
  const body = { statusCode, status: 'error', error: reason, message };
  const Exception = exceptions.get(type);
  if (Exception) return new Exception(body);
  const error =
    statusCode === 403
      ? new ForbiddenException(body)
      : statusCode === 429
        ? new HttpException(body, 429)
        : new UnauthorizedException(body);
  // graphql-js copies an error's `extensions` into the GraphQL error it reports.
  const code = statusCode === 403 ? 'FORBIDDEN' : statusCode === 429 ? 'RATE_LIMITED' : 'UNAUTHENTICATED';
  Object.defineProperty(error, 'extensions', { value: { code, reason }, enumerable: false });
  return error;
}
