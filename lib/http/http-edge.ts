import type { IncomingHttpHeaders } from 'node:http';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { AuthRequest, AuthResponse } from '../types/http.types.js';
import {
  buildAuthRequest,
  writeAuthResponse,
  type RawRequestParts,
  type ResponseSink,
} from './auth-request.factory.js';

/** The HTTP platforms the module runs on (`HttpAdapterHost.httpAdapter.getType()`). */
export type HttpPlatform = 'express' | 'fastify';

/**
 * One HTTP platform as the module sees it: its request as an `AuthRequest`, an `AuthResponse`
 * written to its response, and the route path that matches everything below a prefix.
 */
export interface HttpEdge {
  readonly platform: HttpPlatform;
  /** @throws UntrustedHost / InvalidRequest (see `resolvePublicUrl`) */
  read(req: unknown, config: ResolvedAuthConfig): AuthRequest;
  write(req: unknown, res: unknown, response: AuthResponse): void;
  /** The route path matching every path below `prefix` (each router has its own syntax). */
  catchAll(prefix: string): string;
  /** Registers what the platform needs beyond the routes (hooks), once at bootstrap. */
  install?(instance: unknown, prefix: string): void;
}

/** What a platform contributes: its request's parts, its response as a sink, its routing. */
export interface EdgeSpec<Req extends { headers: IncomingHttpHeaders }, Res> extends Pick<
  HttpEdge,
  'platform' | 'catchAll' | 'install'
> {
  parts(req: Req): RawRequestParts;
  sink(res: Res): ResponseSink;
}

/** An {@link HttpEdge} from a platform's parts: one reader and one writer for every platform. */
export function defineEdge<Req extends { headers: IncomingHttpHeaders }, Res>(spec: EdgeSpec<Req, Res>): HttpEdge {
  return {
    platform: spec.platform,
    catchAll: spec.catchAll,
    install: spec.install,
    read: (req, config) => buildAuthRequest(spec.parts(req as Req), config),
    write: (req, res, answer) => writeAuthResponse((req as Req).headers, spec.sink(res as Res), answer),
  };
}
