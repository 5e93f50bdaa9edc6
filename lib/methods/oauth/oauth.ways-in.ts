import type { WayIn, WaysInQuery } from '../../sign-in/user-ways-in.js';
import { isOAuthAccount } from './oauth.configured.js';

/** The ways in OAuth/OIDC gives a user: each account linked through a provider configured now. */
export async function oauthWaysIn({ providers, accounts }: WaysInQuery): Promise<WayIn[]> {
  const configured = new Set(providers.map((p) => p.id));
  return (accounts ?? [])
    .filter((a) => configured.has(a.provider) && isOAuthAccount(a))
    .map((a) => ({ kind: 'account', provider: a.provider, providerAccountId: a.providerAccountId }));
}
