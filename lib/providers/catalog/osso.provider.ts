import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault, trimSlash } from './catalog.helpers.js';

/** The profile Osso returns, as the vendor documents it. */
export interface OssoProfile {
  id: string;
  email: string;
  idp: string;
  requested?: { domain?: string; email?: string | null };
}

/**
 * Sign in through SAML with Osso (OAuth 2.0).
 *
 * Set `issuer` (AUTH_OSSO_ISSUER) to your Osso instance URL.
 *
 * Reads `AUTH_OSSO_ID`, `AUTH_OSSO_SECRET`, `AUTH_OSSO_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/osso` with Osso. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Osso()] })
 * ```
 */
export function Osso(config?: OAuthUserConfig<OssoProfile>): OAuthConfig<OssoProfile> {
  const rawIssuer = config?.issuer ?? envDefault('AUTH_OSSO_ISSUER');
  // Osso's endpoints are joined to the issuer without a slash: keep exactly one.
  const issuer = rawIssuer ? `${trimSlash(rawIssuer)}/` : undefined;
  return {
    id: 'osso',
    name: 'Osso',
    type: 'oauth',
    issuer,
    authorization: issuer ? { url: `${issuer}oauth/authorize`, params: { scope: 'openid profile email' } } : undefined,
    token: issuer ? `${issuer}oauth/token` : undefined,
    userinfo: issuer ? `${issuer}oauth/me` : undefined,
    checks: ['pkce'],
    profile(profile) {
      return { id: profile.id, name: null, email: profile.email ?? null, image: null };
    },
    style: { brandColor: '#0b1d51' },
    options: config,
  };
}
