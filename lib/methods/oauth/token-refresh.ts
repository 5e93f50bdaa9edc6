import { Inject, Injectable } from '@nestjs/common';
import type { AccountTokens } from '../../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AuthError, RefreshTokenError } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider } from './oauth.normalize.js';
import type { TokenSet } from '../../types/common.types.js';
import { loadOAuth4WebApi, type OAuth4WebApi } from '../../util/oauth4webapi.js';
import { describe } from './oauth-errors.js';
import { OAuthTokenExchange } from './oauth-token.js';

/** An access token this close to its expiry (seconds) is refreshed before it is handed out. */
export const ACCESS_TOKEN_SKEW_S = 60;
/** Delays (ms) before the 2nd and 3rd attempt of a refresh that failed on the network or with a 5xx. */
export const REFRESH_RETRY_DELAYS_MS = [250, 1000];

/** The outcome of one refresh: the new tokens, or the provider's refusal of the refresh token. */
export type RefreshOutcome = { status: 'refreshed'; tokens: AccountTokens } | { status: 'invalid_grant' };

/**
 * The `refresh_token` grant as both homes of provider tokens use it (accounts in the database,
 * `ProviderTokens`; the session JWT, `SessionProviderTokens`): oauth4webapi's refresh through
 * {@link OAuthTokenExchange}, retried after network errors and 5xx answers, the answer turned into
 * the tokens to keep. Never logs a token.
 */
@Injectable()
export class TokenRefresh {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly exchange: OAuthTokenExchange,
  ) {}

  /** True while `expiresAt` (seconds) is more than {@link ACCESS_TOKEN_SKEW_S} away (or unknown). */
  static fresh(expiresAt: number | null | undefined, now = Math.floor(Date.now() / 1000)): boolean {
    return typeof expiresAt !== 'number' || expiresAt - ACCESS_TOKEN_SKEW_S > now;
  }

  /**
   * Refreshes with `refreshToken`. `invalid_grant` comes back as an outcome (the caller drops its
   * tokens); every other failure throws `RefreshTokenError` (`ProviderUnavailable`) once the retries
   * are spent, and the caller keeps its tokens.
   */
  async refresh(p: NormalizedOAuthProvider, refreshToken: string): Promise<RefreshOutcome> {
    // Loaded before the try below, so a failed load is not reported as the provider's failure.
    const o = await loadOAuth4WebApi();
    let tokens: TokenSet;
    try {
      tokens = await this.withRetry(o, p, refreshToken);
    } catch (error) {
      if (error instanceof o.ResponseBodyError && error.error === 'invalid_grant') {
        this.config.logger.debug('refresh_token_invalid_grant', { provider: p.id });
        return { status: 'invalid_grant' };
      }
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
    if (typeof tokens.access_token !== 'string' || !tokens.access_token)
      throw new RefreshTokenError('ProviderUnavailable', `${p.name} answered the refresh without an access token.`);
    const next: AccountTokens = {
      access_token: tokens.access_token,
      // A provider that does not rotate sends no new refresh token: the current one stays.
      refresh_token:
        typeof tokens.refresh_token === 'string' && tokens.refresh_token ? tokens.refresh_token : refreshToken,
      expires_at: typeof tokens.expires_at === 'number' ? tokens.expires_at : null,
    };
    if (typeof tokens.id_token === 'string') next.id_token = tokens.id_token;
    if (typeof tokens.token_type === 'string') next.token_type = tokens.token_type.toLowerCase();
    if (typeof tokens.scope === 'string') next.scope = tokens.scope;
    return { status: 'refreshed', tokens: next };
  }

  /** The refresh grant, retried after network errors and 5xx answers (never after an OAuth error). */
  private async withRetry(o: OAuth4WebApi, p: NormalizedOAuthProvider, refreshToken: string): Promise<TokenSet> {
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
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
