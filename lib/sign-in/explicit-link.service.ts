import { Inject, Injectable } from '@nestjs/common';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthEvents } from '../core/auth-events.js';
import type { RequestContext } from '../core/request-context.js';
import {
  AccessDenied,
  AccountAlreadyLinked,
  InvalidProvider,
  OAuthAccountNotLinked,
  SessionRequired,
} from '../errors/auth.errors.js';
import { SessionReader } from '../session/session-reader.js';
import type { SessionState } from '../session/session.types.js';
import type { AuthResponse } from '../types/http.types.js';
import { runSignInCallback } from './sign-in-callback.js';
import type { SignInInput } from './sign-in.types.js';
import { toAdapterAccount, UserCreationService } from './user-creation.service.js';
import { WaysInGate } from './ways-in.gate.js';

/**
 * The explicit link flow (`POST /link/:provider`, then the provider's callback): links a provider
 * account to the user who started the link, and never signs anyone in. The user id travels from
 * the start to the callback in the flow's sealed check cookies (bound to the provider); the
 * callback refuses when the browser's session is no longer that user's, and when the provider
 * account belongs to another user (`AccountAlreadyLinked`, nothing written). Starting a link needs a
 * recent sign-in: it passes the WaysInGate, as every other change to the ways in does.
 */
@Injectable()
export class ExplicitLinkService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly reader: SessionReader,
    private readonly users: UserCreationService,
    private readonly gate: WaysInGate,
    private readonly events: AuthEvents,
  ) {}

  /**
   * The user a link may start for: the stored user of the request's cookie session.
   *
   * @throws SessionRequired without a cookie session (a bearer token is not enough: the callback
   *   comes back with the browser's cookie), MissingAdapterMethods without storage
   */
  async starter(ctx: RequestContext): Promise<AdapterUser> {
    const adapter = this.adapters.require('getUser', 'getUserByAccount', 'linkAccount');
    const state = await this.currentSession(ctx);
    if (!state) throw new SessionRequired('Sign in first, then link another account.');
    // A new way in: a stolen cookie alone must not add the thief's account.
    await this.gate.check(state, 'link-account');
    const user = await adapter.getUser(state.user.id);
    if (!user)
      throw new SessionRequired(
        'You are signed in as a user this app does not store (for example after a password sign-in with JWT sessions), so no account can be linked to it.',
      );
    return user;
  }

  /**
   * Completes a link at the provider's callback: the account in `input` is linked to `userId` (the
   * user sealed at the start), if the request is still signed in as that user.
   */
  async complete(ctx: RequestContext, input: SignInInput, userId: string): Promise<AuthResponse> {
    const { account, profile } = input;
    if (account.type !== 'oauth' && account.type !== 'oidc')
      throw new InvalidProvider('Only OAuth and OpenID Connect accounts are linked this way.');
    const adapter = this.adapters.require('getUser', 'getUserByAccount', 'linkAccount');
    const current = (await this.currentSession(ctx))?.user.id;
    if (!current) throw new SessionRequired('Your session ended before the link completed; nothing was linked.');
    if (current !== userId)
      throw new AccessDenied(
        'The link was started by another user than the one signed in now; nothing was linked. Start it again.',
      );
    const user = await adapter.getUser(userId);
    if (!user) throw new SessionRequired('The signed-in user is no longer stored; nothing was linked.');

    const owner = await adapter.getUserByAccount(account);
    if (owner && owner.id !== userId) throw alreadyLinked();
    await runSignInCallback(this.config, ctx, { user, account, profile });
    if (!owner) {
      const linked = toAdapterAccount(input.storedAccount ?? account, userId);
      try {
        await this.users.linkOrFindWinner(linked);
      } catch (error) {
        throw error instanceof OAuthAccountNotLinked ? alreadyLinked() : error;
      }
      this.events.emit('linkAccount', { user, account: linked, profile: input.user });
    }
    this.config.logger.debug('account_linked', { provider: account.provider, already: owner !== null });
    return { redirect: ctx.callbackUrl };
  }

  /** The request's cookie session (never a bearer token) with a user id, or null. */
  private async currentSession(ctx: RequestContext): Promise<ActiveState | null> {
    const state = await this.reader.read({ cookies: ctx.request.cookies, secure: ctx.secure }, { fresh: true });
    return state.status === 'active' && state.user.id ? state : null;
  }
}

type ActiveState = Extract<SessionState, { status: 'active' }>;

function alreadyLinked(): AccountAlreadyLinked {
  return new AccountAlreadyLinked(
    'This account is already linked to another user; nothing was changed. Sign in with it to use that user.',
  );
}
