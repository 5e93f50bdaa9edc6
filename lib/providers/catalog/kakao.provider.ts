import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile Kakao returns, as the vendor documents it. */
export interface KakaoProfile {
  id: number;
  has_signed_up?: boolean;
  connected_at?: string;
  properties?: { nickname?: string; profile_image?: string; thumbnail_image?: string };
  kakao_account?: {
    profile?: {
      nickname?: string;
      profile_image_url?: string;
      thumbnail_image_url?: string;
      is_default_image?: boolean;
    };
    name?: string;
    email?: string;
    is_email_valid?: boolean;
    is_email_verified?: boolean;
    age_range?: string;
    birthday?: string;
    gender?: 'female' | 'male';
  };
}

/**
 * Sign in with Kakao (OAuth 2.0). Consent items (nickname, email, ...) are configured in the Kakao console.
 *
 * Reads `AUTH_KAKAO_ID`, `AUTH_KAKAO_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/kakao` with Kakao. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Kakao()] })
 * ```
 */
export function Kakao(config?: OAuthUserConfig<KakaoProfile>): OAuthConfig<KakaoProfile> {
  return {
    id: 'kakao',
    name: 'Kakao',
    type: 'oauth',
    authorization: { url: 'https://kauth.kakao.com/oauth/authorize', params: { scope: '' } },
    token: 'https://kauth.kakao.com/oauth/token',
    userinfo: 'https://kapi.kakao.com/v2/user/me',
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return {
        id: accountId(profile.id),
        name:
          profile.kakao_account?.profile?.nickname ??
          profile.properties?.nickname ??
          profile.kakao_account?.name ??
          null,
        email: profile.kakao_account?.email ?? null,
        image: profile.kakao_account?.profile?.profile_image_url ?? profile.properties?.profile_image ?? null,
      };
    },
    style: { brandColor: '#fee500' },
    options: config,
  };
}
