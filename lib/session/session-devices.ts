import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type {
  AdapterSessionDetails,
  AdapterSessionInfo,
  SessionListingAdapter,
} from '../adapters/adapter.interface.js';
import type { RefreshTokenAdapter } from '../adapters/adapter-extensions.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import {
  AdapterNotFoundError,
  AuthConfigurationError,
  InvalidRequest,
  MissingAdapterMethods,
  SessionTokenError,
} from '../errors/auth.errors.js';
import { storedClientIp } from '../rate-limit/client-ip.js';
import type { JWT } from '../types/common.types.js';
import type { AuthRequest } from '../types/http.types.js';
import { constantTimeEqual } from '../util/constant-time.js';
import { ExpiringMap } from '../util/expiring-map.js';
import { dateMs, isExpiredDate } from '../util/instant.js';
import { userAgentLabel } from '../util/user-agent.js';

/** One of a user's sessions, as `AuthService.listSessions` gives it. */
export interface SessionInfo {
  /** A public id derived from the session's token by a keyed hash (never the token): `endSession` takes it. */
  id: string;
  /** True for the session of the request that asked. */
  current: boolean;
  /** When the session began (the sign-in); `null` when the table does not record it. */
  createdAt: Date | null;
  /** When the session was last used, to within `session.updateAge`; `null` when unknown. */
  lastSeenAt: Date | null;
  expires: Date;
  /** A label like "Chrome on macOS"; `null` when unknown. */
  userAgent: string | null;
  /** The client's address as `session.storeIp` keeps it (`203.0.113.0/24` by default); `null` when not kept. */
  ip: string | null;
  /** For a native app's sign-in (`nativeApps`), the app's client id; else `null`. */
  app: string | null;
}

/** The prefix of the session index rows of JWT sessions (`session.jwtRevocation`) in the sessions table. */
const JWT_INDEX_PREFIX = 'jwt:';
/**
 * The prefix of a native app's sign-in (a refresh-token family, `nativeApps`) in the sessions table:
 * `app:<client id>:<family id>`. Listed with the user's sessions in either strategy.
 */
const APP_INDEX_PREFIX = 'app:';
/** Characters of a public session id (base64url of a truncated HMAC-SHA-256: 128 bits). */
const ID_LENGTH = 22;
/** JWT sessions whose index row was touched lately, kept at most (the oldest goes first). */
const TOUCHED_MAX = 100_000;

/**
 * Sessions as devices: what a new session records of the request that signed in (a browser label,
 * a coarse address, the time), the listing of a user's sessions and ending them by public id. Database
 * sessions are the rows of the sessions table; JWT sessions (with `session.jwtRevocation`) have a
 * small index in the same table, one row per sign-in keyed by the JWT's `sid` (`jwt:<sid>`),
 * written at sign-in and touched at most once per `session.updateAge`. Needs an adapter with
 * `listSessionsByUserId` (`SessionListingAdapter`): without it nothing extra is written.
 */
