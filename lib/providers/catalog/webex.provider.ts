import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { joinName, trimSlash } from './catalog.helpers.js';

/** The profile Webex returns, as the vendor documents it. */
export interface WebexProfile {
  id: string;
  emails: string[];
  displayName?: string;
  nickName?: string;
  firstName?: string;
  lastName?: string;
  avatar?: string;
  orgId?: string;
  created?: string;
  type?: 'person' | 'bot' | 'appuser';
}

/** Options of the {@link Webex} factory beyond the provider config. */
export type WebexOptions = {
  /** Webex API base URL. @default 'https://webexapis.com/v1' */
  apiBaseUrl?: string;
};

/**
 * Sign in with Webex (OAuth 2.0). `apiBaseUrl` points at another Webex API base (e.g. FedRAMP).
 *
 * Reads `AUTH_WEBEX_ID`, `AUTH_WEBEX_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/webex` with Webex. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Webex()] })
 * ```
 */
export function Webex(config?: OAuthUserConfig<WebexProfile> & WebexOptions): OAuthConfig<WebexProfile> {
  const apiBaseUrl = trimSlash(config?.apiBaseUrl ?? 'https://webexapis.com/v1');
  return {
    id: 'webex',
    name: 'Webex',
    type: 'oauth',
    authorization: { url: `${apiBaseUrl}/authorize`, params: { scope: 'spark:kms spark:people_read' } },
    token: `${apiBaseUrl}/access_token`,
    userinfo: `${apiBaseUrl}/people/me`,
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.displayName ?? joinName(profile.firstName, profile.lastName),
        email: profile.emails?.[0] ?? null,
        image: profile.avatar ?? null,
      };
    },
    style: { brandColor: '#00bceb' },
    options: config,
  };
}
