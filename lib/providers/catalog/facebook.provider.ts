import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Facebook returns, as the vendor documents it. */
export interface FacebookProfile {
  id: string;
  name: string;
  email?: string;
  picture?: { data: { url: string; height?: number; width?: number; is_silhouette?: boolean } };
}

/**
 * Sign in with Facebook (Facebook Login, Graph API v19.0).
 *
 * Reads `AUTH_FACEBOOK_ID`, `AUTH_FACEBOOK_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/facebook` with Facebook. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Facebook()] })
 * ```
 */
export function Facebook(config?: OAuthUserConfig<FacebookProfile>): OAuthConfig<FacebookProfile> {
  return {
    id: 'facebook',
    name: 'Facebook',
    type: 'oauth',
    authorization: { url: 'https://www.facebook.com/v19.0/dialog/oauth', params: { scope: 'email' } },
    token: 'https://graph.facebook.com/oauth/access_token',
    userinfo: 'https://graph.facebook.com/me?fields=id,name,email,picture',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.picture?.data?.url ?? null,
      };
    },
    style: { brandColor: '#0866ff' },
    options: config,
  };
}
