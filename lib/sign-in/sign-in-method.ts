import type { Provider, Type } from '@nestjs/common';
import type { ProviderKind } from '../config/provider-kind.js';
import type { ProviderContext, ProviderFlow, RequestContext } from '../core/request-context.js';
import type { SignInFormRenderer } from '../pages/page.types.js';
import type { AuthResponse } from '../types/http.types.js';
import type { AuthUser } from '../session/session.types.js';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import type { Account, Profile } from '../types/common.types.js';
import type { WayIn, WaysInQuery } from './user-ways-in.js';

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
  /**
   * The injectable (one of `providers`) that handles the routes of the method's providers; a method
   * that serves no provider type (a second factor: its `steps` and `challenge`) has none.
   */
  readonly flow?: Type<ProviderFlow>;
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
  /** The routes of the sign-ins its steps hold (one of `providers`; see {@link ChallengeFlow}). */
  readonly challenge?: Type<ChallengeFlow>;
  /** Second factors the method offers to the two-factor challenge (one of `providers` each). */
  readonly secondFactors?: readonly Type<SecondFactorProvider>[];
  /**
   * The ways into an account the method gives a stored user today (a linked account, a passkey, a
   * verified address, a password), asked only when providers of its types are configured. The
   * rule that removing one never leaves a user none (`UserWaysIn`) counts what every method gives;
   * a method without it gives none it counts, so a user who signs in only through it cannot
   * remove their last counted way.
   */
  readonly waysIn?: (query: WaysInQuery) => Promise<readonly WayIn[]>;
}

/**
 * A second factor a method offers (a passkey after a password or a magic link): the two-factor
 * challenge lists it for a user who has it, asks it for what the browser needs, and has it check
 * the answer. It writes what a use changes (a passkey's counter) only once the answer is right.
 */
export interface SecondFactorProvider {
  /** How the challenge page and API name it, e.g. `passkey`. */
  readonly method: string;
  /**
   * `options` sends something (a mail with a code): the challenge calls it on a `POST` that asks
   * for it (`send`), never on a `GET`.
   */
  readonly sends?: boolean;
  /** Whether the user can prove it now, after a first factor that proved `firstFactor`. */
  available(userId: string, firstFactor: readonly string[]): Promise<boolean>;
  /** What the browser needs to start (it may seal a check cookie into `ctx`, or send a code). */
  options(ctx: RequestContext, userId: string): Promise<unknown>;
  /**
   * Checks the browser's answer (the request body) for this user; returns what it proved (RFC 8176
   * method references). Throws an `AuthError` when it is not right.
   */
  verify(ctx: RequestContext, userId: string, body: Record<string, unknown>): Promise<string[]>;
}

/** DI token: the second factors the registered methods offer. */
export const SECOND_FACTORS = Symbol.for('nestjs-auth:second-factors');

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
  /** What the first factor proved (RFC 8176 method references, `mfa` when it proved two). */
  readonly amr: readonly string[];
  /**
   * What the steps proved on the way (a remembered device: `dev`, `mfa`): a step that lets the
   * sign-in go on because of something it checked pushes its references here, and the session
   * records them with the first factor's.
   */
  readonly proved: string[];
}

/** How a sign-in held by a step (a second factor pending) ends once the step is satisfied. */
export interface SignInCompletion {
  readonly user: AdapterUser | AuthUser;
  readonly account: Account;
  readonly profile?: Profile;
  readonly isNewUser: boolean;
  /** Everything the sign-in proved, first factor and step together. */
  readonly amr: readonly string[];
  /** The OpenID Provider's session id of the first factor (back-channel logout). */
  readonly providerSid?: string | null;
  /** Where the sign-in goes afterwards (the first factor's callback URL); default the request's. */
  readonly callbackUrl?: string;
}

/**
 * The routes of a step that holds sign-ins (`GET` and `POST {basePath}/two-factor`): the page or
 * JSON that asks for what the step needs, and the answer to it, which ends in
 * `SignInService.finishSignIn` once it is satisfied.
 */
export interface ChallengeFlow {
  /** `GET {basePath}/two-factor`: the page or JSON that asks for what the step needs. */
  page(ctx: RequestContext): Promise<AuthResponse>;
  /** `POST {basePath}/two-factor`: checks the answer, and ends the sign-in once the step is satisfied. */
  submit(ctx: RequestContext): Promise<AuthResponse>;
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
  /** Nothing to let the sign-in go on, a response to end it here. */
  run(attempt: SignInAttempt): Promise<AuthResponse | void>;
}

/** DI token: the registered sign-in methods (built-in first, then the app's `methods`). */
export const SIGN_IN_METHODS = Symbol.for('nestjs-auth:sign-in-methods');
/** DI token: the steps of the sign-in pipeline, in the order of the methods that add them. */
export const SIGN_IN_STEPS = Symbol.for('nestjs-auth:sign-in-steps');
