import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Kinde returns (ID token claims or userinfo), as the vendor documents it. */
export interface KindeProfile {
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
 * Sign in with Kinde (OpenID Connect).
 *
 * Set `issuer` (AUTH_KINDE_ISSUER) to your Kinde domain, e.g. `https://{business}.kinde.com`.
 *
 * Reads `AUTH_KINDE_ID`, `AUTH_KINDE_SECRET`, `AUTH_KINDE_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/kinde` with Kinde. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Kinde()] })
 * ```
 */
export function Kinde(config?: OIDCUserConfig<KindeProfile>): OAuthConfig<KindeProfile> {
  return {
    id: 'kinde',
    name: 'Kinde',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['state', 'pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
