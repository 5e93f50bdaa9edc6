import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault, joinName, trimSlash } from './catalog.helpers.js';

/** The profile Mattermost returns, as the vendor documents it. */
export interface MattermostProfile {
  id: string;
  username: string;
  email: string;
  first_name?: string;
  last_name?: string;
  nickname?: string;
  position?: string;
  roles?: string;
  locale?: string;
  create_at?: number;
}

/**
 * Sign in with Mattermost (OAuth 2.0).
 *
 * Set `issuer` (AUTH_MATTERMOST_ISSUER) to the server's base URL; the endpoints are built from it.
 *
 * Reads `AUTH_MATTERMOST_ID`, `AUTH_MATTERMOST_SECRET`, `AUTH_MATTERMOST_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/mattermost` with Mattermost. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Mattermost()] })
 * ```
 */
export function Mattermost(config?: OAuthUserConfig<MattermostProfile>): OAuthConfig<MattermostProfile> {
  const rawIssuer = config?.issuer ?? envDefault('AUTH_MATTERMOST_ISSUER');
  const issuer = rawIssuer ? trimSlash(rawIssuer) : undefined;
  return {
    id: 'mattermost',
    name: 'Mattermost',
    type: 'oauth',
    authorization: issuer ? { url: `${issuer}/oauth/authorize`, params: { scope: 'openid profile email' } } : undefined,
    token: issuer ? `${issuer}/oauth/access_token` : undefined,
    userinfo: issuer ? `${issuer}/api/v4/users/me` : undefined,
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return {
        id: profile.id,
        name: profile.username ?? joinName(profile.first_name, profile.last_name),
        email: profile.email ?? null,
        image: null,
      };
    },
    style: { brandColor: '#1e325c' },
    options: config,
  };
}
