import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { endpointUrl, joinName, vendorJson } from './catalog.helpers.js';

/** The profile Foursquare returns, as the vendor documents it. */
export interface FoursquareProfile {
  meta?: { code: number; requestId?: string };
  response: {
    user: {
      id: string;
      firstName?: string;
      lastName?: string;
      contact?: { email?: string; phone?: string };
      photo?: { prefix: string; suffix: string };
      homeCity?: string;
    };
  };
}

/** Options of the {@link Foursquare} factory beyond the provider config. */
export type FoursquareOptions = {
  /** Foursquare API version date (`v`). @default '20230131' */
  apiVersion?: string;
};

/**
 * Sign in with Foursquare (OAuth 2.0). The API takes the token as an `oauth_token` query parameter and a `v` version date (`apiVersion`).
 *
 * Reads `AUTH_FOURSQUARE_ID`, `AUTH_FOURSQUARE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/foursquare` with Foursquare. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Foursquare()] })
 * ```
 */
export function Foursquare(
  config?: OAuthUserConfig<FoursquareProfile> & FoursquareOptions,
): OAuthConfig<FoursquareProfile> {
  const apiVersion = config?.apiVersion ?? '20230131';
  return {
    id: 'foursquare',
    name: 'Foursquare',
    type: 'oauth',
    authorization: { url: 'https://foursquare.com/oauth2/authenticate', params: { scope: 'openid profile email' } },
    token: 'https://foursquare.com/oauth2/access_token',
    userinfo: {
      url: `https://api.foursquare.com/v2/users/self?v=${apiVersion}`,
      async request({ tokens, provider }) {
        const url = endpointUrl(provider.userinfo);
        url.searchParams.set('oauth_token', String(tokens.access_token ?? ''));
        return vendorJson(provider, url);
      },
    },
    checks: ['pkce'],
    profile(profile) {
      const user = profile.response.user;
      return {
        id: user.id,
        name: joinName(user.firstName, user.lastName),
        email: user.contact?.email ?? null,
        image: user.photo ? `${user.photo.prefix}original${user.photo.suffix}` : null,
      };
    },
    style: { brandColor: '#3333ff' },
    options: config,
  };
}
