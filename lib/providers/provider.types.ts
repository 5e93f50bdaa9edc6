import type { CredentialsConfig } from '../methods/credentials/credentials.types.js';
import type { EmailConfig } from '../methods/email/email.types.js';
import type { OAuthConfig, OAuth2Config, OIDCConfig } from '../methods/oauth/oauth.types.js';
import type { OAuthProviderType } from './oauth-provider-type.js';
import type { WebAuthnConfig, WebAuthnProviderType } from '../methods/webauthn/webauthn.types.js';
import type { Profile } from '../types/common.types.js';

export type { OAuthProviderType } from './oauth-provider-type.js';
export type { WebAuthnProviderType } from '../methods/webauthn/webauthn.types.js';
export type { EmailProviderType } from '../methods/email/email.types.js';
export type { CredentialsProviderType } from '../methods/credentials/credentials.types.js';

import type { ProviderType } from '../types/common.types.js';
export type { ProviderType };

/** Providers whose sign-in ends with a redirect to the sign-in or verify-request page. */
export type RedirectableProviderType = 'email' | 'credentials';

/** The three OAuth endpoints a provider may configure. */
export type OAuthEndpointType = 'authorization' | 'token' | 'userinfo';

/** The provider types an adapter stores accounts for (SPEC 2.1: a subset of ProviderType). */
export type AdapterAccountType = Extract<ProviderType, 'oauth' | 'oidc' | 'email' | 'webauthn'>;

/** Every built-in provider id. */
export type BuiltInProviderType = RedirectableProviderType | OAuthProviderType | WebAuthnProviderType;

/** Fields every provider has (SPEC 2.2). */
export interface CommonProviderOptions {
  /** Unique among the configured providers; part of the provider's URLs. */
  id: string;
  /** Shown on the sign-in page ("Sign in with <name>"). */
  name: string;
  /** See {@link ProviderType}. */
  type: ProviderType;
}

/** A configured provider with the URLs the library computed for it (SPEC 2.3). */
export interface AppProvider extends CommonProviderOptions {
  /** Absolute URL of `POST {basePath}/signin/{id}`. */
  signinUrl: string;
  /** Absolute URL of `{basePath}/callback/{id}`. */
  callbackUrl: string;
}

/** The configuration of one provider, or a function returning it (SPEC 2.1). */
export type Provider<P extends Profile = any> =
  | ((OIDCConfig<P> | OAuth2Config<P> | EmailConfig | CredentialsConfig | WebAuthnConfig | OAuthConfig<P>) &
      InternalProviderOptions)
  | ((
      ...args: any
    ) => (OIDCConfig<P> | OAuth2Config<P> | EmailConfig | CredentialsConfig | WebAuthnConfig) &
      InternalProviderOptions);

/** Present on configs returned by built-in factories: the user's own settings, merged last. */
export interface InternalProviderOptions {
  /** The options the user passed to the factory; they override the factory's defaults. */
  options?: Record<string, unknown>;
}

/** The `providers` option: configs, built-in factory results, or functions returning configs. */
export type AppProviders = Array<Provider | ReturnType<BuiltInProviderFactory>>;

/** A built-in provider factory, `(config) => ProviderConfig`. */
export type BuiltInProviderFactory = (config?: any) => Provider;

/** One input of a sign-in form (credentials fields, the passkey form's fields) (rendered as an `<input>` on the sign-in page). */
export interface CredentialInput {
  label?: string;
  type?: string;
  value?: string;
  placeholder?: string;
  autocomplete?: string;
  required?: boolean;
  [attribute: string]: unknown;
}
