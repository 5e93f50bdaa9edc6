import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';
import { authorizationHeader, endpointUrl, vendorJson } from './catalog.helpers.js';

/** The profile Notion returns, as the vendor documents it. */
export interface NotionProfile {
  object: 'user';
  id: string;
  type: 'bot';
  name?: string;
  avatar_url?: string | null;
  bot: {
    owner: {
      type: 'user' | 'workspace';
      user?: {
        object: 'user';
        id: string;
        name?: string;
        avatar_url?: string | null;
        type: 'person';
        person?: { email?: string };
      };
    };
    workspace_name?: string;
  };
}

/**
 * Sign in with Notion (public integration, OAuth 2.0). The profile is the integration's bot user; its owner is the person who signed in.
 *
 * Reads `AUTH_NOTION_ID`, `AUTH_NOTION_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/notion` with Notion. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Notion()] })
 * ```
 */
export function Notion(config?: OAuthUserConfig<NotionProfile>): OAuthConfig<NotionProfile> {
  return {
    id: 'notion',
    name: 'Notion',
    type: 'oauth',
    authorization: {
      url: 'https://api.notion.com/v1/oauth/authorize',
      params: { owner: 'user', scope: 'openid profile email' },
    },
    token: 'https://api.notion.com/v1/oauth/token',
    userinfo: {
      url: 'https://api.notion.com/v1/users',
      async request({ tokens, provider }) {
        const url = endpointUrl(provider.userinfo);
        url.pathname = `${url.pathname.replace(/\/+$/, '')}/me`;
        return vendorJson(provider, url, {
          headers: { ...authorizationHeader(tokens), 'notion-version': '2022-06-28' },
        });
      },
    },
    checks: ['pkce'],
    profile(profile) {
      const owner = profile.bot?.owner?.user;
      return {
        id: owner?.id ?? profile.id,
        name: owner?.name ?? profile.name ?? null,
        email: owner?.person?.email ?? null,
        image: owner?.avatar_url ?? null,
      };
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
