import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterService } from '../../core/adapter.service.js';
import { clientText } from '../../core/error-log.js';
import type { ProviderContext } from '../../core/request-context.js';
import {
  AuthError,
  InvalidProvider,
  LogoutTokenError,
  MissingAdapterMethods,
  SignOutError,
} from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider } from './oauth.normalize.js';
import type { AuthResponse } from '../../types/http.types.js';
import { duplicateMemberName } from '../../util/json-members.js';
import { decodeJwtClaims, decodeJwtHeader } from '../../util/jwt-parts.js';
import { BackchannelSessions } from './backchannel-sessions.js';
import { IdTokenVerifier } from './id-token.verifier.js';
import { LogoutReplayMemory } from './logout-replay.js';
import { OAuthDiscovery } from './oauth-discovery.js';
import { OAuthProviders } from './oauth-providers.js';
import { describe } from './oauth-errors.js';

/** The `events` member that makes a JWT a logout token (OpenID Connect Back-Channel Logout 1.0, 2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** How old (seconds) a logout token may be; its `jti` is remembered for as long. */
export const LOGOUT_TOKEN_MAX_AGE_S = 300;
/** Clock skew (seconds) tolerated on `iat` in the future and on `exp`. */
export const LOGOUT_TOKEN_SKEW_S = 60;
/** Largest logout token read. */
const MAX_LOGOUT_TOKEN_LENGTH = 16_384;

/**
 * `POST {basePath}/backchannel-logout/:provider` (OpenID Connect Back-Channel Logout 1.0): the
 * provider tells the app that a user signed out there. The logout token is verified (signature by
 * the provider's JWKS, `iss`, `aud`, `iat` within {@link LOGOUT_TOKEN_MAX_AGE_S}, `exp` if present,
 * the back-channel `events` claim (an object whose back-channel member is an object), no `nonce`,
 * no member name given twice in the header or the claims, a `sub` and/or `sid`, a `jti` not seen
 * before (in this process, and in `rateLimitStore` when it is shared), `typ` `logout+jwt` when
 * typed) and the sessions it names end ({@link BackchannelSessions}: that OP session's with `sid`, every one of the
 * user's with `sub` alone; database and JWT sessions). Only providers with `backchannelLogout: true`.
 */
