// The public API of nestjs-auth (the main entry; the provider catalogue is `nestjs-auth/providers`,
// lib/providers.ts). Nothing else is exported; inside lib/, import the concrete file.

/**
 * The main entry: `AuthModule`, the guard, decorators and services, the options and their types,
 * the generic providers (Email, Credentials, Passkey), `MemoryAdapter`, errors, rate-limit stores and
 * revocation buses. The OAuth provider catalogue is `nestjs-auth/providers`; TypeORM storage is
 * `nestjs-auth/typeorm`.
 *
 * @module nestjs-auth
 */

// ---- types (SPEC sections 2 and 4) ----
export type * from './types/common.types.js';
export type * from './providers/provider.types.js';
export type * from './methods/oauth/oauth.types.js';
export type * from './methods/email/email.types.js';
export type * from './methods/credentials/credentials.types.js';
export type * from './methods/webauthn/webauthn.types.js';
export type {
  AdapterUser,
  AdapterAccount,
  AdapterSession,
  VerificationToken,
  Authenticator,
  AdapterAuthenticator,
  AdapterMethod,
  SessionsByUserAdapter,
  VerificationTokensByIdentifierAdapter,
  AccountTokensAdapter,
  PrivateAccountTokensAdapter,
  AccountTokens,
  UserDeletionAdapter,
  AdapterSessionDetails,
  AdapterSessionInfo,
  SessionListingAdapter,
  PasskeyNamesAdapter,
  SessionsByProviderSidAdapter,
  TwoFactorAdapter,
  AdapterTwoFactor,
  RefreshTokenAdapter,
  AdapterRefreshFamily,
  ApiKeyAdapter,
  AdapterApiKey,
  SigningKeyAdapter,
  AdapterSigningKey,
} from './adapters/adapter.interface.js';
export { Adapter, InjectAuthAdapter, isDate } from './adapters/adapter.interface.js';
export type { SynchronousSessionLookupAdapter } from './adapters/sync-session-lookup.js';

// ---- errors ----
export * from './errors/auth.errors.js';

// ---- module, options ----
export { AuthModule } from './auth.module.js';
export type * from './config/auth-options.interface.js';
export { AUTH_DEFAULTS } from './config/defaults.js';
// ---- built-in pages: their sentences (`messages`) and render hooks (`pages.render`) ----
export { ENGLISH_MESSAGES, GERMAN_MESSAGES, type PageMessages } from './config/messages/page-messages.js';
export type { PageRenderContext, PageRenderHooks, RenderablePage } from './config/page-render.types.js';

// ---- storage: MemoryAdapter (TypeORM: `nestjs-auth/typeorm`, so an app without TypeORM never loads it) ----
export { MemoryAdapter } from './adapters/memory.adapter.js';

// ---- sessions, guard, decorators, services ----
export { AuthGuard, requestSession, type AuthenticatedRequest } from './guard/auth.guard.js';
export { CurrentUser, AuthSession } from './guard/current-user.decorator.js';
export {
  Public,
  IS_PUBLIC_KEY,
  SkipSessionCache,
  SKIP_SESSION_CACHE_KEY,
  RequireRecentSignIn,
  REQUIRE_RECENT_SIGN_IN_KEY,
  RequireAal,
  REQUIRE_AAL_KEY,
  Auth,
  AUTH_POLICY_KEY,
  type AuthRouteOptions,
  type CredentialKind,
} from './core/public.decorator.js';
export type { Assurance } from './session/assurance.js';
export { assertRecentSignIn } from './session/recent-sign-in.js';
export { AuthService } from './guard/auth.service.js';
export {
  graphqlContext,
  GRAPHQL_WS_UNAUTHORIZED,
  type GraphqlWsAuthOptions,
  type GraphqlWsConnection,
} from './guard/graphql-ws.js';
export { ProviderAccessToken, ProviderAccessTokenPipe } from './guard/provider-access-token.decorator.js';
export type { AuthUser, CredentialInfo } from './session/session.types.js';
export type { ApiKeyInfo, ApiKeyInput, CreatedApiKey } from './tokens/api-keys.service.js';
export type { IssuedAccessToken } from './tokens/user-access-tokens.js';
export type { PublicSigningJwk } from './session/signing-keys.js';
export type { SessionInfo } from './session/session-devices.js';
/** The platform-free request `WebAuthnConfig.getUserInfo` receives. */
export type { AuthRequest } from './types/http.types.js';
export { encode, decode } from './session/jwt.js';

