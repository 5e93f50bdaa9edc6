import { Inject, Injectable } from '@nestjs/common';
import type * as o from 'oauth4webapi';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import { AuthError, OAuthCallbackError } from '../../errors/auth.errors.js';
import type { NormalizedOAuthProvider } from './oauth.normalize.js';
import { loadJose } from '../../util/jose.js';
import { decodeJwtHeader } from '../../util/jwt-parts.js';
import { JwksCache, JwksKeySelectionError } from './jwks-cache.js';
import { describe } from './oauth-errors.js';
import { boundedFetch, isLoopback, safeUrl } from './oauth-http.js';

/**
 * Asymmetric algorithms an ID token may be signed with (keys from `jwks_uri`): oauth4webapi's
 * list. `none` and the HS* MACs are not in it; HS* is handled on its own (OIDC Core 10.1).
 */
const ASYMMETRIC_ID_TOKEN_ALGS = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'Ed25519',
  'EdDSA',
  'ML-DSA-44',
  'ML-DSA-65',
  'ML-DSA-87',
]);
/** HS* ID-token algorithms and the least client-secret length (bytes) each needs: the MAC's key size. */
const HS_ID_TOKEN_MIN_SECRET_BYTES = new Map([
  ['HS256', 32],
  ['HS384', 48],
  ['HS512', 64],
]);

/**
 * Verifies ID token signatures (oauth4webapi checks the claims). Asymmetric algorithms only, with a
 * key of `jwks_uri` chosen by {@link JwksCache}: a `kid` it has not seen makes one refetch (shared by
 * concurrent callbacks), and one still unknown after it is refused, then refused without a fetch for
 * a minute. An HS* token (a MAC keyed with the client secret, OIDC Core 10.1) is accepted only when
 * the provider declares that very algorithm in `client.id_token_signed_response_alg` and has a
 * client secret at least as long as the MAC's key.
 */
@Injectable()
export class IdTokenVerifier {
  /** Verification keys of the providers' `jwks_uri`s (per provider and URI): refetch on rotation, negative cache per `kid`. */
  private readonly jwks = new JwksCache();

  constructor(@Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig) {}

  /** Resolves when the ID token's signature is valid; an `OAuthCallbackError` saying why otherwise. */
  async verifySignature(p: NormalizedOAuthProvider, as: o.AuthorizationServer, idToken: string): Promise<void> {
    let header: Record<string, unknown>;
    try {
      header = decodeJwtHeader(idToken);
    } catch {
      throw new OAuthCallbackError(`${p.name}'s ID token has no readable header.`);
    }
    const alg = typeof header.alg === 'string' ? header.alg : undefined;
    if (alg !== undefined && HS_ID_TOKEN_MIN_SECRET_BYTES.has(alg)) return this.verifyHsIdToken(p, alg, idToken);
    if (alg === undefined || !ASYMMETRIC_ID_TOKEN_ALGS.has(alg)) {
      throw new OAuthCallbackError(
        `${p.name}'s ID token is not signed with a supported asymmetric algorithm (${JSON.stringify(alg?.slice(0, 16) ?? null)}).`,
      );
    }
    if (!as.jwks_uri)
      throw new OAuthCallbackError(
        `${p.name} has no jwks_uri to verify the ID token with: set \`issuer\` or \`jwks_endpoint\`.`,
      );
    const jwksUri = as.jwks_uri;
    let key: CryptoKey;
    try {
      // Any JSON value: getKey refuses a kid that is not a string.
      const kid = header.kid as string | undefined;
      key = await this.jwks.getKey(`${p.id}\0${jwksUri}`, { alg, kid }, () => this.fetchJwks(p, jwksUri));
    } catch (error) {
      if (error instanceof JwksKeySelectionError)
        throw new OAuthCallbackError(keySelectionMessage(p.name, alg, error), {
          cause: { provider: p.id, reason: error.reason },
        });
      if (error instanceof AuthError) throw error;
      throw new OAuthCallbackError(`Could not read ${p.name}'s JWKS: ${describe(error)}`, { cause: error });
    }
    const { compactVerify } = await loadJose();
    try {
      await compactVerify(idToken, key, { algorithms: [alg] });
    } catch {
      throw new OAuthCallbackError(`${p.name}'s ID token signature is invalid.`);
    }
  }

