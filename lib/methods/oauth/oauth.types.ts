import type { Client } from 'oauth4webapi';
import type { Awaitable, Profile, TokenSet, User } from '../../types/common.types.js';
import type { CommonProviderOptions, InternalProviderOptions } from '../../providers/provider.types.js';

/** Query parameters added to an endpoint URL. */
export type UrlParams = Record<string, unknown>;

/** Parameters of the authorization request (`scope`, `prompt`, `login_hint`, `response_mode`, ...). */
export type AuthorizationParameters = Record<string, string | undefined> & {
  scope?: string;
  response_type?: string;
  response_mode?: string;
  prompt?: string;
  login_hint?: string;
  redirect_uri?: string;
};

/** The parameters of the authorization response the provider sent to the callback. */
export type CallbackParamsType = Record<string, string | undefined> & {
  code?: string;
  state?: string;
  iss?: string;
  error?: string;
  error_description?: string;
};

/** The callback checks an OAuth 2.0 provider may use, with the values that were sent. */
export interface OAuthCallbackChecks {
  state?: string;
  code_verifier?: string;
}

/** The callback checks an OpenID Connect provider may use (adds `nonce`). */
export interface OpenIDCallbackChecks extends OAuthCallbackChecks {
  nonce?: string;
}

/** Union of the OpenID and OAuth callback checks (SPEC 2.1). */
export type OAuthChecks = OpenIDCallbackChecks | OAuthCallbackChecks;

/**
 * An endpoint given as an object: a `url`, extra `params`, an optional custom `request` that
 * replaces the library's call, and `conform` to repair a non-compliant response before parsing.
 */
export interface AdvancedEndpointHandler<P extends UrlParams, C, R> {
  /** Endpoint URL; overrides what discovery found. */
  url?: string;
  /** Extra query parameters (authorization) or body parameters (token). */
  params?: P;
  /** Performs the request yourself and returns the parsed result. */
  request?: (
    context: C & { provider: OAuthConfigInternal<Profile> & { signinUrl: string; callbackUrl: string } },
  ) => Awaitable<R>;
  /** Rewrites the raw HTTP response before it is validated. */
  conform?: (response: Response) => Awaitable<Response | undefined>;
}

/** An endpoint: a URL string or an {@link AdvancedEndpointHandler}. */
export type EndpointHandler<P extends UrlParams, C = any, R = any> = AdvancedEndpointHandler<P, C, R>;

/** The authorization endpoint (SPEC 2.7). */
export type AuthorizationEndpointHandler = EndpointHandler<AuthorizationParameters>;

/** The token endpoint: input `{ checks, params }`, output `{ tokens }` (SPEC 2.7). */
export type TokenEndpointHandler = EndpointHandler<
  UrlParams,
  { checks: OAuthChecks; params: CallbackParamsType },
  { tokens: TokenSet }
>;

/** The userinfo endpoint: input `{ tokens }`, output the profile (SPEC 2.7). */
export type UserinfoEndpointHandler = EndpointHandler<UrlParams, { tokens: TokenSet }, Profile>;

/** Receives the token set and returns the subset stored on the account (SPEC 2.7). */
export type AccountCallback = (tokens: TokenSet) => TokenSet | undefined | void;

/** Maps the provider's profile and tokens to a {@link User} (SPEC 2.7). */
export type ProfileCallback<P> = (profile: P, tokens: TokenSet) => Awaitable<User>;

/** Sign-in button styling (SPEC 2.6). */
export interface OAuthProviderButtonStyles {
  brandColor?: string;
  logo?: string;
  /** @deprecated use `brandColor` */
  bg?: string;
  /** @deprecated */
  text?: string;
}

/** The issuer fields an OAuth config may carry. */
interface PartialIssuer {
  jwks_endpoint: any;
}

