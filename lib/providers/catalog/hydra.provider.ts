import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Hydra returns (ID token claims or userinfo), as the vendor documents it. */
export interface OryHydraProfile {
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
 * Sign in with Ory Hydra / Ory Network (OpenID Connect).
 *
 * Set `issuer` (AUTH_HYDRA_ISSUER) to your Hydra public URL.
 *
 * Reads `AUTH_HYDRA_ID`, `AUTH_HYDRA_SECRET`, `AUTH_HYDRA_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/hydra` with Hydra. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [OryHydra()] })
 * ```
 */
export function OryHydra(config?: OIDCUserConfig<OryHydraProfile>): OAuthConfig<OryHydraProfile> {
  return {
    id: 'hydra',
    name: 'Hydra',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#5528ff' },
    options: config,
  };
}
