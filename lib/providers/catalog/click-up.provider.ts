import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile ClickUp returns, as the vendor documents it. */
export interface ClickUpProfile {
  user: {
    id: number;
    username: string;
    email?: string;
    color?: string;
    profilePicture?: string | null;
    initials?: string;
    week_start_day?: number | null;
    timezone?: string;
  };
}

/**
 * Sign in with ClickUp (OAuth 2.0).
 *
 * Reads `AUTH_CLICK_UP_ID`, `AUTH_CLICK_UP_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/click-up` with ClickUp. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [ClickUp()] })
 * ```
 */
export function ClickUp(config?: OAuthUserConfig<ClickUpProfile>): OAuthConfig<ClickUpProfile> {
  return {
    id: 'click-up',
    name: 'ClickUp',
    type: 'oauth',
    authorization: { url: 'https://app.clickup.com/api', params: { scope: 'openid profile email' } },
    token: 'https://api.clickup.com/api/v2/oauth/token',
    userinfo: 'https://api.clickup.com/api/v2/user',
    checks: ['state'],
    profile(profile) {
      return {
        id: accountId(profile.user.id),
        name: profile.user.username ?? null,
        email: profile.user.email ?? null,
        image: profile.user.profilePicture ?? null,
      };
    },
    style: { brandColor: '#7b68ee' },
    options: config,
  };
}
