import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AuthEvents } from '../../core/auth-events.js';
import { RefreshTokenError } from '../../errors/auth.errors.js';
import { SessionIssuer } from '../../session/session-issuer.js';
import type { SessionLookup, SessionState } from '../../session/session.types.js';
import { providerTokensOf, withProviderTokens, type SessionTokens } from '../../session/session-tokens.js';
import type { JWT } from '../../types/common.types.js';
import type { ResponseCookie } from '../../types/http.types.js';
import { ExpiringMap } from '../../util/expiring-map.js';
import { OAuthProviders } from './oauth-providers.js';
import { ACCESS_TOKEN_SKEW_S, TokenRefresh } from './token-refresh.js';

/** How many recent refreshes are remembered (by the refresh token they used). */
export const SESSION_REFRESHES_MAX = 10_000;
/** How long (ms) a refresh is remembered when the new access token's expiry is unknown. */
export const SESSION_REFRESH_MEMORY_MS = 10 * 60_000;
/** Cookies re-issued per refresh and remembered (distinct cookies of one session sharing a refresh). */
const REISSUED_PER_REFRESH = 16;

/** An active JWT session, as the guard or `AuthService` read it. */
type ActiveJwt = Extract<SessionState, { status: 'active' }>;

/** One refresh of one session's tokens: its outcome, and the cookies written from it, by old cookie. */
interface Refresh {
  outcome: Promise<SessionTokens | null>;
  reissued: Map<string, Promise<ResponseCookie[]>>;
}

/**
 * A valid access token, or the refusal (`invalid_grant`) to throw once the cookies are set, with the
 * cookies that carry the session's new tokens (none when nothing changed).
 */
export type SessionAccessToken = { cookies: ResponseCookie[] } & (
  { accessToken: string; error?: undefined } | { accessToken?: undefined; error: RefreshTokenError }
);

/**
 * Provider tokens kept in the JWT session (`session.tokens`): hands out the session's access token,
 * refreshed with the `refresh_token` grant ({@link TokenRefresh}, as the database path does) when
 * it is expired or about to be. The session then gets its new tokens through a re-issued cookie.
 *
 * Concurrency: a refresh is keyed by the refresh token it uses, so the concurrent requests of one
 * session share one refresh in the process, and one cookie per distinct old cookie is encoded. The
 * outcome is remembered (until the new access token expires, {@link SESSION_REFRESHES_MAX} at most):
 * a request that still carries the old cookie (sent before the browser stored the new one) gets
 * the new tokens instead of presenting a rotated refresh token again, which providers that rotate
 * treat as a replay and answer by revoking the grant. Across instances nothing is shared: give
 * such providers sticky sessions, or keep tokens on database accounts.
 *
 * `invalid_grant`: the provider's tokens leave the session (the cookie is rewritten without them),
 * `events.refreshTokenError` fires and `RefreshTokenError` (`InvalidGrant`) is thrown.
 */
@Injectable()
export class SessionProviderTokens {
  private readonly refreshes = new ExpiringMap<string, Refresh>(SESSION_REFRESHES_MAX);

  constructor(
    private readonly issuer: SessionIssuer,
    private readonly providers: OAuthProviders,
    private readonly refresh: TokenRefresh,
    private readonly events: AuthEvents,
  ) {}

