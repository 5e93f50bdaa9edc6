import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Bitbucket returns, as the vendor documents it. */
export interface BitbucketProfile {
  account_id: string;
  uuid: string;
  username: string;
  display_name: string;
  nickname?: string;
  account_status?: string;
  created_on?: string;
  type?: 'user';
  links: { avatar: { href: string }; html?: { href: string }; self?: { href: string } };
}

/**
 * Sign in with Bitbucket Cloud (OAuth 2.0). Bitbucket's user object carries no email address.
 *
 * Reads `AUTH_BITBUCKET_ID`, `AUTH_BITBUCKET_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/bitbucket` with Bitbucket. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Bitbucket()] })
 * ```
 */
export function Bitbucket(config?: OAuthUserConfig<BitbucketProfile>): OAuthConfig<BitbucketProfile> {
  return {
    id: 'bitbucket',
    name: 'Bitbucket',
    type: 'oauth',
    authorization: { url: 'https://bitbucket.org/site/oauth2/authorize', params: { scope: 'account' } },
    token: 'https://bitbucket.org/site/oauth2/access_token',
    userinfo: 'https://api.bitbucket.org/2.0/user',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.account_id,
        name: profile.display_name ?? profile.username ?? null,
        email: null,
        image: profile.links?.avatar?.href ?? null,
      };
    },
    style: { brandColor: '#205081' },
    options: config,
  };
}
