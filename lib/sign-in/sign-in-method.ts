import type { Provider, Type } from '@nestjs/common';
import type { ProviderKind } from '../config/provider-kind.js';
import type { ProviderContext, ProviderFlow } from '../core/request-context.js';
import type { SignInFormRenderer } from '../pages/page.types.js';
import type { AuthResponse } from '../types/http.types.js';
import type { AuthUser } from '../session/session.types.js';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import type { Account, Profile } from '../types/common.types.js';

/**
 * A sign-in method: everything the library needs to offer one way of signing in, in one object that
 * its folder (`lib/methods/<name>/<name>.method.ts`) exports and the registry (`lib/sign-in-methods.ts`)
 * lists. The router, configuration resolution and the sign-in page ask the registry, never a method
 * directly (ARCHITECTURE.md, "Adding a sign-in method"). Shaped like a Nest plugin: a name, the
 * injectables it adds, and the hooks the core calls.
 */
export interface SignInMethod extends ProviderKind {
  /** The Nest injectables the method adds to AuthModule (its flow and everything the flow injects). */
  readonly providers: readonly Provider[];
  /** The injectable (one of `providers`) that handles the routes of the method's providers. */
  readonly flow: Type<ProviderFlow>;
  /**
   * Steps the method adds to the sign-in pipeline (one of `providers` each): they run for every
   * sign-in, whatever method proved the first factor (see {@link SignInStep}).
   */
  readonly steps?: readonly Type<SignInStep>[];
  /**
   * The method's part of the built-in sign-in page for providers of a type the page does not know:
   * an HTML fragment (escape everything you interpolate). `hidden` holds the CSRF token and
   * callback URL inputs every form must carry.
   */
  readonly form?: SignInFormRenderer;
}

/** A sign-in on its way to a session: the user is known, nothing about the session exists yet. */
export interface SignInAttempt {
  readonly ctx: ProviderContext;
  readonly user: AdapterUser | AuthUser;
  /** The account that proved the first factor (`type` names the method). */
  readonly account: Account;
  readonly profile?: Profile;
  readonly isNewUser: boolean;
  /** True when the request came with a session of this same user (a re-authentication). */
  readonly sameUserSignedIn: boolean;
}

/**
 * A step of the one sign-in pipeline (`SignInService.completeSignIn`), run for every first factor
 * after the user is found, created or linked, and before the previous session ends and the new one
 * starts. Return nothing to let the sign-in go on; return a response (a redirect to a challenge
 * page, say) to end it there: then no session, cookie or token is issued (the `createUser` and
 * `linkAccount` events of what was written do fire), and the step owns what happens next. Throw an
 * `AuthError` to refuse the sign-in: a user this sign-in created is deleted again, as when a flow's
 * own `afterUser` write fails.
 */
export interface SignInStep {
  run(attempt: SignInAttempt): Promise<AuthResponse | void>;
}

/** DI token: the registered sign-in methods (built-in first, then the app's `methods`). */
export const SIGN_IN_METHODS = Symbol.for('nestjs-auth:sign-in-methods');
/** DI token: the steps of the sign-in pipeline, in the order of the methods that add them. */
export const SIGN_IN_STEPS = Symbol.for('nestjs-auth:sign-in-steps');