  /**
   * A valid access token of `providerId` from the session `state` (the JWT strategy with
   * `session.tokens`), and the cookies to set when it was refreshed. `lookup` is the request's
   * (its cookies and whether they are the secure ones); a bearer session gets no cookies.
   *
   * @throws RefreshTokenError `NoAccount` (the session holds no tokens of that provider),
   *   `NoRefreshToken`, `ProviderUnavailable`; `InvalidGrant` comes back as `error`, with the cookies
   *   that drop the tokens from the session
   */
  async access(state: ActiveJwt, lookup: SessionLookup, providerId: string): Promise<SessionAccessToken> {
    const p = this.providers.byId(providerId);
    const token = state.token ?? {};
    const held = providerTokensOf(token, p.id);
    if (!held)
      throw new RefreshTokenError(
        'NoAccount',
        `The session holds no ${p.name} tokens: the user must sign in with ${p.name}.`,
      );
    if (TokenRefresh.fresh(held.expires_at)) return { accessToken: held.access_token, cookies: [] };
    if (!held.refresh_token) {
      throw new RefreshTokenError(
        'NoRefreshToken',
        `The ${p.name} access token expired and there is no refresh token: the user must sign in with ${p.name} again.`,
      );
    }
    const refresh = this.refreshOf(p.id, held, state);
    const next = await refresh.outcome;
    const cookies = state.bearer ? [] : await this.reissue(refresh, state, lookup, token, p.id, next);
    if (!next) {
      const error = new RefreshTokenError(
        'InvalidGrant',
        `${p.name} refused the refresh token (invalid_grant): the user must sign in with ${p.name} again.`,
      );
      return { error, cookies };
    }
    return { accessToken: next.access_token, cookies };
  }

  /** The refresh that `held.refresh_token` started (in flight or remembered), or a new one. */
  private refreshOf(providerId: string, held: SessionTokens, state: ActiveJwt): Refresh {
    const key = createHash('sha256').update(`${providerId}\0${held.refresh_token}`).digest('base64url');
    const now = Date.now();
    const known = this.refreshes.get(key, now);
    if (known) return known;
    const refresh: Refresh = { outcome: this.run(providerId, held, state), reissued: new Map() };
    // Remembered while in flight; then until the new access token expires (a failure is forgotten).
    this.refreshes.set(key, refresh, now + SESSION_REFRESH_MEMORY_MS, now);
    refresh.outcome.then(
      (next) => {
        const until = next?.expires_at
          ? Math.min((next.expires_at - ACCESS_TOKEN_SKEW_S) * 1000, now + SESSION_REFRESH_MEMORY_MS)
          : undefined;
        if (until === undefined) return;
        if (until > Date.now()) this.refreshes.set(key, refresh, until);
        else this.refreshes.delete(key);
      },
      () => this.refreshes.delete(key),
    );
    return refresh;
  }

  private async run(providerId: string, held: SessionTokens, state: ActiveJwt): Promise<SessionTokens | null> {
    const p = this.providers.byId(providerId);
    const outcome = await this.refresh.refresh(p, held.refresh_token!);
    if (outcome.status === 'invalid_grant') {
      this.events.emit('refreshTokenError', {
        userId: state.user.id,
        provider: p.id,
        providerAccountId: held.providerAccountId ?? '',
        error: 'invalid_grant',
      });
      return null;
    }
    const { tokens } = outcome;
    const next: SessionTokens = { access_token: tokens.access_token! };
    if (tokens.refresh_token) next.refresh_token = tokens.refresh_token;
    if (typeof tokens.expires_at === 'number') next.expires_at = tokens.expires_at;
    if (held.providerAccountId) next.providerAccountId = held.providerAccountId;
    return next;
  }

  /** The session's cookies with `next` in place of the old tokens, encoded once per old cookie. */
  private reissue(
    refresh: Refresh,
    state: ActiveJwt,
    lookup: SessionLookup,
    token: JWT,
    providerId: string,
    next: SessionTokens | null,
  ): Promise<ResponseCookie[]> {
    const key = `${lookup.secure ? 's' : 'p'}:${state.sessionToken}`;
    let cookies = refresh.reissued.get(key);
    if (!cookies) {
      cookies = this.issuer.reissueJwt(lookup, withProviderTokens(token, providerId, next));
      if (refresh.reissued.size >= REISSUED_PER_REFRESH) refresh.reissued.clear();
      refresh.reissued.set(key, cookies);
    }
    return cookies;
  }
}
