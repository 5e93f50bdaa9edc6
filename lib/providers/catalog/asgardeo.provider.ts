import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Asgardeo returns (ID token claims or userinfo), as the vendor documents it. */
export interface AsgardeoProfile {
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
 * Sign in with Asgardeo (WSO2), OpenID Connect.
 *
 * Set `issuer` (AUTH_ASGARDEO_ISSUER) to the token endpoint issuer of your organisation,
 * `https://api.asgardeo.io/t/{organization}/oauth2/token`; discovery reads
 * `{issuer}/.well-known/openid-configuration`.
 *
 * Reads `AUTH_ASGARDEO_ID`, `AUTH_ASGARDEO_SECRET`, `AUTH_ASGARDEO_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/asgardeo` with Asgardeo. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Asgardeo()] })
 * ```
 */
export function Asgardeo(config?: OIDCUserConfig<AsgardeoProfile>): OAuthConfig<AsgardeoProfile> {
  return {
    id: 'asgardeo',
    name: 'Asgardeo',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#ff7300' },
    options: config,
  };
}
