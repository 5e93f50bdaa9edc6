import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Twitter returns, as the vendor documents it. */
export interface TwitterProfile {
  data: {
    id: string;
    name: string;
    username: string;
    profile_image_url?: string;
    confirmed_email?: string;
    created_at?: string;
    description?: string;
    location?: string;
    protected?: boolean;
    verified?: boolean;
  };
}

/**
 * Sign in with X (Twitter) OAuth 2.0. Email needs the `users.email` scope and the app permission;
 * without them X shares no email address.
 *
 * Reads `AUTH_TWITTER_ID`, `AUTH_TWITTER_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/twitter` with Twitter. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Twitter()] })
 * ```
 */
export function Twitter(config?: OAuthUserConfig<TwitterProfile>): OAuthConfig<TwitterProfile> {
  return {
    id: 'twitter',
    name: 'Twitter',
    type: 'oauth',
    authorization: {
      url: 'https://x.com/i/oauth2/authorize',
      params: { scope: 'users.read tweet.read offline.access' },
    },
    token: 'https://api.x.com/2/oauth2/token',
    userinfo: 'https://api.x.com/2/users/me?user.fields=profile_image_url',
    checks: ['pkce', 'state'],
    profile(profile) {
      return {
        id: profile.data.id,
        name: profile.data.name ?? profile.data.username ?? null,
        email: profile.data.confirmed_email ?? null,
        image: profile.data.profile_image_url ?? null,
      };
    },
    style: { brandColor: '#1da1f2' },
    options: config,
  };
}
