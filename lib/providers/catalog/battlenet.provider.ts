import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';

/** The issuers Battle.net runs, by region. */
export type BattleNetIssuer =
  | 'https://oauth.battle.net'
  | 'https://oauth.battlenet.com.cn'
  | 'https://www.battlenet.com.cn/oauth'
  | `https://${'us' | 'eu' | 'kr' | 'tw'}.battle.net/oauth`;

/** The profile Battle.net returns (ID token claims or userinfo), as the vendor documents it. */
export interface BattleNetProfile {
  sub: string;
  /** The BattleTag, e.g. `Jane#1234`. */
  battle_tag: string;
  id?: number;
}

/** Options of the {@link BattleNet} factory beyond the provider config. */
export type BattleNetOptions = {
  /** One of Battle.net's regional issuers. */
  issuer?: BattleNetIssuer;
};

/**
 * Sign in with Battle.net (OpenID Connect).
 *
 * Set `issuer` (AUTH_BATTLENET_ISSUER) to the region's issuer, one of {@link BattleNetIssuer}.
 * Battle.net shares no email address.
 *
 * Reads `AUTH_BATTLENET_ID`, `AUTH_BATTLENET_SECRET`, `AUTH_BATTLENET_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/battlenet` with Battle.net. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [BattleNet()] })
 * ```
 */
export function BattleNet(config?: OIDCUserConfig<BattleNetProfile> & BattleNetOptions): OAuthConfig<BattleNetProfile> {
  return {
    id: 'battlenet',
    name: 'Battle.net',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return { id: profile.sub, name: profile.battle_tag ?? null, email: null, image: null };
    },
    style: { brandColor: '#148eff' },
    options: config,
  };
}
