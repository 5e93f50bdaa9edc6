import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type {
  AdapterSession,
  AdapterSessionDetails,
  AdapterUser,
  SessionListingAdapter,
} from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthError, SessionTokenError } from '../errors/auth.errors.js';
import { dateMs, isExpiredDate } from '../util/instant.js';
import { SessionDevices } from './session-devices.js';

/** A stored session with its user. */
export interface StoredSession {
  session: AdapterSession;
  user: AdapterUser;
}

/**
 * What the store says about a token: found (and extended when due), expired (the row was deleted),
 * missing, or failed (the adapter threw; logged).
 */
export type StoreLookup = ({ status: 'found' } & StoredSession) | { status: 'expired' | 'missing' | 'failed' };

/**
 * Database sessions in the adapter: looks them up (`getSessionAndUser`), deletes expired ones,
 * extends them once per `session.updateAge`, creates and deletes them. With `session.hashTokens`
 * the store keys sessions by the token's SHA-256; callers always pass the raw token.
 */
@Injectable()
export class DatabaseSessionStore {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly devices: SessionDevices,
  ) {}

  /** The adapter methods a lookup uses, checked once (the adapter does not change while the app runs). */
  private lookupMethods?: ReturnType<DatabaseSessionStore['lookupAdapter']>;

  private lookupAdapter() {
    return this.adapters.require('getSessionAndUser', 'deleteSession', 'updateSession');
  }

  /** Looks a session up by its raw token. Never throws: a failure is logged and answers `failed`. */
  async find(raw: string, now: number): Promise<StoreLookup> {
    try {
      const adapter = (this.lookupMethods ??= this.lookupAdapter());
      let found: StoredSession | null = await adapter.getSessionAndUser(this.storedToken(raw));
      // What storage returns is checked, not trusted: no session or user object is no session,
      // and an expiry that is not a valid Date counts as passed (the row is then deleted).
      if (found && (!found.session || !found.user || found.user.id === undefined || found.user.id === null))
        found = null;
      if (found && isExpiredDate(found.session.expires, now)) {
        await adapter.deleteSession(this.storedToken(raw));
        return { status: 'expired' };
      }
      if (found) found = await this.extendIfDue(found, now);
      return found ? { status: 'found', ...found } : { status: 'missing' };
    } catch (error) {
      this.config.logger.error(
        error instanceof AuthError ? error : new SessionTokenError('The session lookup failed.', { cause: error }),
      );
      return { status: 'failed' };
    }
  }

  /**
   * Stores a new session for a user. Returns the cookie's value (the token itself, even when the
   * store holds only its hash) and the expiry the store kept.
   */
  async create(
    userId: string,
    expires: Date,
    details?: AdapterSessionDetails,
  ): Promise<{ value: string; expires: Date }> {
    const sessionToken = this.config.session.generateSessionToken();
    // The details go only to an adapter that stores them (it lists sessions): another adapter's
    // createSession may refuse fields it does not know.
    const extra = details && this.devices.recording ? details : {};
    const created = await this.adapters
      .require('createSession')
      .createSession({ sessionToken: this.storedToken(sessionToken), userId, expires, ...extra });
    return { value: this.config.session.hashTokens ? sessionToken : created.sessionToken, expires: created.expires };
  }

  /** Deletes a session by its raw token; returns what the adapter returns (the deleted session, if it says). */
  async delete(raw: string): Promise<AdapterSession | null | undefined | void> {
    return await this.adapters.require('deleteSession').deleteSession(this.storedToken(raw));
  }

  /**
   * When a database session was created (its user signed in), from the adapter's
   * `listSessionsByUserId`; `null` when the adapter cannot say (no such method, no `createdAt`
   * column, the session is gone). Throws when the adapter fails.
   */
  async signedInAt(raw: string, userId: string): Promise<Date | null> {
    const adapter = this.adapters.raw as Partial<SessionListingAdapter> | null;
    if (typeof adapter?.listSessionsByUserId !== 'function') return null;
    const stored = this.storedToken(raw);
    const rows = await adapter.listSessionsByUserId(userId);
    const row = Array.isArray(rows) ? rows.find((r) => r?.sessionToken === stored && r.userId === userId) : undefined;
    return row && dateMs(row.createdAt) !== undefined ? row.createdAt! : null;
  }

  /** What the store keys a database session by: the token, or with `session.hashTokens` its SHA-256. */
  storedToken(raw: string): string {
    return this.config.session.hashTokens ? createHash('sha256').update(raw).digest('hex') : raw;
  }

  /**
   * Extends a database session's expiry at most once per `updateAge` (SPEC section 3). `null` when
   * the adapter says the session is gone (deleted between the lookup and the update: a sign-out on
   * another instance); an adapter that returns nothing (`undefined`) is trusted to have updated it.
   */
  private async extendIfDue(found: StoredSession, now: number): Promise<StoredSession | null> {
    const { maxAge, updateAge } = this.config.session;
    // Called with a session whose expiry was checked valid: dateMs is defined here.
    const dueAt = dateMs(found.session.expires)! - maxAge * 1000 + updateAge * 1000;
    if (dueAt > now) return found;
    const expires = new Date(now + maxAge * 1000);
    // The same write records when the session was last used (no more often than updateAge).
    const seen = this.devices.recording ? { lastSeenAt: new Date(now) } : {};
    const updated = await this.adapters
      .require('updateSession')
      .updateSession({ sessionToken: found.session.sessionToken, expires, ...seen });
    if (updated === null) return null;
    return { session: updated ?? { ...found.session, expires }, user: found.user };
  }
}
