import type { Awaitable, User } from '../types/common.types.js';
import type { CommonProviderOptions, InternalProviderOptions } from './provider.types.js';

/** The type of credentials providers. */
export type CredentialsProviderType = 'credentials';

/** One input of the credentials form (rendered as an `<input>` on the sign-in page). */
export interface CredentialInput {
  label?: string;
  type?: string;
  value?: string;
  placeholder?: string;
  autocomplete?: string;
  required?: boolean;
  [attribute: string]: unknown;
}

/** A credentials (username/password or similar) provider. */
export interface CredentialsConfig<C extends Record<string, CredentialInput> = Record<string, CredentialInput>>
  extends CommonProviderOptions,
    InternalProviderOptions {
  type: 'credentials';
  /** The form's inputs, keyed by field name. */
  credentials: C;
  /**
   * Checks the submitted credentials. Return the user, or `null` to refuse with `CredentialsSignin`.
   * Throw a `CredentialsSignin` subclass to set a `code` shown to the user.
   */
  authorize: (credentials: Partial<Record<keyof C, unknown>>, request: Request) => Awaitable<User | null>;
}
