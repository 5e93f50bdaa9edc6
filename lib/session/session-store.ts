import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type {
  AdapterSessionInfo,
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
import { synchronousLookupOf, type SynchronousSessionLookupAdapter } from '../adapters/sync-session-lookup.js';
import { SessionDevices } from './session-devices.js';
import { assuranceOfColumn, type Assurance } from './assurance.js';

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
      let found = checked(await adapter.getSessionAndUser(this.storedToken(raw)));
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
   * {@link find} without a promise, when the adapter can look up synchronously
   * ({@link SynchronousSessionLookupAdapter}); `undefined` when it cannot (call `find`). The answer
   * is checked as `find` checks it; an expired row's deletion and a due extension are written after
   * it (one write per token at a time), so a sign-out in between is never undone: the extension is
   * an `updateSession` of the row, which writes nothing once the row is gone.
   */
  findSync(raw: string, now: number): StoreLookup | undefined {
    if (this.syncLookup === undefined) this.syncLookup = synchronousLookupOf(this.adapters.raw) ?? null;
    if (!this.syncLookup) return undefined;
    try {
      this.lookupMethods ??= this.lookupAdapter();
      const answer = this.syncLookup(this.storedToken(raw));
      if (answer === undefined) return undefined;
      const found = checked(answer);
      if (!found) return { status: 'missing' };
      if (isExpiredDate(found.session.expires, now)) {
        this.writeLater(raw, async () => this.lookupMethods!.deleteSession(this.storedToken(raw)));
        return { status: 'expired' };
      }
      if (this.isDue(found, now)) this.writeLater(raw, () => this.extendIfDue(found, now));
      return { status: 'found', session: found.session, user: found.user };
    } catch (error) {
      this.config.logger.error(
        error instanceof AuthError ? error : new SessionTokenError('The session lookup failed.', { cause: error }),
      );
      return { status: 'failed' };
    }
  }

  /** The adapter's synchronous lookup, `null` without one (resolved on first use). */
  private syncLookup?: SynchronousSessionLookupAdapter['getSessionAndUserSync'] | null;
  /** Tokens with a write after a synchronous answer in flight. */
  private readonly writing = new Set<string>();

  /** Runs a write after the answer, at most one per token at a time; a failure is logged. */
  private writeLater(raw: string, write: () => Promise<unknown>): void {
    if (this.writing.has(raw)) return;
    this.writing.add(raw);
    write()
      .catch((error: unknown) =>
        this.config.logger.error(
          error instanceof AuthError
            ? error
            : new SessionTokenError('A session write after the lookup failed.', { cause: error }),
        ),
      )
      .finally(() => this.writing.delete(raw));
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
    const row = await this.storedDetails(raw, userId);
    return row && dateMs(row.createdAt) !== undefined ? row.createdAt! : null;
  }

  /**
   * What a database session's sign-in proved (its `amr` column, see `assurance.ts`), looked up as
   * {@link signedInAt} is; one factor when the adapter cannot say. Throws when the adapter fails.
   */
  async assurance(raw: string, userId: string): Promise<Assurance> {
    return assuranceOfColumn((await this.storedDetails(raw, userId))?.amr);
  }

  /** The session's row with its details (`listSessionsByUserId`), or null. */
  private async storedDetails(raw: string, userId: string): Promise<AdapterSessionInfo | null> {
    const adapter = this.adapters.raw as Partial<SessionListingAdapter> | null;
    if (typeof adapter?.listSessionsByUserId !== 'function') return null;
    const stored = this.storedToken(raw);
    const rows = await adapter.listSessionsByUserId(userId);
    return (Array.isArray(rows) ? rows.find((r) => r?.sessionToken === stored && r.userId === userId) : null) ?? null;
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
    if (!this.isDue(found, now)) return found;
    const { maxAge } = this.config.session;
    const expires = new Date(now + maxAge * 1000);
    // The same write records when the session was last used (no more often than updateAge).
    const seen = this.devices.recording ? { lastSeenAt: new Date(now) } : {};
    const updated = await this.adapters
      .require('updateSession')
      .updateSession({ sessionToken: found.session.sessionToken, expires, ...seen });
    if (updated === null) return null;
    return { session: updated ?? { ...found.session, expires }, user: found.user };
  }

  /** True when a session's expiry is due for extension (`updateAge` since it was last set). */
  private isDue(found: StoredSession, now: number): boolean {
    const { maxAge, updateAge } = this.config.session;
    // Called with a session whose expiry was checked valid: dateMs is defined here.
    return dateMs(found.session.expires)! - maxAge * 1000 + updateAge * 1000 <= now;
  }
}

/**
 * What storage returns, checked, not trusted: no session or user object (or a user without an id)
 * is no session. (Its expiry is checked by the caller: invalid counts as passed.)
 */
function checked(found: StoredSession | null | undefined): StoredSession | null {
  if (!found || !found.session || !found.user || found.user.id === undefined || found.user.id === null) return null;
  return found;
}
