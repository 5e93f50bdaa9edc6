import type { CookiesOptions } from '../config/auth-options.interface.js';
import type { InternalProvider, ResolvedAuthConfig } from '../config/resolved-config.js';
import type { AuthRequest, AuthResponse, ResponseCookie } from '../types/http.types.js';

/**
 * Everything a flow needs about the current request, built once by the router.
 * Flows append cookies to `responseCookies`; the router adds them to whatever response is returned
 * (including error redirects).
 */
export interface RequestContext {
  request: AuthRequest;
  config: ResolvedAuthConfig;
  /** Origin of absolute URLs, e.g. `http://127.0.0.1:3000`. */
  origin: string;
  /** `origin + basePath`, e.g. `http://127.0.0.1:3000/auth`. */
  authUrl: string;
  /** Whether cookies get the `__Secure-`/`__Host-` prefixes and `Secure`. */
  secure: boolean;
  /** Cookie names and options for this request. */
  cookies: CookiesOptions;
  /** Where to send the user after sign-in/sign-out: validated by the `redirect` callback. */
  callbackUrl: string;
  /** The CSRF token of this request (from a valid cookie, or freshly minted). */
  csrfToken: string;
  /** True when the body's `csrfToken` matched a valid CSRF cookie (POST only). */
  csrfVerified: boolean;
  /**
   * True when the request's CSRF cookie was valid but not bound to the signed-in user (fetched
   * before this sign-in): refused, with a message that says to fetch a new token (`csrfRefusal`).
   */
  csrfIssuedBeforeSignIn?: boolean;
  /** Cookies to set on the response. */
  responseCookies: ResponseCookie[];
}

/** A request context that targets one provider (`/signin/:provider`, `/callback/:provider`). */
export interface ProviderContext extends RequestContext {
  provider: InternalProvider;
  /** Absolute URL of `POST {basePath}/signin/{id}`. */
  signinUrl: string;
  /** Absolute URL of `{basePath}/callback/{id}`. */
  providerCallbackUrl: string;
}

/**
 * The flow of one sign-in method, as the router sees it. The router calls `signIn` for
 * `POST /signin/:provider` (after the CSRF check), `link` for `POST /link/:provider` (after the CSRF
 * check), `callback` for `GET|POST /callback/:provider`, `options` for `GET /webauthn-options/:provider`
 * and `backchannelLogout` for `POST /backchannel-logout/:provider`. A route whose member a flow lacks
 * answers `InvalidProvider` for that flow's providers. The flags say how the router guards `callback`.
 */
export interface ProviderFlow {
  /** `POST /signin/:provider`: starts a sign-in (a redirect to the provider, an email sent). */
  signIn?(ctx: ProviderContext): Promise<AuthResponse>;
  /** `POST /link/:provider`: links another account to the signed-in user. */
  link?(ctx: ProviderContext): Promise<AuthResponse>;
  /** `GET|POST /callback/:provider`: finishes a sign-in. */
  callback(ctx: ProviderContext): Promise<AuthResponse>;
  /** `GET /webauthn-options/:provider`: what the browser needs before a ceremony. */
  options?(ctx: ProviderContext): Promise<AuthResponse>;
  /** `POST /backchannel-logout/:provider`: the provider's server ends sessions (authenticated by its token). */
  backchannelLogout?(ctx: ProviderContext): Promise<AuthResponse>;
  /**
   * Federated sign-out: when `enabled`, the router reads the user before the session ends and sends
   * them on to the URL this returns (the provider's end-session endpoint), if any.
   */
  readonly federatedSignOut?: {
    readonly enabled: boolean;
    /** The URL that ends the user's session at the provider and comes back to `callbackUrl`; none without one. */
    endSessionUrl(userId: string, callbackUrl: string): Promise<string | undefined>;
  };
  /**
   * `callback` comes from another site (the provider's redirect back, or its `form_post` page posts
   * it), never from a page of this module: no same-origin check on a POST, and its error answers
   * carry `Referrer-Policy: no-referrer` (its URL held a code and a state).
   */
  readonly crossSiteCallback?: boolean;
  /** `callback` is a form post: POST only, with the CSRF token (credentials). */
  readonly callbackIsFormPost?: boolean;
  /**
   * The sign-in page loads the browser script (`{basePath}/webauthn-client.js`) when a provider of
   * this flow is configured: its forms run a ceremony in the browser (passkeys).
   */
  readonly usesBrowserScript?: boolean;
  /**
   * `GET /verify-request?provider=<id>`: how long (seconds) the link this flow sent to the provider's
   * user stays valid, which the "check your email" page states; undefined: the page says nothing.
   */
  linkMaxAge?(provider: InternalProvider): number | undefined;
}
