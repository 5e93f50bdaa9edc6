import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { RefreshTokenError } from '../errors/auth.errors.js';
import { appendSetCookie, sessionLookupOf, type HttpRequestLike } from '../http/auth-request.factory.js';
import { SessionReader } from '../session/session-reader.js';
import { providerTokensOf } from '../session/session-tokens.js';
import { ProviderTokens, SessionProviderTokens } from '../methods/oauth/index.js';
import { requestResponse } from './auth.guard.js';

/**
 * `AuthService.getAccessToken`: a provider's access token for a user id (the stored account) or a
 * request's session (the tokens a session JWT holds with `session.tokens`, else the user's account).
 */
@Injectable()
export class AccessTokenService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly reader: SessionReader,
    private readonly providerTokens: ProviderTokens,
    private readonly sessionTokens: SessionProviderTokens,
  ) {}

  async getAccessToken(user: string | HttpRequestLike, provider: string, response?: object): Promise<string> {
    const inSession = this.config.session.strategy === 'jwt' && this.config.session.tokens;
    if (typeof user === 'string') {
      if (inSession && !this.config.hasAdapter) {
        throw new RefreshTokenError(
          'NoAccount',
          'With session.tokens and no adapter the provider tokens are in the session: call getAccessToken(request, provider).',
        );
      }
      return this.providerTokens.getAccessToken(user, provider);
    }
    const lookup = sessionLookupOf(user, this.config);
    const state = await this.reader.read(lookup);
    if (state.status !== 'active') throw new RefreshTokenError('NoSession', 'The request has no valid session.');
    // Tokens the session holds come first; without them, the accounts (when there is an adapter).
    if (
      inSession &&
      state.strategy === 'jwt' &&
      (!this.config.hasAdapter || providerTokensOf(state.token ?? {}, provider))
    ) {
      const result = await this.sessionTokens.access(state, lookup, provider);
      const res = response ?? requestResponse(user) ?? (user as { res?: object }).res;
      if (res) for (const cookie of result.cookies) appendSetCookie(res, cookie);
      if (result.error) throw result.error;
      return result.accessToken;
    }
    return this.providerTokens.getAccessToken(state.user.id, provider);
  }
}
