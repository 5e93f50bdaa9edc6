import { Inject, Injectable } from '@nestjs/common';
import type { AccountTokensAdapter, AdapterAccount } from '../../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { adapterCall, AdapterService } from '../../core/adapter.service.js';
import { AuthEvents } from '../../core/auth-events.js';
import { MissingAdapterMethods, RefreshTokenError } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider } from './oauth.normalize.js';
import { OAuthProviders } from './oauth-providers.js';
import { delay, TokenRefresh, type RefreshOutcome } from './token-refresh.js';

export { ACCESS_TOKEN_SKEW_S, REFRESH_RETRY_DELAYS_MS } from './token-refresh.js';
/**
 * How long (seconds) one instance may hold an account's refresh before others take over: longer than
 * every attempt of a refresh with its retries (3 requests of at most 10 s each, plus backoff).
 */
export const REFRESH_LEASE_S = 60;

type TokensAdapter = AccountTokensAdapter;
type Match = Parameters<AccountTokensAdapter['updateAccountTokens']>[0];

/**
 * Provider access tokens for application code (`AuthService.getAccessToken`). A stored token that
 * is valid for more than {@link ACCESS_TOKEN_SKEW_S} is returned as is; otherwise it is refreshed
 * with the `refresh_token` grant and the new tokens replace the old ones.
 *
 * Concurrency: callers in one process share one refresh per (user, provider) (single flight).
 * Across processes, the refresh is claimed first by a compare-and-swap on the stored
 * `refresh_token` and `expires_at` (`updateAccountTokens`) that writes a lease into `expires_at`
 * (minus the lease's end, in seconds: a negative value, which reads as expired): exactly one
 * instance wins and calls the provider; the others wait for the new tokens and reread them. A
 * provider that rotates refresh tokens (and revokes the grant when an old one is reused, as
 * oidc-provider does) thus never sees the same refresh token twice. An instance that dies holding a
 * lease delays refreshes of that account by {@link REFRESH_LEASE_S} at most.
 *
 * Failures: `invalid_grant` clears the account's tokens (the user must sign in again), fires
 * `events.refreshTokenError` and throws `RefreshTokenError` (`InvalidGrant`); network errors and
 * 5xx answers are retried with backoff, then throw `RefreshTokenError` (`ProviderUnavailable`)
 * with the stored tokens untouched.
 */
@Injectable()
export class ProviderTokens {
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly refresh: TokenRefresh,
    private readonly events: AuthEvents,
    private readonly providers: OAuthProviders,
  ) {}

  /** A valid access token of the user's account at `providerId`, refreshed when needed. */
  getAccessToken(userId: string, providerId: string): Promise<string> {
    const key = `${userId}\u0000${providerId}`;
    let flight = this.inflight.get(key);
    if (!flight) {
      flight = this.obtain(userId, providerId).finally(() => this.inflight.delete(key));
      this.inflight.set(key, flight);
    }
    return flight;
  }

  private async obtain(userId: string, providerId: string): Promise<string> {
    const p = this.providers.byId(providerId);
    const adapter = this.tokensAdapter();
    for (let round = 0; ; round++) {
      const accounts = await adapterCall('listAccountsByUserId', () => adapter.listAccountsByUserId(userId));
      // `stored` as the row holds it (the compare-and-swap matches it), `account` with its tokens opened.
      const stored = accounts.find((a) => a.provider === providerId);
      if (!stored) throw new RefreshTokenError('NoAccount', `The user has no ${p.name} account.`);
      const account = this.adapters.openAccount(stored);
      const now = Math.floor(Date.now() / 1000);
      const expiresAt = typeof account.expires_at === 'number' ? account.expires_at : null;
      const leased = expiresAt !== null && expiresAt < 0;
      if (!leased && account.access_token && TokenRefresh.fresh(expiresAt, now)) return account.access_token;
      if (!account.refresh_token) {
        throw new RefreshTokenError(
          'NoRefreshToken',
          `The ${p.name} access token expired and there is no refresh token: the user must sign in with ${p.name} again.`,
        );
      }
      if (leased && -expiresAt > now) {
        // Another instance is refreshing: wait for its tokens, then reread.
        await delay(Math.min(50 * 2 ** Math.min(round, 4), 500));
        continue;
      }
      const match: Match = {
        provider: account.provider,
        providerAccountId: account.providerAccountId,
        refresh_token: stored.refresh_token ?? null,
        expires_at: expiresAt,
      };
      const lease = -(now + REFRESH_LEASE_S);
      const claimed = await adapterCall('updateAccountTokens', () =>
        adapter.updateAccountTokens(match, { expires_at: lease }),
      );
      // Another instance claimed it (or its tokens changed) between the read and the swap: reread.
      if (!claimed) continue;
      return this.refreshClaimed(p, adapter, userId, account, { ...match, expires_at: lease }, expiresAt);
    }
  }

  /** Refreshes under the lease `held`; `previousExpiresAt` is restored if the provider cannot be reached. */
  private async refreshClaimed(
    p: NormalizedOAuthProvider,
    adapter: TokensAdapter,
    userId: string,
    account: AdapterAccount,
    held: Match,
    previousExpiresAt: number | null,
  ): Promise<string> {
    let outcome: RefreshOutcome;
    try {
      outcome = await this.refresh.refresh(p, account.refresh_token!);
    } catch (error) {
      // Release the lease; the stored tokens stay as they were.
      await adapterCall('updateAccountTokens', () =>
        adapter.updateAccountTokens(held, { expires_at: previousExpiresAt }),
      );
      throw error;
    }
    if (outcome.status === 'invalid_grant') {
      await adapterCall('updateAccountTokens', () =>
        adapter.updateAccountTokens(held, { access_token: null, refresh_token: null, expires_at: null }),
      );
      this.events.emit('refreshTokenError', {
        userId,
        provider: p.id,
        providerAccountId: account.providerAccountId,
        error: 'invalid_grant',
      });
      throw new RefreshTokenError(
        'InvalidGrant',
        `${p.name} refused the refresh token (invalid_grant): the user must sign in with ${p.name} again.`,
      );
    }
    const next = outcome.tokens;
    const saved = await adapterCall('updateAccountTokens', () =>
      adapter.updateAccountTokens(held, this.adapters.sealTokens(next)),
    );
    if (!saved) {
      throw new RefreshTokenError(
        'Conflict',
        `The ${p.name} refresh took longer than its lease and another instance took over; try again.`,
      );
    }
    return next.access_token!;
  }

  private tokensAdapter(): TokensAdapter {
    const adapter = this.adapters.raw as Partial<TokensAdapter> | null;
    const missing = (['listAccountsByUserId', 'updateAccountTokens'] as const).filter(
      (m) => typeof adapter?.[m] !== 'function',
    );
    if (missing.length) {
      throw new MissingAdapterMethods(
        [...missing],
        `getAccessToken needs an adapter with ${missing.join(' and ')} (TypeOrmAdapter and MemoryAdapter have them).`,
      );
    }
    return adapter as TokensAdapter;
  }
}
