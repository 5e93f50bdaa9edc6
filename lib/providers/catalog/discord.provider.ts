import type { OAuthConfig, OAuthUserConfig } from '../../methods/oauth/oauth.types.js';

/** The profile Discord returns, as the vendor documents it. */
export interface DiscordProfile {
  id: string;
  username: string;
  /** `'0'` for users on the new unique usernames. */
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  bot?: boolean;
  system?: boolean;
  mfa_enabled?: boolean;
  banner?: string | null;
  accent_color?: number | null;
  locale?: string;
  verified?: boolean;
  email?: string | null;
  flags?: number;
  premium_type?: number;
  public_flags?: number;
}

/**
 * Sign in with Discord (OAuth 2.0). The avatar URL is built from the user's avatar hash, or Discord's default avatar.
 *
 * Reads `AUTH_DISCORD_ID`, `AUTH_DISCORD_SECRET` when `clientId`, `clientSecret` are not given.
 * Register the callback URL `{origin}{basePath}/callback/discord` with Discord. Every field
 * can be overridden: the options are merged over these defaults.
 *
 * @example
 * ```ts
 * AuthModule.forRoot({ providers: [Discord()] })
 * ```
 */
export function Discord(config?: OAuthUserConfig<DiscordProfile>): OAuthConfig<DiscordProfile> {
  return {
    id: 'discord',
    name: 'Discord',
    type: 'oauth',
    authorization: { url: 'https://discord.com/api/oauth2/authorize', params: { scope: 'identify email' } },
    token: 'https://discord.com/api/oauth2/token',
    userinfo: 'https://discord.com/api/users/@me',
    checks: ['pkce'],
    profile(profile) {
      let image: string;
      if (profile.avatar === null || profile.avatar === undefined) {
        // Default avatars: index from the id on the new username system, from the discriminator before it.
        const index =
          profile.discriminator === '0' ? Number((BigInt(profile.id) >> 22n) % 6n) : Number(profile.discriminator) % 5;
        image = `https://cdn.discordapp.com/embed/avatars/${index}.png`;
      } else {
        const format = profile.avatar.startsWith('a_') ? 'gif' : 'png';
        image = `https://cdn.discordapp.com/avatars/${profile.id}/${profile.avatar}.${format}`;
      }
      return { id: profile.id, name: profile.global_name ?? profile.username, email: profile.email ?? null, image };
    },
    style: { brandColor: '#5865f2' },
    options: config,
  };
}
