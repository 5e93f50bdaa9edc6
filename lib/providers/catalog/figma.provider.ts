import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Figma returns, as the vendor documents it. */
export interface FigmaProfile {
  id: string;
  handle: string;
  email: string;
  img_url: string;
}

/**
 * Sign in with Figma (OAuth 2.0).
 *
 * Reads `AUTH_FIGMA_ID`, `AUTH_FIGMA_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/figma` with Figma. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Figma()] })
 * ```
 */
export function Figma(config?: OAuthUserConfig<FigmaProfile>): OAuthConfig<FigmaProfile> {
  return {
    id: 'figma',
    name: 'Figma',
    type: 'oauth',
    authorization: { url: 'https://www.figma.com/oauth', params: { scope: 'files:read' } },
    token: 'https://api.figma.com/v1/oauth/token',
    userinfo: 'https://api.figma.com/v1/me',
    checks: ['state'],
    profile(profile) {
      return {
        id: profile.id,
        name: profile.handle ?? null,
        email: profile.email ?? null,
        image: profile.img_url ?? null,
      };
    },
    style: { brandColor: '#f24e1e' },
    options: config,
  };
}
