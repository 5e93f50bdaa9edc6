import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId, authorizationHeader, endpointUrl, joinName, vendorJson } from './catalog.helpers.js';

/** The profile Zoho returns, as the vendor documents it. */
export interface ZohoProfile {
  ZUID: number;
  Email: string;
  Display_Name: string;
  First_Name?: string;
  Last_Name?: string;
}

/**
 * Sign in with Zoho (OAuth 2.0). For other data centres override the endpoints (e.g. `accounts.zoho.eu`).
 *
 * Reads `AUTH_ZOHO_ID`, `AUTH_ZOHO_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/zoho` with Zoho. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Zoho()] })
 * ```
 */
export function Zoho(config?: OAuthUserConfig<ZohoProfile>): OAuthConfig<ZohoProfile> {
  return {
    id: 'zoho',
    name: 'Zoho',
    type: 'oauth',
    authorization: { url: 'https://accounts.zoho.com/oauth/v2/auth', params: { scope: 'AaaServer.profile.Read' } },
    token: 'https://accounts.zoho.com/oauth/v2/token',
    userinfo: {
      url: 'https://accounts.zoho.com/oauth/user/info',
      // Zoho documents its own scheme for API calls.
      request: ({ tokens, provider }) =>
        vendorJson(provider, endpointUrl(provider.userinfo), {
          headers: authorizationHeader(tokens, 'Zoho-oauthtoken'),
        }),
    },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.ZUID),
        name: profile.Display_Name ?? joinName(profile.First_Name, profile.Last_Name),
        email: profile.Email ?? null,
        image: null,
      };
    },
    style: { brandColor: '#e42527' },
    options: config,
  };
}
