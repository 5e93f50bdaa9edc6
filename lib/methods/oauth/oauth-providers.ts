import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { InvalidProvider } from '../../errors/auth.errors.js';
import { isProviderOfType, type InternalProvider } from '../../providers/internal-provider.js';
import { normalizeOAuthProvider, type NormalizedOAuthProvider } from './oauth.normalize.js';

/** Each OAuth/OIDC provider's config in the form the flow works with, built once on first use. */
@Injectable()
export class OAuthProviders {
  private readonly normalized = new Map<string, NormalizedOAuthProvider>();

  constructor(@Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig) {}

  /** The provider by id; `InvalidProvider` when no OAuth/OIDC provider has it. */
  byId(id: string): NormalizedOAuthProvider {
    const configured = this.config.providers.find((p) => p.id === id);
    if (!configured)
      throw new InvalidProvider(`No OAuth or OpenID Connect provider ${JSON.stringify(id)} is configured.`);
    return this.of(configured);
  }

  /** The configured provider in normalised form; `InvalidProvider` when it is not OAuth/OIDC. */
  of(provider: InternalProvider): NormalizedOAuthProvider {
    if (!isProviderOfType(provider, 'oauth', 'oidc'))
      throw new InvalidProvider(
        `Provider ${JSON.stringify(provider.id)} is of type ${provider.type}, not oauth or oidc.`,
      );
    let p = this.normalized.get(provider.id);
    if (!p) {
      p = normalizeOAuthProvider(provider.config, this.config.redirectProxyUrl);
      this.normalized.set(provider.id, p);
    }
    return p;
  }

  /** The OAuth/OIDC providers whose config has `option: true`. */
  withOption(option: 'federated' | 'backchannelLogout'): NormalizedOAuthProvider[] {
    return this.config.providers
      .filter((p) => isProviderOfType(p, 'oauth', 'oidc') && p.config[option] === true)
      .map((p) => this.of(p));
  }
}
