import type { AuthorizationDetails, JsonValue } from 'oauth4webapi';

/** A value, or a promise of it. */
export type Awaitable<T> = T | PromiseLike<T>;

/** An ISO 8601 date-time string, as sessions carry their expiry on the wire. */
export type ISODateString = string;

/** The user as the application sees it: what a provider's `profile()` returns. */
export interface User {
  id?: string;
  name?: string | null;
  email?: string | null;
  image?: string | null;
}

/**
 * The profile an identity provider returns, before `profile()` maps it to a {@link User}.
 * The named claims are the standard OpenID Connect ones; providers add their own.
 */
export interface Profile {
  id?: string | number | null;
  sub?: string | null;
  name?: string | null;
  given_name?: string | null;
  family_name?: string | null;
  middle_name?: string | null;
  nickname?: string | null;
  preferred_username?: string | null;
  profile?: string | null;
  picture?: unknown;
  website?: string | null;
  email?: string | null;
  email_verified?: boolean | null;
  gender?: string | null;
  birthdate?: string | null;
  zoneinfo?: string | null;
  locale?: string | null;
  phone_number?: string | null;
  updated_at?: Date | string | number | null;
  address?: {
    formatted?: string | null;
    street_address?: string | null;
    locality?: string | null;
    region?: string | null;
    postal_code?: string | null;
    country?: string | null;
  } | null;
  [claim: string]: unknown;
}

/**
 * What the token endpoint returned, with `expires_at` (absolute, in seconds) computed from
 * `expires_in`. `token_type` is always lower-cased.
 */
export interface TokenSet {
  access_token?: string;
  expires_in?: number;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
  authorization_details?: AuthorizationDetails[];
  token_type?: Lowercase<string>;
  expires_at?: number;
  [parameter: string]: JsonValue | AuthorizationDetails[] | undefined;
}

/** Which provider and which account at that provider a user signed in with. */
export interface Account extends TokenSet {
  /** The provider's id (e.g. `github`). */
  provider: string;
  /** The user's id at the provider (for email: the address; for credentials: the id `authorize` returned). */
  providerAccountId: string;
  /** The provider's type. */
  type: ProviderType;
  /** The owning user's id, once the account is stored. */
  userId?: string;
}

/** The session as `GET /auth/session` returns it and `@AuthSession()` injects it. */
export interface Session {
  user?: User;
  expires: ISODateString;
  [key: string]: unknown;
}

/** The payload of a JWT session (encrypted in the session cookie). */
export interface JWT {
  name?: string | null;
  email?: string | null;
  picture?: string | null;
  sub?: string;
  iat?: number;
  exp?: number;
  jti?: string;
  [claim: string]: unknown;
}

/** How a provider signs users in (SPEC 2.1). */
export type ProviderType = 'oidc' | 'oauth' | 'email' | 'credentials' | 'webauthn';

/** Branding of the built-in pages and emails. */
export interface Theme {
  /** @default 'auto' */
  colorScheme?: 'auto' | 'dark' | 'light';
  logo?: string;
  brandColor?: string;
  buttonText?: string;
}

/**
 * The `theme` option: {@link Theme} and the app's name. (The name is kept apart so that
 * `Required<Theme>`, what a page renderer takes, stays satisfiable without it.)
 */
export interface ThemeOptions extends Theme {
  /**
   * The app's name as people know it ("Acme"): the sign-in page's heading and tab title ("Sign in to
   * Acme"), the logo's alt text, "Back to Acme" on the verify-request page. Without it the pages say
   * "Sign in" and name the site by its host.
   */
  brandName?: string;
}
