import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId, trimSlash } from './catalog.helpers.js';

/** The profile GitLab returns, as the vendor documents it. */
export interface GitLabProfile {
  id: number;
  username: string;
  name: string;
  email: string;
  public_email?: string | null;
  avatar_url: string | null;
  state: string;
  web_url: string;
  created_at?: string;
  bio?: string;
  two_factor_enabled?: boolean;
}

/** Options of the {@link GitLab} factory beyond the provider config. */
export type GitLabOptions = {
  /** Base URL of a self-managed GitLab. @default 'https://gitlab.com' */
  baseUrl?: string;
};

/**
 * Sign in with GitLab (OAuth 2.0), gitlab.com or self-managed (`baseUrl`).
 *
 * Reads `AUTH_GITLAB_ID`, `AUTH_GITLAB_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/gitlab` with GitLab. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [GitLab()] })
 * ```
 */
export function GitLab(config?: OAuthUserConfig<GitLabProfile> & GitLabOptions): OAuthConfig<GitLabProfile> {
  const baseUrl = trimSlash(config?.baseUrl ?? 'https://gitlab.com');
  return {
    id: 'gitlab',
    name: 'GitLab',
    type: 'oauth',
    authorization: { url: `${baseUrl}/oauth/authorize`, params: { scope: 'read_user' } },
    token: `${baseUrl}/oauth/token`,
    userinfo: `${baseUrl}/api/v4/user`,
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.id),
        name: profile.name ?? profile.username ?? null,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    style: { brandColor: '#fc6d26' },
    options: config,
  };
}
