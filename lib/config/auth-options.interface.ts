import type { MethodRegistration } from './provider-kind.js';
import type {
  ConfigurableModuleAsyncOptions,
  FactoryProvider,
  InjectionToken,
  ModuleMetadata,
  Type,
} from '@nestjs/common';
import type { SerializeOptions } from 'cookie';
import type { Theme, ThemeOptions } from '../types/common.types.js';
import type { Adapter } from '../adapters/adapter.interface.js';
import type { AppProviders } from '../providers/provider.types.js';
import type { RateLimitStore } from '../rate-limit/rate-limit.store.js';
import type { RevocationBusOption } from '../bus/revocation-bus.js';
import type { CallbacksOptions, EventCallbacks } from './callbacks.types.js';
import type { PageMessages } from './messages/en.messages.js';
import type { PageRenderHooks } from './page-render.types.js';

export type { CallbacksOptions, EventCallbacks } from './callbacks.types.js';

export type { JWTDecodeParams, JWTEncodeParams, JWTOptions, SessionOptions } from './session-options.types.js';
import type { JWTOptions, SessionOptions } from './session-options.types.js';

/** Paths of the application's own pages, used instead of the built-in ones. */
export interface PagesOptions {
  signIn: string;
  signOut: string;
  /** Receives `?error=<type>`. */
  error: string;
  verifyRequest: string;
  /** Where new users land after their first sign-in (`?callbackUrl=` is appended). */
  newUser: string;
  /**
   * The app's own "forgot password" page: the built-in sign-in page links to it under the password
   * field ("Forgot password?", with `?email=` of the address typed). Without it there is no link.
   */
  forgotPassword: string;
  /**
   * Render hooks: replace the content of a built-in page while the module keeps its CSRF token,
   * errors, theme and CSP (`pages.render.signIn(context) => html`). A path in `pages` wins over a hook.
   */
  render: PageRenderHooks;
}

/** One cookie's name and attributes. */
export interface CookieOption {
  name: string;
  options: SerializeOptions;
}

/** The cookies the library sets; each can be renamed or given other attributes. */
export interface CookiesOptions {
  sessionToken: CookieOption;
  callbackUrl: CookieOption;
  csrfToken: CookieOption;
  pkceCodeVerifier: CookieOption;
  state: CookieOption;
  nonce: CookieOption;
  webauthnChallenge: CookieOption;
  /** The sign-in waiting for a second factor (`twoFactor`): beyond Auth.js's cookies. */
  twoFactor: CookieOption;
  /** A browser remembered for the second factor (`twoFactor.rememberDevice`): beyond Auth.js's cookies. */
  twoFactorDevice: CookieOption;
  /** A native app's authorization request waiting for its user to sign in (`nativeApps`): beyond Auth.js's cookies. */
  nativeAuthorize: CookieOption;
}

/** Where the library logs. Messages never contain secrets, tokens, codes or cookies. */
export interface LoggerInstance {
  /** An error the library caught. */
  error: (error: Error) => void;
  /** A warning, as a stable code (e.g. `revocation_bus_disconnected`). */
  warn: (code: string) => void;
  /** A debug message and its details (ids, never secrets). */
  debug: (message: string, metadata?: unknown) => void;
}

/**
 * A user-supplied adapter: a class Nest instantiates (its dependencies must be visible to
 * AuthModule: global, or given with `{ useClass, imports }`), an instance, or a factory provider.
 */
export type AdapterOption =
  | Type<Adapter>
  | Adapter
  | { useClass: Type<Adapter>; imports?: any[] }
  | (Pick<FactoryProvider<Adapter | null>, 'useFactory' | 'inject'> & { imports?: any[] });

/**
 * The rate-limit store: an instance, or a provider Nest builds so it can inject its own
 * dependencies (e.g. the app's Redis client): a class, `{ useClass }`, `{ useFactory, inject }` or
 * `{ useExisting }`. Their dependencies must be visible to AuthModule: global, or given in `imports`.
 *
 * ```ts
 * AuthModule.forRoot({ ..., rateLimitStore: new RedisRateLimitStore(redis) })
 * // or built by Nest with the app's client:
 * AuthModule.forRoot({
 *   ...,
 *   rateLimitStore: { useFactory: (redis: Redis) => new RedisRateLimitStore(redis), inject: [REDIS], imports: [RedisModule] },
 * })
 * ```
 */
