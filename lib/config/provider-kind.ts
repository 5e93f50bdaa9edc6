import type { Adapter } from '../adapters/adapter.interface.js';
import type { InternalProvider } from './resolved-config.js';

/** What a provider's checks may depend on besides the provider itself. */
export interface ProviderCheckContext {
  /** `providers[i] ("id")`: the start of every message about this provider. */
  where: string;
  env: NodeJS.ProcessEnv;
  adapter: Adapter | null;
  hasAdapter: boolean;
  strategy: 'jwt' | 'database';
}

/**
 * The part of a sign-in method that configuration resolution uses (the whole contract is
 * `SignInMethod` in sign-in/sign-in-method.ts; config sees only this slice, so it never imports a
 * method). `resolveConfig` is handed the registered methods and asks each provider's method.
 */
export interface ProviderKind {
  /** The method's name, e.g. `oauth` (in messages). */
  readonly name: string;
  /** The provider `type`s the method serves, e.g. `['oauth', 'oidc']`. */
  readonly types: readonly string[];
  /**
   * Fills settings the environment provides (e.g. `AUTH_GITHUB_ID`) into the merged config.
   * `envId` is the provider id upper-cased with `-` as `_`.
   */
  applyEnv?(config: Record<string, unknown>, env: NodeJS.ProcessEnv, envId: string): void;
  /**
   * Checks the provider at bootstrap, the adapter methods it needs included, and pushes one
   * message per problem, each saying what to do. A throw is reported as a failed validation.
   */
  validate(provider: InternalProvider, problems: string[], ctx: ProviderCheckContext): void;
}

/**
 * What the `methods` setting takes, as far as configuration can name it: a `SignInMethod` (the whole
 * contract lives in sign-in/sign-in-method.ts, above this layer). `forRoot` checks the rest.
 */
export interface MethodRegistration extends ProviderKind {
  /** The injectable that handles the routes of the method's providers (required when it serves a type). */
  readonly flow?: abstract new (...args: never[]) => unknown;
  /** The Nest injectables the method adds (its flow among them). */
  readonly providers: readonly unknown[];
}