@Injectable()
export class BackchannelLogout {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly discovery: OAuthDiscovery,
    private readonly idTokens: IdTokenVerifier,
    private readonly providers: OAuthProviders,
    private readonly replays: LogoutReplayMemory,
    private readonly ending: BackchannelSessions,
  ) {}

  async logout(ctx: ProviderContext): Promise<AuthResponse> {
    const p = this.providers.of(ctx.provider);
    if (p.backchannelLogout !== true)
      throw new InvalidProvider(`Provider ${JSON.stringify(p.id)} does not accept back-channel logout.`);
    const token = ctx.request.body?.logout_token;
    if (typeof token !== 'string' || !token || token.length > MAX_LOGOUT_TOKEN_LENGTH)
      throw new LogoutTokenError('Missing', 'The request carries no logout_token.');
    const { sub, sid, jti } = await this.verify(p, token);
    // What cannot be ended here is said before the token's jti is used up: 400, as the spec asks of
    // a logout that failed (logged as the configuration problem it is).
    try {
      this.ending.check({ sub, sid });
    } catch (error) {
      if (!(error instanceof SignOutError || error instanceof MissingAdapterMethods)) throw error;
      this.config.logger.error(error);
      return {
        status: 400,
        headers: { 'Cache-Control': 'no-store' },
        json: { error: error.type, message: error.message },
      };
    }
    // Replays are refused only once the token is otherwise valid (a forged one cannot burn a jti).
    const key = createHash('sha256').update(`${p.id}\0${jti}`).digest('base64url');
    let first: boolean;
    try {
      first = await this.replays.firstUse(key, (LOGOUT_TOKEN_MAX_AGE_S + LOGOUT_TOKEN_SKEW_S) * 1000);
    } catch (error) {
      this.config.logger.error(
        new LogoutTokenError('Replay', 'The shared store did not answer; the logout token was not used.', {
          cause: error,
        }),
      );
      throw new LogoutTokenError('Replay', 'The logout token could not be checked for replays; send it again.');
    }
    if (!first) throw new LogoutTokenError('Replay', 'This logout token was already used.');

    const ended = await this.ending.end(p.id, { sub, sid });
    this.config.logger.debug('backchannel_logout', { provider: p.id, sessions: ended, by: sid ? 'sid' : 'sub' });
    return { status: 200, headers: { 'Cache-Control': 'no-store' }, json: {} };
  }

  /** The verified claims the logout acts on; `LogoutTokenError` naming the broken rule otherwise. */
  private async verify(
    p: NormalizedOAuthProvider,
    token: string,
  ): Promise<{ sub?: string; sid?: string; jti: string }> {
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = decodeJwtHeader(token);
      claims = decodeJwtClaims(token);
    } catch {
      throw new LogoutTokenError('Missing', 'The logout_token is not a JWT.');
    }
    // JSON.parse keeps the last of two members with one name: a token that reads one way here and
    // another way elsewhere is refused (RFC 7519 section 4), before any key is fetched.
    const [headerPart, payloadPart] = token.split('.') as [string, string];
    for (const part of [headerPart, payloadPart]) {
      const name = duplicateMemberName(Buffer.from(part, 'base64url').toString('utf8'));
      if (name !== undefined)
        throw new LogoutTokenError('Duplicate', `The logout token names the member ${clientText(name)} twice.`);
    }
    if (header.typ !== undefined && String(header.typ).toLowerCase() !== 'logout+jwt')
      throw new LogoutTokenError('Type', 'The logout token is typed as something else than logout+jwt.');
    const as = await this.discovery.authorizationServer(p);
    try {
      await this.idTokens.verifySignature(p, as, token);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      throw new LogoutTokenError('Signature', `The logout token's signature does not verify: ${describe(error)}`);
    }
    if (claims.iss !== as.issuer) throw new LogoutTokenError('Issuer', `The logout token is not from ${p.name}.`);
    const aud = claims.aud;
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (!p.clientId || !audiences.includes(p.clientId))
      throw new LogoutTokenError('Audience', 'The logout token is not meant for this client.');
    const now = Math.floor(Date.now() / 1000);
    if (
      typeof claims.iat !== 'number' ||
      claims.iat > now + LOGOUT_TOKEN_SKEW_S ||
      claims.iat < now - LOGOUT_TOKEN_MAX_AGE_S
    )
      throw new LogoutTokenError('IssuedAt', 'The logout token was issued too long ago, or in the future.');
    if (claims.exp !== undefined && (typeof claims.exp !== 'number' || claims.exp < now - LOGOUT_TOKEN_SKEW_S))
      throw new LogoutTokenError('Expired', 'The logout token expired.');
    // `events` is a JSON object whose back-channel member is a JSON object (Back-Channel Logout 1.0, 2.4).
    if (!isJsonObject(claims.events) || !isJsonObject(claims.events[BACKCHANNEL_LOGOUT_EVENT]))
      throw new LogoutTokenError('Events', 'The logout token has no back-channel logout event.');
    if (claims.nonce !== undefined) throw new LogoutTokenError('Nonce', 'A logout token must not carry a nonce.');
    if (typeof claims.jti !== 'string' || !claims.jti)
      throw new LogoutTokenError('Replay', 'The logout token has no jti.');
    const sub = typeof claims.sub === 'string' && claims.sub ? claims.sub : undefined;
    const sid = typeof claims.sid === 'string' && claims.sid ? claims.sid : undefined;
    if ((claims.sub !== undefined && !sub) || (claims.sid !== undefined && !sid))
      throw new LogoutTokenError('Subject', 'The logout token has a sub or sid that is not a non-empty string.');
    if (!sub && !sid) throw new LogoutTokenError('Subject', 'The logout token names neither sub nor sid.');
    return { sub, sid, jti: claims.jti };
  }
}

/** A JSON object: not null, not an array. */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
