import { Inject, Injectable, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';

/** The warning, once per application, when Express trusts every proxy (see {@link TrustProxyCheck}). */
export const TRUST_PROXY_WARNING =
  'Express `trust proxy` is `true`: the client IP is the left-most X-Forwarded-For entry, which any client can set, so the per-IP sign-in limits (credentials lockout, email sends) can be bypassed by rotating that header. Set `trust proxy` to the number of proxies in front of the app (e.g. 1) or to their addresses instead (nestjs-auth: TrustProxyAll).';

/**
 * Warns once at bootstrap when the Express app trusts every proxy (`app.set('trust proxy', true)`).
 * The per-IP limits read `req.ip`, which then comes from the first `X-Forwarded-For` entry, chosen
 * by the client; a hop count or a list of proxy addresses keeps it honest.
 */
@Injectable()
export class TrustProxyCheck implements OnApplicationBootstrap {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter || adapter.getType?.() !== 'express') return;
    const app = adapter.getInstance?.() as { get?: (setting: string) => unknown } | undefined;
    if (typeof app?.get === 'function' && app.get('trust proxy') === true) this.config.logger.warn(TRUST_PROXY_WARNING);
  }
}
