import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import type { Profile, TokenSet } from '../../types/common.types.js';
import { OAuthCallbackError } from '../../errors/auth.errors.js';
import { endpointUrl, envDefault, vendorJson } from './catalog.helpers.js';

/** The answer of WeChat's `GET /sns/userinfo`, as WeChat documents it. */
export interface WeChatProfile {
  openid: string;
  nickname: string;
  /** 1 male, 2 female, 0 unknown. */
  sex?: number;
  province?: string;
  city?: string;
  country?: string;
  headimgurl?: string;
  privilege?: string[];
  /** Same for the user across the apps of one WeChat Open Platform account. */
  unionid?: string;
}

/** Options of the {@link WeChat} factory beyond the provider config. */
export type WeChatOptions = {
  /**
   * `OfficialAccount`: inside the WeChat app (`snsapi_userinfo`); `WebsiteApp`: a QR code on a
   * website (`snsapi_login`).
   * @default 'OfficialAccount'
   */
  platformType?: 'OfficialAccount' | 'WebsiteApp';
};

/** WeChat's token response, or its `{ errcode, errmsg }` error. */
interface WeChatTokenResponse {
  access_token?: string;
  expires_in?: number;
  refresh_token?: string;
  openid?: string;
  scope?: string;
  unionid?: string;
  errcode?: number;
  errmsg?: string;
}

/**
 * Sign in with WeChat (OAuth 2.0). WeChat shares no email address.
 *
 * WeChat names the client id `appid` and takes the code exchange as a GET with `appid` and
 * `secret`; its token response has no `token_type` and errors arrive with HTTP 200. The token
 * request is made here (`token.request`, the secret never lands in a configured URL), and the
 * userinfo request passes `access_token`, `openid` and `lang`. The id is the `unionid` when the
 * app belongs to an Open Platform account, else the `openid`.
 *
 * Reads `AUTH_WECHAT_ID`, `AUTH_WECHAT_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback domain with WeChat. Every field can be overridden: the options are merged
 * over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [WeChat({ platformType: 'WebsiteApp' })] })
 * ```
 */
export function WeChat(config?: OAuthUserConfig<WeChatProfile> & WeChatOptions): OAuthConfig<WeChatProfile> {
  const website = config?.platformType === 'WebsiteApp';
  // The authorization URL needs the app id before the module applies its env defaults.
  const appId = config?.clientId ?? envDefault('AUTH_WECHAT_ID');
  return {
    id: 'wechat',
    name: 'WeChat',
    type: 'oauth',
    authorization: {
      url: website
        ? 'https://open.weixin.qq.com/connect/qrconnect'
        : 'https://open.weixin.qq.com/connect/oauth2/authorize',
      params: { ...(appId ? { appid: appId } : {}), scope: website ? 'snsapi_login' : 'snsapi_userinfo' },
    },
    token: {
      url: 'https://api.weixin.qq.com/sns/oauth2/access_token',
      async request({ params, provider }) {
        if (typeof params.code !== 'string') throw new OAuthCallbackError('WeChat: the callback carried no code.');
        const url = endpointUrl(provider.token);
        url.searchParams.set('appid', String(provider.clientId ?? ''));
        url.searchParams.set('secret', String(provider.clientSecret ?? ''));
        url.searchParams.set('code', params.code);
        url.searchParams.set('grant_type', 'authorization_code');
        const tokens = await vendorJson<WeChatTokenResponse>(provider, url);
        if (tokens.errcode || typeof tokens.access_token !== 'string') {
          throw new OAuthCallbackError(`WeChat refused the code (errcode ${tokens.errcode ?? 'none'}).`);
        }
        const result: TokenSet = { ...tokens, token_type: 'bearer' } as TokenSet;
        return { tokens: result };
      },
    },
    userinfo: {
      url: 'https://api.weixin.qq.com/sns/userinfo',
      async request({ tokens, provider }) {
        const url = endpointUrl(provider.userinfo);
        url.searchParams.set('access_token', String(tokens.access_token ?? ''));
        url.searchParams.set('openid', String(tokens.openid ?? ''));
        url.searchParams.set('lang', 'zh_CN');
        const profile = await vendorJson<Profile & { errcode?: number }>(provider, url);
        if (profile.errcode)
          throw new OAuthCallbackError(`WeChat refused the userinfo request (errcode ${profile.errcode}).`);
        return profile;
      },
    },
    checks: ['state'],
    profile(profile) {
      return {
        id: profile.unionid ?? profile.openid,
        name: profile.nickname ?? null,
        email: null,
        image: profile.headimgurl ?? null,
      };
    },
    style: { brandColor: '#07c160' },
    options: config,
  };
}
