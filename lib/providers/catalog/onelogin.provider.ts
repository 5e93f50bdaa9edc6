import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile OneLogin returns (ID token claims or userinfo), as the vendor documents it. */
export interface OneLoginProfile {
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
 * Sign in with OneLogin (OpenID Connect).
 *
 * Set `issuer` (AUTH_ONELOGIN_ISSUER) to `https://{subdomain}.onelogin.com/oidc/2`.
 *
 * Reads `AUTH_ONELOGIN_ID`, `AUTH_ONELOGIN_SECRET`, `AUTH_ONELOGIN_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/onelogin` with OneLogin. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [OneLogin()] })
 * ```
 */
export function OneLogin(config?: OIDCUserConfig<OneLoginProfile>): OAuthConfig<OneLoginProfile> {
  return {
    id: 'onelogin',
    name: 'OneLogin',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#1c1f2a' },
    options: config,
  };
}
