import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile IdentityServer4 returns (ID token claims or userinfo), as the vendor documents it. */
export interface IdentityServer4Profile {
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
 * Sign in with IdentityServer4 (OpenID Connect).
 *
 * Set `issuer` (AUTH_IDENTITY_SERVER4_ISSUER) to your IdentityServer's URL.
 *
 * Reads `AUTH_IDENTITY_SERVER4_ID`, `AUTH_IDENTITY_SERVER4_SECRET`, `AUTH_IDENTITY_SERVER4_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/identity-server4` with IdentityServer4. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [IdentityServer4()] })
 * ```
 */
export function IdentityServer4(config?: OIDCUserConfig<IdentityServer4Profile>): OAuthConfig<IdentityServer4Profile> {
  return {
    id: 'identity-server4',
    name: 'IdentityServer4',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#0074ae' },
    options: config,
  };
}
