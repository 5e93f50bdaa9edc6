import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Pinterest returns, as the vendor documents it. */
export interface PinterestProfile {
  account_type: 'PINNER' | 'BUSINESS' | null;
  profile_image: string;
  website_url?: string;
  username: string;
  id?: string;
  business_name?: string | null;
}

/**
 * Sign in with Pinterest (API v5, OAuth 2.0). Pinterest shares no email address; the username is the id.
 *
 * Reads `AUTH_PINTEREST_ID`, `AUTH_PINTEREST_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/pinterest` with Pinterest. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Pinterest()] })
 * ```
 */
export function Pinterest(config?: OAuthUserConfig<PinterestProfile>): OAuthConfig<PinterestProfile> {
  return {
    id: 'pinterest',
    name: 'Pinterest',
    type: 'oauth',
    authorization: { url: 'https://www.pinterest.com/oauth', params: { scope: 'user_accounts:read' } },
    token: 'https://api.pinterest.com/v5/oauth/token',
    userinfo: 'https://api.pinterest.com/v5/user_account',
    checks: ['pkce'],
    profile(profile) {
      return { id: profile.username, name: profile.username, email: null, image: profile.profile_image ?? null };
    },
    style: { brandColor: '#e60023' },
    options: config,
  };
}
