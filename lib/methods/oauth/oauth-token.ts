import { Injectable } from '@nestjs/common';
import type * as o from 'oauth4webapi';
import type { ProviderContext } from '../../core/request-context.js';
import { InvalidEndpoints, OAuthCallbackError } from '../../errors/auth.errors.js';
import type { ClientPrivateKey, NormalizedOAuthProvider } from './oauth.normalize.js';
import type { TokenSet } from '../../types/common.types.js';
import { numericDateMs } from '../../util/instant.js';
import { loadJose } from '../../util/jose.js';
import { loadOAuth4WebApi } from '../../util/oauth4webapi.js';
import { IdTokenVerifier } from './id-token.verifier.js';
import type { CheckValues } from './oauth-checks.js';
import { OAuthDiscovery } from './oauth-discovery.js';
import { oauthTransport } from './oauth-http.js';
import { handlerProvider, redirectUri } from './oauth-redirect.js';

/**
 * The token request of the callback: exchanges the authorization code (with the client's
 * authentication and the PKCE verifier) and validates the token response, including the ID token
 * (claims by oauth4webapi, signature by {@link IdTokenVerifier}).
 */
@Injectable()
export class OAuthTokenExchange {
  /** Imported `private_key_jwt` keys per provider (a failed import is retried next time). */
  private readonly privateKeys = new Map<string, Promise<o.CryptoKey | o.PrivateKey>>();

  constructor(
    private readonly discovery: OAuthDiscovery,
    private readonly idTokens: IdTokenVerifier,
  ) {}

  /** The validated token set, and the ID token's claims when there is one. */
  async exchangeCode(
    ctx: ProviderContext,
    p: NormalizedOAuthProvider,
    as: o.AuthorizationServer,
    client: o.Client,
    params: URLSearchParams,
    values: CheckValues,
    maxAge: number | undefined,
  ): Promise<{ tokens: TokenSet; claims?: o.IDToken }> {
    const oauth = await loadOAuth4WebApi();
    let response: Response;
    if (p.token?.request) {
      // A custom token request (Auth.js never calls it): its tokens still go through validation.
      const result = await p.token.request({
        checks: values,
        params: Object.fromEntries(params),
        provider: handlerProvider(ctx, p, as),
      });
      const tokens = (result as { tokens?: TokenSet })?.tokens;
      if (!tokens || typeof tokens !== 'object')
        throw new OAuthCallbackError(`${p.name}: token.request() must return { tokens }.`);
      response = Response.json({ token_type: 'bearer', ...tokens });
    } else {
      if (!as.token_endpoint)
        throw new InvalidEndpoints(
          `${p.name} has no token endpoint: set \`token\` or an \`issuer\` whose discovery document has one.`,
        );
      response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        await this.clientAuth(p),
        params,
        redirectUri(ctx, p),
        values.code_verifier ?? oauth.nopkce,
        { ...oauthTransport(oauth, p, as.token_endpoint), additionalParameters: p.token?.params },
      );
    }
    if (p.token?.conform) response = (await p.token.conform(response.clone())) ?? response;
    // Multi-tenant providers: the ID token is validated against the issuer of the tenant that signed it.
    as = await this.discovery.idTokenServer(p, as, response);
    const processed = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: values.nonce ?? oauth.expectNoNonce,
      ...(maxAge !== undefined ? { maxAge } : {}),
      requireIdToken: p.type === 'oidc',
    });
    // oauth4webapi checks the ID token's claims; its signature is checked here, before any token is used.
    if (processed.id_token) await this.idTokens.verifySignature(p, as, processed.id_token);
    return { tokens: withExpiresAt(processed), claims: oauth.getValidatedIdTokenClaims(processed) };
  }

  /**
   * The `refresh_token` grant: a new token set for `refreshToken`, validated by oauth4webapi (an ID
   * token in the response has its signature checked too). OAuth error responses reject with
   * oauth4webapi's `ResponseBodyError` (its `error`, e.g. `invalid_grant`); transport failures
   * with what fetch threw.
   */
  async refresh(p: NormalizedOAuthProvider, refreshToken: string): Promise<TokenSet> {
    const oauth = await loadOAuth4WebApi();
    const as = await this.discovery.authorizationServer(p);
    if (!as.token_endpoint)
      throw new InvalidEndpoints(
        `${p.name} has no token endpoint: set \`token\` or an \`issuer\` whose discovery document has one.`,
      );
    const client: o.Client = { client_id: p.clientId ?? '', ...p.client };
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      await this.clientAuth(p),
      refreshToken,
      oauthTransport(oauth, p, as.token_endpoint),
    );
    const processed = await oauth.processRefreshTokenResponse(as, client, response);
    if (processed.id_token) await this.idTokens.verifySignature(p, as, processed.id_token);
    return withExpiresAt(processed);
  }

  /** The client authentication of the token request (`client.token_endpoint_auth_method`). */
  async clientAuth(p: NormalizedOAuthProvider): Promise<o.ClientAuth> {
    const oauth = await loadOAuth4WebApi();
    const method = (p.client.token_endpoint_auth_method as string | undefined) ?? 'client_secret_basic';
    switch (method) {
      case 'client_secret_basic':
        return oauth.ClientSecretBasic(p.clientSecret ?? '');
      case 'client_secret_post':
        return oauth.ClientSecretPost(p.clientSecret ?? '');
      case 'client_secret_jwt':
        return oauth.ClientSecretJwt(p.clientSecret ?? '');
      case 'private_key_jwt':
        return oauth.PrivateKeyJwt(await this.privateKey(p));
      case 'none':
        return oauth.None();
      default:
        throw new InvalidEndpoints(`${p.name}: token_endpoint_auth_method ${JSON.stringify(method)} is not supported.`);
    }
  }

  private privateKey(p: NormalizedOAuthProvider): Promise<o.CryptoKey | o.PrivateKey> {
    let key = this.privateKeys.get(p.id);
    if (!key) {
      key = importPrivateKey(p.clientPrivateKey, p.name);
      key.catch(() => this.privateKeys.delete(p.id));
      this.privateKeys.set(p.id, key);
    }
    return key;
  }
}

