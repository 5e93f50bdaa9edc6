import type {
  AccountTokensAdapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterUser,
} from '../adapters/adapter.interface.js';
import type { InternalProvider, ResolvedAuthConfig } from '../config/resolved-config.js';
import type { PasswordStore } from '../methods/credentials/credentials.types.js';
import type { AdapterService } from '../core/adapter.service.js';
import { AdapterError, LastSignInMethod } from '../errors/auth.errors.js';

/** One way a stored user can sign in today. */
export interface WayIn {
  /**
   * `account`: a linked OAuth/OIDC account; `passkey`: a WebAuthn credential; `email`: a verified
   * address with an email provider configured; `password`: a credentials account or stored hash.
   */
  kind: 'account' | 'passkey' | 'email' | 'password';
  /** The configured provider it goes through. */
  provider: string;
  /** The provider account id (`account`, `password` rows) or the credential id (`passkey`). */
  providerAccountId?: string;
}

/**
 * The one rule for "the user's last way to sign in", shared by unlinking an account, deleting a
 * passkey and anything else that removes a sign-in method. It counts, for providers configured
 * now: each linked OAuth/OIDC account; each passkey (an authenticator linked to the user through a
 * WebAuthn provider); the address, when an email provider is configured and the address was
 * verified (an unverified one proves nothing about who can read that mail); a password, when a
 * credentials provider is configured and the user has a `credentials` account or a stored
 * `passwordHash`. Whatever the adapter cannot list counts as absent, so the rule fails closed.
 */
export async function signInMethods(
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  userId: string,
): Promise<WayIn[]> {
  const methods: WayIn[] = [];
  const accounts = await listUserAccounts(adapters, userId);
  for (const account of accounts ?? []) {
    const provider = config.providerById.get(account.provider);
    if (!provider) continue;
    if (
      (provider.type === 'oauth' || provider.type === 'oidc') &&
      (account.type === 'oauth' || account.type === 'oidc')
    )
      methods.push({ kind: 'account', provider: provider.id, providerAccountId: account.providerAccountId });
    else if (provider.type === 'credentials' && (account.type as string) === 'credentials')
      methods.push({ kind: 'password', provider: provider.id, providerAccountId: account.providerAccountId });
  }
  if (adapters.has('listAuthenticatorsByUserId')) {
    for (const a of await adapters.require('listAuthenticatorsByUserId').listAuthenticatorsByUserId(userId)) {
      const provider = await passkeyProvider(adapters, config, a, accounts);
      if (provider) methods.push({ kind: 'passkey', provider, providerAccountId: a.credentialID });
    }
  }
  const email = config.providers.find((p) => p.type === 'email');
  const credentials = config.providers.find((p) => p.type === 'credentials');
  const user =
    (email || credentials) && adapters.has('getUser') ? await adapters.require('getUser').getUser(userId) : null;
  if (email && user?.email && user.emailVerified) methods.push({ kind: 'email', provider: email.id });
  if (credentials && !methods.some((m) => m.kind === 'password') && (await hasPassword(credentials, user, userId)))
    methods.push({ kind: 'password', provider: credentials.id });
  return methods;
}

/**
 * Throws `LastSignInMethod` when removing the methods `removing` selects would leave the user no
 * way to sign in. Call it before the first write, under the user's queue (`KeyedQueue`).
 */
export async function assertKeepsSignInMethod(
  adapters: AdapterService,
  config: ResolvedAuthConfig,
  userId: string,
  removing: (method: WayIn) => boolean,
  what = 'This',
): Promise<void> {
  const remaining = (await signInMethods(adapters, config, userId)).filter((m) => !removing(m));
  if (remaining.length === 0)
    throw new LastSignInMethod(
      `${what} is the user's only way to sign in: link another account, add a passkey or set a password first.`,
    );
}

/**
 * The user's account rows (any provider), or `null` when the adapter cannot list them (it lacks
 * `listAccountsByUserId`, `AccountTokensAdapter`). A failure surfaces as `AdapterError`.
 */
export async function listUserAccounts(adapters: AdapterService, userId: string): Promise<AdapterAccount[] | null> {
  const raw = adapters.raw as Partial<AccountTokensAdapter> | null;
  if (typeof raw?.listAccountsByUserId !== 'function') return null;
  try {
    return await raw.listAccountsByUserId(userId);
  } catch (error) {
    throw new AdapterError("The adapter's listAccountsByUserId failed. Check the database connection and schema.", {
      cause: error,
    });
  }
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
  accounts?: AdapterAccount[] | null,
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

/** A password hash on the user, or one the credentials provider's `passwordStore` holds (i21-selfservice). */
async function hasPassword(credentials: InternalProvider, user: AdapterUser | null, userId: string): Promise<boolean> {
  if (hasPasswordHash(user)) return true;
  const store = (credentials.config as { passwordStore?: PasswordStore }).passwordStore;
  if (!store) return false;
  const hash = await store.getPasswordHash(userId);
  return typeof hash === 'string' && hash.length > 0;
}

/** Whether the stored user carries a password hash (a non-empty `passwordHash` string). */
function hasPasswordHash(user: AdapterUser | null): boolean {
  const hash = (user as { passwordHash?: unknown } | null)?.passwordHash;
  return typeof hash === 'string' && hash.length > 0;
}