export type RateLimitStoreOption =
  | RateLimitStore
  | Type<RateLimitStore>
  | { useClass: Type<RateLimitStore>; imports?: ModuleMetadata['imports'] }
  | (Pick<FactoryProvider<RateLimitStore>, 'useFactory' | 'inject'> & { imports?: ModuleMetadata['imports'] })
  | { useExisting: InjectionToken; imports?: ModuleMetadata['imports'] };

/** Account and session management. */
export interface AccountOptions {
  /**
   * Seconds since the last sign-in within which a sensitive action is allowed without signing in
   * again (`@RequireRecentSignIn()`, `AuthService.requireRecentSignIn`, and every account change
   * that asks for it: ending other sessions, unlinking, deleting the account, changing the email or
   * password, renaming or removing a passkey). @default 600 (10 minutes)
   */
  recentSignInMaxAge?: number;
}

/**
 * Who must prove a second factor (`twoFactor.policy`): `'optional'`, the users who enrolled one;
 * `'required'`, everyone (a user without one enrols at sign-in); or a function of the user (e.g. by
 * role), true when that user must.
 */
export type TwoFactorPolicy =
  | 'optional'
  | 'required'
  | ((user: { id: string; email?: string | null } & Record<string, unknown>) => boolean | Promise<boolean>);

/**
 * Two-factor authentication: every sign-in of a user who has (or, by the policy, needs) a second
 * factor ends in a short "second factor pending" state, whatever proved the first factor
 * (password, magic link, OAuth/OIDC, a passkey without user verification), until a code from an
 * authenticator app (TOTP) or a backup code completes it. A passkey with user verification counts
 * as two factors by itself. Needs an adapter with the two-factor capability (`TwoFactorAdapter`:
 * `TypeOrmAdapter` with its `two_factors` table, `MemoryAdapter`).
 */
export interface TwoFactorOptions {
  /** Who must prove a second factor. @default 'optional' */
  policy?: TwoFactorPolicy;
  /** The name authenticator apps show next to the account. @default the host of the app's URL */
  issuer?: string;
  /** Seconds the pending state lasts between the first factor and the second. @default 300 */
  pendingMaxAge?: number;
  /**
   * Wrong codes a user may enter within `lockoutWindow` before further attempts are refused with
   * `RateLimited` and `Retry-After` (right codes included). @default 5
   */
  maxAttempts?: number;
  /** Seconds the wrong attempts are counted over, and the lockout lasts. @default 900 */
  lockoutWindow?: number;
  /** Backup codes made at enrolment and by each regeneration. @default 10 */
  backupCodes?: number;
  /**
   * Days a browser may skip the second factor after the user ticked "Don't ask again on this
   * device" (a sealed, HttpOnly cookie for that user). Adding or removing an app, new backup codes,
   * a reset, and a new password end it on every device. Off when absent.
   */
  rememberDevice?: number;
  /**
   * Offer a one-time code by email as the second factor, for users without an authenticator app
   * (needs an email provider): 6 digits, valid 10 minutes, used once, 3 mails per user per 15
   * minutes. Never after a magic link (the same inbox would prove both factors). @default false
   */
  emailCode?: boolean;
}

