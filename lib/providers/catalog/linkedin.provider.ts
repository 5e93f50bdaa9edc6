import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile LinkedIn returns (ID token claims or userinfo), as the vendor documents it. */
export interface LinkedInProfile {
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
 * Sign in with LinkedIn (Sign In with LinkedIn using OpenID Connect).
 *
 * Reads `AUTH_LINKEDIN_ID`, `AUTH_LINKEDIN_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/linkedin` with LinkedIn. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [LinkedIn()] })
 * ```
 */
export function LinkedIn(config?: OIDCUserConfig<LinkedInProfile>): OAuthConfig<LinkedInProfile> {
  return {
    id: 'linkedin',
    name: 'LinkedIn',
    type: 'oidc',
    issuer: 'https://www.linkedin.com/oauth',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['state'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#0a66c2' },
    options: config,
  };
}
