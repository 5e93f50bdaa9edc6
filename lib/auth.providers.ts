import type { Provider } from '@nestjs/common';
import { AdapterService } from './core/adapter.service.js';
import { AUTH_CONFIG } from './config/auth.constants.js';
import type { ResolvedAuthConfig } from './config/resolved-config.js';
import { RequestErrorLog } from './core/error-log.js';
import { AuthEvents } from './core/auth-events.js';
import { ResponseHeadersHook } from './http/response-headers.js';
import { AuthHttpHandler } from './http/auth-http.handler.js';
import { TrustProxyCheck } from './http/trust-proxy.check.js';
import { AuthRouterService } from './router/auth-router.service.js';
import { RequestContextFactory } from './router/request-context.factory.js';
import { AuthService } from './guard/auth.service.js';
import { AccessTokenService } from './guard/access-token.service.js';
import { ChecksService } from './sign-in/checks.service.js';
import { ProviderAccessTokenPipe } from './guard/provider-access-token.decorator.js';
import { SESSION_SERVICES } from './session/session.providers.js';
import { SignInService } from './sign-in/sign-in.service.js';
import { AccountLinkingService } from './sign-in/account-linking.service.js';
import { UserCreationService } from './sign-in/user-creation.service.js';
import { ExplicitLinkService } from './sign-in/explicit-link.service.js';
import { WaysInGate } from './sign-in/ways-in.gate.js';
import { AccountManagementService } from './sign-in/account-management.service.js';
import { UserWaysIn } from './sign-in/user-ways-in.js';
import { RateLimiterService } from './rate-limit/rate-limiter.service.js';
import { AccountRoutes } from './account/account-routes.js';
import { AuthorizationCodes } from './native-apps/authorization-codes.js';
import { NativeAppRoutes } from './native-apps/native-apps.routes.js';
import { RefreshTokens } from './native-apps/refresh-tokens.js';
import { ApiKeys } from './tokens/api-keys.service.js';
import { UserAccessTokens } from './tokens/user-access-tokens.js';
import { EmailChangeService } from './account/email-change.service.js';
import { PasswordChangeService } from './account/password-change.service.js';
import { Passkeys } from './account/passkeys.js';

/**
 * The core injectables AuthModule registers (besides config, adapter, rate-limit store and controller
 * wiring, which auth.module-definition.ts builds, and each sign-in method's own, which its
 * `SignInMethod.providers` lists). One line per service.
 */
export const AUTH_SERVICES: Provider[] = [
  {
    provide: RequestErrorLog,
    inject: [AUTH_CONFIG],
    useFactory: (config: ResolvedAuthConfig) => new RequestErrorLog(config.logger),
  },
  ResponseHeadersHook,
  AuthHttpHandler,
  TrustProxyCheck,
  AdapterService,
  AuthEvents,
  ...SESSION_SERVICES,
  ChecksService,
  SignInService,
  AccountLinkingService,
  UserCreationService,
  ExplicitLinkService,
  WaysInGate,
  UserWaysIn,
  AccountManagementService,
  RequestContextFactory,
  AuthRouterService,
  AuthService,
  AccessTokenService,
  RateLimiterService,
  ProviderAccessTokenPipe,
  Passkeys,
  AccountRoutes,
  AuthorizationCodes,
  RefreshTokens,
  NativeAppRoutes,
  UserAccessTokens,
  ApiKeys,
  EmailChangeService,
  PasswordChangeService,
];
