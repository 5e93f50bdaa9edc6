import type { AccountTokens, AccountTokensAdapter } from '../adapters/adapter-extensions.js';
import { adapterCall as call, type AdapterService } from '../core/adapter.service.js';
import type { Account } from '../types/common.types.js';

/** How often the compare-and-swap is tried again when the row changed between the read and the swap. */
const SWAP_ATTEMPTS = 3;

/**
 * A sign-in to an OAuth/OIDC account already linked to `userId`: the account's stored tokens become
 * this sign-in's, as the provider's `account()` kept them (`access_token`, `expires_at`, `id_token`,
 * `scope`, `token_type`: absent ones cleared; `refresh_token` only when the provider sent one, else
 * the stored one stays, as after a refresh). This is what restores `getAccessToken` after an
 * `invalid_grant` cleared the tokens.
 *
 * Written with the adapter's `updateAccountTokens` (a compare-and-swap against the row just read,
 * sealed when `encryptAccountTokens` is on), and only to the row of this provider account among the
 * user's own: the owner never changes. A refresh holding the lease elsewhere then finds the row
 * changed: its own write stores nothing, so the sign-in's tokens are never overwritten by older
 * ones. Without `listAccountsByUserId` and `updateAccountTokens` nothing is written (false).
 */
export async function storeSignInTokens(adapters: AdapterService, stored: Account, userId: string): Promise<boolean> {
  if (stored.type !== 'oauth' && stored.type !== 'oidc') return false;
  const adapter = adapters.raw as Partial<AccountTokensAdapter> | null;
  if (typeof adapter?.listAccountsByUserId !== 'function' || typeof adapter.updateAccountTokens !== 'function')
    return false;
  const next: AccountTokens = {
    access_token: stored.access_token ?? null,
    expires_at: typeof stored.expires_at === 'number' ? stored.expires_at : null,
    id_token: stored.id_token ?? null,
    scope: stored.scope ?? null,
    token_type: stored.token_type ?? null,
  };
  if (typeof stored.refresh_token === 'string' && stored.refresh_token !== '')
    next.refresh_token = stored.refresh_token;
  const sealed = adapters.sealTokens(next);
  for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
    // The row as stored (sealed values and all): what the compare-and-swap matches.
    const rows = await call('listAccountsByUserId', () => adapter.listAccountsByUserId!(userId));
    const row = rows.find((a) => a.provider === stored.provider && a.providerAccountId === stored.providerAccountId);
    if (!row) return false;
    const match = {
      provider: row.provider,
      providerAccountId: row.providerAccountId,
      refresh_token: row.refresh_token ?? null,
      expires_at: typeof row.expires_at === 'number' ? row.expires_at : null,
    };
    if (await call('updateAccountTokens', () => adapter.updateAccountTokens!(match, sealed))) return true;
  }
  return false;
}
