import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile SimpleLogin returns (ID token claims or userinfo), as the vendor documents it. */
export interface SimpleLoginProfile {
  sub: string;
  id?: number;
  name?: string;
  email: string;
  email_verified?: boolean;
  avatar_url?: string | null;
  client?: string;
}

/**
 * Sign in with SimpleLogin (OpenID Connect).
 *
 * Reads `AUTH_SIMPLELOGIN_ID`, `AUTH_SIMPLELOGIN_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/simplelogin` with SimpleLogin. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [SimpleLogin()] })
 * ```
 */
export function SimpleLogin(config?: OIDCUserConfig<SimpleLoginProfile>): OAuthConfig<SimpleLoginProfile> {
  return {
    id: 'simplelogin',
    name: 'SimpleLogin',
    type: 'oidc',
    issuer: 'https://app.simplelogin.io',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    style: { brandColor: '#e3156a' },
    options: config,
  };
}
