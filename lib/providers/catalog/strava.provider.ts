import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId, joinName } from './catalog.helpers.js';

/** The profile Strava returns, as the vendor documents it. */
export interface StravaProfile {
  id: number;
  username: string | null;
  firstname: string;
  lastname: string;
  city?: string;
  country?: string;
  sex?: 'M' | 'F' | null;
  premium?: boolean;
  summit?: boolean;
  created_at?: string;
  /** Large profile picture URL. */
  profile: string;
  profile_medium?: string;
}

/**
 * Sign in with Strava (OAuth 2.0). Strava shares no email address.
 *
 * Reads `AUTH_STRAVA_ID`, `AUTH_STRAVA_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/strava` with Strava. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Strava()] })
 * ```
 */
export function Strava(config?: OAuthUserConfig<StravaProfile>): OAuthConfig<StravaProfile> {
  return {
    id: 'strava',
    name: 'Strava',
    type: 'oauth',
    authorization: {
      url: 'https://www.strava.com/api/v3/oauth/authorize',
      params: { scope: 'read', approval_prompt: 'auto', response_type: 'code' },
    },
    token: 'https://www.strava.com/api/v3/oauth/token',
    userinfo: 'https://www.strava.com/api/v3/athlete',
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return {
        id: accountId(profile.id),
        name: joinName(profile.firstname, profile.lastname) ?? profile.username ?? null,
        email: null,
        image: profile.profile ?? null,
      };
    },
    style: { brandColor: '#fc4c02' },
    options: config,
  };
}
