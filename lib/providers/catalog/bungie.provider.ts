import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { authorizationHeader, endpointUrl, envDefault, vendorJson } from './catalog.helpers.js';

/** The profile Bungie returns, as the vendor documents it. */
export interface BungieProfile {
  Response: {
    bungieNetUser: {
      membershipId: string;
      uniqueName?: string;
      displayName: string;
      profilePicturePath?: string;
      locale?: string;
    };
    destinyMemberships?: Array<{ membershipId: string; membershipType: number; displayName: string }>;
  };
  ErrorCode?: number;
  ErrorStatus?: string;
}

/** Options of the {@link Bungie} factory beyond the provider config. */
export type BungieOptions = {
  /** Bungie API key, sent as `X-API-Key`. @default process.env.AUTH_BUNGIE_API_KEY */
  apiKey?: string;
};

/**
 * Sign in with Bungie.net (OAuth 2.0). Bungie shares no email address.
 *
 * Bungie's API wants an `X-API-Key` header: pass `apiKey` (or set AUTH_BUNGIE_API_KEY). The
 * account is read for the `membership_id` the token response carries.
 *
 * Reads `AUTH_BUNGIE_ID`, `AUTH_BUNGIE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/bungie` with Bungie. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Bungie()] })
 * ```
 */
export function Bungie(config?: OAuthUserConfig<BungieProfile> & BungieOptions): OAuthConfig<BungieProfile> {
  const apiKey = config?.apiKey ?? envDefault('AUTH_BUNGIE_API_KEY');
  return {
    id: 'bungie',
    name: 'Bungie',
    type: 'oauth',
    authorization: {
      url: 'https://www.bungie.net/en/OAuth/Authorize',
      params: { reauth: 'true', scope: 'openid profile email' },
    },
    token: 'https://www.bungie.net/platform/app/oauth/token/',
    userinfo: {
      url: 'https://www.bungie.net/platform/User/GetBungieAccount/{membershipId}/254/',
      async request({ tokens, provider }) {
        const membershipId = String(tokens.membership_id ?? '');
        const template = endpointUrl(provider.userinfo).href;
        const url = template.replace(/\{membershipId\}|%7BmembershipId%7D/g, encodeURIComponent(membershipId));
        return vendorJson(provider, url, {
          headers: { ...authorizationHeader(tokens), ...(apiKey ? { 'x-api-key': apiKey } : {}) },
        });
      },
    },
    checks: ['pkce'],
    profile(profile) {
      const user = profile.Response.bungieNetUser;
      const picture = user.profilePicturePath;
      return {
        id: user.membershipId,
        name: user.displayName ?? null,
        email: null,
        image: picture ? `https://www.bungie.net${picture.startsWith('/') ? '' : '/'}${picture}` : null,
      };
    },
    style: { brandColor: '#0e8fd0' },
    options: config,
  };
}
