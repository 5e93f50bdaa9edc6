import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Atlassian returns, as the vendor documents it. */
export interface AtlassianProfile {
  account_id: string;
  account_type?: string;
  account_status?: string;
  email: string;
  email_verified?: boolean;
  name: string;
  nickname?: string;
  picture: string;
  zoneinfo?: string;
  locale?: string;
  extended_profile?: { job_title?: string; organization?: string; department?: string; location?: string };
}

/**
 * Sign in with an Atlassian account (OAuth 2.0 3LO); `audience=api.atlassian.com` is sent.
 *
 * Reads `AUTH_ATLASSIAN_ID`, `AUTH_ATLASSIAN_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/atlassian` with Atlassian. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Atlassian()] })
 * ```
 */
export function Atlassian(config?: OAuthUserConfig<AtlassianProfile>): OAuthConfig<AtlassianProfile> {
  return {
    id: 'atlassian',
    name: 'Atlassian',
    type: 'oauth',
    authorization: {
      url: 'https://auth.atlassian.com/authorize',
      params: { audience: 'api.atlassian.com', scope: 'read:me' },
    },
    token: 'https://auth.atlassian.com/oauth/token',
    userinfo: 'https://api.atlassian.com/me',
    checks: ['state'],
    profile(profile) {
      return {
        id: profile.account_id,
        name: profile.name ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    style: { brandColor: '#0052cc' },
    options: config,
  };
}
