import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Authentik returns (ID token claims or userinfo), as the vendor documents it. */
export interface AuthentikProfile {
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
 * Sign in with authentik (OpenID Connect).
 *
 * Set `issuer` (AUTH_AUTHENTIK_ISSUER) to `https://{domain}/application/o/{slug}` (no trailing slash).
 *
 * Reads `AUTH_AUTHENTIK_ID`, `AUTH_AUTHENTIK_SECRET`, `AUTH_AUTHENTIK_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/authentik` with Authentik. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Authentik()] })
 * ```
 */
export function Authentik(config?: OIDCUserConfig<AuthentikProfile>): OAuthConfig<AuthentikProfile> {
  return {
    id: 'authentik',
    name: 'Authentik',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#fd4b2d' },
    options: config,
  };
}
