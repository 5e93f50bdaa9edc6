import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Yandex returns, as the vendor documents it. */
export interface YandexProfile {
  id: string;
  login: string;
  client_id?: string;
  psuid?: string;
  display_name?: string;
  real_name?: string;
  first_name?: string;
  last_name?: string;
  sex?: 'female' | 'male' | null;
  default_email?: string;
  emails?: string[];
  default_avatar_id?: string;
  is_avatar_empty?: boolean;
}

/**
 * Sign in with Yandex ID (OAuth 2.0).
 *
 * Reads `AUTH_YANDEX_ID`, `AUTH_YANDEX_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/yandex` with Yandex. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Yandex()] })
 * ```
 */
export function Yandex(config?: OAuthUserConfig<YandexProfile>): OAuthConfig<YandexProfile> {
  return {
    id: 'yandex',
    name: 'Yandex',
    type: 'oauth',
    authorization: {
      url: 'https://oauth.yandex.ru/authorize',
      params: { scope: 'login:info login:email login:avatar' },
    },
    token: 'https://oauth.yandex.ru/token',
    userinfo: 'https://login.yandex.ru/info?format=json',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.display_name ?? profile.real_name ?? profile.first_name ?? profile.login ?? null,
        email: profile.default_email ?? profile.emails?.[0] ?? null,
        image:
          !profile.is_avatar_empty && profile.default_avatar_id
            ? `https://avatars.yandex.net/get-yapic/${profile.default_avatar_id}/islands-200`
            : null,
      };
    },
    style: { brandColor: '#ffcc00' },
    options: config,
  };
}
