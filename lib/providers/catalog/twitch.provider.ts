import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { jsonResponse } from './catalog.helpers.js';

/** The profile Twitch returns (ID token claims or userinfo), as the vendor documents it. */
export interface TwitchProfile {
  sub: string;
  iss?: string;
  aud?: string;
  azp?: string;
  exp?: number;
  iat?: number;
  nonce?: string;
  preferred_username: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  updated_at?: string;
}

/**
 * Sign in with Twitch (OpenID Connect).
 *
 * The `claims` parameter asks for email, picture and username in the ID token. Twitch answers the
 * token request with `scope` as an array and errors as `{ status, message }`: the token
 * `conform` turns both into standard OAuth responses.
 *
 * Reads `AUTH_TWITCH_ID`, `AUTH_TWITCH_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/twitch` with Twitch. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Twitch()] })
 * ```
 */
export function Twitch(config?: OIDCUserConfig<TwitchProfile>): OAuthConfig<TwitchProfile> {
  return {
    id: 'twitch',
    name: 'Twitch',
    type: 'oidc',
    issuer: 'https://id.twitch.tv/oauth2',
    authorization: {
      params: {
        scope: 'openid user:read:email',
        claims: JSON.stringify({ id_token: { email: null, picture: null, preferred_username: null } }),
      },
    },
    token: {
      async conform(response: Response) {
        let body: unknown;
        try {
          body = await response.clone().json();
        } catch {
          return response;
        }
        if (!body || typeof body !== 'object' || Array.isArray(body)) return response;
        const fixed: Record<string, unknown> = { ...(body as Record<string, unknown>) };
        if (!response.ok && typeof fixed.error_description !== 'string' && typeof fixed.message === 'string') {
          // Twitch errors look like { status, message }: make them an OAuth error response.
          return jsonResponse({ error: 'invalid_request', error_description: fixed.message }, response);
        }
        if (Array.isArray(fixed.scope)) fixed.scope = fixed.scope.join(' ');
        else if (fixed.scope !== undefined && typeof fixed.scope !== 'string') delete fixed.scope;
        return jsonResponse(fixed, response);
      },
    },
    checks: ['pkce'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.preferred_username ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: '#9146ff' },
    options: config,
  };
}
