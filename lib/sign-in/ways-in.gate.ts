import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { RequestContext } from '../core/request-context.js';
import { SessionRequired } from '../errors/auth.errors.js';
import { assertRecentSignIn } from '../session/recent-sign-in.js';
import { SessionReader } from '../session/session-reader.js';
import type { SessionState } from '../session/session.types.js';

/**
 * A change to the ways into an existing user, as the gate names it in its log line:
 * - `link-account`: an OAuth/OIDC account attached to the signed-in user (the explicit link, or a
 *   sign-in with an account nobody has yet while signed in);
 * - `add-passkey`: a passkey registered for the signed-in user (its options and its callback);
 * - `confirm-address`: the signed-in user's unverified address confirmed by a magic link;
 * - `change-email`, `set-password`, `remove-passkey`, `unlink-account`: the account API's changes;
 * - `add-second-factor`, `remove-second-factor`: an authenticator app added (or backup codes made
 *   again), an app removed (the account API, `twoFactor`);
 * - `app-sign-in`: a native app signed in from the browser's session (`nativeApps`): its refresh
 *   tokens are a new, long-lived way in;
 * - `add-api-key`: an API key made (or one replaced by a new one) for the signed-in user (`apiKeys`).
 */
export type WayInChange =
  | 'link-account'
  | 'add-passkey'
  | 'confirm-address'
  | 'change-email'
  | 'set-password'
  | 'remove-passkey'
  | 'unlink-account'
  | 'add-second-factor'
  | 'remove-second-factor'
  | 'app-sign-in'
  | 'add-api-key';

/** An active session, as SessionReader reads it. */
export type ActiveSession = Extract<SessionState, { status: 'active' }>;

/**
 * The one gate for every way into an existing user. Whatever adds, changes or removes a way to
 * sign in as a user who already exists (an account linked to them, a passkey, their address, their
 * password) asks this gate first, with the session that asks for it; the gate lets the change
 * through only when that session's sign-in is recent (`account.recentSignInMaxAge`), else throws
 * `ReauthenticationRequired` and nothing is written. A stolen session cookie alone therefore never
 * adds a way in: the thief would have to sign in again, which is what the cookie cannot do.
 *
 * The callers are the sign-in pipeline (AccountLinkingService, at the one point where a sign-in
 * attaches something to the signed-in user), the explicit link's start, the passkey registration
 * options, and the account API's actions declared `'ways-in'`. `test/ways-in.spec.ts` enumerates
 * every place that writes an account, an authenticator, an email or a password and fails when one
 * of them is not listed with the check that guards it.
 */
@Injectable()
export class WaysInGate {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly reader: SessionReader,
  ) {}

  /**
   * Lets `change` through for the user of `session`, or throws `ReauthenticationRequired` (an
   * unknown sign-in time is not recent: fail closed).
   */
  async check(session: ActiveSession, change: WayInChange): Promise<void> {
    const signedInAt = await this.reader.signedInAt(session);
    try {
      assertRecentSignIn(signedInAt, this.config.account.recentSignInMaxAge);
    } catch (error) {
      this.config.logger.debug('ways_in_refused', { change });
      throw error;
    }
  }

  /**
   * The request's cookie session (never a bearer token: the flows that add a way in come back with
   * the browser's cookie), checked for `change`. `SessionRequired` without one.
   */
  async checkRequest(ctx: RequestContext, change: WayInChange): Promise<ActiveSession> {
    const state = await this.reader.read({ cookies: ctx.request.cookies, secure: ctx.secure }, { fresh: true });
    if (state.status !== 'active' || !state.user.id) throw new SessionRequired('Sign in first.');
    await this.check(state, change);
    return state;
  }
}
