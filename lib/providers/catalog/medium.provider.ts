import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Medium returns, as the vendor documents it. */
export interface MediumProfile {
  data: { id: string; username: string; name: string; url: string; imageUrl: string };
}

/**
 * Sign in with Medium (OAuth 2.0). Medium shares no email address.
 *
 * Reads `AUTH_MEDIUM_ID`, `AUTH_MEDIUM_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/medium` with Medium. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Medium()] })
 * ```
 */
export function Medium(config?: OAuthUserConfig<MediumProfile>): OAuthConfig<MediumProfile> {
  return {
    id: 'medium',
    name: 'Medium',
    type: 'oauth',
    authorization: { url: 'https://medium.com/m/oauth/authorize', params: { scope: 'basicProfile' } },
    token: 'https://api.medium.com/v1/tokens',
    userinfo: 'https://api.medium.com/v1/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.data.id,
        name: profile.data.name ?? profile.data.username ?? null,
        email: null,
        image: profile.data.imageUrl ?? null,
      };
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
