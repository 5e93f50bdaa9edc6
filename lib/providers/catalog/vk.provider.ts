import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId, joinName } from './catalog.helpers.js';

/** The profile VK returns, as the vendor documents it. */
export interface VKProfile {
  response: Array<{
    id: number;
    first_name: string;
    last_name: string;
    photo_100?: string;
    screen_name?: string;
    can_access_closed?: boolean;
    is_closed?: boolean;
  }>;
}

/**
 * Sign in with VK (OAuth 2.0, API v5.131). VK returns the email address in the token response, not in the profile.
 *
 * Reads `AUTH_VK_ID`, `AUTH_VK_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/vk` with VK. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [VK()] })
 * ```
 */
export function VK(config?: OAuthUserConfig<VKProfile>): OAuthConfig<VKProfile> {
  return {
    id: 'vk',
    name: 'VK',
    type: 'oauth',
    authorization: { url: 'https://oauth.vk.com/authorize', params: { scope: 'email', v: '5.131' } },
    token: 'https://oauth.vk.com/access_token?v=5.131',
    userinfo: 'https://api.vk.com/method/users.get?fields=photo_100&v=5.131',
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile, tokens) {
      const user = profile.response?.[0];
      return {
        id: accountId(user?.id),
        name: joinName(user?.first_name, user?.last_name),
        email: typeof tokens.email === 'string' ? tokens.email : null,
        image: user?.photo_100 ?? null,
      };
    },
    style: { brandColor: '#0077ff' },
    options: config,
  };
}
