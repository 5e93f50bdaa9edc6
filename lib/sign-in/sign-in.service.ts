import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthEvents } from '../core/auth-events.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { InvalidProvider } from '../errors/auth.errors.js';
import type { Account, User } from '../types/common.types.js';
import { toAbsolute } from '../core/callback-url.js';
import type { AuthResponse } from '../types/http.types.js';
import type { ProviderContext, RequestContext } from '../core/request-context.js';
import { firstFactorAmr } from '../session/assurance.js';
import type { SessionState } from '../session/session.types.js';
import { SessionIssuer } from '../session/session-issuer.js';
import { SessionReader } from '../session/session-reader.js';
import { AccountLinkingService } from './account-linking.service.js';
import { runSignInCallback } from './sign-in-callback.js';
import type { ResolvedSignIn, SignInInput } from './sign-in.types.js';
import { UserCreationService } from './user-creation.service.js';
import { SIGN_IN_STEPS, type SignInCompletion, type SignInStep } from './sign-in-method.js';

export type { SignInInput } from './sign-in.types.js';
export { SignInRedirect } from './sign-in-callback.js';

/**
 * The one sign-in pipeline: every first factor, whatever its method, ends here and goes through the
 * same steps, in this order:
 * 1. the `signIn` callback (the app may refuse);
 * 2. the user: found, created or linked by the account type's rules (AccountLinkingService, which
 *    asks the WaysInGate before anything is added to an existing user);
 * 3. the flow's own `afterUser` write (a new passkey), undone with the user if it fails;
 * 4. the registered {@link SignInStep}s (`SIGN_IN_STEPS`, which sign-in methods add): each may end the
 *    sign-in here with its own response (a second-factor challenge), before any session exists;
 * 5. a new session (the previous one is ended: no fixation), the events, and the redirect; for a
 *    sign-in a step held, this last stage runs when the step is satisfied ({@link finishSignIn}).
 * Users are identified by (provider, providerAccountId), never by email alone.
 */