/** The `private_key_jwt` signing key: a CryptoKey or `{ key, kid }` as given, a private JWK imported. */
export async function importPrivateKey(
  key: ClientPrivateKey | undefined,
  name: string,
): Promise<o.CryptoKey | o.PrivateKey> {
  if (!key || typeof key !== 'object')
    throw new InvalidEndpoints(`${name}: private_key_jwt needs \`token.clientPrivateKey\`.`);
  if ('d' in key && typeof key.d === 'string') {
    const jwk = key as o.JWK & { d: string; alg?: string };
    if (!jwk.alg) throw new InvalidEndpoints(`${name}: the private JWK needs an \`alg\`.`);
    const { importJWK } = await loadJose();
    const imported = await importJWK(jwk as Parameters<typeof importJWK>[0], jwk.alg);
    return { key: imported as o.CryptoKey, kid: jwk.kid };
  }
  return key as o.CryptoKey | o.PrivateKey;
}

/**
 * The token response as a TokenSet, with `expires_at` (seconds) from `expires_in`, or as the
 * provider sent it; a value that is not a NumericDate a Date can hold is dropped rather than stored
 * (it would read back as garbage).
 */
function withExpiresAt(processed: o.TokenEndpointResponse): TokenSet {
  const tokens: TokenSet = { ...(processed as TokenSet) };
  if (typeof processed.expires_in === 'number')
    tokens.expires_at = Math.floor(Date.now() / 1000) + processed.expires_in;
  if (
    tokens.expires_at !== undefined &&
    (numericDateMs(tokens.expires_at) === undefined || !Number.isInteger(tokens.expires_at))
  )
    delete tokens.expires_at;
  return tokens;
}
