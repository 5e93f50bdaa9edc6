import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile EVE Online returns, as the vendor documents it. */
export interface EVEOnlineProfile {
  CharacterID: number;
  CharacterName: string;
  ExpiresOn: string;
  Scopes: string;
  TokenType: string;
  CharacterOwnerHash: string;
  IntellectualProperty: string;
}

/**
 * Sign in with EVE Online (EVE SSO, OAuth 2.0). The profile is the character; EVE shares no email address.
 *
 * Reads `AUTH_EVEONLINE_ID`, `AUTH_EVEONLINE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/eveonline` with EVE Online. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [EVEOnline()] })
 * ```
 */
export function EVEOnline(config?: OAuthUserConfig<EVEOnlineProfile>): OAuthConfig<EVEOnlineProfile> {
  return {
    id: 'eveonline',
    name: 'EVE Online',
    type: 'oauth',
    authorization: { url: 'https://login.eveonline.com/v2/oauth/authorize', params: { scope: 'publicData' } },
    token: 'https://login.eveonline.com/v2/oauth/token',
    userinfo: 'https://login.eveonline.com/oauth/verify',
    checks: ['state'],
    profile(profile) {
      return {
        id: accountId(profile.CharacterID),
        name: profile.CharacterName ?? null,
        email: null,
        image: `https://image.eveonline.com/Character/${profile.CharacterID}_128.jpg`,
      };
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
