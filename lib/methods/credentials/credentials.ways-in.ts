import type { AdapterUser } from '../../adapters/adapter.interface.js';
import type { WayIn, WaysInQuery } from '../../sign-in/user-ways-in.js';
import { passwordStoreOf } from './credentials.configured.js';

/**
 * The ways in credentials give a user: each `credentials` account linked through a provider
 * configured now; without one, a password the user carries (`passwordHash`) or the password store
 * holds (`passwordStore`, where the account page sets it).
 */
export async function credentialsWaysIn({ providers, accounts, user, userId, config }: WaysInQuery): Promise<WayIn[]> {
  const configured = new Set(providers.map((p) => p.id));
  const ways: WayIn[] = (accounts ?? [])
    .filter((a) => configured.has(a.provider) && (a.type as string) === 'credentials')
    .map((a) => ({ kind: 'password', provider: a.provider, providerAccountId: a.providerAccountId }));
  if (ways.length === 0 && (await hasPassword(await user(), userId, config)))
    ways.push({ kind: 'password', provider: providers[0].id });
  return ways;
}

/** A password hash on the user, or one the password store holds for them. */
async function hasPassword(user: AdapterUser | null, userId: string, config: WaysInQuery['config']): Promise<boolean> {
  const own = (user as { passwordHash?: unknown } | null)?.passwordHash;
  if (typeof own === 'string' && own.length > 0) return true;
  const hash = await passwordStoreOf(config)?.getPasswordHash(userId);
  return typeof hash === 'string' && hash.length > 0;
}
