import { Inject, Injectable } from '@nestjs/common';
import type * as o from 'oauth4webapi';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import type { ProviderContext } from '../../core/request-context.js';
import { AuthError, InvalidProvider, InvalidRequest, OAuthSignInError } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider } from './oauth.normalize.js';
import { ChecksService } from '../../sign-in/checks.service.js';
import type { AuthResponse } from '../../types/http.types.js';
import { loadOAuth4WebApi } from '../../util/oauth4webapi.js';
import { createStateCodec, effectiveChecks, parseMaxAge } from './oauth-checks.js';
import { OAuthDiscovery } from './oauth-discovery.js';
import { describe } from './oauth-errors.js';
import { proxying, redirectUri } from './oauth-redirect.js';

/** Sign-in query parameters that the library sets itself and a caller may not override. */
const RESERVED_PARAMS = new Set([
  'callbackUrl',
  'csrfToken',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'code_verifier',
  'client_id',
  'client_secret',
  'redirect_uri',
  'response_type',
  'response_mode',
  'request',
  'request_uri',
]);

/**
 * The authorization request (`POST /signin/:provider`): the provider's authorization endpoint with
 * `client_id`, `redirect_uri`, the provider's and the caller's parameters, and the checks in force
 * (`state`, PKCE, `nonce`), each sealed in a cookie for the callback.
 */
@Injectable()
export class OAuthAuthorization {
  private readonly stateCodec: ReturnType<typeof createStateCodec>;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly checks: ChecksService,
    private readonly discovery: OAuthDiscovery,
  ) {
    this.stateCodec = createStateCodec(config.secrets);
  }

  /**
   * Redirects to the provider's authorization endpoint. With `linkUserId` (the link flow) that id
   * is sealed in every check cookie, so the callback links the account to that user instead of
   * signing in; a provider without any check cookie cannot be linked this way.
   */
  async redirect(ctx: ProviderContext, p: NormalizedOAuthProvider, linkUserId?: string): Promise<AuthResponse> {
    // Loaded before the try below, so a failed load is not reported as the provider's failure.
    const oauth = await loadOAuth4WebApi();
    let as: o.AuthorizationServer;
    try {
      as = await this.discovery.authorizationServer(p);
    } catch (error) {
      throw error instanceof AuthError
        ? error
        : new OAuthSignInError(`Could not start sign-in with ${p.name}: ${describe(error)}`, { cause: error });
    }
    const endpoint = p.authorization?.url?.href ?? as.authorization_endpoint;
    if (!endpoint)
      throw new OAuthSignInError(
        `${p.name} has no authorization endpoint: set \`authorization\` or an \`issuer\` whose discovery document has one.`,
      );
    const url = new URL(endpoint);
    const viaProxy = proxying(ctx, p);
    const params = url.searchParams;
    // A provider that needs another response type states it in its URL's own query (Azure DevOps).
    if (!params.has('response_type')) params.set('response_type', 'code');
    params.set('client_id', p.clientId ?? '');
    params.set('redirect_uri', redirectUri(ctx, p));
    for (const [key, value] of Object.entries(p.authorization?.params ?? {})) params.set(key, value);
    for (const [key, value] of Object.entries(extraAuthorizationParams(ctx))) params.set(key, value);

    const checks = effectiveChecks(p, as);
    if (linkUserId !== undefined && checks.size === 0)
      throw new InvalidProvider(
        `${p.name} uses no state, PKCE or nonce check, so an account cannot be linked with it safely: set its \`checks\`.`,
      );
    // OIDC Core 3.1.2.1: with max_age the ID token must carry a recent enough auth_time. The value
    // (from the provider's params or this request's) rides in the check cookies to the callback.
    const maxAge = p.type === 'oidc' ? parseMaxAge(params.get('max_age')) : undefined;
    const data: Record<string, unknown> = {};
    if (maxAge !== undefined) data.maxAge = maxAge;
    if (linkUserId !== undefined) data.link = linkUserId;
    const sealOptions = { provider: p.id, sameSiteNone: p.formPost, ...(Object.keys(data).length ? { data } : {}) };
    if (checks.has('state')) {
      const state = await this.stateCodec.encode({
        origin: viaProxy ? ctx.providerCallbackUrl : undefined,
        random: oauth.generateRandomState(),
      });
      await this.checks.seal(ctx, 'state', state, sealOptions);
      params.set('state', state);
    }
    if (checks.has('pkce')) {
      const verifier = oauth.generateRandomCodeVerifier();
      params.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
      params.set('code_challenge_method', 'S256');
      await this.checks.seal(ctx, 'pkceCodeVerifier', verifier, sealOptions);
    }
    if (checks.has('nonce')) {
      const nonce = oauth.generateRandomNonce();
      params.set('nonce', nonce);
      await this.checks.seal(ctx, 'nonce', nonce, sealOptions);
    }
    this.config.logger.debug(linkUserId ? 'oauth_link' : 'oauth_signin', { provider: p.id, checks: [...checks] });
    return { redirect: url.href };
  }
}

/** Query parameters of the sign-in request passed on to the provider (`prompt`, `login_hint`, ...). */
export function extraAuthorizationParams(ctx: ProviderContext): Record<string, string> {
  const out: Record<string, string> = {};
  let count = 0;
  for (const [key, value] of Object.entries(ctx.request.query)) {
    if (RESERVED_PARAMS.has(key) || typeof value !== 'string') continue;
    if (++count > 32 || key.length > 64 || value.length > 2048)
      throw new InvalidRequest('Too many or too long authorization parameters in the sign-in request.');
    out[key] = value;
  }
  return out;
}
