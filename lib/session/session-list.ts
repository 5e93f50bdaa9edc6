import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AuthEvents } from '../core/auth-events.js';
import { JwtRevocation } from './jwt-revocation.js';
import { SessionCache } from './session-cache.js';
import { SessionDevices, type SessionInfo } from './session-devices.js';
import { DatabaseSessionStore } from './session-store.js';
import type { SessionState } from './session.types.js';

/** The account changes that end a user's native app sign-ins. */
const ENDS_APPS: ReadonlySet<string> = new Set([
  'password.set',
  'email.changed',
  'two-factor.add',
  'two-factor.remove',
  'two-factor.reset',
  'passkey.delete',
]);

type ActiveState = Extract<SessionState, { status: 'active' }>;

/**
 * A user's sessions as a list of devices, and ending them: one by public id, or all but the
 * current one. Every ending goes through the cache's forget methods (database sessions) or the
 * JWT revocation list (JWT sessions, by `sid`), so it reaches what this process (and, with a
 * revocation bus or a shared store, the others) remembers.
 */
@Injectable()
export class SessionList {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly devices: SessionDevices,
    private readonly store: DatabaseSessionStore,
    private readonly cache: SessionCache,
    private readonly revocation: JwtRevocation,
    events: AuthEvents,
  ) {
    // A changed way in (password, email, second factor, passkey) ends the user's app sign-ins: an
    // app signed in before the change must sign in again, as a browser's other sessions may.
    if (config.nativeApps)
      events.listen('accountChange', ({ action, userId }) => {
        if (ENDS_APPS.has(action)) return this.endApps(userId);
      });
  }

  /** The user's sessions; the one of `current` (an active session of this user) marked. */
  async list(userId: string, current?: ActiveState): Promise<SessionInfo[]> {
    const listed = await this.devices.list(userId, this.keyOf(current, userId));
    return listed.map(({ info }) => info);
  }

  /** Ends the user's session with public id `id` (`InvalidRequest` when the user has none such). */
  async end(userId: string, id: unknown): Promise<void> {
    const key = await this.devices.keyOf(userId, id);
    await this.endKeys(userId, [key]);
  }

  /** Ends every session of the user of `current` except that one; returns how many ended. */
  async endOthers(current: ActiveState): Promise<number> {
    const userId = current.user.id;
    const own = this.keyOf(current, userId);
    const keys = (await this.devices.list(userId, own)).filter((s) => !s.info.current).map((s) => s.key);
    await this.endKeys(userId, keys);
    return keys.length;
  }

  /**
   * Ends every native app sign-in of the user (`nativeApps`): their refresh tokens stop working and
   * their access tokens are refused, here and (through the revocation bus) on every instance.
   * Returns how many ended.
   */
  async endApps(userId: string): Promise<number> {
    if (!this.config.nativeApps || !this.devices.recording) return 0;
    const keys = (await this.devices.list(userId)).map((s) => s.key).filter((k) => this.devices.appOf(k));
    await this.endKeys(userId, keys);
    return keys.length;
  }

  /**
   * Ends every stored session of the user: database rows, JWT sessions through their index (each
   * `sid` revoked, with `session.jwtRevocation`), native app sign-ins. Needs an adapter that lists
   * sessions (`recording`); returns how many ended.
   */
  async endAll(userId: string): Promise<number> {
    if (!this.devices.recording) return 0;
    const keys = (await this.devices.list(userId)).map((s) => s.key);
    await this.endKeys(userId, keys);
    return keys.length;
  }

  /** True when every JWT session of a user can be ended: `jwtRevocation` keeps an index of them. */
  get endsJwtSessions(): boolean {
    return this.config.session.strategy === 'jwt' && this.config.session.jwtRevocation && this.devices.recording;
  }

  /**
   * The id access tokens of a session carry as `sid`: a JWT session's own `sid` (with
   * `jwtRevocation`), a database session's public id; ending the session revokes it.
   */
  sidOf(state: ActiveState): string {
    if (state.strategy === 'jwt' && typeof state.token?.sid === 'string') return state.token.sid;
    return this.devices.publicId(this.keyOf(state, state.user.id) ?? state.sessionToken);
  }

  /** Ends the native app sign-in an access token belongs to (the app signing out). */
  async endApp(state: ActiveState): Promise<void> {
    const key = this.keyOf(state, state.user.id);
    if (state.strategy === 'access-token' && key) await this.endKeys(state.user.id, [key]);
  }

  /** The stored key of an active session of `userId` (a database row's key, a JWT's index key). */
  private keyOf(state: ActiveState | undefined, userId: string): string | undefined {
    if (!state || state.user.id !== userId) return undefined;
    if (state.strategy === 'api-key') return undefined;
    if (state.strategy === 'access-token')
      return this.devices.appKey(String(state.token?.client_id), String(state.token?.sid));
    return state.strategy === 'jwt' ? this.devices.indexKeyOf(state.token) : this.store.storedToken(state.sessionToken);
  }

  /**
   * Ends stored sessions of `userId` by their stored keys (database rows, JWT index rows): the
   * back-channel logout ends what it found by OP session this way too.
   */
  async endKeys(userId: string, keys: string[]): Promise<void> {
    for (const key of keys) {
      const sid = this.devices.sidOf(key);
      const app = this.devices.appOf(key);
      if (app) {
        // A native app's sign-in: its refresh tokens go with the family, and its access tokens
        // (which live `accessToken.maxAge` at most) are revoked by their `sid`.
        await this.devices.deleteAppFamily(app.familyId);
        await this.revocation.revokeAccessTokens(app.familyId);
      } else if (sid !== undefined) {
        // Every copy of the JWT goes: its sid is revoked for as long as any copy could live.
        await this.revocation.revoke({ sid });
      } else {
        // The stored key is the token itself: the cache entry is found by it.
        if (!this.config.session.hashTokens) this.cache.forgetDb(key);
        // The access tokens it gave (`issueAccessToken`) go with it.
        await this.revocation.revokeAccessTokens(this.devices.publicId(key));
      }
      await this.devices.deleteStored(key);
    }
    // Stored hashes cannot name the cached tokens: forget the user's cached sessions instead.
    if (
      this.config.session.hashTokens &&
      keys.some((k) => this.devices.sidOf(k) === undefined && !this.devices.appOf(k))
    )
      this.cache.forgetUser(userId);
  }
}
