import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { InternalProviderOf } from '../../providers/internal-provider.js';

/** The first email provider configured (its sender, normaliser and token lifetime serve the address change), if any. */
export function emailProviderOf(config: ResolvedAuthConfig): InternalProviderOf<'email'> | undefined {
  return config.providers.find((p): p is InternalProviderOf<'email'> => p.type === 'email');
}