/** The options of `AuthModule.forRoot` (and the result of `forRootAsync`'s factory). */
export interface AuthModuleOptions {
  /**
   * Encrypts sessions and signs CSRF and check cookies. An array rotates secrets: the first
   * encrypts, any decrypts. At least 32 characters. @default process.env.AUTH_SECRET
   */
  secret?: string | string[];
  /** The sign-in providers. */
  providers: AppProviders;
  /** How sessions are kept. */
  session?: SessionOptions;
  /** JWT codec options. */
  jwt?: JWTOptions;
  callbacks?: Partial<CallbacksOptions>;
  events?: Partial<EventCallbacks>;
  pages?: Partial<PagesOptions>;
  theme?: ThemeOptions;
  /**
   * The sentences of the built-in pages, by key: English by default; any subset replaces those keys
   * (the rest stay English), an unknown key is refused at bootstrap. `GERMAN_MESSAGES` is shipped.
   */
  messages?: Partial<PageMessages>;
  /** Cookie names and attributes, merged over the defaults. */
  cookies?: Partial<CookiesOptions>;
  /** Use `__Secure-`/`__Host-` cookies. @default true when the request URL is https */
  useSecureCookies?: boolean;
  /**
   * Trust `X-Forwarded-Host`/`X-Forwarded-Proto` to build absolute URLs. Enable behind a proxy you
   * control. @default true unless NODE_ENV is 'production' (or AUTH_TRUST_HOST / AUTH_URL set)
   */
  trustHost?: boolean;
  /**
   * The public origin of the app (e.g. `https://app.example.com`); absolute URLs use it instead of
   * the request's host. @default process.env.AUTH_URL
   */
  url?: string;
  /**
   * Front ends on other origins that use these routes with the browser's cookies (a single-page app
   * at `http://localhost:5173` calling the API on `:3000`): their `Origin` passes the check every
   * state-changing POST gets, and `callbackUrl` may send the user back to them after sign-in and
   * sign-out. Exact origins only (`scheme://host[:port]`). The app still sets CORS itself
   * (`app.enableCors({ origin: [...], credentials: true })`); see "Single-page apps" in the docs.
   * @default none: only this app's own origin
   */
  trustedOrigins?: string[];
  /** A stable deployment that bounces OAuth callbacks to the originating one. @default process.env.AUTH_REDIRECT_PROXY_URL */
  redirectProxyUrl?: string;
  /** Log debug information (redacted). @default false */
  debug?: boolean;
  /**
   * Store the accounts' `access_token`, `refresh_token` and `id_token` encrypted (AES-256-GCM, key
   * derived from the secret; with a secret list the first encrypts and any decrypts). Rows written
   * before stay readable. Tools reading the table directly (Auth.js) then see ciphertext.
   * @default true with `TypeOrmAdapter`'s own tables (no `schema` preset); false with an Auth.js
   *   `schema` preset, `MemoryAdapter` and other adapters
   */
  encryptAccountTokens?: boolean;
  /**
   * Microservice (RPC) handlers the guard runs on. `token`: the message payload must carry
   * `authorization: 'Bearer <session token or JWT>'`, read as the HTTP header is; a message without
   * a valid one is refused with an `RpcException` `{ error: <reason> }`. `skip`: RPC handlers are
   * let through unread (a transport only trusted services reach). @default 'token'
   */
  rpc?: 'token' | 'skip';
  /** Replaces the logger (defaults to Nest's `Logger` with the context `AuthModule`). */
  logger?: Partial<LoggerInstance>;
  /** Account and session management (the recent sign-in window). */
  account?: AccountOptions;
  /** Two-factor authentication (off when absent). */
  twoFactor?: TwoFactorOptions;
  /** Native apps signing in through the system browser (off when absent). See "Mobile and desktop apps" in the docs. */
  nativeApps?: NativeAppsOptions;
  /**
   * Access tokens (for native apps, and for other services a signed-in user calls:
   * `AuthService.issueAccessToken`). Set (even to `{}`) to turn them on without native apps.
   */
  accessToken?: AccessTokenOptions;
  /** API keys (off when absent). See "Tokens for other services" in the docs. */
  apiKeys?: ApiKeyOptions;
}

/** A first-party native app (mobile or desktop) that signs its users in through the system browser. */
export interface NativeClientOptions {
  /** The id the app sends as `client_id` (letters, digits, `.`, `_`, `-`; up to 128). */
  clientId: string;
  /** What the "Continue to …" page calls the app. @default the client id */
  name?: string;
  /**
   * Where the authorization code may be sent, each matched exactly (no prefix or wildcard):
   * - a claimed `https://` link (Universal Link, App Link) on a domain the app proves it owns;
   * - a private-use scheme named after a domain the app owns, reversed (`com.example.app:/oauth`);
   * - a loopback address for desktop apps (`http://127.0.0.1/callback` or `http://[::1]/callback`):
   *   any port is accepted, as RFC 8252 asks, the path and the rest exactly.
   */
  redirectUris: string[];
}

/**
 * Native apps (RFC 8252): the app opens `{basePath}/authorize` in the system browser, the user signs
 * in with any method the app offers (second factor included), and the app exchanges the one-time
 * code it gets back (with PKCE) at `POST {basePath}/token` for an access token and a refresh token.
 * Needs an adapter with refresh-token families (`RefreshTokenAdapter`: `TypeOrmAdapter`,
 * `MemoryAdapter`) and listed sessions, and a stable issuer (`url` / `AUTH_URL`, or `accessToken.issuer`).
 */
export interface NativeAppsOptions {
  /** The apps allowed to ask. */
  clients: NativeClientOptions[];
  /** Seconds a one-time authorization code may wait for its exchange. @default 60 */
  codeMaxAge?: number;
  /**
   * Seconds a refresh token family lives without use; each refresh extends it by as much.
   * @default 2592000 (30 days)
   */
  refreshMaxAge?: number;
  /**
   * Seconds after a refresh within which the same (now spent) refresh token gets the same new pair
   * again, for an app whose response was lost; after it, a spent token ends its whole family.
   * @default 30
   */
  reuseWindow?: number;
}

