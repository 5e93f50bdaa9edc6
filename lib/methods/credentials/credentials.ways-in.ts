import type { AdapterUser } from '../../adapters/adapter.interface.js';
import type { InternalProvider } from '../../config/resolved-config.js';
import type { WayIn, WaysInQuery } from '../../sign-in/user-ways-in.js';
import type { PasswordStore } from './credentials.types.js';

/**
 * The ways in credentials give a user: each `credentials` account linked through a provider
 * configured now; without one, a password the user carries (`passwordHash`) or the first provider's
 * `passwordStore` holds.
 */
export async function credentialsWaysIn({ providers, accounts, user, userId }: WaysInQuery): Promise<WayIn[]> {
  const configured = new Set(providers.map((p) => p.id));
  const ways: WayIn[] = (accounts ?? [])
    .filter((a) => configured.has(a.provider) && (a.type as string) === 'credentials')
    .map((a) => ({ kind: 'password', provider: a.provider, providerAccountId: a.providerAccountId }));
  if (ways.length === 0 && (await hasPassword(providers[0], await user(), userId)))
    ways.push({ kind: 'password', provider: providers[0].id });
  return ways;
}

/** A password hash on the user, or one the credentials provider's `passwordStore` holds. */
async function hasPassword(credentials: InternalProvider, user: AdapterUser | null, userId: string): Promise<boolean> {
  const own = (user as { passwordHash?: unknown } | null)?.passwordHash;
  if (typeof own === 'string' && own.length > 0) return true;
  const store = (credentials.config as { passwordStore?: PasswordStore }).passwordStore;
  if (!store) return false;
  const hash = await store.getPasswordHash(userId);
  return typeof hash === 'string' && hash.length > 0;
}
