import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { authorizationHeader, endpointUrl, vendorJson } from './catalog.helpers.js';

/** The profile Dropbox returns, as the vendor documents it. */
export interface DropboxProfile {
  account_id: string;
  name: { given_name: string; surname: string; familiar_name: string; display_name: string; abbreviated_name: string };
  email: string;
  email_verified: boolean;
  disabled?: boolean;
  locale?: string;
  country?: string;
  profile_photo_url?: string;
  account_type?: { '.tag': string };
}

/**
 * Sign in with Dropbox (OAuth 2.0). Asks for offline access (a refresh token); the account is read with a POST, as Dropbox's RPC API requires.
 *
 * Reads `AUTH_DROPBOX_ID`, `AUTH_DROPBOX_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/dropbox` with Dropbox. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Dropbox()] })
 * ```
 */
export function Dropbox(config?: OAuthUserConfig<DropboxProfile>): OAuthConfig<DropboxProfile> {
  return {
    id: 'dropbox',
    name: 'Dropbox',
    type: 'oauth',
    authorization: {
      url: 'https://www.dropbox.com/oauth2/authorize',
      params: { token_access_type: 'offline', scope: 'account_info.read' },
    },
    token: 'https://api.dropboxapi.com/oauth2/token',
    userinfo: {
      url: 'https://api.dropboxapi.com/2/users/get_current_account',
      // An RPC endpoint: POST with no body (and so no content type).
      request: ({ tokens, provider }) =>
        vendorJson(provider, endpointUrl(provider.userinfo), { method: 'POST', headers: authorizationHeader(tokens) }),
    },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.account_id,
        name: profile.name?.display_name ?? null,
        email: profile.email ?? null,
        image: profile.profile_photo_url ?? null,
      };
    },
    style: { brandColor: '#0061fe' },
    options: config,
  };
}
