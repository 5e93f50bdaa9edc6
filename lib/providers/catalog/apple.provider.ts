import type { OAuthConfig, OIDCUserConfig } from '../../methods/oauth/oauth.types.js';
import { joinName } from './catalog.helpers.js';

/** The `user` form field Apple posts on the first consent only. */
export interface AppleUserField {
  name?: { firstName?: string; lastName?: string };
  email?: string;
}

// Apple posts `user` as JSON text; anything else is ignored rather than trusted.
function parseAppleUser(raw: unknown): AppleUserField | undefined {
  if (typeof raw !== 'string' || raw.length > 4096) return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    if (!value || typeof value !== 'object') return undefined;
    const { name, email } = value as { name?: unknown; email?: unknown };
    const user: AppleUserField = {};
    if (name && typeof name === 'object') {
      const { firstName, lastName } = name as { firstName?: unknown; lastName?: unknown };
      user.name = {
        ...(typeof firstName === 'string' ? { firstName } : {}),
        ...(typeof lastName === 'string' ? { lastName } : {}),
      };
    }
    if (typeof email === 'string') user.email = email;
    return user;
  } catch {
    return undefined;
  }
}

/** The profile Apple returns (ID token claims or userinfo), as the vendor documents it. */
export interface AppleProfile {
  /** Subject: the user's stable id at Apple. */
  sub: string;
  iss: string;
  aud: string;
  iat: number;
  exp: number;
  at_hash?: string;
  auth_time?: number;
  nonce?: string;
  nonce_supported?: boolean;
  email?: string;
  /** Apple sends booleans as `'true'`/`'false'` strings in some tokens. */
  email_verified?: boolean | 'true' | 'false';
  is_private_email?: boolean | 'true' | 'false';
  /** 0 unsupported, 1 unknown, 2 likely real. */
  real_user_status?: 0 | 1 | 2;
  transfer_sub?: string;
  /** The `user` form field of the first consent, parsed (absent on later sign-ins). */
  user?: AppleUserField;
}

/**
 * Sign in with Apple (OpenID Connect).
 *
 * Apple posts the callback (`response_mode=form_post`), so the state and nonce cookies are sent with
 * `SameSite=None; Secure`: serve the app over https. Apple sends the user's name only once, on the
 * first consent, as a JSON `user` form field; `conformProfile` folds it into `profile.user`, so the
 * first sign-in stores the name. `clientSecret` is the JWT you sign with your Apple key (it expires;
 * regenerate it at most every 6 months).
 *
 * Reads `AUTH_APPLE_ID`, `AUTH_APPLE_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/apple` with Apple. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Apple()] })
 * ```
 */
export function Apple(config?: OIDCUserConfig<AppleProfile>): OAuthConfig<AppleProfile> {
  return {
    id: 'apple',
    name: 'Apple',
    type: 'oidc',
    issuer: 'https://appleid.apple.com',
    authorization: { params: { scope: 'name email', response_mode: 'form_post' } },
    checks: ['nonce', 'state'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    conformProfile(profile, { params }) {
      const user = parseAppleUser(params.user);
      return user ? { ...profile, user } : profile;
    },
    profile(profile) {
      const fullName = joinName(profile.user?.name?.firstName, profile.user?.name?.lastName);
      return {
        id: profile.sub,
        name: fullName ?? profile.email ?? null,
        email: profile.email ?? null,
        image: null,
      };
    },
    style: { brandColor: '#000000' },
    options: config,
  };
}
