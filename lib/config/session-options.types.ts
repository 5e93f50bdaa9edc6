// The session and JWT options of AuthModule (`session`, `jwt`), re-exported by auth-options.interface.ts.
import type { Awaitable, JWT } from '../types/common.types.js';

/** How sessions are kept. */
export interface SessionOptions {
  /**
   * `jwt`: an encrypted JWE in the cookie, nothing stored. `database`: a random token in the cookie
   * and a row in the adapter's sessions.
   * @default 'database' when an adapter is available, otherwise 'jwt'
   */
  strategy?: 'jwt' | 'database';
  /** Seconds until an idle session expires. @default 2592000 (30 days) */
  maxAge?: number;
  /** Database strategy: seconds between two extensions of a session's expiry. @default 86400 (1 day) */
  updateAge?: number;
  /** Generates database session tokens. @default 32 random bytes, hex */
  generateSessionToken?: () => string;
  /**
   * Database strategy: keep a looked-up session in memory for this many seconds, so the guard does
   * not query the database on every request. A revoked session may then be accepted for up to this
   * long on other instances (sign-out on the same instance evicts at once), unless a
   * `revocationBus` tells them. @default 0 (off)
   */
  cacheTtl?: number;
  /**
   * The most sessions this process keeps in memory: decoded JWTs (JWT sessions, always cached
   * until they expire) or looked-up database sessions (with `cacheTtl`). When full, the oldest
   * goes, and a token seen for the first time is not kept in place of a current entry (it is on
   * its second visit). `0` keeps none: every request decrypts its JWT or asks the database.
   * @default 10000
   */
  cacheMaxEntries?: number;
  /**
   * The most memory, in bytes, the session cache's entries may take, as it counts them (close to
   * what V8's heap holds for them): a JWT session 2 bytes a character of its cookie plus 750 (about
   * 1.8 KB for a typical 540-character cookie), a database session twice its token's length plus
   * 1,600 (about 1.7 KB). When full, the oldest entries go; an entry larger than the whole bound is
   * not kept. Under load V8 lets its heap grow to a few times what it holds before collecting, so
   * each MiB kept here shows several times in the process's peak memory (see the Performance
   * guide). `0` keeps none. The access tokens the guard verified have a map of their own with the
   * same bound (about 2.2 KB a token), and a table of their digests of this size too (20 bytes a
   * token), so a token seen before skips its signature check.
   * @default 3145728 (3 MiB: about 1,700 typical JWT sessions or 1,800 database sessions)
   */
  cacheMaxBytes?: number;
  /**
   * JWT strategy: signing out (the route or `AuthService.signOut`), or signing in again in the same
   * browser, revokes the JWT that ends, so a copy of the old cookie is refused until it would have
   * expired. Revoked ids are kept in memory per process and, when `rateLimitStore` is shared (e.g.
   * `RedisRateLimitStore`), there too: every JWT request then asks that store. @default false
   */
  jwtRevocation?: boolean;
  /**
   * Database strategy: store the SHA-256 of each session token instead of the token, so a read of
   * the sessions table (a backup, a leaked replica) gives no usable session. Off by default, as in
   * Auth.js, so an Auth.js app can share the sessions table. Turning it on ends existing sessions.
   * @default false
   */
  hashTokens?: boolean;
  /**
   * What a session records of the client's address, for the user's list of sessions (database
   * sessions, and JWT sessions with `jwtRevocation`): `'coarse'` the network only (IPv4 /24, IPv6
   * /48), `'full'` the address, `'none'` or `false` nothing. The address is the request's `ip` (the
   * platform's trusted-proxy setting decides it), never a header read here. @default 'coarse'
   */
  storeIp?: 'coarse' | 'full' | 'none' | false;
  /**
   * JWT strategy: keep the provider's access token, refresh token and expiry of an OAuth/OIDC
   * sign-in in the session JWT (claim `providerTokens`, encrypted with the session), so
   * `AuthService.getAccessToken(request, provider)` and `@ProviderAccessToken()` can hand them out
   * and refresh them without a database; a refresh rewrites the session cookie. The ID token is not
   * kept (cookie size). Not with the database strategy (tokens live on the accounts). @default false
   */
  tokens?: boolean;
}

/** Options of the JWT session codec. */
export interface JWTOptions {
  /** Seconds until the JWT expires. @default session.maxAge */
  maxAge?: number;
  /** Replaces the JWE encoder. */
  encode?: (params: JWTEncodeParams) => Awaitable<string>;
  /** Replaces the JWE decoder. Return `null` for an invalid token. */
  decode?: (params: JWTDecodeParams) => Awaitable<JWT | null>;
}

/** What the session JWT encoder takes (`jwt.encode`, and the exported `encode`). */
export interface JWTEncodeParams {
  /** The claims to encrypt. */
  token?: JWT;
  /** The key-derivation salt: the session cookie's name. */
  salt: string;
  secret: string | string[];
  /** Seconds until expiry. @default 2592000 */
  maxAge?: number;
}

/** What the session JWT decoder takes (`jwt.decode`, and the exported `decode`). */
export interface JWTDecodeParams {
  /** The encrypted token (the session cookie's value). */
  token?: string;
  /** The key-derivation salt: the session cookie's name. */
  salt: string;
  /** The secret, or several (the first encrypts; each is tried to decrypt). */
  secret: string | string[];
}