/**
 * API keys (`apiKeys`): long-lived keys a user makes for scripts and other services, sent as
 * `Authorization: Bearer <key>`, accepted on routes that say so
 * (`@Auth({ accept: ['apiKey'] })`). Shown once, stored as a hash; each with a name, scopes, an
 * optional expiry and its own rate limit.
 */
export interface ApiKeyOptions {
  /**
   * What every key starts with (`<prefix>_…`), so secret scanners recognise a leaked one: 2 to 16
   * lower-case letters and digits. @default 'nak'
   */
  prefix?: string;
  /** Requests one key may make per `window` seconds before `429` with `Retry-After`; `false`: none. @default { limit: 600, window: 60 } */
  rateLimit?: { limit: number; window: number } | false;
  /** Most keys a user may have. @default 20 */
  maxPerUser?: number;
  /** Seconds a key looked up is kept in memory (a revocation reaches other instances through the revocation bus at once). @default 60 */
  cacheTtl?: number;
}

/**
 * A private key given in the options to sign access tokens: a JWK with its private members
 * (`OKP`/`Ed25519` signs EdDSA, `EC`/`P-256` ES256, `RSA` of 2048 to 4096 bits RS256).
 */
export type SigningJwk = EllipticSigningJwk | RsaSigningJwk;

/** An Ed25519 (`OKP`) or P-256 (`EC`) private JWK. */
export interface EllipticSigningJwk {
  kty: 'OKP' | 'EC';
  crv: 'Ed25519' | 'P-256';
  x: string;
  y?: string;
  d: string;
  kid?: string;
}

/**
 * An RSA private JWK (RS256), every member as `privateKey.export({ format: 'jwk' })` writes it; its
 * modulus 2048 to 4096 bits.
 */
export interface RsaSigningJwk {
  kty: 'RSA';
  /** `RS256` or absent: an RSA key signs RS256 only (another alg is refused at start-up). */
  alg?: string;
  n: string;
  e: string;
  d: string;
  p: string;
  q: string;
  dp: string;
  dq: string;
  qi: string;
  kid?: string;
}

/**
 * The algorithm access tokens are signed with (`accessToken.algorithm`): `EdDSA` (Ed25519) or
 * `RS256` (RSASSA-PKCS1-v1_5 with SHA-256, RSA 2048-bit). Both are deterministic.
 */
export type AccessTokenAlgorithm = 'EdDSA' | 'RS256';

/**
 * When the stored signing keys rotate (`accessToken.keys: 'stored'`): a new key is published
 * `publishAhead` seconds before it signs (so verifiers' JWKS caches have it), and the old one stays
 * published until every token it signed has expired, plus `grace`.
 */
export interface SigningKeyRotation {
  /** Seconds a key signs before the next one takes over; `0`: only on demand. @default 2592000 (30 days) */
  every?: number;
  /** Seconds a new key is published before it signs. @default 3600 */
  publishAhead?: number;
  /** Seconds an old key stays published after its last token expired. @default 300 */
  grace?: number;
}

/**
 * The access tokens this module signs (native apps, `AuthService.issueAccessToken`): JWTs
 * (`typ: at+jwt`, RFC 9068) signed with EdDSA (Ed25519), RS256 or ES256, verified by the guard as
 * `Authorization: Bearer` and by anyone with the public keys at `{basePath}/jwks`.
 */
