import { InvalidProvider } from '../errors/auth.errors.js';
import type { Profile, ProviderType } from '../types/common.types.js';
import type { CredentialsConfig } from '../methods/credentials/credentials.types.js';
import type { EmailConfig } from '../methods/email/email.types.js';
import type { OAuth2Config, OIDCConfig } from '../methods/oauth/oauth.types.js';
import type { WebAuthnConfig } from '../methods/webauthn/webauthn.types.js';

/** The config each provider type carries after normalisation (options merged, env defaults applied). */
export interface ProviderConfigByType {
  oauth: OAuth2Config<Profile>;
  oidc: OIDCConfig<Profile>;
  email: EmailConfig;
  credentials: CredentialsConfig;
  webauthn: WebAuthnConfig;
}

/**
 * Fields a config may carry beyond those its type declares: a factory's own settings or a user's
 * extras pass through the merge untouched. They read as `unknown`; declared fields keep their types.
 */
export interface UndeclaredConfigFields {
  [field: string]: unknown;
}

/**
 * A configured provider of type `T` (or of any type in the union `T`): the user's options merged
 * over the factory's defaults. `type` tells which config it carries.
 */
export type InternalProviderOf<T extends ProviderType> = T extends ProviderType
  ? { id: string; name: string; type: T; config: ProviderConfigByType[T] & UndeclaredConfigFields }
  : never;

/** A configured provider after normalisation, discriminated by `type`. */
export type InternalProvider = InternalProviderOf<ProviderType>;

/** An `oauth` or `oidc` provider. */
export type InternalOAuthProvider = InternalProviderOf<'oauth' | 'oidc'>;

/** True when the provider is of one of `types`. */
export function isProviderOfType<T extends ProviderType>(
  provider: InternalProvider,
  ...types: T[]
): provider is InternalProviderOf<T> {
  return (types as ProviderType[]).includes(provider.type);
}

/**
 * The provider, typed by its kind; `InvalidProvider` when it is of another kind (a flow handed a
 * provider it does not handle). E.g. `providerOfType(ctx.provider, 'email').config` is an EmailConfig.
 */
export function providerOfType<T extends ProviderType>(
  provider: InternalProvider,
  ...types: T[]
): InternalProviderOf<T> {
  if (isProviderOfType(provider, ...types)) return provider;
  throw new InvalidProvider(
    `Provider ${JSON.stringify(provider.id)} is of type ${provider.type}, not ${types.join(' or ')}.`,
  );
}
