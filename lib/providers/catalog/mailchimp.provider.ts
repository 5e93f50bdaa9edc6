import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { accountId, authorizationHeader, endpointUrl, vendorJson } from './catalog.helpers.js';

/** The profile Mailchimp returns, as the vendor documents it. */
export interface MailchimpProfile {
  dc: string;
  role: string;
  accountname: string;
  user_id: number;
  login: { email: string; avatar: string | null; login_id: number; login_name: string; login_email: string };
  login_url: string;
  api_endpoint: string;
}

/**
 * Sign in with Mailchimp (OAuth 2.0). The profile is the OAuth metadata of the account.
 *
 * Reads `AUTH_MAILCHIMP_ID`, `AUTH_MAILCHIMP_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/mailchimp` with Mailchimp. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Mailchimp()] })
 * ```
 */
export function Mailchimp(config?: OAuthUserConfig<MailchimpProfile>): OAuthConfig<MailchimpProfile> {
  return {
    id: 'mailchimp',
    name: 'Mailchimp',
    type: 'oauth',
    authorization: { url: 'https://login.mailchimp.com/oauth2/authorize', params: { scope: 'openid profile email' } },
    token: 'https://login.mailchimp.com/oauth2/token',
    userinfo: {
      url: 'https://login.mailchimp.com/oauth2/metadata',
      // Mailchimp documents the `OAuth` scheme for its metadata endpoint.
      request: ({ tokens, provider }) =>
        vendorJson(provider, endpointUrl(provider.userinfo), { headers: authorizationHeader(tokens, 'OAuth') }),
    },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: accountId(profile.login.login_id),
        name: profile.accountname ?? profile.login.login_name ?? null,
        email: profile.login.email ?? null,
        image: profile.login.avatar ?? null,
      };
    },
    style: { brandColor: '#ffe01b' },
    options: config,
  };
}
