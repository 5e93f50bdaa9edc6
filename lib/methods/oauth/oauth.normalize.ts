import type { Client, CryptoKey, JWK, PrivateKey } from 'oauth4webapi';
import type { Awaitable, Profile, TokenSet, User } from '../../types/common.types.js';
import type { AccountCallback, OAuthConfigInternal, ProfileCallback, UrlParams } from './oauth.types.js';

/** The callback checks a provider can run. */
export type OAuthCheck = 'state' | 'pkce' | 'nonce';

/**
 * An endpoint after normalisation. `url` is absent when the endpoint comes from discovery but the
 * user still gave `params`, `request` or `conform` for it.
 */
export interface NormalizedEndpoint<C = unknown, R = unknown> {
  /** Explicit URL; overrides discovery. Absent: take the discovered one. */
  url?: URL;
  /** Authorization and userinfo: query parameters; token: extra body parameters. */
  params: Record<string, string>;
  /** A custom request that replaces the library's call. */
  request?: (context: C & { provider: NormalizedOAuthProvider }) => Awaitable<R>;
  /** Repairs a non-compliant response before it is parsed. */
  conform?: (response: Response) => Awaitable<Response | undefined>;
}

/**
 * The key `private_key_jwt` signs client assertions with: a private `CryptoKey`, oauth4webapi's
 * `{ key, kid }`, or a private JWK (with `kid` and `alg`).
 */
export type ClientPrivateKey = CryptoKey | PrivateKey | (JWK & { d: string });

/**
 * An `oauth`/`oidc` provider in the form the OAuth flow works with: endpoints as handler objects,
 * checks resolved, default `profile()`/`account()` filled in. Built once per provider.
 */
export interface NormalizedOAuthProvider extends Omit<
  OAuthConfigInternal<Profile>,
  'authorization' | 'token' | 'userinfo' | 'checks' | 'client' | 'type'
> {
  id: string;
  name: string;
  type: 'oauth' | 'oidc';
  /** Discovery document URL: `wellKnown`, else `{issuer}/.well-known/openid-configuration`. */
  wellKnown?: string;
  issuer?: string;
  authorization?: NormalizedEndpoint;
  token?: NormalizedEndpoint<
    { checks: { state?: string; code_verifier?: string; nonce?: string }; params: Record<string, string | undefined> },
    { tokens: TokenSet }
  >;
  userinfo?: NormalizedEndpoint<{ tokens: TokenSet }, Profile>;
  /** The checks the callback runs (deduplicated; `'none'` removed). */
  checks: OAuthCheck[];
  /** OIDC: read the profile from the ID token (true) or from userinfo (false). @default true */
  idToken: boolean;
  /** Client metadata overrides merged over `{ client_id }`. */
  client: Partial<Client>;
  clientId?: string;
  clientSecret?: string;
  /** Key for `token_endpoint_auth_method: 'private_key_jwt'` (`token.clientPrivateKey`, or `client.clientPrivateKey`). */
  clientPrivateKey?: ClientPrivateKey;
  /**
   * Base URL of the redirect proxy deployment including its basePath
   * (e.g. `https://auth.example.com/auth`), when one is used. Never set with `response_mode=form_post`.
   */
  redirectProxyUrl?: string;
  /** True when the authorization request asks for `response_mode=form_post`. */
  formPost: boolean;
  /** JWKS URL when the provider is not discovered (`jwks_endpoint`). */
  jwksUri?: string;
  profile: ProfileCallback<Profile>;
  account: AccountCallback;
}

/** Default scope of OIDC providers that configure none. */
export const DEFAULT_OIDC_SCOPE = 'openid profile email';

/**
 * Normalises an `oauth`/`oidc` provider config (user options already merged over the factory's
 * defaults). `topLevelRedirectProxyUrl` is the module's `redirectProxyUrl` (or AUTH_REDIRECT_PROXY_URL).
 *
 * Departures from Auth.js, on purpose: `wellKnown` is really used for discovery; a custom
 * `token.request` is really called; OAuth 2.0 (non-OIDC) providers get no `openid` scope they did
 * not ask for.
 */
