import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import type { Profile } from '../../types/common.types.js';
import { accountId, authorizationHeader, endpointUrl, trimSlash, vendorJson } from './catalog.helpers.js';

/** The authenticated user of GitHub's `GET /user`, as GitHub documents it. */
export interface GitHubProfile {
  login: string;
  id: number;
  node_id: string;
  avatar_url: string;
  gravatar_id?: string | null;
  url?: string;
  html_url: string;
  type?: string;
  site_admin?: boolean;
  name: string | null;
  company?: string | null;
  blog?: string | null;
  location?: string | null;
  /** The public email; `null` when the user keeps it private (then `/user/emails` is read). */
  email: string | null;
  hireable?: boolean | null;
  bio?: string | null;
  twitter_username?: string | null;
  public_repos?: number;
  followers?: number;
  following?: number;
  created_at?: string;
  updated_at?: string;
  two_factor_authentication?: boolean;
}

/** One entry of GitHub's `GET /user/emails`. */
export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility: 'public' | 'private' | null;
}

/** Options of the {@link GitHub} factory beyond the provider config. */
export type GitHubOptions = {
  /** GitHub Enterprise Server: its base URL (e.g. `https://github.example.com`). */
  enterprise?: { baseUrl?: string };
};

/**
 * Sign in with GitHub (OAuth App or GitHub App).
 *
 * A user who keeps their email private has `email: null` on `/user`: the primary address (else the
 * first one) is then read from `/user/emails`, which the default `user:email` scope allows.
 * `enterprise.baseUrl` targets GitHub Enterprise Server (`{baseUrl}/login/oauth/*`, `{baseUrl}/api/v3`).
 * The issuer is only used for the RFC 9207 `iss` check of the callback.
 *
 * Reads `AUTH_GITHUB_ID`, `AUTH_GITHUB_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/github` with GitHub. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [GitHub()] })
 * ```
 */
export function GitHub(config?: OAuthUserConfig<GitHubProfile> & GitHubOptions): OAuthConfig<GitHubProfile> {
  const baseUrl = trimSlash(config?.enterprise?.baseUrl ?? 'https://github.com');
  const apiUrl = config?.enterprise?.baseUrl ? `${baseUrl}/api/v3` : 'https://api.github.com';
  return {
    id: 'github',
    name: 'GitHub',
    type: 'oauth',
    issuer: `${baseUrl}/login/oauth`,
    authorization: { url: `${baseUrl}/login/oauth/authorize`, params: { scope: 'read:user user:email' } },
    token: `${baseUrl}/login/oauth/access_token`,
    userinfo: {
      url: `${apiUrl}/user`,
      async request({ tokens, provider }) {
        const userUrl = endpointUrl(provider.userinfo);
        // GitHub's API refuses requests without a User-Agent.
        const headers = {
          ...authorizationHeader(tokens),
          accept: 'application/vnd.github+json',
          'user-agent': 'nestjs-auth',
        };
        const profile = await vendorJson<Profile>(provider, userUrl, { headers });
        if (!profile.email) {
          const emailsUrl = new URL(userUrl.href);
          emailsUrl.pathname = `${emailsUrl.pathname.replace(/\/+$/, '')}/emails`;
          emailsUrl.search = '';
          try {
            const emails = await vendorJson<GitHubEmail[]>(provider, emailsUrl, { headers });
            if (Array.isArray(emails)) profile.email = (emails.find((e) => e.primary) ?? emails[0])?.email ?? null;
          } catch {
            // Without the user:email scope the list is refused; the user simply has no email.
          }
        }
        return profile;
      },
    },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.id),
        name: profile.name ?? profile.login,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    style: { brandColor: '#24292f' },
    options: config,
  };
}
