import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { authorizationHeader, endpointUrl, envDefault, trimSlash, vendorJson } from './catalog.helpers.js';

/** The profile Nextcloud returns, as the vendor documents it. */
export interface NextcloudProfile {
  ocs: {
    meta?: { status: string; statuscode: number; message: string };
    data: {
      id: string;
      displayname?: string;
      email?: string | null;
      enabled?: boolean;
      language?: string;
      locale?: string;
      groups?: string[];
    };
  };
}

/**
 * Sign in with Nextcloud (OAuth 2.0).
 *
 * Set `issuer` (AUTH_NEXTCLOUD_ISSUER) to the instance URL. The user is read from the OCS API for
 * the `user_id` of the token response.
 *
 * Reads `AUTH_NEXTCLOUD_ID`, `AUTH_NEXTCLOUD_SECRET`, `AUTH_NEXTCLOUD_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/nextcloud` with Nextcloud. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Nextcloud()] })
 * ```
 */
export function Nextcloud(config?: OAuthUserConfig<NextcloudProfile>): OAuthConfig<NextcloudProfile> {
  const rawIssuer = config?.issuer ?? envDefault('AUTH_NEXTCLOUD_ISSUER');
  const issuer = rawIssuer ? trimSlash(rawIssuer) : undefined;
  return {
    id: 'nextcloud',
    name: 'Nextcloud',
    type: 'oauth',
    issuer,
    authorization: issuer
      ? { url: `${issuer}/apps/oauth2/authorize`, params: { scope: 'openid profile email' } }
      : undefined,
    token: issuer ? `${issuer}/apps/oauth2/api/v1/token` : undefined,
    userinfo: issuer
      ? {
          url: `${issuer}/ocs/v1.php/cloud/users`,
          async request({ tokens, provider }) {
            const url = endpointUrl(provider.userinfo);
            url.pathname = `${url.pathname.replace(/\/+$/, '')}/${encodeURIComponent(String(tokens.user_id ?? ''))}`;
            url.searchParams.set('format', 'json');
            return vendorJson(provider, url, { headers: { ...authorizationHeader(tokens), 'ocs-apirequest': 'true' } });
          },
        }
      : undefined,
    checks: ['pkce'],
    profile(profile) {
      const user = profile.ocs.data;
      return {
        id: user.id,
        name: user.displayname ?? user.id,
        email: user.email ?? null,
        image: issuer ? `${issuer}/avatar/${encodeURIComponent(user.id)}/512` : null,
      };
    },
    style: { brandColor: '#0082c9' },
    options: config,
  };
}