/** An OAuth 2.0 provider (SPEC 2.4). */
export interface OAuth2Config<P> extends CommonProviderOptions, Partial<PartialIssuer>, InternalProviderOptions {
  id: string;
  name: string;
  type: 'oauth';
  /** The subset of the token set stored on the account. */
  account?: AccountCallback;
  /** Maps the provider's profile to a user. Default keeps `id`, `email`, `name`, `image`. */
  profile?: ProfileCallback<P>;
  /** Links to an existing user with the same email. Only safe when the provider verifies emails. */
  allowDangerousEmailAccountLinking?: boolean;
  authorization?: string | AuthorizationEndpointHandler;
  token?: string | TokenEndpointHandler;
  userinfo?: string | UserinfoEndpointHandler;
  /** Authorization-server metadata URL; `authorization`, `token` and `userinfo` still override it. */
  wellKnown?: string;
  issuer?: string;
  /** Protection on the callback. @default ['pkce'] */
  checks?: Array<'none' | 'state' | 'pkce'>;
  /** Overrides of the OAuth client (e.g. `token_endpoint_auth_method`). */
  client?: Partial<Client>;
  clientId?: string;
  clientSecret?: string;
  redirectProxyUrl?: string;
  /**
   * Federated sign-out (OpenID Connect RP-Initiated Logout): signing out of the app also signs the
   * user out at this provider: `POST /signout` redirects to its `end_session_endpoint` with
   * `id_token_hint`, `client_id` and `post_logout_redirect_uri` (the validated `callbackUrl`, which
   * must be registered at the provider), and the provider sends the browser back there. Needs the
   * account's stored `id_token` and an adapter with `listAccountsByUserId`. @default false
   */
  federated?: boolean;
  /**
   * Accept OpenID Connect Back-Channel Logout tokens from this provider at
   * `POST {basePath}/backchannel-logout/:provider` (register that URL as the client's
   * `backchannel_logout_uri`). @default false
   */
  backchannelLogout?: boolean;
  style?: OAuthProviderButtonStyles;
  /**
   * Replaces `fetch` for every request the flow makes for this provider (discovery, JWKS, token,
   * userinfo), as oauth4webapi's `[customFetch]`: for proxies, or to repair a vendor's metadata
   * (Microsoft Entra ID's `common` discovery document names its issuer as a `{tenantid}` template).
   * @default globalThis.fetch
   */
  customFetch?: (url: string, init: RequestInit) => Promise<Response>;
  /**
   * Runs after the profile is read (ID token claims or userinfo response) and before `profile()`,
   * with the callback parameters: lets a provider fold in data that the vendor sends only in the
   * callback. Apple posts the user's name once, on first consent, as a JSON `user` form field.
   */
  conformProfile?: (profile: P, context: { params: CallbackParamsType; tokens: TokenSet }) => Awaitable<P>;
  /**
   * Multi-tenant issuers: given an ID token's claims (before verification), returns the issuer that
   * token must be validated against, or `undefined` to keep the configured one. Microsoft Entra ID's
   * `common`/`organizations`/`consumers` endpoints issue tokens whose `iss` is the signing tenant's
   * own (`https://login.microsoftonline.com/{tid}/v2.0`). The flow then discovers that issuer
   * (through `customFetch`) and verifies the token's signature, `iss` and `aud` against it.
   */
  idTokenIssuer?: (claims: Record<string, unknown>) => string | undefined;
}

/** An OpenID Connect provider (SPEC 2.5). */
export interface OIDCConfig<P> extends Omit<OAuth2Config<P>, 'type' | 'checks'> {
  type: 'oidc';
  /** Protection on the callback; `nonce` is allowed. @default ['pkce'] */
  checks?: Array<'none' | 'state' | 'nonce' | 'pkce'>;
  /** When false, the profile comes from the userinfo endpoint (an ID token is still required). @default true */
  idToken?: boolean;
}

/** The internal form of {@link OIDCConfig}: `checks` and `idToken` taken from it. */
export type OIDCConfigInternal<P> = OAuthConfigInternal<P> & {
  checks: OIDCConfig<P>['checks'];
  idToken: OIDCConfig<P>['idToken'];
};

/** An OAuth 2.0 or OpenID Connect provider. */
export type OAuthConfig<P> = OIDCConfig<P> | OAuth2Config<P>;

/** The normalised form the flows work with: endpoints resolved to handler objects. */
export type OAuthConfigInternal<P> = Omit<OAuthConfig<P>, 'authorization' | 'token' | 'userinfo' | 'checks'> & {
  authorization?: AuthorizationEndpointHandler & { url: URL };
  token?: TokenEndpointHandler & { url: URL };
  userinfo?: UserinfoEndpointHandler & { url: URL };
  checks: Array<'none' | 'state' | 'nonce' | 'pkce'>;
  profile: ProfileCallback<P>;
  account: AccountCallback;
};

/** What a user passes to a built-in OAuth factory: every field optional, `type` and `options` omitted. */
export type OAuthUserConfig<P> = Omit<Partial<OAuth2Config<P>>, 'options' | 'type'>;

/** What a user passes to a built-in OIDC factory: every field optional, `type` and `options` omitted. */
export type OIDCUserConfig<P> = Omit<Partial<OIDCConfig<P>>, 'options' | 'type'>;
