import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault } from './catalog.helpers.js';

/** The profile United Effects returns (ID token claims or userinfo), as the vendor documents it. */
export interface UnitedEffectsProfile {
  sub: string;
  email: string;
  email_verified?: boolean;
}

/**
 * Sign in with United Effects Core (OpenID Connect).
 *
 * Set `issuer` (AUTH_UNITED_EFFECTS_ISSUER) to `https://auth.unitedeffects.com/{authGroupId}`; it is also sent as `resource`.
 *
 * Reads `AUTH_UNITED_EFFECTS_ID`, `AUTH_UNITED_EFFECTS_SECRET`, `AUTH_UNITED_EFFECTS_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/united-effects` with United Effects. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [UnitedEffects()] })
 * ```
 */
export function UnitedEffects(config?: OIDCUserConfig<UnitedEffectsProfile>): OAuthConfig<UnitedEffectsProfile> {
  const issuer = config?.issuer ?? envDefault('AUTH_UNITED_EFFECTS_ISSUER');
  return {
    id: 'united-effects',
    name: 'United Effects',
    type: 'oidc',
    authorization: { params: { scope: 'openid email profile', ...(issuer ? { resource: issuer } : {}) } },
    checks: ['pkce'],
    profile(profile) {
      return { id: profile.sub, name: null, email: profile.email ?? null, image: null };
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
