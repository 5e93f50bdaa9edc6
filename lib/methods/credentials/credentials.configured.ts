import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { PasswordStore } from './credentials.types.js';

/** The `passwordStore` of the first credentials provider that has one (the account's password change), if any. */
export function passwordStoreOf(config: ResolvedAuthConfig): PasswordStore | undefined {
  for (const p of config.providers) {
    const store = p.type === 'credentials' ? (p.config as { passwordStore?: PasswordStore }).passwordStore : undefined;
    if (store) return store;
  }
  return undefined;
}
