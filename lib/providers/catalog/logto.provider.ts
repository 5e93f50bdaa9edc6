import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Logto returns (ID token claims or userinfo), as the vendor documents it. */
export interface LogtoProfile {
  /** Subject: the user's stable id at the provider. */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  username?: string | null;
  phone_number?: string | null;
  phone_number_verified?: boolean;
}

/**
 * Sign in with Logto (OpenID Connect).
 *
 * Set `issuer` (AUTH_LOGTO_ISSUER) to `https://{tenant}.logto.app/oidc`.
 *
 * Reads `AUTH_LOGTO_ID`, `AUTH_LOGTO_SECRET`, `AUTH_LOGTO_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/logto` with Logto. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Logto()] })
 * ```
 */
export function Logto(config?: OIDCUserConfig<LogtoProfile>): OAuthConfig<LogtoProfile> {
  return {
    id: 'logto',
    name: 'Logto',
    type: 'oidc',
    authorization: { params: { scope: 'offline_access openid email profile' } },
    checks: ['pkce'],
    profile(profile) {
      return { ...standardClaimsUser(profile), name: profile.name ?? profile.username ?? null };
    },
    style: { brandColor: '#5d34f2' },
    options: config,
  };
}
