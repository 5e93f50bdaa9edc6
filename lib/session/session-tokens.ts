import type { Account, JWT } from '../types/common.types.js';

/** The session JWT claim that holds provider tokens with `session.tokens`, by provider id. */
export const PROVIDER_TOKENS_CLAIM = 'providerTokens';

/** One provider's tokens as the session JWT keeps them (`session.tokens`); the ID token is left out. */
export interface SessionTokens {
  access_token: string;
  refresh_token?: string;
  /** Seconds since the epoch, as on accounts. */
  expires_at?: number;
  /** The user's id at the provider (for the `refreshTokenError` event). */
  providerAccountId?: string;
}

/** What an OAuth/OIDC sign-in's account gives the session JWT, or undefined (no access token). */
export function sessionTokensOf(account: Account | null | undefined): SessionTokens | undefined {
  if (!account || (account.type !== 'oauth' && account.type !== 'oidc')) return undefined;
  const entry = normalize({
    access_token: account.access_token,
    refresh_token: account.refresh_token,
    expires_at: account.expires_at,
    providerAccountId: account.providerAccountId,
  });
  return entry;
}

/**
 * The tokens a session JWT holds for `provider`, or undefined. What the claim holds is checked (a
 * custom `jwt` callback or `jwt.encode` may have put anything there): a malformed entry reads as
 * absent, never as a token.
 */
export function providerTokensOf(token: JWT, provider: string): SessionTokens | undefined {
  const claim = token[PROVIDER_TOKENS_CLAIM];
  if (!claim || typeof claim !== 'object' || Array.isArray(claim) || !Object.hasOwn(claim, provider)) return undefined;
  return normalize((claim as Record<string, unknown>)[provider]);
}

/**
 * A copy of the session JWT with `provider`'s tokens replaced by `entry`, or removed when it is
 * `null` (the claim goes when it becomes empty). The other claims stay as they were.
 */
export function withProviderTokens(token: JWT, provider: string, entry: SessionTokens | null): JWT {
  const current = token[PROVIDER_TOKENS_CLAIM];
  const claim: Record<string, unknown> =
    current && typeof current === 'object' && !Array.isArray(current) ? { ...(current as object) } : {};
  if (entry) claim[provider] = entry;
  else delete claim[provider];
  const next: JWT = { ...token };
  if (Object.keys(claim).length) next[PROVIDER_TOKENS_CLAIM] = claim;
  else delete next[PROVIDER_TOKENS_CLAIM];
  return next;
}

function normalize(value: unknown): SessionTokens | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.access_token !== 'string' || !v.access_token) return undefined;
  const entry: SessionTokens = { access_token: v.access_token };
  if (typeof v.refresh_token === 'string' && v.refresh_token) entry.refresh_token = v.refresh_token;
  if (typeof v.expires_at === 'number' && Number.isFinite(v.expires_at)) entry.expires_at = v.expires_at;
  if (typeof v.providerAccountId === 'string' && v.providerAccountId) entry.providerAccountId = v.providerAccountId;
  return entry;
}
