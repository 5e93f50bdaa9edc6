import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile LINE returns (ID token claims or userinfo), as the vendor documents it. */
export interface LINEProfile {
  /** Subject: the user's stable id at the provider. */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
}

/**
 * Sign in with LINE (LINE Login v2.1, OpenID Connect).
 *
 * LINE signs ID tokens with HS256 keyed by the channel secret (`id_token_signed_response_alg: HS256`),
 * so the channel secret (32 characters at LINE) must be at least 32 bytes: a shorter one is refused.
 * Email needs the permission granted to the channel.
 *
 * Reads `AUTH_LINE_ID`, `AUTH_LINE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/line` with LINE. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [LINE()] })
 * ```
 */
export function LINE(config?: OIDCUserConfig<LINEProfile>): OAuthConfig<LINEProfile> {
  return {
    id: 'line',
    name: 'LINE',
    type: 'oidc',
    issuer: 'https://access.line.me',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['state'],
    client: { id_token_signed_response_alg: 'HS256' },
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#06c755' },
    options: config,
  };
}
