import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Okta returns (ID token claims or userinfo), as the vendor documents it. */
export interface OktaProfile {
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
 * Sign in with Okta (OpenID Connect).
 *
 * Set `issuer` (AUTH_OKTA_ISSUER) to your org or authorization server, e.g. `https://{org}.okta.com/oauth2/default`.
 *
 * Reads `AUTH_OKTA_ID`, `AUTH_OKTA_SECRET`, `AUTH_OKTA_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/okta` with Okta. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Okta()] })
 * ```
 */
export function Okta(config?: OIDCUserConfig<OktaProfile>): OAuthConfig<OktaProfile> {
  return {
    id: 'okta',
    name: 'Okta',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce', 'state'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#007dc1' },
    options: config,
  };
}
