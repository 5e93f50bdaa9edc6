import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault, standardClaimsUser, trimSlash } from './catalog.helpers.js';

/** The profile Frontegg returns (ID token claims or userinfo), as the vendor documents it. */
export interface FronteggProfile {
  /** Subject: the user's stable id at the provider. */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  /** Frontegg's own avatar claim, when `picture` is absent. */
  profilePictureUrl?: string;
  tenantId?: string;
}

/**
 * Sign in with Frontegg (OpenID Connect).
 *
 * Set `issuer` (AUTH_FRONTEGG_ISSUER) to your Frontegg domain, e.g. `https://{subdomain}.frontegg.com`.
 *
 * Reads `AUTH_FRONTEGG_ID`, `AUTH_FRONTEGG_SECRET`, `AUTH_FRONTEGG_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/frontegg` with Frontegg. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Frontegg()] })
 * ```
 */
export function Frontegg(config?: OIDCUserConfig<FronteggProfile>): OAuthConfig<FronteggProfile> {
  const rawIssuer = config?.issuer ?? envDefault('AUTH_FRONTEGG_ISSUER');
  const issuer = rawIssuer ? trimSlash(rawIssuer) : undefined;
  return {
    id: 'frontegg',
    name: 'Frontegg',
    type: 'oidc',
    issuer,
    authorization: issuer ? { url: `${issuer}/oauth/authorize`, params: { scope: 'openid profile email' } } : undefined,
    token: issuer ? `${issuer}/oauth/token` : undefined,
    userinfo: issuer ? `${issuer}/identity/resources/users/v2/me` : undefined,
    checks: ['pkce'],
    profile(profile) {
      return { ...standardClaimsUser(profile), image: profile.picture ?? profile.profilePictureUrl ?? null };
    },
    style: { brandColor: '#4461f2' },
    options: config,
  };
}
