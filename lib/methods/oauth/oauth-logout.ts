import { Inject, Injectable } from '@nestjs/common';
import type { AccountTokensAdapter } from '../../adapters/adapter.interface.js';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AdapterService } from '../../core/adapter.service.js';
import { SignOutError } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider } from './oauth.normalize.js';
import { OAuthDiscovery } from './oauth-discovery.js';
import { OAuthProviders } from './oauth-providers.js';
import { describe } from './oauth-errors.js';

/**
 * Federated sign-out (OpenID Connect RP-Initiated Logout 1.0): after the app's session is ended,
 * the browser goes to the provider's `end_session_endpoint` so the user is signed out there too,
 * and comes back to the (validated) `callbackUrl`. Only providers configured with `federated: true`.
 */
@Injectable()
export class OAuthLogout {
  private readonly federated: NormalizedOAuthProvider[];

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly adapters: AdapterService,
    private readonly discovery: OAuthDiscovery,
    providers: OAuthProviders,
  ) {
    this.federated = providers.withOption('federated');
  }

  /** True when some provider signs out federated (the sign-out route then looks the user up first). */
  get enabled(): boolean {
    return this.federated.length > 0;
  }

  /**
   * The provider's end-session URL for the user's first federated account that has an ID token, or
   * `undefined` (no such account, no `end_session_endpoint`, the provider unreachable: the local
   * sign-out stands and the browser goes straight to `returnTo`). Never throws.
   */
  async endSessionUrl(userId: string, returnTo: string): Promise<string | undefined> {
    const adapter = this.adapters.raw as Partial<AccountTokensAdapter> | null;
    if (!this.enabled || typeof adapter?.listAccountsByUserId !== 'function') return undefined;
    try {
      const accounts = await adapter.listAccountsByUserId(userId);
      for (const p of this.federated) {
        const found = accounts.find((a) => a.provider === p.id && typeof a.id_token === 'string');
        const account = this.adapters.openAccount(found);
        if (!account) continue;
        const as = await this.discovery.authorizationServer(p);
        if (!as.end_session_endpoint) {
          this.config.logger.warn('federated_signout_no_end_session_endpoint');
          continue;
        }
        const url = new URL(as.end_session_endpoint);
        url.searchParams.set('id_token_hint', account.id_token!);
        if (p.clientId) url.searchParams.set('client_id', p.clientId);
        url.searchParams.set('post_logout_redirect_uri', returnTo);
        return url.href;
      }
    } catch (error) {
      this.config.logger.error(
        new SignOutError(`Federated sign-out failed; signed out of the app only: ${describe(error)}`),
      );
    }
    return undefined;
  }
}
