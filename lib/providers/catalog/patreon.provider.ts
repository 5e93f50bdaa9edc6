import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Patreon returns, as the vendor documents it. */
export interface PatreonProfile {
  data: {
    id: string;
    type: 'user';
    attributes: {
      full_name: string;
      email?: string;
      image_url?: string;
      thumb_url?: string;
      is_email_verified?: boolean;
      vanity?: string | null;
      url?: string;
    };
  };
}

/**
 * Sign in with Patreon (OAuth 2.0).
 *
 * Reads `AUTH_PATREON_ID`, `AUTH_PATREON_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/patreon` with Patreon. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Patreon()] })
 * ```
 */
export function Patreon(config?: OAuthUserConfig<PatreonProfile>): OAuthConfig<PatreonProfile> {
  return {
    id: 'patreon',
    name: 'Patreon',
    type: 'oauth',
    authorization: { url: 'https://www.patreon.com/oauth2/authorize', params: { scope: 'identity identity[email]' } },
    token: 'https://www.patreon.com/api/oauth2/token',
    userinfo: 'https://www.patreon.com/api/oauth2/api/current_user',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.data.id,
        name: profile.data.attributes.full_name ?? null,
        email: profile.data.attributes.email ?? null,
        image: profile.data.attributes.image_url ?? null,
      };
    },
    style: { brandColor: '#ff424d' },
    options: config,
  };
}
