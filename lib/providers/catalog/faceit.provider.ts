import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile FACEIT returns, as the vendor documents it. */
export interface FACEITProfile {
  guid: string;
  nickname: string;
  email?: string;
  picture?: string;
  locale?: string;
  membership?: string;
}

/**
 * Sign in with FACEIT (OAuth 2.0). The client authenticates with HTTP Basic, as FACEIT expects.
 *
 * Reads `AUTH_FACEIT_ID`, `AUTH_FACEIT_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/faceit` with FACEIT. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [FACEIT()] })
 * ```
 */
export function FACEIT(config?: OAuthUserConfig<FACEITProfile>): OAuthConfig<FACEITProfile> {
  return {
    id: 'faceit',
    name: 'FACEIT',
    type: 'oauth',
    authorization: {
      url: 'https://accounts.faceit.com/accounts',
      params: { redirect_popup: 'true', scope: 'openid profile email' },
    },
    token: 'https://api.faceit.com/auth/v1/oauth/token',
    userinfo: 'https://api.faceit.com/auth/v1/resources/userinfo',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.guid,
        name: profile.nickname ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: '#ff5500' },
    options: config,
  };
}
