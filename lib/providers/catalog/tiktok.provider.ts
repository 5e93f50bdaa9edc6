import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault } from './catalog.helpers.js';

/** The answer of TikTok's `GET /v2/user/info/`, as TikTok documents it. */
export interface TikTokProfile {
  data: {
    user: {
      /** The user's id within this app. */
      open_id: string;
      union_id?: string;
      avatar_url?: string;
      avatar_url_100?: string;
      avatar_large_url?: string;
      display_name: string;
      username?: string;
      bio_description?: string;
      profile_deep_link?: string;
      is_verified?: boolean;
    };
  };
  error: { code: string; message: string; log_id: string };
}

/**
 * Sign in with TikTok (Login Kit for web, OAuth 2.0). TikTok shares no email address.
 *
 * TikTok names the client id `client_key`: the authorization request and the code exchange carry
 * `client_key` (the exchange sends `client_secret` in the form body, `client_secret_post`).
 * `clientId` is your app's client key; it is read when the factory runs (from `clientId`, else
 * AUTH_TIKTOK_ID).
 *
 * Reads `AUTH_TIKTOK_ID`, `AUTH_TIKTOK_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/tiktok` with TikTok. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [TikTok()] })
 * ```
 */
export function TikTok(config?: OAuthUserConfig<TikTokProfile>): OAuthConfig<TikTokProfile> {
  // Both requests need the key before the module applies its env defaults.
  const clientKey = config?.clientId ?? envDefault('AUTH_TIKTOK_ID');
  return {
    id: 'tiktok',
    name: 'TikTok',
    type: 'oauth',
    authorization: {
      url: 'https://www.tiktok.com/v2/auth/authorize',
      params: { ...(clientKey ? { client_key: clientKey } : {}), scope: 'user.info.basic' },
    },
    token: {
      url: 'https://open.tiktokapis.com/v2/oauth/token/',
      // Extra body parameters of the code exchange: TikTok reads the client id from `client_key`.
      params: clientKey ? { client_key: clientKey } : {},
    },
    userinfo: 'https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_url,display_name',
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      const user = profile.data.user;
      return {
        id: user.open_id,
        name: user.display_name ?? user.username ?? null,
        email: null,
        image: user.avatar_url ?? null,
      };
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
