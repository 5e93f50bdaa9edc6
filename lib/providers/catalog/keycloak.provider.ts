import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Keycloak returns (ID token claims or userinfo), as the vendor documents it. */
export interface KeycloakProfile {
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
 * Sign in with Keycloak (OpenID Connect).
 *
 * Set `issuer` (AUTH_KEYCLOAK_ISSUER) to the realm, `https://{host}/realms/{realm}`.
 *
 * Reads `AUTH_KEYCLOAK_ID`, `AUTH_KEYCLOAK_SECRET`, `AUTH_KEYCLOAK_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/keycloak` with Keycloak. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Keycloak()] })
 * ```
 */
export function Keycloak(config?: OIDCUserConfig<KeycloakProfile>): OAuthConfig<KeycloakProfile> {
  return {
    id: 'keycloak',
    name: 'Keycloak',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#428bca' },
    options: config,
  };
}
