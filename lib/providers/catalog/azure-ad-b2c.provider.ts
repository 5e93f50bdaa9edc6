import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { joinName } from './catalog.helpers.js';

/** The profile Azure AD B2C returns (ID token claims or userinfo), as the vendor documents it. */
export interface AzureADB2CProfile {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  /** B2C returns the addresses as an array. */
  emails?: string[];
  email?: string;
  oid?: string;
  idp?: string;
  tfp?: string;
  auth_time?: number;
}

/**
 * Sign in with Azure AD B2C (OpenID Connect).
 *
 * Set `issuer` (AUTH_AZURE_AD_B2C_ISSUER) to the issuer of your user flow, e.g.
 * `https://{tenant}.b2clogin.com/{tenantId}/v2.0/` (enable the `emails` claim in the user flow).
 *
 * Reads `AUTH_AZURE_AD_B2C_ID`, `AUTH_AZURE_AD_B2C_SECRET`, `AUTH_AZURE_AD_B2C_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/azure-ad-b2c` with Azure AD B2C. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [AzureADB2C()] })
 * ```
 */
export function AzureADB2C(config?: OIDCUserConfig<AzureADB2CProfile>): OAuthConfig<AzureADB2CProfile> {
  return {
    id: 'azure-ad-b2c',
    name: 'Azure AD B2C',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? joinName(profile.given_name, profile.family_name),
        email: profile.emails?.[0] ?? profile.email ?? null,
        image: null,
      };
    },
    style: { brandColor: '#0072c6' },
    options: config,
  };
}
