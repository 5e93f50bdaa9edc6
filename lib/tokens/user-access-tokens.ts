import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import { SCOPE } from '../config/access-token.options.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { InvalidRequest, SessionRequired } from '../errors/auth.errors.js';
import { AccessTokens } from '../session/access-tokens.js';
import { SessionList } from '../session/session-list.js';
import { SessionReader } from '../session/session-reader.js';
import type { SessionState } from '../session/session.types.js';

type ActiveState = Extract<SessionState, { status: 'active' }>;

/** What the token route and `AuthService.issueAccessToken` answer (RFC 6749 section 5.1's shape). */
export interface IssuedAccessToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  /** The scopes, space-separated, when the token is limited to them. */
  scope?: string;
}

/** The `client_id` of an access token a signed-in user asked for (a native app's is its own id). */
export const SESSION_CLIENT_ID = 'session';

/**
 * Access tokens for a signed-in user, to call this API or another service (`accessToken.audiences`)
 * with: the JWT other services verify from the JWKS, for the user of a session (never of another
 * access token or an API key), limited to the scopes asked for. Its `sid` is the session's, so
 * ending the session (sign-out, `endSession`) revokes the tokens it gave here and, through the
 * revocation bus, on every instance; elsewhere they live `accessToken.maxAge` at most.
 */
@Injectable()
export class UserAccessTokens {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly tokens: AccessTokens,
    private readonly reader: SessionReader,
    private readonly sessions: SessionList,
  ) {}

  /**
   * A token for the user of `state` (an active session).
   *
   * @throws SessionRequired for an access token or API key (a token is never made from another);
   *   InvalidRequest for an audience or scope not allowed, or access tokens off
   */
  async issue(state: ActiveState, options: { audience?: unknown; scope?: unknown } = {}): Promise<IssuedAccessToken> {
    const { accessToken } = this.config;
    if (!this.tokens.enabled)
      throw new InvalidRequest(
        'Access tokens are off: set the `accessToken` option (with `url` or `accessToken.issuer`).',
      );
    if (state.strategy !== 'jwt' && state.strategy !== 'database')
      throw new SessionRequired('An access token is issued for a session only, not for another token or an API key.');
    const audience = options.audience;
    if (
      audience !== undefined &&
      audience !== accessToken.audience &&
      !(typeof audience === 'string' && accessToken.audiences.has(audience))
    )
      throw new InvalidRequest('audience must be this API or one of accessToken.audiences.');
    const scope = scopeList(options.scope);
    const unknown = accessToken.scopes ? scope.filter((s) => !accessToken.scopes!.has(s)) : [];
    if (unknown.length) throw new InvalidRequest(`scope has ${unknown.length} scope(s) not in accessToken.scopes.`);
    const [assurance, signedInAt] = await Promise.all([this.reader.assurance(state), this.reader.signedInAt(state)]);
    const sid = this.sessions.sidOf(state);
    const iat = Math.floor(Date.now() / 1000);
    const { token, expiresIn } = this.tokens.sign({
      user: state.user,
      sid,
      clientId: SESSION_CLIENT_ID,
      authTime: signedInAt ?? new Date(0),
      amr: assurance.amr,
      iat,
      jti: randomBytes(16).toString('base64url'),
      ...(typeof audience === 'string' ? { audience } : {}),
      ...(scope.length ? { scope } : {}),
    });
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: expiresIn,
      ...(scope.length ? { scope: scope.join(' ') } : {}),
    };
  }
}

/** Scopes given as a space-separated string or a list; malformed ones are refused. */
function scopeList(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  const list = typeof value === 'string' ? value.split(' ').filter(Boolean) : value;
  if (!Array.isArray(list) || list.length > 50 || !list.every((s) => typeof s === 'string' && SCOPE.test(s)))
    throw new InvalidRequest('scope must be scope names separated by spaces (letters, digits, _ . : / -).');
  return [...new Set(list as string[])];
}
