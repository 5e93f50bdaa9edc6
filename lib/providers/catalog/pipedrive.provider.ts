import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId } from './catalog.helpers.js';

/** The profile Pipedrive returns, as the vendor documents it. */
export interface PipedriveProfile {
  success: boolean;
  data: {
    id: number;
    name: string;
    default_currency?: string;
    locale?: string;
    lang?: number;
    email: string;
    phone?: string | null;
    activated?: boolean;
    icon_url: string | null;
    company_id?: number;
    company_name?: string;
    company_domain?: string;
    timezone_name?: string;
  };
}

/**
 * Sign in with Pipedrive (OAuth 2.0).
 *
 * Reads `AUTH_PIPEDRIVE_ID`, `AUTH_PIPEDRIVE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/pipedrive` with Pipedrive. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Pipedrive()] })
 * ```
 */
export function Pipedrive(config?: OAuthUserConfig<PipedriveProfile>): OAuthConfig<PipedriveProfile> {
  return {
    id: 'pipedrive',
    name: 'Pipedrive',
    type: 'oauth',
    authorization: { url: 'https://oauth.pipedrive.com/oauth/authorize', params: { scope: 'openid profile email' } },
    token: 'https://oauth.pipedrive.com/oauth/token',
    userinfo: 'https://api.pipedrive.com/users/me',
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.data.id),
        name: profile.data.name ?? null,
        email: profile.data.email ?? null,
        image: profile.data.icon_url ?? null,
      };
    },
    style: { brandColor: '#017737' },
    options: config,
  };
}
