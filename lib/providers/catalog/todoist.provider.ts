import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { authorizationHeader, endpointUrl, vendorJson } from './catalog.helpers.js';

/** The profile Todoist returns, as the vendor documents it. */
export interface TodoistProfile {
  user: {
    id: string;
    email: string;
    full_name: string;
    avatar_big?: string;
    avatar_medium?: string;
    avatar_s640?: string;
    avatar_small?: string;
    lang?: string;
    tz_info?: { timezone: string };
    is_premium?: boolean;
  };
  sync_token?: string;
  full_sync?: boolean;
}

/**
 * Sign in with Todoist (OAuth 2.0). The user is read from the Sync API (a POST asking for the `user` resource).
 *
 * Reads `AUTH_TODOIST_ID`, `AUTH_TODOIST_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/todoist` with Todoist. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Todoist()] })
 * ```
 */
export function Todoist(config?: OAuthUserConfig<TodoistProfile>): OAuthConfig<TodoistProfile> {
  return {
    id: 'todoist',
    name: 'Todoist',
    type: 'oauth',
    authorization: { url: 'https://todoist.com/oauth/authorize', params: { scope: 'data:read' } },
    token: 'https://todoist.com/oauth/access_token',
    userinfo: {
      url: 'https://api.todoist.com/sync/v9/sync',
      request: ({ tokens, provider }) =>
        vendorJson(provider, endpointUrl(provider.userinfo), {
          method: 'POST',
          headers: { ...authorizationHeader(tokens), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ sync_token: '*', resource_types: '["user"]' }).toString(),
        }),
    },
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return {
        id: profile.user.id,
        name: profile.user.full_name ?? null,
        email: profile.user.email ?? null,
        image: profile.user.avatar_big ?? null,
      };
    },
    style: { brandColor: '#e44332' },
    options: config,
  };
}
