import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault, joinName } from './catalog.helpers.js';

/** The profile WorkOS returns, as the vendor documents it. */
export interface WorkOSProfile {
  id: string;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  connection_id: string;
  connection_type: string;
  organization_id?: string | null;
  idp_id: string;
  raw_attributes?: Record<string, unknown> & { picture?: string };
}

/** Options of the {@link WorkOS} factory beyond the provider config. */
export type WorkOSOptions = {
  /** The WorkOS SSO connection id, sent as `connection`. */
  connection?: string;
};

/**
 * Sign in through SSO with WorkOS (OAuth 2.0).
 *
 * Pass `connection` (or `organization` / `provider` as sign-in parameters) to pick the SSO connection.
 * `issuer` defaults to `https://api.workos.com/`.
 *
 * Reads `AUTH_WORKOS_ID`, `AUTH_WORKOS_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/workos` with WorkOS. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [WorkOS()] })
 * ```
 */
export function WorkOS(config?: OAuthUserConfig<WorkOSProfile> & WorkOSOptions): OAuthConfig<WorkOSProfile> {
  const issuer = (config?.issuer ?? envDefault('AUTH_WORKOS_ISSUER') ?? 'https://api.workos.com/').replace(/\/*$/, '/');
  return {
    id: 'workos',
    name: 'WorkOS',
    type: 'oauth',
    issuer: issuer,
    authorization: {
      url: `${issuer}sso/authorize`,
      params: { scope: 'openid profile email', ...(config?.connection ? { connection: config.connection } : {}) },
    },
    token: `${issuer}sso/token`,
    userinfo: `${issuer}sso/profile`,
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return {
        id: profile.id,
        name: joinName(profile.first_name, profile.last_name),
        email: profile.email ?? null,
        image: typeof profile.raw_attributes?.picture === 'string' ? profile.raw_attributes.picture : null,
      };
    },
    style: { brandColor: '#6363f1' },
    options: config,
  };
}
