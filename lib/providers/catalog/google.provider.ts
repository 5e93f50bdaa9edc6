import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Google returns (ID token claims or userinfo), as the vendor documents it. */
export interface GoogleProfile {
  /** Subject: the user's stable id at Google. */
  sub: string;
  iss: string;
  aud: string;
  azp?: string;
  iat: number;
  exp: number;
  at_hash?: string;
  email: string;
  email_verified: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  locale?: string;
  /** The Google Workspace domain of the account. */
  hd?: string;
}

/**
 * Sign in with Google (OpenID Connect).
 *
 * Google returns a refresh token only when asked: pass
 * `authorization: { params: { access_type: 'offline', prompt: 'consent' } }`.
 *
 * Reads `AUTH_GOOGLE_ID`, `AUTH_GOOGLE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/google` with Google. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Google()] })
 * ```
 */
export function Google(config?: OIDCUserConfig<GoogleProfile>): OAuthConfig<GoogleProfile> {
  return {
    id: 'google',
    name: 'Google',
    type: 'oidc',
    issuer: 'https://accounts.google.com',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#1a73e8' },
    options: config,
  };
}
