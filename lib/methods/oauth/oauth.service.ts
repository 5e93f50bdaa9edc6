import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { ProviderContext, ProviderFlow } from '../../core/request-context.js';
import { providerOfType } from '../../providers/internal-provider.js';
import { normalizeOAuthProvider, type NormalizedOAuthProvider } from './oauth.normalize.js';
import { ExplicitLinkService } from '../../sign-in/explicit-link.service.js';
import type { AuthResponse } from '../../types/http.types.js';
import { OAuthAuthorization } from './oauth-authorization.js';
import { OAuthCallback } from './oauth-callback.js';
import { OAuthLogout } from './oauth-logout.js';
import { BackchannelLogout } from './backchannel-logout.js';

/**
 * The OAuth 2.0 / OpenID Connect flow (reference 5): `POST /signin/:provider` builds the
 * authorization URL with the provider's checks sealed in cookies ({@link OAuthAuthorization});
 * `GET|POST /callback/:provider` validates the response, exchanges the code, validates the ID token
 * (signature from `jwks_uri`, `iss`, `aud`/`azp`, `exp`, `iat`, `nonce`), reads the profile and
 * hands over to SignInService ({@link OAuthCallback}), or, for a link started by
 * `POST /link/:provider`, to ExplicitLinkService. Every protocol step goes through
 * oauth4webapi. Codes and tokens are never logged.
 */
@Injectable()
export class OAuthService implements ProviderFlow {
  /** Each provider's config in the form the flow works with, built on first use. */
  private readonly providers = new Map<string, NormalizedOAuthProvider>();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly authorization: OAuthAuthorization,
    private readonly callbacks: OAuthCallback,
    private readonly links: ExplicitLinkService,
    /** Federated sign-out (`logout` on a provider): the router asks it when a session ends. */
    readonly federatedSignOut: OAuthLogout,
    private readonly backchannel: BackchannelLogout,
  ) {}

  /**
   * The callback is the provider's redirect back (its `form_post` page POSTs it): from another
   * site, with a code and a state in its URL.
   */
  readonly crossSiteCallback = true;

  /** `POST {basePath}/signin/:provider`: redirects to the provider's authorization endpoint. */
  async signIn(ctx: ProviderContext): Promise<AuthResponse> {
    return this.authorization.redirect(ctx, this.provider(ctx));
  }

  /**
   * `POST {basePath}/link/:provider` (the router checked CSRF and the provider's type): redirects
   * to the provider like a sign-in, with the signed-in user sealed in the check cookies, so the
   * callback links the account to that user and signs nobody in ({@link ExplicitLinkService}).
   */
  async link(ctx: ProviderContext): Promise<AuthResponse> {
    const user = await this.links.starter(ctx);
    return this.authorization.redirect(ctx, this.provider(ctx), user.id);
  }

  /** `GET|POST {basePath}/callback/:provider`: completes the sign-in (or bounces it, on the redirect proxy). */
  async callback(ctx: ProviderContext): Promise<AuthResponse> {
    return this.callbacks.complete(ctx, this.provider(ctx));
  }

  /** `POST {basePath}/backchannel-logout/:provider`: the provider's server ends the sessions its token names. */
  async backchannelLogout(ctx: ProviderContext): Promise<AuthResponse> {
    return this.backchannel.logout(ctx);
  }

  private provider(ctx: ProviderContext): NormalizedOAuthProvider {
    let p = this.providers.get(ctx.provider.id);
    if (!p) {
      p = normalizeOAuthProvider(providerOfType(ctx.provider, 'oauth', 'oidc').config, this.config.redirectProxyUrl);
      this.providers.set(ctx.provider.id, p);
    }
    return p;
  }
}
