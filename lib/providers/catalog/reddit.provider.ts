import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Reddit returns, as the vendor documents it. */
export interface RedditProfile {
  id: string;
  name: string;
  icon_img?: string;
  snoovatar_img?: string;
  created_utc?: number;
  has_verified_email?: boolean;
  verified?: boolean;
}

/**
 * Sign in with Reddit (OAuth 2.0). Reddit shares no email address.
 *
 * Reads `AUTH_REDDIT_ID`, `AUTH_REDDIT_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/reddit` with Reddit. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Reddit()] })
 * ```
 */
export function Reddit(config?: OAuthUserConfig<RedditProfile>): OAuthConfig<RedditProfile> {
  return {
    id: 'reddit',
    name: 'Reddit',
    type: 'oauth',
    authorization: { url: 'https://www.reddit.com/api/v1/authorize', params: { scope: 'identity' } },
    token: 'https://www.reddit.com/api/v1/access_token',
    userinfo: 'https://oauth.reddit.com/api/v1/me',
    checks: ['state'],
    profile(profile) {
      // Reddit HTML-escapes the ampersands of its image URLs.
      const icon = profile.snoovatar_img || profile.icon_img;
      return {
        id: profile.id,
        name: profile.name ?? null,
        email: null,
        image: icon ? icon.replace(/&amp;/g, '&') : null,
      };
    },
    style: { brandColor: '#ff4500' },
    options: config,
  };
}
