import { Inject, Injectable } from '@nestjs/common';
import type {
  AdapterSessionInfo,
  SessionListingAdapter,
  SessionsByProviderSidAdapter,
  SessionsByUserAdapter,
} from '../../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterService } from '../../core/adapter.service.js';
import { MissingAdapterMethods, SignOutError } from '../../errors/auth.errors.js';
import { providerSidKey } from '../../session/provider-sid.js';
import { SessionCache } from '../../session/session-cache.js';
import { SessionList } from '../../session/session-list.js';

/** Whom a verified logout token names: the OP's user (`sub`), its session (`sid`), or both. */
export interface LogoutSubject {
  sub?: string;
  sid?: string;
}

type Adapter = Partial<SessionsByUserAdapter & SessionListingAdapter & SessionsByProviderSidAdapter>;

/**
 * Ends the app sessions a back-channel logout token names, on both strategies:
 * - `sid` (with or without `sub`): exactly the sessions signed in from that OP session (their
 *   `providerSid`, recorded at sign-in), found among the user's sessions when `sub` is given, else
 *   by `listSessionsByProviderSid`;
 * - `sub` only: every session of the user of that provider account.
 * They end as the user's own "end session" does (`SessionList.endKeys`): a database
 * session's row is deleted and the cache forgets it; a JWT session (`session.jwtRevocation`, listed
 * by its index row) is revoked by its `sid` and its row deleted, so its next request is refused.
 */
@Injectable()
export class BackchannelSessions {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly cache: SessionCache,
    private readonly sessions: SessionList,
  ) {}

  private get adapter(): Adapter {
    return (this.adapters.raw ?? {}) as Adapter;
  }

  /**
   * Throws when this configuration cannot end what `subject` names (checked before the token's
   * `jti` is used up): `SignOutError` for JWT sessions without `session.jwtRevocation`,
   * `MissingAdapterMethods` for an adapter that cannot find the sessions.
   */
  check(subject: LogoutSubject): void {
    const jwt = this.config.session.strategy === 'jwt';
    if (jwt && !this.config.session.jwtRevocation) {
      throw new SignOutError(
        'Back-channel logout ends JWT sessions through session.jwtRevocation (and the session index): turn it on, or use database sessions.',
      );
    }
    const needed: string[] = [];
    if (subject.sub && !this.adapters.has('getAccount')) needed.push('getAccount');
    if (subject.sid || jwt) {
      if (typeof this.adapter.listSessionsByUserId !== 'function') needed.push('listSessionsByUserId');
      if (!subject.sub && typeof this.adapter.listSessionsByProviderSid !== 'function')
        needed.push('listSessionsByProviderSid');
      if (!this.adapters.has('deleteSession')) needed.push('deleteSession');
    } else if (typeof this.adapter.deleteSessionsByUserId !== 'function') {
      needed.push('deleteSessionsByUserId');
    }
    if (needed.length) {
      throw new MissingAdapterMethods(
        needed as never,
        `Back-channel logout needs an adapter with ${needed.join(', ')} (TypeOrmAdapter, MemoryAdapter).`,
      );
    }
  }

  /** Ends the sessions `subject` names at provider `providerId`; returns how many ended. */
  async end(providerId: string, subject: LogoutSubject): Promise<number> {
    const adapter = this.adapter;
    let userId: string | undefined;
    if (subject.sub) {
      const account = await this.adapters.require('getAccount').getAccount(subject.sub, providerId);
      // An unknown subject is not an error (the user may never have signed in here): nothing to end.
      if (!account) return 0;
      userId = account.userId;
    }
    if (!subject.sid) {
      if (this.config.session.strategy === 'database') {
        const count = await adapter.deleteSessionsByUserId!(userId!);
        this.cache.forgetUser(userId!);
        return count;
      }
      // JWT strategy: the user's rows are the index rows of their JWT sessions.
      return this.endRows(await adapter.listSessionsByUserId!(userId!));
    }
    const key = providerSidKey(providerId, subject.sid);
    const rows = userId ? await adapter.listSessionsByUserId!(userId) : await adapter.listSessionsByProviderSid!(key);
    // What storage returns is checked, not trusted: only rows of that OP session (and that user).
    return this.endRows(rows.filter((row) => row.providerSid === key && (!userId || row.userId === userId)));
  }

  private async endRows(rows: AdapterSessionInfo[]): Promise<number> {
    const byUser = new Map<string, string[]>();
    for (const row of rows) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row.sessionToken]);
    for (const [userId, keys] of byUser) await this.sessions.endKeys(userId, keys);
    return rows.length;
  }
}
