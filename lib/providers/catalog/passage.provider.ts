import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Passage returns (ID token claims or userinfo), as the vendor documents it. */
export interface PassageProfile {
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
 * Sign in with Passage by 1Password (OpenID Connect).
 *
 * Set `issuer` (AUTH_PASSAGE_ISSUER) to `https://auth.passage.id/v1/apps/{appId}`.
 *
 * Reads `AUTH_PASSAGE_ID`, `AUTH_PASSAGE_SECRET`, `AUTH_PASSAGE_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/passage` with Passage. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Passage()] })
 * ```
 */
export function Passage(config?: OIDCUserConfig<PassageProfile>): OAuthConfig<PassageProfile> {
  return {
    id: 'passage',
    name: 'Passage',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_basic' },
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#36395a' },
    options: config,
  };
}
