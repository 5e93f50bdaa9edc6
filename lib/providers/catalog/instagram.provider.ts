import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Instagram returns, as the vendor documents it. */
export interface InstagramProfile {
  id: string;
  username: string;
  account_type?: 'BUSINESS' | 'MEDIA_CREATOR' | 'PERSONAL';
  name?: string;
}

/**
 * Sign in with Instagram (OAuth 2.0). Instagram shares no email address or picture here.
 *
 * Reads `AUTH_INSTAGRAM_ID`, `AUTH_INSTAGRAM_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/instagram` with Instagram. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Instagram()] })
 * ```
 */
export function Instagram(config?: OAuthUserConfig<InstagramProfile>): OAuthConfig<InstagramProfile> {
  return {
    id: 'instagram',
    name: 'Instagram',
    type: 'oauth',
    authorization: { url: 'https://api.instagram.com/oauth/authorize', params: { scope: 'user_profile' } },
    token: 'https://api.instagram.com/oauth/access_token',
    userinfo: 'https://graph.instagram.com/me?fields=id,username,account_type,name',
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return { id: profile.id, name: profile.name ?? profile.username ?? null, email: null, image: null };
    },
    style: { brandColor: '#e1306c' },
    options: config,
  };
}
