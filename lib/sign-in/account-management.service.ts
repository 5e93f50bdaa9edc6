import { Inject, Injectable } from '@nestjs/common';
import type {
  Adapter,
  AdapterAccount,
  AdapterUser,
  SessionsByUserAdapter,
  UserDeletionAdapter,
  VerificationTokensByIdentifierAdapter,
} from '../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { AdapterService } from '../core/adapter.service.js';
import { AuthEvents } from '../core/auth-events.js';
import { AdapterError, InvalidRequest, MissingAdapterMethods } from '../errors/auth.errors.js';
import { SessionCache } from '../session/session-cache.js';
import { SessionList } from '../session/session-list.js';
import { KeyedQueue } from '../util/keyed-queue.js';
import { listUserAccounts, UserWaysIn } from './user-ways-in.js';

/** A linked account as application code sees it: never a token. */
export interface LinkedAccountInfo {
  /** The provider id (`github`, `google`, `credentials`, `passkey`...). */
  provider: string;
  /** The account's id at the provider; with `provider`, what `unlinkAccount` takes. */
  providerAccountId: string;
  /** `oauth`, `oidc`, `credentials`, `webauthn` or `email`. */
  type: string;
  /** The provider's display name (its id when the provider is no longer configured). */
  name: string;
}

type Extras = Adapter & Partial<UserDeletionAdapter & SessionsByUserAdapter & VerificationTokensByIdentifierAdapter>;

/**
 * Account management behind `AuthService`: the user's linked accounts, unlinking one (never the
 * last way to sign in, by the rule of `UserWaysIn`) and deleting the whole account.
 * Changes to one user's sign-in methods run one after the other in this process (`KeyedQueue`),
 * so two concurrent removals cannot each leave the other as the last method.
 */
@Injectable()
export class AccountManagementService {
  private readonly queue = new KeyedQueue();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly cache: SessionCache,
    private readonly sessions: SessionList,
    private readonly events: AuthEvents,
    private readonly waysIn: UserWaysIn,
  ) {}

  /** The user's linked accounts, oldest first where storage knows the order; no token values. */
  async listAccounts(userId: string): Promise<LinkedAccountInfo[]> {
    const accounts = await this.accountsOf(userId);
    return accounts.map((a) => ({
      provider: a.provider,
      providerAccountId: a.providerAccountId,
      type: a.type,
      name: this.config.providerById.get(a.provider)?.name ?? a.provider,
    }));
  }

  /**
   * Removes one of the user's linked accounts.
   *
   * @throws InvalidRequest when the user has no such account (another user's account included: the
   *   answer is the same, so it tells nothing about other users), or it is a passkey (`deletePasskey`)
   * @throws LastSignInMethod when it is the user's last way to sign in; nothing is changed
   */
  unlinkAccount(userId: string, key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Promise<void> {
    const provider = key?.provider;
    const providerAccountId = key?.providerAccountId;
    if (typeof userId !== 'string' || !userId || typeof provider !== 'string' || typeof providerAccountId !== 'string')
      return Promise.reject(new InvalidRequest('unlinkAccount takes a user id and { provider, providerAccountId }.'));
    return this.queue.run(userId, async () => {
      const adapter = this.adapters.require('getAccount', 'getUser', 'unlinkAccount');
      this.accountsSupported();
      const account = await adapter.getAccount(providerAccountId, provider);
      if (!account || account.userId !== userId) throw new InvalidRequest('This user has no such linked account.');
      if (account.type === 'webauthn')
        throw new InvalidRequest(
          'This account is a passkey: remove it with deletePasskey, which also deletes the key.',
        );
      await this.waysIn.assertKeeps(
        userId,
        (way) => way.provider === provider && way.providerAccountId === providerAccountId,
        'This account',
      );
      const user = await adapter.getUser(userId);
      await adapter.unlinkAccount({ provider, providerAccountId });
      if (user)
        this.events.emit('unlinkAccount', {
          user,
          account: { provider, providerAccountId, type: account.type, userId },
        });
    });
  }

  /**
   * Deletes the user with its sessions, accounts, passkeys and its address's verification tokens:
   * in one transaction with an adapter that has `deleteUserCascade` (TypeORM, Memory), else step by
   * step. Forgets the user's cached sessions and fires `events.deleteUser`.
   *
   * @throws InvalidRequest when there is no such user
   */
  deleteAccount(userId: string): Promise<void> {
    if (typeof userId !== 'string' || !userId)
      return Promise.reject(new InvalidRequest('deleteAccount takes a user id.'));
    return this.queue.run(userId, async () => {
      const raw = this.adapters.raw as Extras | null;
      // JWT sessions live in the cookie: with the server-side index (`jwtRevocation`) each is
      // revoked first, so none outlives the user. Database sessions go with the user's rows.
      if (this.config.session.strategy === 'jwt' && this.config.session.jwtRevocation)
        await this.endJwtSessions(userId);
      // A native app's access tokens outlive the rows that go with the user: revoked first.
      await this.sessions.endApps(userId);
      let user: AdapterUser | null;
      if (typeof raw?.deleteUserCascade === 'function') {
        user = await this.call('deleteUserCascade', () => raw.deleteUserCascade!(userId));
      } else {
        const adapter = this.adapters.require('getUser', 'deleteUser');
        user = await adapter.getUser(userId);
        if (user) {
          if (typeof raw?.deleteSessionsByUserId === 'function')
            await this.call('deleteSessionsByUserId', () => raw.deleteSessionsByUserId!(userId));
          await adapter.deleteUser(userId);
          if (user.email && typeof raw?.deleteVerificationTokensByIdentifier === 'function')
            await this.call('deleteVerificationTokensByIdentifier', () =>
              raw.deleteVerificationTokensByIdentifier!(user!.email),
            );
        }
      }
      this.cache.forgetUser(userId);
      if (!user) throw new InvalidRequest('There is no such user.');
      this.events.emit('deleteUser', { user });
    });
  }

  private async endJwtSessions(userId: string): Promise<void> {
    for (const session of await this.sessions.list(userId)) {
      await this.sessions.end(userId, session.id).catch((error: unknown) => {
        // Ended meanwhile (expired, signed out): nothing left to revoke.
        if (!(error instanceof InvalidRequest)) throw error;
      });
    }
  }

  private async accountsOf(userId: string): Promise<AdapterAccount[]> {
    this.accountsSupported();
    return (await listUserAccounts(this.adapters, userId)) ?? [];
  }

  /** Listing accounts needs `listAccountsByUserId` (TypeOrmAdapter, MemoryAdapter). */
  private accountsSupported(): void {
    const raw = this.adapters.raw as Partial<{ listAccountsByUserId: unknown }> | null;
    if (typeof raw?.listAccountsByUserId !== 'function')
      throw new MissingAdapterMethods(
        ['listAccountsByUserId'],
        'Listing and unlinking accounts needs an adapter with listAccountsByUserId (TypeOrmAdapter and MemoryAdapter have it).',
      );
  }

  /** An adapter extension call, its failure surfaced as `AdapterError` (cause kept, arguments never logged). */
  private async call<T>(name: string, fn: () => T | PromiseLike<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw new AdapterError(`The adapter's ${name} failed. Check the database connection and schema.`, {
        cause: error,
      });
    }
  }
}
