import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId, joinName } from './catalog.helpers.js';

/** The profile Concept2 returns, as the vendor documents it. */
export interface Concept2Profile {
  data: {
    id: number;
    username: string;
    first_name?: string;
    last_name?: string;
    email?: string;
    gender?: string;
    dob?: string;
    country?: string;
    profile_image?: string;
    age_restricted?: boolean;
    email_permission?: boolean | null;
    max_heart_rate?: number | null;
    weight?: number | null;
    logbook_privacy?: string | null;
  };
}

/**
 * Sign in with the Concept2 logbook (OAuth 2.0).
 *
 * Reads `AUTH_CONCEPT2_ID`, `AUTH_CONCEPT2_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/concept2` with Concept2. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Concept2()] })
 * ```
 */
export function Concept2(config?: OAuthUserConfig<Concept2Profile>): OAuthConfig<Concept2Profile> {
  return {
    id: 'concept2',
    name: 'Concept2',
    type: 'oauth',
    authorization: { url: 'https://log.concept2.com/oauth/authorize', params: { scope: 'user:read,results:write' } },
    token: 'https://log.concept2.com/oauth/access_token',
    userinfo: 'https://log.concept2.com/api/users/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.data.id),
        name: profile.data.username ?? joinName(profile.data.first_name, profile.data.last_name),
        email: profile.data.email ?? null,
        image: profile.data.profile_image ?? null,
      };
    },
    style: { brandColor: '#003a70' },
    options: config,
  };
}
