import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { InternalProviderOf } from '../../providers/internal-provider.js';

/** The first WebAuthn provider configured (passkeys can be added through it), if any. */
export function webauthnProviderOf(config: ResolvedAuthConfig): InternalProviderOf<'webauthn'> | undefined {
  return config.providers.find((p): p is InternalProviderOf<'webauthn'> => p.type === 'webauthn');
}
