import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile WordPress.com returns, as the vendor documents it. */
export interface WordPressProfile {
  ID: number;
  display_name: string;
  username: string;
  email: string;
  primary_blog?: number;
  language?: string;
  avatar_URL: string;
  profile_URL?: string;
  verified?: boolean;
  email_verified?: boolean;
}

/**
 * Sign in with WordPress.com (OAuth 2.0).
 *
 * Reads `AUTH_WORDPRESS_ID`, `AUTH_WORDPRESS_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/wordpress` with WordPress.com. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [WordPress()] })
 * ```
 */
export function WordPress(config?: OAuthUserConfig<WordPressProfile>): OAuthConfig<WordPressProfile> {
  return {
    id: 'wordpress',
    name: 'WordPress.com',
    type: 'oauth',
    authorization: { url: 'https://public-api.wordpress.com/oauth2/authorize', params: { scope: 'auth' } },
    token: 'https://public-api.wordpress.com/oauth2/token',
    userinfo: 'https://public-api.wordpress.com/rest/v1/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.ID),
        name: profile.display_name ?? profile.username ?? null,
        email: profile.email ?? null,
        image: profile.avatar_URL ?? null,
      };
    },
    style: { brandColor: '#3499cd' },
    options: config,
  };
}
