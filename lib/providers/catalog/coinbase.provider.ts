import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Coinbase returns, as the vendor documents it. */
export interface CoinbaseProfile {
  data: {
    id: string;
    name: string;
    username?: string | null;
    email?: string;
    avatar_url?: string;
    profile_location?: string | null;
    resource?: string;
    resource_path?: string;
  };
}

/**
 * Sign in with Coinbase (OAuth 2.0).
 *
 * Reads `AUTH_COINBASE_ID`, `AUTH_COINBASE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/coinbase` with Coinbase. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Coinbase()] })
 * ```
 */
export function Coinbase(config?: OAuthUserConfig<CoinbaseProfile>): OAuthConfig<CoinbaseProfile> {
  return {
    id: 'coinbase',
    name: 'Coinbase',
    type: 'oauth',
    authorization: {
      url: 'https://login.coinbase.com/oauth2/auth',
      params: { scope: 'wallet:user:email wallet:user:read' },
    },
    token: 'https://login.coinbase.com/oauth2/token',
    userinfo: 'https://api.coinbase.com/v2/user',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.data.id,
        name: profile.data.name ?? null,
        email: profile.data.email ?? null,
        image: profile.data.avatar_url ?? null,
      };
    },
    style: { brandColor: '#0052ff' },
    options: config,
  };
}
