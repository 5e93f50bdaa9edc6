import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { joinName } from './catalog.helpers.js';

/** The profile BankID Norge returns (ID token claims or userinfo), as the vendor documents it. */
export interface BankIDNorgeProfile {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  birthdate?: string;
  email?: string;
  email_verified?: boolean;
  updated_at?: number;
  /** Pseudonymous national identity number alias. */
  nnin_altsub?: string;
  acr?: string;
  sid?: string;
}

/**
 * Sign in with BankID Norge (OpenID Connect).
 *
 * The profile comes from the signed userinfo response (`idToken: false`,
 * `userinfo_signed_response_alg: RS256`); `ui_locales=no` and `login_hint=BIS` are sent.
 *
 * Reads `AUTH_BANKID_NO_ID`, `AUTH_BANKID_NO_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/bankid-no` with BankID Norge. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [BankIDNorge()] })
 * ```
 */
export function BankIDNorge(config?: OIDCUserConfig<BankIDNorgeProfile>): OAuthConfig<BankIDNorgeProfile> {
  return {
    id: 'bankid-no',
    name: 'BankID Norge',
    type: 'oidc',
    issuer: 'https://auth.bankid.no/auth/realms/prod',
    authorization: { params: { ui_locales: 'no', login_hint: 'BIS', scope: 'openid profile email' } },
    checks: ['pkce', 'state', 'nonce'],
    client: { token_endpoint_auth_method: 'client_secret_post', userinfo_signed_response_alg: 'RS256' },
    idToken: false,
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? joinName(profile.given_name, profile.family_name),
        email: profile.email ?? null,
        image: null,
      };
    },
    style: { brandColor: '#39134c' },
    options: config,
  };
}
