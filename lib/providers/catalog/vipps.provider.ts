import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Vipps returns (ID token claims or userinfo), as the vendor documents it. */
export interface VippsProfile {
  /** Subject: the user's stable id at the provider. */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  phone_number?: string;
  birthdate?: string;
  sid?: string;
  address?: { street_address?: string; postal_code?: string; region?: string; country?: string; formatted?: string };
}

/**
 * Sign in with Vipps MobilePay (OpenID Connect). The profile comes from the userinfo endpoint (`idToken: false`).
 *
 * For the test environment, override `issuer` with `https://apitest.vipps.no/access-management-1.0/access/`.
 *
 * Reads `AUTH_VIPPS_ID`, `AUTH_VIPPS_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/vipps` with Vipps. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Vipps()] })
 * ```
 */
export function Vipps(config?: OIDCUserConfig<VippsProfile>): OAuthConfig<VippsProfile> {
  return {
    id: 'vipps',
    name: 'Vipps',
    type: 'oidc',
    issuer: 'https://api.vipps.no/access-management-1.0/access/',
    authorization: { params: { scope: 'openid name email' } },
    checks: ['pkce', 'state', 'nonce'],
    idToken: false,
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#ff5b24' },
    options: config,
  };
}
