import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile 42 School returns, as the vendor documents it. */
export interface FortyTwoSchoolProfile {
  id: number;
  email: string;
  login: string;
  first_name: string;
  last_name: string;
  usual_full_name: string | null;
  usual_first_name: string | null;
  displayname: string;
  url: string;
  image: {
    link: string | null;
    versions: { large: string | null; medium: string | null; small: string | null; micro: string | null };
  };
  'staff?': boolean;
  campus_users?: Array<{ id: number; user_id: number; campus_id: number; is_primary: boolean }>;
}

/**
 * Sign in with a 42 School (intra.42.fr) account.
 *
 * Reads `AUTH_42_SCHOOL_ID`, `AUTH_42_SCHOOL_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/42-school` with 42 School. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [FortyTwoSchool()] })
 * ```
 */
export function FortyTwoSchool(config?: OAuthUserConfig<FortyTwoSchoolProfile>): OAuthConfig<FortyTwoSchoolProfile> {
  return {
    id: '42-school',
    name: '42 School',
    type: 'oauth',
    authorization: { url: 'https://api.intra.42.fr/oauth/authorize', params: { scope: 'public' } },
    token: 'https://api.intra.42.fr/oauth/token',
    userinfo: 'https://api.intra.42.fr/v2/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.id),
        name: profile.usual_full_name ?? profile.displayname ?? null,
        email: profile.email ?? null,
        image: profile.image?.link ?? null,
      };
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
