import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault, trimSlash } from './catalog.helpers.js';

/** The profile FusionAuth returns (ID token claims or userinfo), as the vendor documents it. */
export interface FusionAuthProfile {
  sub: string;
  aud: string;
  iss: string;
  iat: number;
  exp: number;
  jti?: string;
  authenticationType?: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
  picture?: string;
  at_hash?: string;
  c_hash?: string;
  scope?: string;
  sid?: string;
  tid?: string;
}

/** Options of the {@link FusionAuth} factory beyond the provider config. */
export type FusionAuthOptions = {
  /** The FusionAuth tenant of the application, sent as `tenantId`. */
  tenantId?: string;
};

/**
 * Sign in with FusionAuth (OpenID Connect).
 *
 * Set `issuer` (AUTH_FUSIONAUTH_ISSUER) to your FusionAuth URL; pass `tenantId` when the app lives
 * in a non-default tenant. FusionAuth adds a `WWW-Authenticate` header to successful token
 * responses, which the token `conform` removes (a client would read it as a challenge).
 *
 * Reads `AUTH_FUSIONAUTH_ID`, `AUTH_FUSIONAUTH_SECRET`, `AUTH_FUSIONAUTH_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/fusionauth` with FusionAuth. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [FusionAuth()] })
 * ```
 */
export function FusionAuth(
  config?: OIDCUserConfig<FusionAuthProfile> & FusionAuthOptions,
): OAuthConfig<FusionAuthProfile> {
  const rawIssuer = config?.issuer ?? envDefault('AUTH_FUSIONAUTH_ISSUER');
  const issuer = rawIssuer ? trimSlash(rawIssuer) : undefined;
  return {
    id: 'fusionauth',
    name: 'FusionAuth',
    type: 'oidc',
    issuer,
    authorization: {
      params: {
        scope: 'openid offline_access email profile',
        ...(config?.tenantId ? { tenantId: config.tenantId } : {}),
      },
    },
    token: issuer
      ? {
          url: `${issuer}/oauth2/token`,
          // A WWW-Authenticate header on a successful token response reads as a challenge: drop it.
          conform(response: Response) {
            if (response.status === 401 || !response.headers.has('www-authenticate')) return response;
            const headers = new Headers(response.headers);
            headers.delete('www-authenticate');
            return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
          },
        }
      : undefined,
    userinfo: issuer ? `${issuer}/oauth2/userinfo` : undefined,
    checks: ['pkce', 'state'],
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: '#f58320' },
    options: config,
  };
}
