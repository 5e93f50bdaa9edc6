import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile Wikimedia returns, as the vendor documents it. */
export interface WikimediaProfile {
  /** The central user id (a number). */
  sub: number | string;
  username: string;
  editcount?: number;
  confirmed_email?: boolean;
  blocked?: boolean;
  registered?: string;
  groups?: string[];
  rights?: string[];
  realname?: string;
  email?: string;
}

/**
 * Sign in with a Wikimedia account (Meta-Wiki OAuth 2.0). The email is shared only with the "User identity verification with email" grant.
 *
 * Reads `AUTH_WIKIMEDIA_ID`, `AUTH_WIKIMEDIA_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/wikimedia` with Wikimedia. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Wikimedia()] })
 * ```
 */
export function Wikimedia(config?: OAuthUserConfig<WikimediaProfile>): OAuthConfig<WikimediaProfile> {
  return {
    id: 'wikimedia',
    name: 'Wikimedia',
    type: 'oauth',
    authorization: { url: 'https://meta.wikimedia.org/w/rest.php/oauth2/authorize', params: { scope: '' } },
    token: 'https://meta.wikimedia.org/w/rest.php/oauth2/access_token',
    userinfo: 'https://meta.wikimedia.org/w/rest.php/oauth2/resource/profile',
    checks: ['pkce'],
    profile(profile) {
      return { id: accountId(profile.sub), name: profile.username ?? null, email: profile.email ?? null, image: null };
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