export interface AccessTokenOptions {
  /** Seconds an access token lives. @default 600 (10 minutes) */
  maxAge?: number;
  /** The `iss` claim. @default the `url` option (AUTH_URL) with `basePath`, e.g. `https://api.example.com/auth` */
  issuer?: string;
  /** The `aud` claim the tokens for this API carry and the guard requires. @default the issuer */
  audience?: string;
  /**
   * Other services a signed-in user may get a token for (`issueAccessToken({ audience })`): their
   * `aud` values, exactly. @default none
   */
  audiences?: string[];
  /** The scopes a token may be asked for (`issueAccessToken({ scope })`, API keys). @default any */
  scopes?: string[];
  /**
   * The signing keys: `'stored'`, generated and kept (private halves encrypted under the secret)
   * through the adapter (`SigningKeyAdapter`: TypeOrmAdapter's `signing_keys`, MemoryAdapter) and
   * rotated by `rotation`; `'derived'`, one Ed25519 key per secret (rotating the secret rotates it);
   * or your own private JWKs (Ed25519, P-256 or RSA; the first signs, all are published).
   * @default 'stored' with an adapter that stores them, else 'derived'
   */
  keys?: 'stored' | 'derived' | SigningJwk[];
  /**
   * The algorithm of the keys the module makes: `'EdDSA'` (Ed25519), or `'RS256'` (RSA 2048-bit,
   * PKCS #1 v1.5 with SHA-256): a signature verifies about 6 times faster (~25 µs against ~150 µs)
   * but signs about 6 times slower (~300 µs against ~47 µs) and is 342 characters instead of 86;
   * every JWT verifier takes it (some, like AWS API Gateway's JWT authorizers, take RSA only).
   * `'RS256'` needs stored keys (derived ones are Ed25519 only) or RSA keys in `keys`; with `keys`
   * given, leave it out (each key signs with its own). Switching it makes the next stored key of the
   * new algorithm at once (published `rotation.publishAhead` before it signs); the old keys still
   * verify what they signed until rotation removes them.
   * @default 'EdDSA'
   */
  algorithm?: AccessTokenAlgorithm;
  /** Rotation of stored keys. */
  rotation?: SigningKeyRotation;
}

/**
 * Module-definition settings, given next to the options in `forRoot` and at the top level of
 * `forRootAsync` (they shape the module itself, so they cannot come from an async factory).
 */
export interface AuthModuleExtras {
  /**
   * Register the module globally, so every module of the app can use AuthGuard, AuthService and
   * the decorators without importing AuthModule. @default true
   */
  isGlobal?: boolean;
  /** Path prefix of the auth routes. @default '/auth' */
  basePath?: string;
  /**
   * The adapter. Default: `TypeOrmAdapter` when the app has a TypeORM data source, otherwise none
   * (JWT sessions only). `null`: none, said explicitly (JWT sessions only): TypeORM is then never
   * loaded, even where it is installed, which keeps about 6 MB of heap (about 20 MiB of peak memory
   * under load) out of an app that uses TypeORM for nothing else. Features that need storage then
   * fail at bootstrap with `MissingAdapter`.
   */
  adapter?: AdapterOption | null;
  /** The TypeORM data source (name or token) of the default adapter. @default the default data source */
  dataSource?: string;
  /** Register `AuthGuard` as a global guard; opt routes out with `@Public()`. @default false */
  globalGuard?: boolean;
  /**
   * Where brute-force counters (credentials lockout, email sends, passkey options), used check
   * cookies and revoked JWTs are kept: an instance or a provider (see {@link RateLimitStoreOption}).
   * Give several instances of the app one shared store (e.g. `new RedisRateLimitStore(redisClient)`),
   * or each enforces its own limits. @default a `MemoryRateLimitStore` per process
   */
  rateLimitStore?: RateLimitStoreOption;
  /**
   * Several instances: revocations reach the other instances' session caches within a second. An
   * instance (`new RedisRevocationBus(redis)`, `new PostgresRevocationBus(poolOrDataSource)`) or a
   * provider (see {@link RevocationBusOption}); while it is not subscribed, the database session
   * cache is bypassed. @default none: revocations reach this instance's cache only
   */
  revocationBus?: RevocationBusOption;
  /**
   * Sign-in methods of the app's own, added to the built-in ones (OAuth/OIDC, email, credentials,
   * passkeys): each a `SignInMethod` object (exported by `nestjs-auth`) serving provider types of its
   * own. Experimental: the contract may change in a minor release while it settles.
   * See "Your own sign-in method" in the docs.
   */
  methods?: readonly MethodRegistration[];
}

/**
 * A class that builds the options for `AuthModule.forRootAsync({ useClass })` (or `useExisting`):
 * Nest instantiates it with its dependencies and calls `createAuthOptions()`.
 */
export interface AuthOptionsFactory {
  /** The module's options, or a promise of them. */
  createAuthOptions(): Promise<AuthModuleOptions> | AuthModuleOptions;
}

/** What `AuthModule.forRootAsync` takes: a factory, a class or an existing provider of the options, and the extras. */
export type AuthModuleAsyncOptions = ConfigurableModuleAsyncOptions<AuthModuleOptions, 'createAuthOptions'> &
  AuthModuleExtras;

export type { Theme, ThemeOptions };
