import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Threads returns, as the vendor documents it. */
export interface ThreadsProfile {
  id: string;
  username: string;
  threads_profile_picture_url?: string;
  threads_biography?: string;
}

/**
 * Sign in with Threads (Meta, OAuth 2.0). Threads shares no email address.
 *
 * Reads `AUTH_THREADS_ID`, `AUTH_THREADS_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/threads` with Threads. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Threads()] })
 * ```
 */
export function Threads(config?: OAuthUserConfig<ThreadsProfile>): OAuthConfig<ThreadsProfile> {
  return {
    id: 'threads',
    name: 'Threads',
    type: 'oauth',
    authorization: { url: 'https://threads.net/oauth/authorize', params: { scope: 'threads_basic' } },
    token: 'https://graph.threads.net/oauth/access_token',
    userinfo: 'https://graph.threads.net/v1.0/me?fields=id,username,threads_profile_picture_url',
    checks: ['state'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return {
        id: profile.id,
        name: profile.username ?? null,
        email: null,
        image: profile.threads_profile_picture_url ?? null,
      };
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
