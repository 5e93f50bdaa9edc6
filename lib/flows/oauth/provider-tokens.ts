import { Inject, Injectable } from '@nestjs/common';
import * as o from 'oauth4webapi';
import type { AccountTokens, AccountTokensAdapter, AdapterAccount } from '../../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterService } from '../../core/adapter.service.js';
import { AdapterError, AuthError, MissingAdapterMethods, RefreshTokenError } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider } from '../../providers/oauth.normalize.js';
import { SessionService } from '../../session/session.service.js';
import type { TokenSet } from '../../types/common.types.js';
import { describe } from './oauth-errors.js';
import { OAuthProviders } from './oauth-providers.js';
import { OAuthTokenExchange } from './oauth-token.js';

/** An access token this close to its expiry (seconds) is refreshed before it is handed out. */
export const ACCESS_TOKEN_SKEW_S = 60;
/**
 * How long (seconds) one instance may hold an account's refresh before others take over: longer than
 * every attempt of a refresh with its retries (3 requests of at most 10 s each, plus backoff).
 */
export const REFRESH_LEASE_S = 60;
/** Delays (ms) before the 2nd and 3rd attempt of a refresh that failed on the network or with a 5xx. */
export const REFRESH_RETRY_DELAYS_MS = [250, 1000];

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
    private readonly exchange: OAuthTokenExchange,
    private readonly sessions: SessionService,
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
      const accounts = await this.call('listAccountsByUserId', () => adapter.listAccountsByUserId(userId));
      // `stored` as the row holds it (the compare-and-swap matches it), `account` with its tokens opened.
      const stored = accounts.find((a) => a.provider === providerId);
      if (!stored) throw new RefreshTokenError('NoAccount', `The user has no ${p.name} account.`);
      const account = this.adapters.openAccount(stored);
      const now = Math.floor(Date.now() / 1000);
      const expiresAt = typeof account.expires_at === 'number' ? account.expires_at : null;
      const leased = expiresAt !== null && expiresAt < 0;
      if (!leased && account.access_token && (expiresAt === null || expiresAt - ACCESS_TOKEN_SKEW_S > now))
        return account.access_token;
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
      const claimed = await this.call('updateAccountTokens', () =>
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
    let tokens: TokenSet;
    try {
      tokens = await this.refreshWithRetry(p, account.refresh_token!);
    } catch (error) {
      if (error instanceof o.ResponseBodyError && error.error === 'invalid_grant') {
        await this.call('updateAccountTokens', () =>
          adapter.updateAccountTokens(held, {
            access_token: null,
            refresh_token: null,
            expires_at: null,
          }),
        );
        this.config.logger.debug('refresh_token_invalid_grant', { provider: p.id });
        this.sessions.emit('refreshTokenError', {
          userId,
          provider: p.id,
          providerAccountId: account.providerAccountId,
          error: error.error,
        });
        throw new RefreshTokenError(
          'InvalidGrant',
          `${p.name} refused the refresh token (invalid_grant): the user must sign in with ${p.name} again.`,
        );
      }
      // Release the lease; the stored tokens stay as they were.
      await this.call('updateAccountTokens', () =>
        adapter.updateAccountTokens(held, { expires_at: previousExpiresAt }),
      );
      if (error instanceof o.ResponseBodyError) {
        throw new RefreshTokenError('ProviderUnavailable', `${p.name} refused the refresh (${error.error}).`, {
          cause: { error: error.error, status: error.status },
        });
      }
      if (error instanceof AuthError) throw error;
      throw new RefreshTokenError('ProviderUnavailable', `Could not refresh the ${p.name} token: ${describe(error)}`, {
        cause: error,
      });
    }
    if (typeof tokens.access_token !== 'string' || !tokens.access_token) {
      await this.call('updateAccountTokens', () =>
        adapter.updateAccountTokens(held, { expires_at: previousExpiresAt }),
      );
      throw new RefreshTokenError('ProviderUnavailable', `${p.name} answered the refresh without an access token.`);
    }
    const next: AccountTokens = {
      access_token: tokens.access_token,
      // A provider that does not rotate sends no new refresh token: the current one stays.
      refresh_token:
        typeof tokens.refresh_token === 'string' && tokens.refresh_token ? tokens.refresh_token : account.refresh_token,
      expires_at: typeof tokens.expires_at === 'number' ? tokens.expires_at : null,
    };
    if (typeof tokens.id_token === 'string') next.id_token = tokens.id_token;
    if (typeof tokens.token_type === 'string') next.token_type = tokens.token_type.toLowerCase();
    if (typeof tokens.scope === 'string') next.scope = tokens.scope;
    const saved = await this.call('updateAccountTokens', () =>
      adapter.updateAccountTokens(held, this.adapters.sealTokens(next)),
    );
    if (!saved) {
      throw new RefreshTokenError(
        'Conflict',
        `The ${p.name} refresh took longer than its lease and another instance took over; try again.`,
      );
    }
    return tokens.access_token;
  }

  /** The refresh grant, retried after network errors and 5xx answers (never after an OAuth error). */
  private async refreshWithRetry(p: NormalizedOAuthProvider, refreshToken: string): Promise<TokenSet> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.exchange.refresh(p, refreshToken);
      } catch (error) {
        const final =
          attempt >= REFRESH_RETRY_DELAYS_MS.length ||
          error instanceof AuthError ||
          (error instanceof o.ResponseBodyError && error.status < 500);
        if (final) throw error;
        this.config.logger.debug('refresh_token_retry', { provider: p.id, attempt: attempt + 1 });
        await delay(REFRESH_RETRY_DELAYS_MS[attempt]!);
      }
    }
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

  /** An adapter call, its failure surfaced as `AdapterError` (the cause kept, never logged with values). */
  private async call<T>(name: string, fn: () => T | PromiseLike<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof AuthError) throw error;
      throw new AdapterError(`The adapter's ${name} failed (${(error as Error)?.name ?? 'Error'}).`, { cause: error });
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
