import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault, standardClaimsUser } from './catalog.helpers.js';

/** The profile Descope returns (ID token claims or userinfo), as the vendor documents it. */
export interface DescopeProfile {
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
 * Sign in with Descope (OpenID Connect).
 *
 * The issuer defaults to `https://api.descope.com/{clientId}` (the Descope project id is the client id).
 *
 * Reads `AUTH_DESCOPE_ID`, `AUTH_DESCOPE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/descope` with Descope. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Descope()] })
 * ```
 */
export function Descope(config?: OIDCUserConfig<DescopeProfile>): OAuthConfig<DescopeProfile> {
  const clientId = config?.clientId ?? envDefault('AUTH_DESCOPE_ID');
  return {
    id: 'descope',
    name: 'Descope',
    type: 'oidc',
    issuer: clientId ? `https://api.descope.com/${clientId}` : undefined,
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce', 'state'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#1c1c23' },
    options: config,
  };
}
