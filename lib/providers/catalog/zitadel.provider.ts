import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile ZITADEL returns (ID token claims or userinfo), as the vendor documents it. */
export interface ZitadelProfile {
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
 * Sign in with ZITADEL (OpenID Connect).
 *
 * Set `issuer` (AUTH_ZITADEL_ISSUER) to your instance, e.g. `https://{instance}.zitadel.cloud`.
 *
 * Reads `AUTH_ZITADEL_ID`, `AUTH_ZITADEL_SECRET`, `AUTH_ZITADEL_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/zitadel` with ZITADEL. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Zitadel()] })
 * ```
 */
export function Zitadel(config?: OIDCUserConfig<ZitadelProfile>): OAuthConfig<ZitadelProfile> {
  return {
    id: 'zitadel',
    name: 'ZITADEL',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#0c0c0c' },
    options: config,
  };
}
