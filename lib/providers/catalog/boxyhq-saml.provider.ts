import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault, joinName, trimSlash } from './catalog.helpers.js';

/** The profile BoxyHQ SAML returns, as the vendor documents it. */
export interface BoxyHQSAMLProfile {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
  requested?: Record<string, unknown>;
}

/**
 * Sign in through SAML with BoxyHQ SAML Jackson (OAuth 2.0 in front of SAML).
 *
 * Set `issuer` (AUTH_BOXYHQ_SAML_ISSUER) to the Jackson base URL; pass `tenant` and `product` as
 * authorization parameters at sign-in (`POST /signin/boxyhq-saml?tenant=...&product=...`).
 *
 * Reads `AUTH_BOXYHQ_SAML_ID`, `AUTH_BOXYHQ_SAML_SECRET`, `AUTH_BOXYHQ_SAML_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/boxyhq-saml` with BoxyHQ SAML. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [BoxyHQSAML()] })
 * ```
 */
export function BoxyHQSAML(config?: OAuthUserConfig<BoxyHQSAMLProfile>): OAuthConfig<BoxyHQSAMLProfile> {
  const rawIssuer = config?.issuer ?? envDefault('AUTH_BOXYHQ_SAML_ISSUER');
  const issuer = rawIssuer ? trimSlash(rawIssuer) : undefined;
  return {
    id: 'boxyhq-saml',
    name: 'BoxyHQ SAML',
    type: 'oauth',
    issuer,
    authorization: issuer
      ? { url: `${issuer}/api/oauth/authorize`, params: { provider: 'saml', scope: 'openid profile email' } }
      : undefined,
    token: issuer ? `${issuer}/api/oauth/token` : undefined,
    userinfo: issuer ? `${issuer}/api/oauth/userinfo` : undefined,
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: joinName(profile.firstName, profile.lastName),
        email: profile.email ?? null,
        image: null,
      };
    },
    style: { brandColor: '#25c2a0' },
    options: config,
  };
}
