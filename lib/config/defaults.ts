import { randomBytes } from 'node:crypto';
import type { CallbacksOptions, Theme } from './auth-options.interface.js';

/**
 * Every default of the module, in one place. The docs' options reference quotes these values.
 */
export const AUTH_DEFAULTS = {
  /** Path prefix of the routes. */
  basePath: '/auth',
  /** Seconds a session lives without activity: 30 days. */
  sessionMaxAge: 30 * 24 * 60 * 60,
  /** Seconds between two extensions of a database session's expiry: 1 day. */
  sessionUpdateAge: 24 * 60 * 60,
  /** Seconds a looked-up database session may be served from memory: off. */
  sessionCacheTtl: 0,
  /** Sessions the session cache keeps at most (`session.cacheMaxEntries`). */
  sessionCacheMaxEntries: 10_000,
  /** Bytes the session cache's entries may take, as it counts them (`session.cacheMaxBytes`): 3 MiB. */
  sessionCacheMaxBytes: 3 * 1024 * 1024,
  /** Seconds a sign-in counts as recent for sensitive actions: 10 minutes. */
  recentSignInMaxAge: 10 * 60,
  /** Minimum length of a secret. */
  minSecretLength: 32,
  /** Check cookies (PKCE, state, nonce, challenge) live 15 minutes. */
  checkMaxAge: 15 * 60,
  theme: { colorScheme: 'auto', logo: '', brandColor: '', buttonText: '' } satisfies Required<Theme>,
} as const;

/** The default database session token: 32 random bytes, hex (256 bits of entropy). */
export function defaultSessionToken(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The default callbacks. Unlike Auth.js, the default `session` callback keeps `user.id`, which
 * every API needs.
 */
export const defaultCallbacks: CallbacksOptions = {
  signIn: () => true,
  redirect: ({ url, baseUrl }) => defaultRedirect(url, baseUrl),
  session: ({ session, user, token }) => {
    const source = (user ?? {}) as { id?: string; name?: string | null; email?: string | null; image?: string | null };
    const id = source.id ?? (token?.sub as string | undefined);
    return {
      user: {
        ...(id !== undefined ? { id } : {}),
        name: source.name ?? token?.name ?? session.user?.name ?? null,
        email: source.email ?? token?.email ?? session.user?.email ?? null,
        image: source.image ?? (token?.picture as string | null | undefined) ?? session.user?.image ?? null,
      },
      expires:
        typeof session.expires === 'string'
          ? session.expires
          : new Date(session.expires as unknown as Date).toISOString(),
    };
  },
  jwt: ({ token }) => token,
};

/**
 * Relative URLs and same-origin absolute URLs are allowed; anything else (other origins,
 * protocol-relative `//evil`, `javascript:`, malformed) collapses to the base URL.
 */
export function defaultRedirect(url: string, baseUrl: string, trusted?: ReadonlySet<string>): string {
  if (typeof url !== 'string' || url.length === 0 || url.length > 4096) return baseUrl;
  try {
    const base = new URL(baseUrl);
    // A lone leading slash is a path; `//host` and `/\host` are protocol-relative tricks.
    if (url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) {
      const resolved = new URL(url, base);
      return resolved.origin === base.origin ? resolved.href : baseUrl;
    }
    const target = new URL(url);
    if (
      (target.protocol === 'http:' || target.protocol === 'https:') &&
      (target.origin === base.origin || trusted?.has(target.origin) === true)
    )
      return target.href;
  } catch {
    // malformed: fall through
  }
  return baseUrl;
}
