import type { WayIn, WaysInQuery } from '../../sign-in/user-ways-in.js';

/**
 * The way in magic links give a user: their address, once verified (an unverified one proves
 * nothing about who reads that mail), through the first email provider configured.
 */
export async function emailWaysIn({ providers, user }: WaysInQuery): Promise<WayIn[]> {
  const stored = await user();
  return stored?.email && stored.emailVerified ? [{ kind: 'email', provider: providers[0].id }] : [];
}