export function normalizeOAuthProvider(
  config: Record<string, unknown>,
  topLevelRedirectProxyUrl?: string,
): NormalizedOAuthProvider {
  const type = config.type === 'oidc' ? 'oidc' : 'oauth';
  const issuer = stringOrUndefined(config.issuer);
  const explicitWellKnown = stringOrUndefined(config.wellKnown);
  const authorization = normalizeEndpoint(config.authorization);
  const token = normalizeEndpoint(config.token) as NormalizedOAuthProvider['token'];
  const userinfo = normalizeEndpoint(config.userinfo) as NormalizedOAuthProvider['userinfo'];

  const authParams = authorization?.params ?? {};
  const formPost = authParams.response_mode === 'form_post';

  const requested = Array.isArray(config.checks) ? (config.checks as string[]) : ['pkce'];
  const checks = new Set<OAuthCheck>();
  for (const check of requested) {
    if (check === 'state' || check === 'pkce' || (check === 'nonce' && type === 'oidc')) checks.add(check);
  }
  const proxyBase = formPost ? undefined : (stringOrUndefined(config.redirectProxyUrl) ?? topLevelRedirectProxyUrl);
  // The proxy only knows where to bounce the callback from what the state carries.
  if (proxyBase) checks.add('state');

  const client = { ...((config.client as Partial<Client> | undefined) ?? {}) };
  const rawToken = config.token && typeof config.token === 'object' ? (config.token as Record<string, unknown>) : {};
  const clientPrivateKey = (rawToken.clientPrivateKey ?? (client as Record<string, unknown>).clientPrivateKey) as
    ClientPrivateKey | undefined;
  delete (client as Record<string, unknown>).clientPrivateKey;

  return {
    ...(config as Omit<NormalizedOAuthProvider, 'type'>),
    id: String(config.id),
    name: String(config.name ?? config.id),
    type,
    issuer,
    wellKnown: explicitWellKnown ?? (issuer ? wellKnownFor(issuer) : undefined),
    authorization: withDefaultScope(authorization, type),
    token,
    userinfo,
    checks: [...checks],
    idToken: type === 'oidc' ? config.idToken !== false : false,
    client,
    clientId: stringOrUndefined(config.clientId),
    clientSecret: stringOrUndefined(config.clientSecret),
    clientPrivateKey,
    redirectProxyUrl: proxyBase?.replace(/\/+$/, ''),
    formPost,
    jwksUri: stringOrUndefined(config.jwks_endpoint),
    profile: (config.profile as ProfileCallback<Profile> | undefined) ?? defaultProfile,
    account: (config.account as AccountCallback | undefined) ?? defaultAccount,
  };
}

/** OIDC Discovery 1.0: the well-known document under the issuer's path. */
export function wellKnownFor(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

// Without `openid` an OpenID Provider issues no ID token, so OIDC providers always ask for a scope.
function withDefaultScope(
  endpoint: NormalizedEndpoint | undefined,
  type: 'oauth' | 'oidc',
): NormalizedEndpoint | undefined {
  if (type !== 'oidc' || endpoint?.params.scope) return endpoint;
  return { ...(endpoint ?? {}), params: { ...(endpoint?.params ?? {}), scope: DEFAULT_OIDC_SCOPE } };
}

/**
 * A string → `{ url }`; an object → a handler with its `url` parsed and `params` stringified
 * (`claims` as JSON, as OIDC requires); nothing → `undefined` (discovery).
 */
export function normalizeEndpoint(endpoint: unknown): NormalizedEndpoint | undefined {
  if (endpoint === undefined || endpoint === null) return undefined;
  if (typeof endpoint === 'string') return { url: new URL(endpoint), params: {} };
  if (typeof endpoint !== 'object') return undefined;
  const e = endpoint as { url?: unknown; params?: unknown; request?: unknown; conform?: unknown };
  const params: Record<string, string> = {};
  if (e.params && typeof e.params === 'object') {
    for (const [key, value] of Object.entries(e.params as UrlParams)) {
      if (value === undefined || value === null) continue;
      params[key] = key === 'claims' && typeof value === 'object' ? JSON.stringify(value) : String(value);
    }
  }
  return {
    url: typeof e.url === 'string' ? new URL(e.url) : e.url instanceof URL ? new URL(e.url.href) : undefined,
    params,
    request: typeof e.request === 'function' ? (e.request as NormalizedEndpoint['request']) : undefined,
    conform: typeof e.conform === 'function' ? (e.conform as NormalizedEndpoint['conform']) : undefined,
  };
}

/**
 * The default `profile()`: `id` from `sub` (or `id`) as a string, `name` (or nickname, preferred
 * username), `email`, and `image` from `picture`.
 */
export function defaultProfile(profile: Profile): User {
  const id = profile.sub ?? profile.id;
  return stripUndefined({
    id: id === undefined || id === null ? undefined : String(id),
    name: profile.name ?? profile.nickname ?? profile.preferred_username ?? undefined,
    email: profile.email ?? undefined,
    image: typeof profile.picture === 'string' ? profile.picture : undefined,
  });
}

/**
 * The default `account()`: the token fields stored on the account, `token_type` lower-cased
 * (`access_token`, `id_token`, `refresh_token`, `expires_at`, `scope`, `token_type`, `session_state`).
 */
export function defaultAccount(tokens: TokenSet): TokenSet {
  return stripUndefined({
    access_token: tokens.access_token,
    id_token: tokens.id_token,
    refresh_token: tokens.refresh_token,
    expires_at: tokens.expires_at,
    scope: tokens.scope,
    token_type:
      typeof tokens.token_type === 'string' ? (tokens.token_type.toLowerCase() as Lowercase<string>) : undefined,
    session_state: tokens.session_state as string | undefined,
  }) as TokenSet;
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
