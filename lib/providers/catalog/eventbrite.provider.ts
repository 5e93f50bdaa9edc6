import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { joinName } from './catalog.helpers.js';

/** The profile Eventbrite returns, as the vendor documents it. */
export interface EventbriteProfile {
  id: string;
  name: string;
  first_name?: string;
  last_name?: string;
  emails: Array<{ email: string; verified: boolean; primary: boolean }>;
  image_id?: string | null;
  is_public?: boolean;
}

/**
 * Sign in with Eventbrite (OAuth 2.0). The email is the primary address of `emails`.
 *
 * Reads `AUTH_EVENTBRITE_ID`, `AUTH_EVENTBRITE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/eventbrite` with Eventbrite. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Eventbrite()] })
 * ```
 */
export function Eventbrite(config?: OAuthUserConfig<EventbriteProfile>): OAuthConfig<EventbriteProfile> {
  return {
    id: 'eventbrite',
    name: 'Eventbrite',
    type: 'oauth',
    authorization: { url: 'https://www.eventbrite.com/oauth/authorize', params: { scope: 'user.profile' } },
    token: 'https://www.eventbrite.com/oauth/token',
    userinfo: 'https://www.eventbriteapi.com/v3/users/me/',
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      const email = profile.emails?.find((e) => e.primary) ?? profile.emails?.[0];
      return {
        id: profile.id,
        name: profile.name ?? joinName(profile.first_name, profile.last_name),
        email: email?.email ?? null,
        image: null,
      };
    },
    style: { brandColor: '#ff5616' },
    options: config,
  };
}
