import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile Dribbble returns, as the vendor documents it. */
export interface DribbbleProfile {
  id: number;
  name: string;
  login: string;
  email?: string | null;
  avatar_url: string;
  bio?: string;
  html_url?: string;
  location?: string | null;
}

/** Options of the {@link Dribbble} factory beyond the provider config. */
export type DribbbleOptions = {
  /** Scopes to ask for. @default 'public' */
  scope?: 'public' | 'public upload';
};

/**
 * Sign in with Dribbble (OAuth 2.0).
 *
 * Pass `scope: 'public upload'` to ask for more than the default `public`.
 *
 * Reads `AUTH_DRIBBBLE_ID`, `AUTH_DRIBBBLE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/dribbble` with Dribbble. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Dribbble()] })
 * ```
 */
export function Dribbble(config?: OAuthUserConfig<DribbbleProfile> & DribbbleOptions): OAuthConfig<DribbbleProfile> {
  return {
    id: 'dribbble',
    name: 'Dribbble',
    type: 'oauth',
    authorization: { url: 'https://dribbble.com/oauth/authorize', params: { scope: config?.scope ?? 'public' } },
    token: 'https://dribbble.com/oauth/token',
    userinfo: 'https://api.dribbble.com/v2/user',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.id),
        name: profile.name ?? profile.login ?? null,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    style: { brandColor: '#ea4c89' },
    options: config,
  };
}
