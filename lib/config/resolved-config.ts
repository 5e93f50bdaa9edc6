import type { SerializeOptions } from 'cookie';
import type {
  CallbacksOptions,
  CookiesOptions,
  EventCallbacks,
  JWTOptions,
  LoggerInstance,
  PagesOptions,
  Theme,
  ThemeOptions,
} from './auth-options.interface.js';
import type { InternalProvider } from '../providers/internal-provider.js';
import type { StoreIpMode } from '../rate-limit/client-ip.js';
import type { PageMessages } from './messages/en.messages.js';
import type { ResolvedTwoFactor } from './two-factor.options.js';
import type { ResolvedAccessToken } from './access-token.options.js';
import type { ResolvedApiKeys } from './api-keys.options.js';
import type { ResolvedNativeApps } from './native-apps.options.js';

/**
 * A configured provider after normalisation, discriminated by `type`: `config` is the OAuth2Config,
 * OIDCConfig, EmailConfig, CredentialsConfig or WebAuthnConfig its type names (narrow it with
 * `providerOfType`).
 */
export type { InternalProvider, InternalProviderOf, InternalOAuthProvider } from '../providers/internal-provider.js';

/** The options after defaults, env fallbacks and validation: built once at bootstrap. */
export interface ResolvedAuthConfig {
  /** Secrets, first one encrypts/signs; at least one. */
  secrets: string[];
  /** Normalised path prefix: leading slash, no trailing slash (e.g. `/auth`). */
  basePath: string;
  providers: InternalProvider[];
  providerById: ReadonlyMap<string, InternalProvider>;
  session: {
    strategy: 'jwt' | 'database';
    maxAge: number;
    updateAge: number;
    generateSessionToken: () => string;
    cacheTtl: number;
    /** The session cache's bounds: entries, and bytes as it counts them (`session.cacheMaxEntries`, `cacheMaxBytes`). */
    cacheMaxEntries: number;
    cacheMaxBytes: number;
    jwtRevocation: boolean;
    hashTokens: boolean;
    /** JWT strategy: provider tokens kept in the session JWT (`session.tokens`). */
    tokens: boolean;
    /** `session.storeIp`, `false` read as `'none'`. */
    storeIp: StoreIpMode;
  };
  /** Account and session management. */
  account: {
    /** Seconds a sign-in counts as recent (`account.recentSignInMaxAge`). */
    recentSignInMaxAge: number;
  };
  /** Two-factor authentication, `null` when off (`twoFactor`). */
  twoFactor: ResolvedTwoFactor | null;
  /** Native apps (`nativeApps`), `null` when off. */
  nativeApps: ResolvedNativeApps | null;
  /** The access tokens' lifetime, issuer and audience (`accessToken`). */
  accessToken: ResolvedAccessToken;
  /** API keys (`apiKeys`), `null` when off. */
  apiKeys: ResolvedApiKeys | null;
  jwt: Required<Pick<JWTOptions, 'maxAge'>> & Pick<JWTOptions, 'encode' | 'decode'>;
  callbacks: CallbacksOptions;
  events: Partial<EventCallbacks>;
  pages: Partial<PagesOptions>;
  theme: Required<Theme> & Pick<ThemeOptions, 'brandName'>;
  /** The built-in pages' sentences: the `messages` option over English. */
  messages: PageMessages;
  /** Cookie names and options for plain-HTTP and for secure requests. */
  cookies: { plain: CookiesOptions; secure: CookiesOptions };
  /** Forced secure cookies (`true`/`false`), or `undefined` to follow the request's protocol. */
  useSecureCookies?: boolean;
  trustHost: boolean;
  /** Public origin forced by the `url` option / AUTH_URL. */
  url?: URL;
  /** `trustedOrigins`, each as `URL.origin`: front ends that may post here and be redirected to. */
  trustedOrigins: ReadonlySet<string>;
  redirectProxyUrl?: string;
  debug: boolean;
  /**
   * Account tokens stored encrypted (the `encryptAccountTokens` option); `undefined` when not set:
   * then on for adapters whose token columns only this library reads (see `AdapterService`).
   */
  encryptAccountTokens: boolean | undefined;
  /** How the guard treats RPC handlers (the `rpc` option). */
  rpc: 'token' | 'skip';
  logger: LoggerInstance;
  /** True when an adapter is configured (not necessarily with every method). */
  hasAdapter: boolean;
}

export type { SerializeOptions };
