import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type * as o from 'oauth4webapi';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { OAuthSignInError } from '../../errors/auth.errors.js';
import { isProviderOfType } from '../../providers/internal-provider.js';
import { normalizeOAuthProvider, wellKnownFor, type NormalizedOAuthProvider } from './oauth.normalize.js';
import { loadOAuth4WebApi } from '../../util/oauth4webapi.js';
import { boundedFetch, isLoopback } from './oauth-http.js';

/** How long a discovery document is reused. */
export const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/** `issuer` of providers configured with explicit endpoints only (any `iss` response parameter then fails). */
export const NO_ISSUER = 'https://issuer.invalid';

/**
 * The authorization server metadata of each provider: discovered from `wellKnown`/`issuer` (cached
 * for {@link DISCOVERY_TTL_MS}, concurrent look-ups shared) or built from its explicit endpoints,
 * which always override what discovery found.
 */
@Injectable()
export class OAuthDiscovery implements OnApplicationBootstrap {
  private readonly servers = new Map<string, { as: o.AuthorizationServer; expires: number }>();
  private readonly pendingDiscovery = new Map<string, Promise<o.AuthorizationServer>>();

  constructor(@Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig) {}

  /**
   * Discovers every provider that needs it once at bootstrap, so a wrong or unreachable issuer shows
   * at start-up: one warning per provider that fails, with the cause. The start goes on (the issuer
   * may be down for a moment); nothing is cached on failure, so the next sign-in tries again.
   */
  async onApplicationBootstrap(): Promise<void> {
    await Promise.all(
      this.config.providers.map(async (provider) => {
        if (!isProviderOfType(provider, 'oauth', 'oidc')) return;
        let p: NormalizedOAuthProvider;
        try {
          p = normalizeOAuthProvider(provider.config, this.config.redirectProxyUrl);
          if (!p.wellKnown) return;
          await this.authorizationServer(p);
        } catch (error) {
          this.config.logger.warn(
            `[OAuthDiscovery] providers "${provider.id}": OpenID discovery failed at bootstrap (sign-ins retry it): ${causeOf(error)}`,
          );
        }
      }),
    );
  }

  /**
   * The authorization server metadata: discovered (cached per provider for {@link DISCOVERY_TTL_MS},
   * concurrent look-ups shared) when the provider has `wellKnown`/`issuer` and lacks an endpoint it
   * needs, with explicit endpoints overriding; else built from the explicit endpoints.
   */
  async authorizationServer(p: NormalizedOAuthProvider): Promise<o.AuthorizationServer> {
    const cached = this.servers.get(p.id);
    if (cached && cached.expires > Date.now()) return cached.as;
    let pending = this.pendingDiscovery.get(p.id);
    if (!pending) {
      pending = this.buildAuthorizationServer(p).finally(() => this.pendingDiscovery.delete(p.id));
      this.pendingDiscovery.set(p.id, pending);
    }
    const as = await pending;
    if (this.servers.get(p.id)?.as !== as) this.servers.set(p.id, { as, expires: Date.now() + DISCOVERY_TTL_MS });
    return as;
  }

  /**
   * The metadata an ID token is validated against: the provider's, or with `idTokenIssuer` (e.g.
   * Microsoft Entra ID's `common` endpoint) the discovered metadata of the issuer it names for this
   * token (cached like the provider's). Signature, `iss` and `aud` are then checked against that issuer.
   */
  async idTokenServer(
    p: NormalizedOAuthProvider,
    as: o.AuthorizationServer,
    response: Response,
  ): Promise<o.AuthorizationServer> {
    if (!p.idTokenIssuer) return as;
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { id_token?: unknown } | null;
    const claims = typeof body?.id_token === 'string' ? jwtPayload(body.id_token) : undefined;
    const issuer = claims ? p.idTokenIssuer(claims) : undefined;
    if (!issuer || issuer === as.issuer) return as;
    const key = `${p.id}\0${issuer}`;
    const cached = this.servers.get(key);
    if (cached && cached.expires > Date.now()) return cached.as;
    const discovered = await this.discoverAt(p, wellKnownFor(issuer), issuer);
    this.servers.set(key, { as: discovered, expires: Date.now() + DISCOVERY_TTL_MS });
    return discovered;
  }

  private async buildAuthorizationServer(p: NormalizedOAuthProvider): Promise<o.AuthorizationServer> {
    const needsUserinfo = (p.type === 'oauth' || !p.idToken) && !p.userinfo?.request;
    const missing =
      !p.authorization?.url ||
      (!p.token?.url && !p.token?.request) ||
      (needsUserinfo && !p.userinfo?.url) ||
      (p.type === 'oidc' && !p.jwksUri);
    const explicit = {
      authorization_endpoint: p.authorization?.url?.href,
      token_endpoint: p.token?.url?.href,
      userinfo_endpoint: p.userinfo?.url?.href,
      jwks_uri: p.jwksUri,
    };
    // Discovery also when only `wellKnown` names the provider: its document gives the issuer ID tokens must carry.
    if (p.wellKnown && (missing || p.issuer === undefined)) {
      const discovered = await this.discoverAt(p, p.wellKnown, p.issuer);
      const as: o.AuthorizationServer = { ...discovered };
      for (const [key, value] of Object.entries(explicit))
        if (value !== undefined) (as as Record<string, unknown>)[key] = value;
      return as;
    }
    const as: o.AuthorizationServer = { issuer: p.issuer ?? NO_ISSUER };
    for (const [key, value] of Object.entries(explicit))
      if (value !== undefined) (as as Record<string, unknown>)[key] = value;
    return as;
  }

  /** Fetches a discovery document (no redirects, bounded size and time) and checks its `issuer`. */
  private async discoverAt(
    p: NormalizedOAuthProvider,
    wellKnown: string,
    issuer: string | undefined,
  ): Promise<o.AuthorizationServer> {
    const url = new URL(wellKnown);
    if (url.protocol !== 'https:' && !isLoopback(url))
      throw new OAuthSignInError(`${p.name}: discovery needs https (${url.origin}).`);
    const response = await boundedFetch(
      url.href,
      { method: 'GET', headers: { accept: 'application/json' }, redirect: 'manual', body: undefined },
      p.customFetch,
    );
    let expected = issuer;
    if (expected === undefined) {
      // Only `wellKnown` given: the document names the issuer, which ID tokens must then match.
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as { issuer?: unknown } | null;
      if (typeof body?.issuer !== 'string')
        throw new OAuthSignInError(`${p.name}: the discovery document has no issuer.`);
      expected = body.issuer;
    }
    const oauth = await loadOAuth4WebApi();
    const as = await oauth.processDiscoveryResponse(new URL(expected), response);
    this.config.logger.debug('oauth_discovery', { provider: p.id, issuer: as.issuer });
    return as;
  }
}

/** The error's message and, down its causes, theirs (`fetch failed: connect ECONNREFUSED 127.0.0.1:1`). */
function causeOf(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e !== undefined && e !== null && parts.length < 4; e = (e as { cause?: unknown }).cause)
    parts.push(e instanceof Error ? e.message : String(e));
  return parts.join(': ');
}

/** A JWT's payload, read without verification (to choose the issuer to verify it against). */
function jwtPayload(jwt: string): Record<string, unknown> | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as unknown;
    return payload && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
