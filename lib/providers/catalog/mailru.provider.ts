import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { endpointUrl, joinName, vendorJson } from './catalog.helpers.js';

/** The profile Mail.ru returns, as the vendor documents it. */
export interface MailRuProfile {
  id: string;
  client_id?: string;
  name?: string;
  first_name?: string;
  last_name?: string;
  nickname?: string;
  email: string;
  image?: string;
  gender?: string;
  locale?: string;
  birthday?: string;
}

/**
 * Sign in with Mail.ru (OAuth 2.0). The userinfo API takes the token as an `access_token` query parameter.
 *
 * Reads `AUTH_MAILRU_ID`, `AUTH_MAILRU_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/mailru` with Mail.ru. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [MailRu()] })
 * ```
 */
export function MailRu(config?: OAuthUserConfig<MailRuProfile>): OAuthConfig<MailRuProfile> {
  return {
    id: 'mailru',
    name: 'Mail.ru',
    type: 'oauth',
    authorization: { url: 'https://oauth.mail.ru/login', params: { scope: 'userinfo' } },
    token: 'https://oauth.mail.ru/token',
    userinfo: {
      url: 'https://oauth.mail.ru/userinfo',
      async request({ tokens, provider }) {
        const url = endpointUrl(provider.userinfo);
        url.searchParams.set('access_token', String(tokens.access_token ?? ''));
        return vendorJson(provider, url);
      },
    },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.name ?? joinName(profile.first_name, profile.last_name) ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: profile.image ?? null,
      };
    },
    style: { brandColor: '#005ff9' },
    options: config,
  };
}
