import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { standardClaimsUser } from './catalog.helpers.js';

/** The profile Hugging Face returns (ID token claims or userinfo), as the vendor documents it. */
export interface HuggingFaceProfile {
  /** Subject: the user's stable id at the provider. */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  profile?: string;
  website?: string;
  isPro?: boolean;
  canPay?: boolean;
  orgs?: Array<{ sub: string; name: string; preferred_username: string; picture?: string; isEnterprise?: boolean }>;
}

/**
 * Sign in with Hugging Face (OpenID Connect).
 *
 * Reads `AUTH_HUGGINGFACE_ID`, `AUTH_HUGGINGFACE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/huggingface` with Hugging Face. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [HuggingFace()] })
 * ```
 */
export function HuggingFace(config?: OIDCUserConfig<HuggingFaceProfile>): OAuthConfig<HuggingFaceProfile> {
  return {
    id: 'huggingface',
    name: 'Hugging Face',
    type: 'oidc',
    issuer: 'https://huggingface.co',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['state', 'pkce'],
    profile(profile) {
      return standardClaimsUser(profile);
    },
    style: { brandColor: '#ffd21e' },
    options: config,
  };
}
