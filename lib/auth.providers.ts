import type { Provider } from '@nestjs/common';
import { AdapterService } from './adapters/adapter.service.js';
import { AUTH_CONFIG } from './auth.constants.js';
import type { ResolvedAuthConfig } from './config/resolved-config.js';
import { RequestErrorLog } from './core/error-log.js';
import { ResponseHeadersHook } from './http/response-headers.js';
import { TrustProxyCheck } from './http/trust-proxy.check.js';
import { AuthRouterService } from './core/auth-router.service.js';
import { AuthService } from './core/auth.service.js';
import { ChecksService } from './core/checks.service.js';
import { OAuthService } from './core/oauth.service.js';
import { SessionService } from './core/session.service.js';
import { SignInService } from './core/sign-in.service.js';
import { CredentialsService } from './core/credentials.service.js';
import { EmailService } from './core/email.service.js';
import { WebAuthnService } from './core/webauthn.service.js';
import { MemoryRateLimitStore } from './core/rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from './core/rate-limit/rate-limit.store.js';
import { RateLimiterService } from './core/rate-limit/rate-limiter.service.js';

/**
 * The injectables AuthModule registers (besides config, adapter and controller wiring, which
 * auth.module.ts builds). One line per service.
 */
export const AUTH_SERVICES: Provider[] = [
  { provide: RequestErrorLog, inject: [AUTH_CONFIG], useFactory: (config: ResolvedAuthConfig) => new RequestErrorLog(config.logger) },
  ResponseHeadersHook,
  TrustProxyCheck,
  AdapterService,
  SessionService,
  ChecksService,
  SignInService,
  AuthRouterService,
  AuthService,
  { provide: RateLimitStore, useClass: MemoryRateLimitStore },
  RateLimiterService,
  CredentialsService,
  EmailService,
  OAuthService,
  WebAuthnService,
];
