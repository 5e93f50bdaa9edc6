import type { AdapterService } from '../../core/adapter.service.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterError, InvalidRequest } from '../../errors/auth.errors.js';
import { assertKeepsSignInMethod, passkeyProvider } from '../../sign-in/sign-in-methods.js';

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
    const provider = await passkeyProvider(adapters, config, a);
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
 * Removes one of the user's passkeys, unless it is their last way to sign in (the rule of
 * `sign-in/sign-in-methods.ts`, shared with unlinking accounts). The account link goes first (the
 * passkey then no longer signs in); the authenticator row is deleted when the adapter has
 * `deleteAuthenticator`.
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
    authenticator && authenticator.userId === userId
      ? await passkeyProvider(adapters, config, authenticator)
      : undefined;
  if (!authenticator || !provider) throw new InvalidRequest('This user has no such passkey.');

  await assertKeepsSignInMethod(
    adapters,
    config,
    userId,
    (m) => m.kind === 'passkey' && m.providerAccountId === credentialID,
    'This passkey',
  );

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
