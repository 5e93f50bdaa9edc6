import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { joinName } from './catalog.helpers.js';

/** The profile Zoom returns, as the vendor documents it. */
export interface ZoomProfile {
  id: string;
  first_name: string;
  last_name: string;
  display_name?: string;
  email: string;
  type?: number;
  role_name?: string;
  pmi?: number;
  timezone?: string;
  verified?: number;
  dept?: string;
  pic_url?: string;
  account_id?: string;
  status?: 'pending' | 'active' | 'inactive';
}

/**
 * Sign in with Zoom (OAuth 2.0). Scopes are those granted to the app in the Zoom marketplace.
 *
 * Reads `AUTH_ZOOM_ID`, `AUTH_ZOOM_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/zoom` with Zoom. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Zoom()] })
 * ```
 */
export function Zoom(config?: OAuthUserConfig<ZoomProfile>): OAuthConfig<ZoomProfile> {
  return {
    id: 'zoom',
    name: 'Zoom',
    type: 'oauth',
    authorization: { url: 'https://zoom.us/oauth/authorize', params: { scope: '' } },
    token: 'https://zoom.us/oauth/token',
    userinfo: 'https://api.zoom.us/v2/users/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.display_name ?? joinName(profile.first_name, profile.last_name),
        email: profile.email ?? null,
        image: profile.pic_url ?? null,
      };
    },
    style: { brandColor: '#0b5cff' },
    options: config,
  };
}