// ---- providers ----
// (the catalogue, GitHub, Google, ... and `oauthProviderCatalog`: `nestjs-auth/providers`)
export {
  Email,
  Nodemailer,
  EMAIL_DEFAULTS,
  sendVerificationRequestWithNodemailer,
} from './methods/email/email.provider.js';
export { defaultNormalizeIdentifier } from './methods/email/email.normalize.js';
export { renderVerificationEmail, type VerificationEmail } from './methods/email/email.message.js';
export {
  Credentials,
  CREDENTIALS_DEFAULTS,
  type CredentialsUserConfig,
} from './methods/credentials/credentials.provider.js';
export { WebAuthn, Passkey, WEBAUTHN_DEFAULTS } from './methods/webauthn/webauthn.provider.js';
export type { PasskeyInfo } from './methods/webauthn/passkeys.js';
export type { AccountChangeEvent } from './config/callbacks.types.js';
export type { EmailPurpose } from './methods/email/email.message.js';
export type { AccountMessages, AccountMessageKey, AccountNotice } from './pages/account.messages.js';
export type { LinkedAccountInfo } from './sign-in/account-management.service.js';
export type { SensitiveActionProof } from './guard/sensitive-action.js';

// ---- your own sign-in methods (experimental: the `methods` setting; ARCHITECTURE.md, "Adding a sign-in method") ----
export { SignInService } from './sign-in/sign-in.service.js';
export type { SignInInput } from './sign-in/sign-in.types.js';
export type {
  SignInMethod,
  SignInStep,
  SignInAttempt,
  SignInCompletion,
  SecondFactorProvider,
  ChallengeFlow,
} from './sign-in/sign-in-method.js';
export type { WayIn, WaysInQuery } from './sign-in/user-ways-in.js';
export type { ProviderCheckContext } from './config/provider-kind.js';
export type { ProviderFlow, ProviderContext, RequestContext } from './core/request-context.js';
export type { AuthResponse, ResponseCookie } from './types/http.types.js';
export type {
  SignInFormRenderer,
  SignInPageParams,
  SignInPageProvider,
  PageProviderStyle,
  PageTheme,
} from './pages/page.types.js';

// ---- passwords, rate limits ----
export {
  hashPassword,
  verifyPassword,
  needsRehash,
  PASSWORD_DEFAULTS,
  type PasswordHashOptions,
} from './methods/credentials/password.js';
export { RateLimitStore, type RateLimitRecord } from './rate-limit/rate-limit.store.js';
export { MemoryRateLimitStore, type MemoryRateLimitStoreOptions } from './rate-limit/memory-rate-limit.store.js';
export {
  RedisRateLimitStore,
  type RedisEvalClient,
  type RedisRateLimitStoreOptions,
} from './rate-limit/redis-rate-limit.store.js';
export { RateLimiterService, type RateLimitRule } from './rate-limit/rate-limiter.service.js';
export { RevocationBus, type RevocationBusListener, type RevocationBusOption } from './bus/revocation-bus.js';
export {
  RedisRevocationBus,
  type RedisPubSubClient,
  type RedisSubscriberConnection,
  type RedisRevocationBusOptions,
} from './bus/redis-revocation.bus.js';
export {
  PostgresRevocationBus,
  type PgListenClient,
  type PgPoolLike,
  type PostgresBusConnection,
  type PostgresDataSourceLike,
  type PostgresRevocationBusOptions,
} from './bus/postgres-revocation.bus.js';
export { RevocationBroadcast, type RevocationBusStats } from './session/revocation-broadcast.js';
