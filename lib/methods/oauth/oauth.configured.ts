import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { InternalOAuthProvider } from '../../providers/internal-provider.js';

/** The OAuth/OIDC providers configured: those a signed-in user can link an account of. */
export function oauthProvidersOf(config: ResolvedAuthConfig): InternalOAuthProvider[] {
  return config.providers.filter((p): p is InternalOAuthProvider => p.type === 'oauth' || p.type === 'oidc');
}

/** Whether a stored account was linked through OAuth/OIDC (not a password or passkey row). */
export function isOAuthAccount(account: { type: string }): boolean {
  return account.type === 'oauth' || account.type === 'oidc';
}
