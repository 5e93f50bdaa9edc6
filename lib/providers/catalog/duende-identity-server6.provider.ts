import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile DuendeIdentityServer6 returns (ID token claims or userinfo), as the vendor documents it. */
export interface DuendeIdentityServer6Profile {
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
 * Sign in with Duende IdentityServer 6 (OpenID Connect).
 *
 * Set `issuer` (AUTH_DUENDE_IDENTITY_SERVER6_ISSUER) to your IdentityServer's URL.
 *
 * Reads `AUTH_DUENDE_IDENTITY_SERVER6_ID`, `AUTH_DUENDE_IDENTITY_SERVER6_SECRET`, `AUTH_DUENDE_IDENTITY_SERVER6_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/duende-identity-server6` with DuendeIdentityServer6. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [DuendeIdentityServer6()] })
 * ```
 */
export function DuendeIdentityServer6(
  config?: OIDCUserConfig<DuendeIdentityServer6Profile>,
): OAuthConfig<DuendeIdentityServer6Profile> {
  return {
    id: 'duende-identity-server6',
    name: 'DuendeIdentityServer6',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#2b6cb0' },
    options: config,
  };
}
