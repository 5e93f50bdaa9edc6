import type { AdapterAuthenticator } from '../../adapters/adapter.interface.js';
import type { AdapterService } from '../../core/adapter.service.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { dateMs } from '../../util/instant.js';
import { AdapterError, InvalidRequest, MissingAdapterMethods } from '../../errors/auth.errors.js';
import type { UserWaysIn } from '../../sign-in/user-ways-in.js';
import { passkeyProvider } from './webauthn.ways-in.js';

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
  /** The name the user gave it (`renamePasskey`), or `null`. */
  name: string | null;
  /** When it last signed in, or `null` (never, or an adapter without the column). */
  lastUsedAt: Date | null;
}

/** A stored last-use time as a valid `Date`, else `null` (fails closed on anything else). */
function lastUsedOf(value: unknown): Date | null {
  const ms = dateMs(value);
  return ms === undefined ? null : new Date(ms);
}

/** The longest passkey name, in characters. */
export const PASSKEY_NAME_MAX = 64;

/** Optional adapter extras used when present (TypeORM and Memory adapters may offer them). */
interface AdapterExtras {
  deleteAuthenticator?(credentialID: string): unknown;
  updateAuthenticatorName?(credentialID: string, name: string | null): unknown;
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
      name: typeof a.name === 'string' ? a.name : null,
      lastUsedAt: lastUsedOf(a.lastUsedAt),
    });
  }
  return out;
}

/**
 * Removes one of the user's passkeys, unless it is their last way to sign in (the rule of
 * `UserWaysIn`, shared with unlinking accounts). The account link goes first (the
 * passkey then no longer signs in); the authenticator row is deleted when the adapter has
 * `deleteAuthenticator`.
 */
export async function deletePasskey(
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  waysIn: UserWaysIn,
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
  const { authenticator, provider } = await ownPasskey(adapters, config, userId, credentialID);

  await waysIn.assertKeeps(
    userId,
    (way) => way.kind === 'passkey' && way.providerAccountId === credentialID,
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

/**
 * Names one of the user's passkeys (`null` or blank clears the name). The name is trimmed, at most
 * {@link PASSKEY_NAME_MAX} characters, without control characters; anything else is `InvalidRequest`,
 * as is a passkey of another user. Needs an adapter with `updateAuthenticatorName`.
 */
export async function renamePasskey(
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  userId: string,
  credentialID: string,
  name: string | null,
): Promise<PasskeyInfo> {
  const clean = passkeyName(name);
  const raw = adapters.raw as AdapterExtras | null;
  if (typeof raw?.updateAuthenticatorName !== 'function')
    throw new MissingAdapterMethods(
      ['updateAuthenticatorName'],
      'Naming passkeys needs an adapter with updateAuthenticatorName (TypeOrmAdapter and MemoryAdapter have it).',
    );
  await ownPasskey(adapters, config, userId, credentialID);
  await raw.updateAuthenticatorName(credentialID, clean);
  const renamed = (await listPasskeys(adapters, config, userId)).find((p) => p.credentialID === credentialID);
  if (!renamed) throw new InvalidRequest('This user has no such passkey.');
  return renamed;
}

/** A passkey name as stored: trimmed, `null` when blank; `InvalidRequest` when too long or not text. */
export function passkeyName(name: unknown): string | null {
  if (name === null || name === undefined) return null;
  if (typeof name !== 'string') throw new InvalidRequest('A passkey name is text.');
  const clean = name.normalize('NFC').trim();
  if (clean === '') return null;
  if ([...clean].length > PASSKEY_NAME_MAX)
    throw new InvalidRequest(`A passkey name has at most ${PASSKEY_NAME_MAX} characters.`);
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(clean))
    throw new InvalidRequest('A passkey name cannot contain control characters.');
  return clean;
}

/** The user's authenticator `credentialID` and its provider, or `InvalidRequest` (never another user's). */
async function ownPasskey(
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  userId: string,
  credentialID: string,
): Promise<{ authenticator: AdapterAuthenticator; provider: string }> {
  const { getAuthenticator } = adapters.require('getAuthenticator');
  const authenticator =
    typeof credentialID === 'string' && credentialID && credentialID.length <= 1400
      ? await getAuthenticator(credentialID)
      : null;
  const provider =
    authenticator && authenticator.userId === userId
      ? await passkeyProvider(adapters, config, authenticator)
      : undefined;
  if (!authenticator || !provider) throw new InvalidRequest('This user has no such passkey.');
  return { authenticator, provider };
}
