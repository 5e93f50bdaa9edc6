import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Cognito returns (ID token claims or userinfo), as the vendor documents it. */
export interface CognitoProfile {
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
 * Sign in with an Amazon Cognito user pool (OpenID Connect).
 *
 * Set `issuer` (AUTH_COGNITO_ISSUER) to `https://cognito-idp.{region}.amazonaws.com/{userPoolId}`.
 *
 * Reads `AUTH_COGNITO_ID`, `AUTH_COGNITO_SECRET`, `AUTH_COGNITO_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/cognito` with Cognito. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Cognito()] })
 * ```
 */
export function Cognito(config?: OIDCUserConfig<CognitoProfile>): OAuthConfig<CognitoProfile> {
  return {
    id: 'cognito',
    name: 'Cognito',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#ff9900' },
    options: config,
  };
}