@Injectable()
export class SignInService {
  /**
   * Nest injects this service; an app does not construct it.
   *
   * @internal
   */
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly reader: SessionReader,
    private readonly issuer: SessionIssuer,
    private readonly linking: AccountLinkingService,
    private readonly users: UserCreationService,
    private readonly events: AuthEvents,
    @Inject(SIGN_IN_STEPS) private readonly steps: readonly SignInStep[],
  ) {}

  /**
   * Runs the pipeline for a proven first factor: the redirect with the new session's cookies, or
   * the response of a step that holds the sign-in.
   */
  async completeSignIn(ctx: ProviderContext, input: SignInInput): Promise<AuthResponse> {
    const { account, profile } = input;
    if (!account?.providerAccountId || !account.type) {
      throw new InvalidProvider("The sign-in returned no account id; check the provider's profile() returns an `id`.");
    }
    const stateful =
      this.adapters.raw !== null && (account.type !== 'credentials' || this.config.session.strategy === 'database');
    const current = await this.reader.read({
      cookies: ctx.request.cookies,
      authorization: undefined,
      secure: ctx.secure,
    });
    const signedIn = current.status === 'active' && current.user.id ? current : null;

    // The user the signIn callback sees: the stored one when the account is known.
    let known: AdapterUser | null = null;
    if (stateful && account.type !== 'email') {
      known = await this.adapters.require('getUserByAccount').getUserByAccount(account);
    } else if (stateful && account.type === 'email' && input.user.email) {
      known = await this.adapters.require('getUserByEmail').getUserByEmail(input.user.email);
    }
    const callbackUser = known ?? statelessUser(input.user, account);
    await this.runSignInCallback(ctx, {
      user: callbackUser,
      account,
      profile,
      email: input.email,
      credentials: input.credentials as never,
    });

    const resolved = stateful
      ? await this.linking.resolve(input, known, signedIn)
      : { user: statelessUser(input.user, account), isNewUser: false };

    if (input.afterUser) {
      try {
        await input.afterUser(resolved.user as AdapterUser, resolved.isNewUser);
      } catch (error) {
        if (resolved.created) await this.users.undoCreate(resolved.user.id);
        throw error;
      }
    }

    // The steps (second factors and other checks): a throw refuses the sign-in as an `afterUser`
    // failure does (a user it created is deleted again); a response ends it here, with what was
    // written so far announced and no session.
    const amr =
      input.amrFromSession && signedIn && signedIn.user.id === resolved.user.id
        ? [...(await this.reader.assurance(signedIn)).amr]
        : firstFactorAmr(account.type, input.amr);
    const proved: string[] = [];
    for (const step of this.steps) {
      let ended: AuthResponse | void;
      try {
        ended = await step.run({
          ctx,
          user: resolved.user as AdapterUser,
          account,
          profile,
          isNewUser: resolved.isNewUser,
          sameUserSignedIn: signedIn !== null && signedIn.user.id === resolved.user.id,
          amr,
          proved,
        });
      } catch (error) {
        if (resolved.created) await this.users.undoCreate(resolved.user.id);
        throw error;
      }
      if (ended) {
        this.announceWrites(input, resolved);
        return ended;
      }
    }

    return this.startSession(
      ctx,
      { user: resolved.user as AdapterUser, account, profile, isNewUser: resolved.isNewUser, amr: [...amr, ...proved] },
      current,
      () => this.announceWrites(input, resolved),
    );
  }

  /**
   * Ends a sign-in a step held (a second factor pending) once the step is satisfied: the same last
   * stage as {@link completeSignIn}'s, a new session, the `signIn` event and the redirect.
   */
  async finishSignIn(ctx: RequestContext, completion: SignInCompletion): Promise<AuthResponse> {
    const current = await this.reader.read({ cookies: ctx.request.cookies, secure: ctx.secure });
    return this.startSession(ctx, completion, current);
  }

  /**
   * The last stage of every sign-in: a new session (the one the request came with ends: no fixation),
   * the `signIn` event, the redirect (to `pages.newUser` for a new user but with credentials).
   */
  private async startSession(
    ctx: RequestContext,
    c: SignInCompletion,
    current: SessionState,
    announceWrites?: () => void,
  ): Promise<AuthResponse> {
    // A new session on every sign-in: end the one the request came with (database strategy, or a
    // JWT with `session.jwtRevocation`).
    if (
      current.status === 'active' &&
      !current.bearer &&
      (current.strategy === 'database' || this.config.session.jwtRevocation)
    ) {
      await this.issuer.revoke(current.sessionToken).catch(() => undefined);
    }
    const cookies = await this.issuer.create(ctx, c.user, {
      account: c.account,
      profile: c.profile,
      isNewUser: c.isNewUser,
      amr: c.amr,
      ...(c.providerSid !== undefined ? { providerSid: c.providerSid } : {}),
    });
    announceWrites?.();
    this.events.emit('signIn', { user: c.user, account: c.account, profile: c.profile, isNewUser: c.isNewUser });

    const callbackUrl = c.callbackUrl ?? ctx.callbackUrl;
    const newUserPage = this.config.pages.newUser;
    const redirect =
      c.isNewUser && newUserPage && c.account.type !== 'credentials'
        ? withQuery(toAbsolute(newUserPage, ctx.origin), { callbackUrl })
        : callbackUrl;
    return { redirect, cookies };
  }

  /**
   * The `signIn` callback, with the same rules for every flow: `false` refuses (`AccessDenied`), a
   * thrown AuthError passes through, any other throw refuses, a string redirects (through the
   * `redirect` callback, so it stays on this origin by default).
   */
  async runSignInCallback(
    ctx: ProviderContext,
    params: Parameters<ResolvedAuthConfig['callbacks']['signIn']>[0],
  ): Promise<void> {
    await runSignInCallback(this.config, ctx, params);
  }

  /** The events of what a sign-in wrote: createUser, then linkAccount. */
  private announceWrites(input: SignInInput, resolved: ResolvedSignIn): void {
    if (resolved.created) this.events.emit('createUser', { user: resolved.user });
    if (resolved.linked)
      this.events.emit('linkAccount', { user: resolved.user, account: resolved.linked, profile: input.user });
  }
}

/** Without storage the provider's user is the session's user, identified by the account id. */
function statelessUser(user: User, account: Account): User & { id: string } {
  return { ...user, id: user.id ?? account.providerAccountId };
}

function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
}
