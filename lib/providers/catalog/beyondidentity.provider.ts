import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Beyond Identity returns (ID token claims or userinfo), as the vendor documents it. */
export interface BeyondIdentityProfile {
  sub: string;
  name?: string;
  preferred_username?: string;
  email?: string;
}

/**
 * Sign in with Beyond Identity (OpenID Connect, passwordless).
 *
 * Set `issuer` (AUTH_BEYONDIDENTITY_ISSUER) to your application's issuer URL.
 *
 * Reads `AUTH_BEYONDIDENTITY_ID`, `AUTH_BEYONDIDENTITY_SECRET`, `AUTH_BEYONDIDENTITY_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/beyondidentity` with Beyond Identity. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [BeyondIdentity()] })
 * ```
 */
export function BeyondIdentity(config?: OIDCUserConfig<BeyondIdentityProfile>): OAuthConfig<BeyondIdentityProfile> {
  return {
    id: 'beyondidentity',
    name: 'Beyond Identity',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.email ?? null,
        image: null,
      };
    },
    style: { brandColor: '#5077c5' },
    options: config,
  };
}
