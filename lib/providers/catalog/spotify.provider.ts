import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Spotify returns, as the vendor documents it. */
export interface SpotifyProfile {
  id: string;
  display_name: string | null;
  email: string;
  country?: string;
  product?: string;
  uri?: string;
  images: Array<{ url: string; height: number | null; width: number | null }>;
  external_urls?: { spotify: string };
}

/**
 * Sign in with Spotify (OAuth 2.0).
 *
 * Reads `AUTH_SPOTIFY_ID`, `AUTH_SPOTIFY_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/spotify` with Spotify. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Spotify()] })
 * ```
 */
export function Spotify(config?: OAuthUserConfig<SpotifyProfile>): OAuthConfig<SpotifyProfile> {
  return {
    id: 'spotify',
    name: 'Spotify',
    type: 'oauth',
    authorization: { url: 'https://accounts.spotify.com/authorize', params: { scope: 'user-read-email' } },
    token: 'https://accounts.spotify.com/api/token',
    userinfo: 'https://api.spotify.com/v1/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.display_name ?? null,
        email: profile.email ?? null,
        image: profile.images?.[0]?.url ?? null,
      };
    },
    style: { brandColor: '#1db954' },
    options: config,
  };
}