  /** An HS256/384/512 ID token: only as the provider declared it, keyed by a long enough client secret. */
  private async verifyHsIdToken(p: NormalizedOAuthProvider, alg: string, idToken: string): Promise<void> {
    const declared = p.client.id_token_signed_response_alg as string | undefined;
    if (declared !== alg) {
      throw new OAuthCallbackError(
        `${p.name}'s ID token is MACed with ${alg}, which is accepted only when the provider's \`client.id_token_signed_response_alg\` declares ${alg}` +
          `${declared ? ` (it declares ${JSON.stringify(declared.slice(0, 16))})` : ''}.`,
      );
    }
    if (!p.clientSecret)
      throw new OAuthCallbackError(
        `${p.name}'s ID tokens are MACed with the client secret (${alg}), but no \`clientSecret\` is configured.`,
      );
    const secret = new TextEncoder().encode(p.clientSecret);
    const minBytes = HS_ID_TOKEN_MIN_SECRET_BYTES.get(alg)!;
    // OIDC Core 16.19: the secret MUST have at least the MAC key's octets; a shorter one is open to
    // offline guessing from any ID token it MACed, so such tokens prove nothing.
    if (secret.byteLength < minBytes) {
      throw new OAuthCallbackError(
        `${p.name}'s client secret is too short to verify ${alg} ID tokens: it must be at least ${minBytes} bytes.`,
      );
    }
    const { compactVerify } = await loadJose();
    try {
      await compactVerify(idToken, secret, { algorithms: [alg] });
    } catch {
      throw new OAuthCallbackError(`${p.name}'s ID token signature is invalid.`);
    }
  }

  /** Fetches a provider's JWKS: https (or loopback), no redirects, bounded time and size, the provider's `customFetch`. */
  private async fetchJwks(p: NormalizedOAuthProvider, jwksUri: string): Promise<unknown> {
    const url = safeUrl(jwksUri);
    if (!url || (url.protocol !== 'https:' && !isLoopback(url)))
      throw new OAuthCallbackError(`${p.name}: jwks_uri must be an https URL.`);
    const response = await boundedFetch(
      url.href,
      {
        method: 'GET',
        headers: { accept: 'application/json, application/jwk-set+json' },
        redirect: 'manual',
        body: undefined,
      },
      p.customFetch,
    );
    if (response.status !== 200) throw new OAuthCallbackError(`${p.name}'s JWKS endpoint answered ${response.status}.`);
    const body = (await response.json().catch(() => null)) as unknown;
    if (!body || typeof body !== 'object' || !Array.isArray((body as { keys?: unknown }).keys)) {
      throw new OAuthCallbackError(`${p.name}'s JWKS endpoint returned no JSON Web Key Set.`);
    }
    this.config.logger.debug('oauth_jwks_fetched', {
      provider: p.id,
      jwkCount: (body as { keys: unknown[] }).keys.length,
    });
    return body;
  }
}

/** What an OAuthCallbackError says when no key of the JWKS verifies the ID token (the `kid` names a public key: not secret). */
function keySelectionMessage(name: string, alg: string, error: JwksKeySelectionError): string {
  const kid = error.kid !== undefined ? `kid ${JSON.stringify(error.kid)}` : 'no kid';
  switch (error.reason) {
    case 'unknown_kid':
      return error.kid !== undefined
        ? `${name}'s ID token is signed with a signing key (${kid}) that is unknown to the provider's JWKS${error.refetched ? ', fetched again just now' : ', checked again less than a minute ago'}.`
        : `${name}'s ID token names no kid and its signing key (${alg}) is unknown to the provider's JWKS.`;
    case 'no_usable_key':
      return `${name}'s ID token names a signing key (${kid}) that the provider's JWKS has for another algorithm than ${alg}, or not at all for signatures.`;
    case 'ambiguous_key':
      return `${name}'s ID token names no kid, and several keys of the provider's JWKS fit ${alg}.`;
    case 'invalid_key':
      return `${name}'s JWKS key for the ID token (${kid}) cannot be used: ${describe(error.cause)}`;
  }
}
