import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Auth0 returns (ID token claims or userinfo), as the vendor documents it. */
export interface Auth0Profile {
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
 * Sign in with Auth0 (OpenID Connect).
 *
 * Set `issuer` (AUTH_AUTH0_ISSUER) to your tenant, e.g. `https://{tenant}.auth0.com`.
 *
 * Reads `AUTH_AUTH0_ID`, `AUTH_AUTH0_SECRET`, `AUTH_AUTH0_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/auth0` with Auth0. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Auth0()] })
 * ```
 */
export function Auth0(config?: OIDCUserConfig<Auth0Profile>): OAuthConfig<Auth0Profile> {
  return {
    id: 'auth0',
    name: 'Auth0',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#eb5424' },
    options: config,
  };
}