@Injectable()
export class SessionDevices {
  /** JWT index rows touched within `updateAge`, by key. */
  private readonly touched = new ExpiringMap<string, true>(TOUCHED_MAX);

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
  ) {}

  /** The adapter when it stores session details (it lists sessions by user), else null. */
  private get listing(): SessionListingAdapter | null {
    const adapter = this.adapters.raw as Partial<SessionListingAdapter> | null;
    return typeof adapter?.listSessionsByUserId === 'function' ? (adapter as SessionListingAdapter) : null;
  }

  /** True when new sessions record their details (the adapter can list them back). */
  get recording(): boolean {
    return this.listing !== null;
  }

  /** What a new session records of the request that signs in. */
  detailsOf(request: AuthRequest, now: number, providerSid?: string | null): AdapterSessionDetails {
    const details: AdapterSessionDetails = {
      createdAt: new Date(now),
      lastSeenAt: new Date(now),
      userAgent: userAgentLabel(request.headers['user-agent']),
      ip: storedClientIp(request.ip, this.config.session.storeIp),
    };
    if (typeof providerSid === 'string' && providerSid) details.providerSid = providerSid.slice(0, 255);
    return details;
  }

  /**
   * The sessions-table key of a JWT session's index row, `jwt:<sid>`, or undefined without a usable
   * `sid`. The sid is a random id only the encrypted cookie carries: knowing it forges nothing, and
   * ending the session revokes it by that id.
   */
  indexKeyOf(token: JWT | undefined): string | undefined {
    const sid = token?.sid;
    if (typeof sid !== 'string' || !/^[\w-]{8,128}$/.test(sid)) return undefined;
    return JWT_INDEX_PREFIX + sid;
  }

  /** The sessions-table key of a native app's sign-in (its refresh-token family). */
  appKey(clientId: string, familyId: string): string {
    return `${APP_INDEX_PREFIX}${clientId}:${familyId}`;
  }

  /** The client and family of a native app's key, or undefined for any other key. */
  appOf(key: string): { clientId: string; familyId: string } | undefined {
    if (!key.startsWith(APP_INDEX_PREFIX)) return undefined;
    const at = key.lastIndexOf(':');
    const clientId = key.slice(APP_INDEX_PREFIX.length, at);
    const familyId = key.slice(at + 1);
    return clientId && familyId ? { clientId, familyId } : undefined;
  }

  /** The `sid` of a JWT index key, or undefined for a database session's key. */
  sidOf(key: string): string | undefined {
    return key.startsWith(JWT_INDEX_PREFIX) ? key.slice(JWT_INDEX_PREFIX.length) : undefined;
  }

  /** The public id of a stored session key (a keyed hash, truncated): never the token. */
  publicId(storedKey: string): string {
    return this.mac('session-id', storedKey).slice(0, ID_LENGTH);
  }

  /** JWT strategy: the index row of a new session (logged and skipped when the adapter refuses it). */
  async indexJwt(token: JWT, userId: string, expires: Date, details: AdapterSessionDetails): Promise<void> {
    const key = this.indexKeyOf(token);
    if (!key || !this.recording || !this.adapters.has('createSession')) return;
    try {
      await this.adapters.require('createSession').createSession({ sessionToken: key, userId, expires, ...details });
      this.touched.set(key, true, Date.now() + this.config.session.updateAge * 1000);
    } catch (error) {
      // A user the adapter does not store (credentials whose `authorize` returns its own users):
      // nothing to list them by, which is not a fault.
      if (error instanceof AdapterNotFoundError) return this.config.logger.debug('jwt_session_index_no_user');
      this.config.logger.error(
        new SessionTokenError('The JWT session index row could not be written; the session is not listed.', {
          cause: error,
        }),
      );
    }
  }

  /**
   * JWT strategy: records that a session was used (`lastSeenAt`, and an expiry that follows the
   * re-issued cookie), at most once per `session.updateAge` per process; never waits, never throws.
   */
  touchJwt(token: JWT, now: number): void {
    const key = this.indexKeyOf(token);
    if (!key || !this.recording || !this.adapters.has('updateSession')) return;
    if (!this.touched.remember(key, true, now + this.config.session.updateAge * 1000, now)) return;
    const { maxAge, updateAge } = this.config.session;
    // The row may lag the cookie by up to updateAge: it lives that much longer.
    const expires = new Date(now + (maxAge + updateAge) * 1000);
    void Promise.resolve()
      .then(() =>
        this.adapters
          .require('updateSession')
          .updateSession({ sessionToken: key, expires, lastSeenAt: new Date(now) } as never),
      )
      .catch((error: unknown) =>
        this.config.logger.error(new SessionTokenError('Touching the JWT session index failed.', { cause: error })),
      );
  }

  /** JWT strategy: deletes the index row of an ended session (signed out, revoked). */
  async forgetJwt(token: JWT | undefined): Promise<void> {
    const key = this.indexKeyOf(token);
    if (!key || !this.recording) return;
    this.touched.delete(key);
    try {
      await this.adapters.require('deleteSession').deleteSession(key);
    } catch (error) {
      // The sid is revoked already; a row left behind only lists an ended session until it expires.
      this.config.logger.error(new SessionTokenError('Deleting the JWT session index row failed.', { cause: error }));
    }
  }

  /**
   * The user's current sessions (expired ones left out), the one of `currentKey` first, then the
   * most recently used. Throws `AuthConfigurationError` for JWT sessions without `jwtRevocation`
   * and `MissingAdapterMethods` without an adapter that lists sessions.
   */
  async list(userId: string, currentKey?: string): Promise<{ info: SessionInfo; key: string }[]> {
    const adapter = this.requireListing();
    const now = Date.now();
    const jwt = this.config.session.strategy === 'jwt';
    const rows = (await adapter.listSessionsByUserId(userId)) as unknown;
    const listed: { info: SessionInfo; key: string }[] = [];
    for (const row of Array.isArray(rows) ? (rows as AdapterSessionInfo[]) : []) {
      // What storage returns is checked, not trusted: rows of another user or with a bad expiry are skipped.
      if (!row || typeof row.sessionToken !== 'string' || String(row.userId) !== userId) continue;
      const app = this.appOf(row.sessionToken);
      if ((!app && row.sessionToken.startsWith(JWT_INDEX_PREFIX) !== jwt) || isExpiredDate(row.expires, now)) continue;
      const info: SessionInfo = {
        id: this.publicId(row.sessionToken),
        current: currentKey !== undefined && constantTimeEqual(row.sessionToken, currentKey),
        createdAt: validDate(row.createdAt),
        lastSeenAt: validDate(row.lastSeenAt),
        expires: new Date(row.expires),
        userAgent: typeof row.userAgent === 'string' ? row.userAgent : null,
        ip: typeof row.ip === 'string' ? row.ip : null,
        app: app?.clientId ?? null,
      };
      listed.push({ info, key: row.sessionToken });
    }
    const seen = (s: SessionInfo) => dateMs(s.lastSeenAt ?? s.createdAt) ?? 0;
    return listed.sort((a, b) => Number(b.info.current) - Number(a.info.current) || seen(b.info) - seen(a.info));
  }

  /**
   * The stored key of the user's session with public id `id`: each of the user's sessions compared
   * in constant time, only among them. Throws `InvalidRequest` for a malformed or unknown id.
   */
  async keyOf(userId: string, id: unknown): Promise<string> {
    if (typeof id !== 'string' || id.length !== ID_LENGTH || !/^[A-Za-z0-9_-]+$/.test(id))
      throw new InvalidRequest('The session id is malformed.');
    let found: string | undefined;
    for (const { info, key } of await this.list(userId)) if (constantTimeEqual(info.id, id)) found ??= key;
    if (found === undefined) throw new InvalidRequest('The user has no such session (it may have ended already).');
    return found;
  }

  /**
   * Deletes a native app's refresh-token family (its refresh tokens stop working at once); a family
   * already gone is not a fault.
   */
  async deleteAppFamily(familyId: string): Promise<void> {
    const adapter = this.adapters.raw as Partial<RefreshTokenAdapter> | null;
    if (typeof adapter?.deleteRefreshFamily === 'function') await adapter.deleteRefreshFamily(familyId);
  }

  /** Deletes a stored session row by its stored key (the token, its hash, or a JWT or app index key). */
  async deleteStored(key: string): Promise<void> {
    await this.adapters.require('deleteSession').deleteSession(key);
  }

  private requireListing(): SessionListingAdapter {
    if (this.config.session.strategy === 'jwt' && !this.config.session.jwtRevocation && !this.config.nativeApps) {
      throw new AuthConfigurationError([
        "Listing and ending a user's sessions with the JWT strategy needs a server-side session index: set `session.jwtRevocation: true` (with an adapter that has listSessionsByUserId, such as TypeOrmAdapter or MemoryAdapter), or use `session.strategy: 'database'`.",
      ]);
    }
    const adapter = this.listing;
    if (!adapter || !this.adapters.has('deleteSession')) {
      throw new MissingAdapterMethods(
        ['listSessionsByUserId', 'deleteSession'],
        "Listing and ending a user's sessions needs an adapter with listSessionsByUserId and deleteSession (TypeOrmAdapter and MemoryAdapter have them).",
      );
    }
    return adapter;
  }

  private mac(purpose: string, value: string): string {
    return createHmac('sha256', this.config.secrets[0]!)
      .update(`nestjs-auth ${purpose}\u0000${value}`)
      .digest('base64url');
  }
}

/** A valid stored date as a new Date, else null (fail closed). */
function validDate(value: unknown): Date | null {
  const ms = dateMs(value);
  return ms === undefined ? null : new Date(ms);
}
