import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { authorizationHeader, endpointUrl, vendorJson } from './catalog.helpers.js';

/** The profile Trakt returns, as the vendor documents it. */
export interface TraktProfile {
  username: string;
  private?: boolean;
  name?: string | null;
  vip?: boolean;
  vip_ep?: boolean;
  ids: { slug: string; uuid?: string };
  joined_at?: string;
  location?: string;
  about?: string;
  gender?: string;
  age?: number;
  images?: { avatar?: { full?: string } };
}

/**
 * Sign in with Trakt (OAuth 2.0). Trakt shares no email address; its API wants the client id as `trakt-api-key`.
 *
 * Reads `AUTH_TRAKT_ID`, `AUTH_TRAKT_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/trakt` with Trakt. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Trakt()] })
 * ```
 */
export function Trakt(config?: OAuthUserConfig<TraktProfile>): OAuthConfig<TraktProfile> {
  return {
    id: 'trakt',
    name: 'Trakt',
    type: 'oauth',
    authorization: { url: 'https://trakt.tv/oauth/authorize', params: { scope: '' } },
    token: 'https://api.trakt.tv/oauth/token',
    userinfo: {
      url: 'https://api.trakt.tv/users/me?extended=full',
      request: ({ tokens, provider }) =>
        vendorJson(provider, endpointUrl(provider.userinfo), {
          headers: {
            ...authorizationHeader(tokens),
            'trakt-api-version': '2',
            'trakt-api-key': String(provider.clientId ?? ''),
          },
        }),
    },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.ids.slug,
        name: profile.name || profile.username || null,
        email: null,
        image: profile.images?.avatar?.full ?? null,
      };
    },
    style: { brandColor: '#ed1c24' },
    options: config,
  };
}
