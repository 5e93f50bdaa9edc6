import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Naver returns, as the vendor documents it. */
export interface NaverProfile {
  resultcode: string;
  message: string;
  response: {
    id: string;
    nickname?: string;
    name?: string;
    email?: string;
    gender?: 'F' | 'M' | 'U';
    age?: string;
    birthday?: string;
    profile_image?: string;
    birthyear?: string;
    mobile?: string;
  };
}

/**
 * Sign in with Naver (OAuth 2.0).
 *
 * Reads `AUTH_NAVER_ID`, `AUTH_NAVER_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/naver` with Naver. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Naver()] })
 * ```
 */
export function Naver(config?: OAuthUserConfig<NaverProfile>): OAuthConfig<NaverProfile> {
  return {
    id: 'naver',
    name: 'Naver',
    type: 'oauth',
    authorization: { url: 'https://nid.naver.com/oauth2.0/authorize', params: { scope: 'openid profile email' } },
    token: 'https://nid.naver.com/oauth2.0/token',
    userinfo: 'https://openapi.naver.com/v1/nid/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.response.id,
        name: profile.response.nickname ?? profile.response.name ?? null,
        email: profile.response.email ?? null,
        image: profile.response.profile_image ?? null,
      };
    },
    style: { brandColor: '#03c75a' },
    options: config,
  };
}
