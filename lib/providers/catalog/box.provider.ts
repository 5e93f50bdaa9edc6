import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Box returns, as the vendor documents it. */
export interface BoxProfile {
  id: string;
  type: 'user';
  name: string;
  /** The primary email address. */
  login: string;
  avatar_url?: string;
  created_at?: string;
  language?: string;
  timezone?: string;
}

/**
 * Sign in with Box (OAuth 2.0). The email is the account's `login`.
 *
 * Reads `AUTH_BOX_ID`, `AUTH_BOX_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/box` with Box. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Box()] })
 * ```
 */
export function Box(config?: OAuthUserConfig<BoxProfile>): OAuthConfig<BoxProfile> {
  return {
    id: 'box',
    name: 'Box',
    type: 'oauth',
    authorization: { url: 'https://account.box.com/api/oauth2/authorize', params: { scope: 'openid profile email' } },
    token: 'https://api.box.com/oauth2/token',
    userinfo: 'https://api.box.com/2.0/users/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.name ?? null,
        email: profile.login ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    style: { brandColor: '#0061d5' },
    options: config,
  };
}
