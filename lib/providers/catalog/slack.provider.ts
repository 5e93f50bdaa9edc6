import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Slack returns (ID token claims or userinfo), as the vendor documents it. */
export interface SlackProfile {
  /** Subject: the user's stable id at the provider. */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  locale?: string;
  'https://slack.com/user_id': string;
  'https://slack.com/team_id': string;
  'https://slack.com/team_name'?: string;
  'https://slack.com/team_domain'?: string;
  'https://slack.com/user_image_512'?: string;
}

/**
 * Sign in with Slack (Sign in with Slack, OpenID Connect). Slack uses the nonce check, not PKCE.
 *
 * Reads `AUTH_SLACK_ID`, `AUTH_SLACK_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/slack` with Slack. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Slack()] })
 * ```
 */
export function Slack(config?: OIDCUserConfig<SlackProfile>): OAuthConfig<SlackProfile> {
  return {
    id: 'slack',
    name: 'Slack',
    type: 'oidc',
    issuer: 'https://slack.com',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['nonce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#4a154b' },
    options: config,
  };
}
