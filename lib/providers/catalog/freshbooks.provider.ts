import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId, joinName } from './catalog.helpers.js';

/** The profile Freshbooks returns, as the vendor documents it. */
export interface FreshbooksProfile {
  response: {
    id: number;
    identity_id?: number;
    first_name?: string;
    last_name?: string;
    email: string;
    confirmed_at?: string | null;
    created_at?: string;
    profession?: unknown;
    business_memberships?: unknown[];
  };
}

/**
 * Sign in with FreshBooks (OAuth 2.0).
 *
 * Reads `AUTH_FRESHBOOKS_ID`, `AUTH_FRESHBOOKS_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/freshbooks` with Freshbooks. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Freshbooks()] })
 * ```
 */
export function Freshbooks(config?: OAuthUserConfig<FreshbooksProfile>): OAuthConfig<FreshbooksProfile> {
  return {
    id: 'freshbooks',
    name: 'Freshbooks',
    type: 'oauth',
    authorization: {
      url: 'https://auth.freshbooks.com/service/auth/oauth/authorize',
      params: { scope: 'openid profile email' },
    },
    token: 'https://api.freshbooks.com/auth/oauth/token',
    userinfo: 'https://api.freshbooks.com/auth/api/v1/users/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.response.id),
        name: joinName(profile.response.first_name, profile.response.last_name),
        email: profile.response.email ?? null,
        image: null,
      };
    },
    style: { brandColor: '#0075dd' },
    options: config,
  };
}
