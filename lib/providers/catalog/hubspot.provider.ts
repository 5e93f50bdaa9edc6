import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId, endpointUrl, vendorJson } from './catalog.helpers.js';

/** The profile HubSpot returns, as the vendor documents it. */
export interface HubSpotProfile {
  token: string;
  /** The user's email address. */
  user: string;
  hub_domain: string;
  scopes: string[];
  hub_id: number;
  app_id: number;
  expires_in: number;
  user_id: number;
  token_type: string;
}

/**
 * Sign in with HubSpot (OAuth 2.0). The profile is the access token's metadata; its `user` is the email address.
 *
 * Reads `AUTH_HUBSPOT_ID`, `AUTH_HUBSPOT_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/hubspot` with HubSpot. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [HubSpot()] })
 * ```
 */
export function HubSpot(config?: OAuthUserConfig<HubSpotProfile>): OAuthConfig<HubSpotProfile> {
  return {
    id: 'hubspot',
    name: 'HubSpot',
    type: 'oauth',
    authorization: { url: 'https://app.hubspot.com/oauth/authorize', params: { scope: 'oauth' } },
    token: 'https://api.hubapi.com/oauth/v1/token',
    userinfo: {
      url: 'https://api.hubapi.com/oauth/v1/access-tokens',
      async request({ tokens, provider }) {
        const base = endpointUrl(provider.userinfo);
        base.pathname = `${base.pathname.replace(/\/+$/, '')}/${encodeURIComponent(String(tokens.access_token ?? ''))}`;
        return vendorJson(provider, base);
      },
    },
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return { id: accountId(profile.user_id), name: profile.user ?? null, email: profile.user ?? null, image: null };
    },
    style: { brandColor: '#ff7a59' },
    options: config,
  };
}
