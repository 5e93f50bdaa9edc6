import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Roblox returns (ID token claims or userinfo), as the vendor documents it. */
export interface RobloxProfile {
  sub: string;
  name?: string;
  nickname?: string;
  preferred_username?: string;
  created_at?: number;
  profile?: string;
  picture?: string | null;
}

/**
 * Sign in with Roblox (OpenID Connect). Roblox shares no email address.
 *
 * Reads `AUTH_ROBLOX_ID`, `AUTH_ROBLOX_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/roblox` with Roblox. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Roblox()] })
 * ```
 */
export function Roblox(config?: OIDCUserConfig<RobloxProfile>): OAuthConfig<RobloxProfile> {
  return {
    id: 'roblox',
    name: 'Roblox',
    type: 'oidc',
    issuer: 'https://apis.roblox.com/oauth/',
    authorization: { params: { scope: 'openid profile' } },
    checks: ['pkce', 'state'],
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.nickname ?? profile.preferred_username ?? null,
        email: null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: '#335fff' },
    options: config,
  };
}
