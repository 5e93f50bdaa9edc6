import { Inject, Injectable, type OnModuleInit, Optional } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { AuthAction } from '../router/auth-action.js';
import { AuthRouterService } from '../router/auth-router.service.js';
import { AuthConfigurationError, AuthError } from '../errors/auth.errors.js';
import { RequestErrorLog } from '../core/error-log.js';
import type { HttpEdge } from './http-edge.js';
import { expressEdge } from './express.edge.js';
import { fastifyEdge } from './fastify.edge.js';
import { joinPaths } from './response-headers.js';
import { withGlobalPrefix } from '../config/access-token.options.js';

const EDGES: Record<string, HttpEdge> = { express: expressEdge, fastify: fastifyEdge };

/**
 * Answers the module's routes on the app's HTTP platform, detected once at bootstrap
 * (`HttpAdapterHost`: Express or Fastify; any other adapter fails with `AuthConfigurationError`).
 * Also mounts the catch-all below `basePath` (`400 UnknownAction`), in each router's own syntax,
 * after the controller's routes and before the platform's not-found handler.
 */
@Injectable()
export class AuthHttpHandler implements OnModuleInit {
  /** Express until the adapter says otherwise (apps without an HTTP adapter feed Express-like objects). */
  private edge: HttpEdge = expressEdge;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly router: AuthRouterService,
    private readonly errorLog: RequestErrorLog,
    private readonly appConfig: ApplicationConfig,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter) return;
    const type = String(adapter.getType?.());
    const edge = EDGES[type];
    if (!edge) {
      throw new AuthConfigurationError([
        `the HTTP adapter "${type}" is not supported: create the app with Express (the default) or Fastify (FastifyAdapter)`,
      ]);
    }
    this.edge = edge;
    // `app.setGlobalPrefix('api')` moves the controller's routes under it (Nest does that), so the
    // module's routes and every URL it builds (OAuth callbacks, magic links, pages, the issuer) take
    // it too: from here on `basePath` is the whole path (`/api/auth`).
    const prefix = joinPaths(this.appConfig.getGlobalPrefix() ?? '', this.config.basePath);
    if (prefix !== this.config.basePath) {
      this.config.basePath = prefix;
      this.config.accessToken = withGlobalPrefix(this.config.accessToken, this.config.url, prefix);
    }
    edge.install?.(adapter.getInstance(), prefix);
    adapter.all(edge.catchAll(prefix === '/' ? '' : prefix), (req: unknown, res: unknown) =>
      this.handle(req, res, 'unknown'),
    );
  }

  /** Answers one request: the platform's request as an `AuthRequest`, the router's answer written back. */
  async handle(req: unknown, res: unknown, action: AuthAction, provider?: string): Promise<void> {
    const edge = this.edge;
    let authRequest;
    try {
      authRequest = edge.read(req, this.config);
    } catch (error) {
      // Refused before any flow runs (an untrusted or foreign host, a malformed target): a 400
      // through the same writer as every other answer.
      this.errorLog.report(error);
      const type = error instanceof AuthError ? error.type : 'InvalidRequest';
      const message = error instanceof AuthError ? error.message : 'The request is malformed.';
      edge.write(req, res, { status: 400, json: { error: type, message } });
      return;
    }
    edge.write(req, res, await this.router.handle(authRequest, action, provider));
  }
}
