import type { AdapterAccount, AdapterAuthenticator } from '../../adapters/adapter.interface.js';
import type { AdapterService } from '../../core/adapter.service.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { WayIn, WaysInQuery } from '../../sign-in/user-ways-in.js';

/** The ways in passkeys give a user: each authenticator still linked to them through a WebAuthn provider configured now. */
export async function webauthnWaysIn({ adapters, config, userId, accounts }: WaysInQuery): Promise<WayIn[]> {
  if (!adapters.has('listAuthenticatorsByUserId')) return [];
  const ways: WayIn[] = [];
  for (const a of await adapters.require('listAuthenticatorsByUserId').listAuthenticatorsByUserId(userId)) {
    const provider = await passkeyProvider(adapters, config, a, accounts);
    if (provider) ways.push({ kind: 'passkey', provider, providerAccountId: a.credentialID });
  }
  return ways;
}

/**
 * The WebAuthn provider through which an authenticator is linked to its owner, if any: a
 * configured WebAuthn provider holding an account with the authenticator's `providerAccountId` for
 * the same user. `accounts` (the user's rows, when listed already) saves the per-provider look-ups.
 */
export async function passkeyProvider(
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  a: AdapterAuthenticator,
  accounts?: readonly AdapterAccount[] | null,
): Promise<string | undefined> {
  for (const p of config.providers) {
    if (p.type !== 'webauthn') continue;
    const account = accounts
      ? accounts.find((x) => x.provider === p.id && x.providerAccountId === a.providerAccountId)
      : adapters.has('getAccount')
        ? await adapters.require('getAccount').getAccount(a.providerAccountId, p.id)
        : null;
    if (account && account.userId === a.userId) return p.id;
  }
  return undefined;
}
