import type { AdapterAccount, AdapterAuthenticator } from '../../adapters/adapter.interface.js';
import type { AdapterService } from '../../core/adapter.service.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterError, InvalidRequest, LastSignInMethod } from '../../errors/auth.errors.js';

/** A passkey as application code sees it (no public key). */
export interface PasskeyInfo {
  /** The credential id (standard base64, as stored); pass it to `deletePasskey`. */
  credentialID: string;
  /** The provider it was registered with (`passkey`, `webauthn`...). */
  provider: string;
  /** The signature counter (0 for most synced passkeys). */
  counter: number;
  /** `singleDevice` or `multiDevice` (synced). */
  credentialDeviceType: string;
  /** Whether the authenticator reported the credential as backed up. */
  credentialBackedUp: boolean;
  /** How the browser can reach the authenticator (`internal`, `hybrid`, `usb`...). */
  transports: string[];
}

/** Optional adapter extras used when present (TypeORM and Memory adapters may offer them). */
interface AdapterExtras {
  deleteAuthenticator?(credentialID: string): unknown;
  listAccounts?(userId: string): Promise<AdapterAccount[]> | AdapterAccount[];
}

/**
 * The user's passkeys: their authenticators still linked, through a WebAuthn provider configured
 * now, to that user.
 */
export async function listPasskeys(
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  userId: string,
): Promise<PasskeyInfo[]> {
  const adapter = adapters.require('listAuthenticatorsByUserId', 'getAccount');
  const out: PasskeyInfo[] = [];
  for (const a of await adapter.listAuthenticatorsByUserId(userId)) {
    const provider = await providerOf(adapters, config, a);
    if (!provider) continue;
    out.push({
      credentialID: a.credentialID,
      provider,
      counter: a.counter,
      credentialDeviceType: a.credentialDeviceType,
      credentialBackedUp: a.credentialBackedUp,
      transports: a.transports ? a.transports.split(',').filter(Boolean) : [],
    });
  }
  return out;
}

/**
 * Removes one of the user's passkeys, unless it is their last way to sign in: another passkey,
 * another linked account (when the adapter can list accounts), or an email provider and an
 * address on the user must remain. The account link goes first (the passkey then no longer signs
 * in); the authenticator row is deleted when the adapter has `deleteAuthenticator`.
 */
export async function deletePasskey(
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  userId: string,
  credentialID: string,
): Promise<void> {
  const adapter = adapters.require(
    'getAuthenticator',
    'listAuthenticatorsByUserId',
    'getAccount',
    'unlinkAccount',
    'getUser',
  );
  const authenticator =
    typeof credentialID === 'string' && credentialID ? await adapter.getAuthenticator(credentialID) : null;
  const provider =
    authenticator && authenticator.userId === userId ? await providerOf(adapters, config, authenticator) : undefined;
  if (!authenticator || !provider) throw new InvalidRequest('This user has no such passkey.');

  const others = (await listPasskeys(adapters, config, userId)).filter((p) => p.credentialID !== credentialID);
  if (others.length === 0 && !(await hasOtherWayIn(adapters, config, userId))) {
    throw new LastSignInMethod(
      "This is the user's only way to sign in: add another passkey or link another account first.",
    );
  }

  await adapter.unlinkAccount({ provider, providerAccountId: authenticator.providerAccountId });
  const raw = adapters.raw as AdapterExtras | null;
  if (typeof raw?.deleteAuthenticator === 'function') {
    try {
      await raw.deleteAuthenticator(credentialID);
    } catch (error) {
      throw new AdapterError(
        "The adapter's deleteAuthenticator failed; the passkey is unlinked and can no longer sign in.",
        { cause: error },
      );
    }
  }
}

/** The WebAuthn provider through which an authenticator is linked to its owner, if any. */
async function providerOf(
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  a: AdapterAuthenticator,
): Promise<string | undefined> {
  const { getAccount } = adapters.require('getAccount');
  for (const p of config.providers) {
    if (p.type !== 'webauthn') continue;
    const account = await getAccount(a.providerAccountId, p.id);
    if (account && account.userId === a.userId) return p.id;
  }
  return undefined;
}

/** Whether the user can sign in without passkeys: a non-WebAuthn account, or email sign-in. */
async function hasOtherWayIn(adapters: AdapterService, config: ResolvedAuthConfig, userId: string): Promise<boolean> {
  const raw = adapters.raw as AdapterExtras | null;
  if (typeof raw?.listAccounts === 'function') {
    const accounts = await raw.listAccounts(userId);
    if (accounts.some((a) => a.type !== 'webauthn')) return true;
  }
  if (config.providers.some((p) => p.type === 'email')) {
    const user = await adapters.require('getUser').getUser(userId);
    if (user?.email) return true;
  }
  return false;
}
