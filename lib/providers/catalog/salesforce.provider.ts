import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Salesforce returns (ID token claims or userinfo), as the vendor documents it. */
export interface SalesforceProfile {
  /** Subject: the user's stable id at the provider. */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  user_id: string;
  organization_id: string;
  nickname?: string;
  zoneinfo?: string;
  photos?: { picture: string; thumbnail: string };
}

/**
 * Sign in with Salesforce (OpenID Connect). The profile comes from the userinfo endpoint (`idToken: false`).
 *
 * For a sandbox or My Domain, override `issuer` (e.g. `https://test.salesforce.com`).
 *
 * Reads `AUTH_SALESFORCE_ID`, `AUTH_SALESFORCE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/salesforce` with Salesforce. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Salesforce()] })
 * ```
 */
export function Salesforce(config?: OIDCUserConfig<SalesforceProfile>): OAuthConfig<SalesforceProfile> {
  return {
    id: 'salesforce',
    name: 'Salesforce',
    type: 'oidc',
    issuer: 'https://login.salesforce.com',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce', 'state', 'nonce'],
    idToken: false,
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#00a1e0' },
    options: config,
  };
}
