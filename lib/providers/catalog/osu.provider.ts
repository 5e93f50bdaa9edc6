import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile osu! returns, as the vendor documents it. */
export interface OsuProfile {
  id: number;
  username: string;
  avatar_url: string;
  country_code: string;
  default_group?: string;
  is_active?: boolean;
  is_bot?: boolean;
  is_online?: boolean;
  is_supporter?: boolean;
  join_date?: string;
  playmode?: string;
}

/**
 * Sign in with osu! (OAuth 2.0). osu! shares no email address.
 *
 * Reads `AUTH_OSU_ID`, `AUTH_OSU_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/osu` with osu!. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Osu()] })
 * ```
 */
export function Osu(config?: OAuthUserConfig<OsuProfile>): OAuthConfig<OsuProfile> {
  return {
    id: 'osu',
    name: 'osu!',
    type: 'oauth',
    authorization: { url: 'https://osu.ppy.sh/oauth/authorize', params: { scope: 'identify' } },
    token: 'https://osu.ppy.sh/oauth/token',
    userinfo: 'https://osu.ppy.sh/api/v2/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.id),
        name: profile.username ?? null,
        email: null,
        image: profile.avatar_url ?? null,
      };
    },
    style: { brandColor: '#ff66aa' },
    options: config,
  };
}
