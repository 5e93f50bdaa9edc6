import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Ping Identity returns (ID token claims or userinfo), as the vendor documents it. */
export interface PingIdProfile {
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
 * Sign in with PingOne / PingFederate (OpenID Connect).
 *
 * Set `issuer` (AUTH_PING_ID_ISSUER) to `https://auth.pingone.{region}/{environmentId}/as`.
 *
 * Reads `AUTH_PING_ID_ID`, `AUTH_PING_ID_SECRET`, `AUTH_PING_ID_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/ping-id` with Ping Identity. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [PingId()] })
 * ```
 */
export function PingId(config?: OIDCUserConfig<PingIdProfile>): OAuthConfig<PingIdProfile> {
  return {
    id: 'ping-id',
    name: 'Ping Identity',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#b3282d' },
    options: config,
  };
}
