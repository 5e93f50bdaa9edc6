import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Netlify returns, as the vendor documents it. */
export interface NetlifyProfile {
  id: string;
  uid?: string | null;
  full_name: string;
  avatar_url: string | null;
  email: string;
  affiliate_id?: string;
  site_count?: number;
  created_at?: string;
  last_login?: string;
}

/**
 * Sign in with Netlify (OAuth 2.0).
 *
 * Reads `AUTH_NETLIFY_ID`, `AUTH_NETLIFY_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/netlify` with Netlify. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Netlify()] })
 * ```
 */
export function Netlify(config?: OAuthUserConfig<NetlifyProfile>): OAuthConfig<NetlifyProfile> {
  return {
    id: 'netlify',
    name: 'Netlify',
    type: 'oauth',
    authorization: { url: 'https://app.netlify.com/authorize', params: { scope: '' } },
    token: 'https://api.netlify.com/oauth/token',
    userinfo: 'https://api.netlify.com/api/v1/user',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.full_name ?? null,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    style: { brandColor: '#00ad9f' },
    options: config,
  };
}
