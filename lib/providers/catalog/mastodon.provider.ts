import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { envDefault, trimSlash } from './catalog.helpers.js';

/** The profile Mastodon returns, as the vendor documents it. */
export interface MastodonProfile {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  locked?: boolean;
  bot?: boolean;
  created_at?: string;
  note?: string;
  url: string;
  avatar: string;
  avatar_static: string;
  header?: string;
  followers_count?: number;
  following_count?: number;
  statuses_count?: number;
}

/**
 * Sign in with a Mastodon account (OAuth 2.0). Mastodon shares no email address.
 *
 * Set `issuer` (AUTH_MASTODON_ISSUER) to the instance URL, e.g. `https://mastodon.social`.
 *
 * Reads `AUTH_MASTODON_ID`, `AUTH_MASTODON_SECRET`, `AUTH_MASTODON_ISSUER` when `clientId`, `clientSecret`, `issuer` are not given.
 * Register the callback URL `{origin}{basePath}/callback/mastodon` with Mastodon. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Mastodon()] })
 * ```
 */
export function Mastodon(config?: OAuthUserConfig<MastodonProfile>): OAuthConfig<MastodonProfile> {
  const rawIssuer = config?.issuer ?? envDefault('AUTH_MASTODON_ISSUER');
  const issuer = rawIssuer ? trimSlash(rawIssuer) : undefined;
  return {
    id: 'mastodon',
    name: 'Mastodon',
    type: 'oauth',
    issuer,
    authorization: issuer ? { url: `${issuer}/oauth/authorize`, params: { scope: 'read' } } : undefined,
    token: issuer ? `${issuer}/oauth/token` : undefined,
    userinfo: issuer ? `${issuer}/api/v1/accounts/verify_credentials` : undefined,
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.display_name || profile.username || null,
        email: null,
        image: profile.avatar_static ?? profile.avatar ?? null,
      };
    },
    style: { brandColor: '#6364ff' },
    options: config,
  };
}
