import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { compactVerify, decodeProtectedHeader, importJWK, type ProtectedHeaderParameters } from 'jose';
import * as o from 'oauth4webapi';
import { AUTH_CONFIG } from '../../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../../config/resolved-config.js';
import {
  AuthError,
  InvalidCheck,
  InvalidEndpoints,
  InvalidRequest,
  OAuthCallbackError,
  OAuthProfileParseError,
  OAuthSignInError,
} from '../../errors/auth.errors.js';
import {
  normalizeOAuthProvider,
  wellKnownFor,
  type ClientPrivateKey,
  type NormalizedOAuthProvider,
  type OAuthCheck,
} from '../../providers/oauth.normalize.js';
import { providerOfType } from '../../providers/internal-provider.js';
import type { Profile, TokenSet, User } from '../../types/common.types.js';
import { ChecksService, type OpenedCheck } from '../../sign-in/checks.service.js';
import { readCappedBody } from '../../util/read-capped.js';
import type { AuthResponse } from '../../types/http.types.js';
import { JwksCache, JwksKeySelectionError } from './jwks-cache.js';
import { createJwtCodec } from '../../session/jwt.js';
import { numericDateMs } from '../../util/instant.js';
import type { ProviderContext, ProviderFlow } from '../../core/request-context.js';
import { SignInService } from '../../sign-in/sign-in.service.js';

/** How long one request to a provider may take (discovery, token, userinfo, JWKS). */
export const OAUTH_HTTP_TIMEOUT_MS = 10_000;
/** Largest provider response read (discovery documents, JWKS, token and userinfo responses). */
export const OAUTH_MAX_RESPONSE_BYTES = 512 * 1024;
/** How long a discovery document is reused. */
export const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/**
 * Asymmetric algorithms an ID token may be signed with (keys from `jwks_uri`): oauth4webapi's
 * list. `none` and the HS* MACs are not in it; HS* is handled on its own (OIDC Core 10.1).
 */
const ASYMMETRIC_ID_TOKEN_ALGS = new Set([
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'Ed25519', 'EdDSA', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87',
]);
/** HS* ID-token algorithms and the least client-secret length (bytes) each needs: the MAC's key size. */
const HS_ID_TOKEN_MIN_SECRET_BYTES = new Map([['HS256', 32], ['HS384', 48], ['HS512', 64]]);
/** Lifetime of the check cookies and of the state JWE (Auth.js: 15 minutes). */
const CHECK_MAX_AGE = 15 * 60;
/** `issuer` of providers configured with explicit endpoints only (any `iss` response parameter then fails). */
const NO_ISSUER = 'https://issuer.invalid';
/** Sign-in query parameters that the library sets itself and a caller may not override. */
const RESERVED_PARAMS = new Set([
  'callbackUrl', 'csrfToken', 'state', 'nonce', 'code_challenge', 'code_challenge_method', 'code_verifier',
  'client_id', 'client_secret', 'redirect_uri', 'response_type', 'response_mode', 'request', 'request_uri',
]);
const NO_REFERRER = { 'Referrer-Policy': 'no-referrer' };
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

interface CheckValues {
  state?: string;
  code_verifier?: string;
  nonce?: string;
}

/**
 * The OAuth 2.0 / OpenID Connect flow (reference 5): `POST /signin/:provider` builds the
 * authorization URL with the provider's checks sealed in cookies; `GET|POST /callback/:provider`
 * validates the response, exchanges the code, validates the ID token (signature from `jwks_uri`,
 * `iss`, `aud`/`azp`, `exp`, `iat`, `nonce`), reads the profile and hands over to SignInService.
 * Every protocol step goes through oauth4webapi. Codes and tokens are never logged.
 */
@Injectable()
export class OAuthService implements ProviderFlow {
  private readonly providers = new Map<string, NormalizedOAuthProvider>();
  private readonly servers = new Map<string, { as: o.AuthorizationServer; expires: number }>();
  private readonly pendingDiscovery = new Map<string, Promise<o.AuthorizationServer>>();
  /** Verification keys of the providers' `jwks_uri`s (per provider and URI): refetch on rotation, negative cache per `kid`. */
  private readonly jwks = new JwksCache();
  private readonly privateKeys = new Map<string, Promise<o.CryptoKey | o.PrivateKey>>();
  /** Sign-ins in progress per provider account, so concurrent first sign-ins of one account queue up. */
  private readonly accountQueues = new Map<string, Promise<unknown>>();
  /** Check values already used by a callback (hash → expiry): a replay fails even while the first is in flight. */
  private readonly usedChecks = new Map<string, number>();
  private readonly stateCodec: ReturnType<typeof createJwtCodec>;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly checks: ChecksService,
    private readonly signInService: SignInService,
  ) {
    this.stateCodec = createJwtCodec(config.secrets, 'encodedState', CHECK_MAX_AGE);
  }

  /** `POST {basePath}/signin/:provider`: redirects to the provider's authorization endpoint. */
  async signIn(ctx: ProviderContext): Promise<AuthResponse> {
    const p = this.provider(ctx);
    let as: o.AuthorizationServer;
    try {
      as = await this.authorizationServer(p);
    } catch (error) {
      throw error instanceof AuthError ? error : new OAuthSignInError(`Could not start sign-in with ${p.name}: ${describe(error)}`, { cause: error });
    }
    const endpoint = p.authorization?.url?.href ?? as.authorization_endpoint;
    if (!endpoint) throw new OAuthSignInError(`${p.name} has no authorization endpoint: set \`authorization\` or an \`issuer\` whose discovery document has one.`);
    const url = new URL(endpoint);
    const proxying = this.proxying(ctx, p);
    const params = url.searchParams;
    // A provider that needs another response type states it in its URL's own query (Azure DevOps).
    if (!params.has('response_type')) params.set('response_type', 'code');
    params.set('client_id', p.clientId ?? '');
    params.set('redirect_uri', this.redirectUri(ctx, p));
    for (const [key, value] of Object.entries(p.authorization?.params ?? {})) params.set(key, value);
    for (const [key, value] of Object.entries(this.extraAuthorizationParams(ctx))) params.set(key, value);

    const checks = this.effectiveChecks(p, as);
    // OIDC Core 3.1.2.1: with max_age the ID token must carry a recent enough auth_time. The value
    // (from the provider's params or this request's) rides in the check cookies to the callback.
    const maxAge = p.type === 'oidc' ? parseMaxAge(params.get('max_age')) : undefined;
    const sealOptions = { provider: p.id, sameSiteNone: p.formPost, ...(maxAge !== undefined ? { data: { maxAge } } : {}) };
    if (checks.has('state')) {
      const state = await this.stateCodec.encode({ origin: proxying ? ctx.providerCallbackUrl : undefined, random: o.generateRandomState() });
      await this.checks.seal(ctx, 'state', state, sealOptions);
      params.set('state', state);
    }
    if (checks.has('pkce')) {
      const verifier = o.generateRandomCodeVerifier();
      params.set('code_challenge', await o.calculatePKCECodeChallenge(verifier));
      params.set('code_challenge_method', 'S256');
      await this.checks.seal(ctx, 'pkceCodeVerifier', verifier, sealOptions);
    }
    if (checks.has('nonce')) {
      const nonce = o.generateRandomNonce();
      params.set('nonce', nonce);
      await this.checks.seal(ctx, 'nonce', nonce, sealOptions);
    }
    this.config.logger.debug('oauth_signin', { provider: p.id, checks: [...checks] });
    return { redirect: url.href };
  }

  /** `GET|POST {basePath}/callback/:provider`: completes the sign-in (or bounces it, on the redirect proxy). */
  async callback(ctx: ProviderContext): Promise<AuthResponse> {
    const p = this.provider(ctx);
    const params = this.callbackParams(ctx);

    // On the redirect proxy: send the response on to the deployment that started the flow.
    if (p.redirectProxyUrl && this.onProxy(ctx, p) && params.has('state')) {
      const decoded = await this.stateCodec.decode(params.get('state')!);
      if (!decoded) throw new InvalidCheck('The state parameter could not be decoded.');
      const origin = typeof decoded.origin === 'string' ? safeUrl(decoded.origin) : undefined;
      if (origin && origin.origin !== ctx.origin) {
        for (const [key, value] of params) origin.searchParams.set(key, value);
        return { redirect: origin.href, headers: NO_REFERRER };
      }
    }

    let as: o.AuthorizationServer;
    try {
      as = await this.authorizationServer(p);
    } catch (error) {
      throw error instanceof AuthError ? error : new OAuthCallbackError(`Could not reach ${p.name}: ${describe(error)}`, { cause: error });
    }
    const client: o.Client = { client_id: p.clientId ?? '', ...p.client };
    const checks = this.effectiveChecks(p, as);

    // Every check cookie is consumed (cleared) up front, so a failed callback leaves none behind.
    const values: CheckValues = {};
    let maxAge: number | undefined;
    const keep = (key: keyof CheckValues) => (check: OpenedCheck) => {
      values[key] = check.value;
      if (typeof check.data?.maxAge === 'number') maxAge = check.data.maxAge;
    };
    const opened = await Promise.allSettled([
      checks.has('state') ? this.open(ctx, 'state', p.id).then(keep('state')) : undefined,
      checks.has('pkce') ? this.open(ctx, 'pkceCodeVerifier', p.id).then(keep('code_verifier')) : undefined,
      checks.has('nonce') ? this.open(ctx, 'nonce', p.id).then(keep('nonce')) : undefined,
    ]);
    // Without check cookies ('none'), only the provider's own max_age is known here.
    if (maxAge === undefined && p.type === 'oidc') maxAge = parseMaxAge(p.authorization?.params?.max_age ?? null);
    const failed = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason instanceof AuthError ? failed.reason : new InvalidCheck('A check cookie could not be read.', { cause: failed.reason });

    // RFC 9207 mix-up defence first, then the state, then the provider's error (if any).
    const iss = params.get('iss');
    if (iss !== null && iss !== as.issuer) {
      throw new OAuthCallbackError(`The response came from another issuer than ${p.name}'s (iss mismatch).`);
    }
    if (values.state !== undefined && !safeEqual(params.get('state') ?? '', values.state)) {
      throw new InvalidCheck(params.has('state') ? 'The state parameter does not match the state cookie.' : 'The state parameter is missing.');
    }
    let validated: URLSearchParams;
    try {
      validated = o.validateAuthResponse(as, client, params, values.state ?? o.skipStateCheck);
    } catch (error) {
      if (error instanceof o.AuthorizationResponseError) {
        throw new OAuthCallbackError(`${p.name} returned an error: ${error.error}.`, { cause: { provider: p.id, error: error.error } });
      }
      throw new OAuthCallbackError(`${p.name}'s response was rejected: ${describe(error)}`, { cause: error });
    }
    if (!validated.get('code')) throw new OAuthCallbackError(`${p.name} returned no authorization code.`);
    this.markUsed(p.id, values, validated.get('code')!);

    const { tokens, claims } = await this.exchangeCode(ctx, p, as, client, validated, values, maxAge).catch((error) => {
      throw mapProtocolError(error, p.name);
    });
    let profile = await this.readProfile(ctx, p, as, client, tokens, claims).catch((error) => {
      throw mapProtocolError(error, p.name);
    });
    if (p.conformProfile) {
      try {
        profile = await p.conformProfile(profile, { params: Object.fromEntries(validated), tokens });
      } catch (error) {
        throw new OAuthProfileParseError(`${p.name}: conformProfile() threw: ${describe(error)}`, { cause: error });
      }
    }

    let user: User;
    try {
      user = await p.profile(profile, tokens);
    } catch (error) {
      throw new OAuthProfileParseError(`${p.name}: profile() threw: ${describe(error)}`, { cause: error });
    }
    if (!user || typeof user !== 'object' || user.id === undefined || user.id === null || String(user.id) === '') {
      throw new OAuthProfileParseError(`${p.name}: profile() returned no \`id\`; return the user's id at the provider (e.g. the \`sub\` claim).`);
    }
    let stored: TokenSet;
    try {
      stored = (p.account(tokens) ?? {}) as TokenSet;
    } catch (error) {
      throw new OAuthProfileParseError(`${p.name}: account() threw: ${describe(error)}`, { cause: error });
    }
    const providerAccountId = String(user.id);
    this.config.logger.debug('oauth_callback', { provider: p.id });
    const response = await this.oneAtATime(`${p.id}\0${providerAccountId}`, () =>
      this.signInService.completeSignIn(ctx, {
        user: { ...user, id: providerAccountId, email: typeof user.email === 'string' ? user.email.toLowerCase() : user.email },
        // The callbacks see the whole token response (as in Auth.js); the row keeps what account() keeps.
        account: { ...tokens, provider: p.id, providerAccountId, type: p.type },
        storedAccount: { ...stored, provider: p.id, providerAccountId, type: p.type },
        profile,
      }),
    );
    return { ...response, headers: { ...(response.headers ?? {}), ...NO_REFERRER } };
  }

  // ---- the token exchange and the profile ----------------------------------------------------

  private async exchangeCode(
    ctx: ProviderContext,
    p: NormalizedOAuthProvider,
    as: o.AuthorizationServer,
    client: o.Client,
    params: URLSearchParams,
    values: CheckValues,
    maxAge: number | undefined,
  ): Promise<{ tokens: TokenSet; claims?: o.IDToken }> {
    let response: Response;
    if (p.token?.request) {
      // A custom token request (Auth.js never calls it): its tokens still go through validation.
      const result = await p.token.request({ checks: values, params: Object.fromEntries(params), provider: this.handlerProvider(ctx, p, as) });
      const tokens = (result as { tokens?: TokenSet })?.tokens;
      if (!tokens || typeof tokens !== 'object') throw new OAuthCallbackError(`${p.name}: token.request() must return { tokens }.`);
      response = Response.json({ token_type: 'bearer', ...tokens });
    } else {
      if (!as.token_endpoint) throw new InvalidEndpoints(`${p.name} has no token endpoint: set \`token\` or an \`issuer\` whose discovery document has one.`);
      response = await o.authorizationCodeGrantRequest(
        as,
        client,
        await this.clientAuth(p),
        params,
        this.redirectUri(ctx, p),
        values.code_verifier ?? o.nopkce,
        { ...this.http(p, as.token_endpoint), additionalParameters: p.token?.params },
      );
    }
    if (p.token?.conform) response = (await p.token.conform(response.clone())) ?? response;
    // Multi-tenant providers: the ID token is validated against the issuer of the tenant that signed it.
    as = await this.idTokenServer(p, as, response);
    const processed = await o.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: values.nonce ?? o.expectNoNonce,
      ...(maxAge !== undefined ? { maxAge } : {}),
      requireIdToken: p.type === 'oidc',
    });
    // oauth4webapi checks the ID token's claims; its signature is checked here, before any token is used.
    if (processed.id_token) await this.verifyIdTokenSignature(p, as, processed.id_token);
    const tokens: TokenSet = { ...(processed as TokenSet) };
    // `expires_at` (seconds) from `expires_in`, or as the provider sent it; a value that is not a
    // NumericDate a Date can hold is dropped rather than stored (it would read back as garbage).
    if (typeof processed.expires_in === 'number') tokens.expires_at = Math.floor(Date.now() / 1000) + processed.expires_in;
    if (tokens.expires_at !== undefined && (numericDateMs(tokens.expires_at) === undefined || !Number.isInteger(tokens.expires_at))) delete tokens.expires_at;
    return { tokens, claims: o.getValidatedIdTokenClaims(processed) };
  }

  /**
   * The metadata an ID token is validated against: the provider's, or with `idTokenIssuer` (e.g.
   * Microsoft Entra ID's `common` endpoint) the discovered metadata of the issuer it names for this
   * token (cached like the provider's). Signature, `iss` and `aud` are then checked against that issuer.
   */
  private async idTokenServer(p: NormalizedOAuthProvider, as: o.AuthorizationServer, response: Response): Promise<o.AuthorizationServer> {
    if (!p.idTokenIssuer) return as;
    const body = (await response.clone().json().catch(() => null)) as { id_token?: unknown } | null;
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

  private async readProfile(ctx: ProviderContext, p: NormalizedOAuthProvider, as: o.AuthorizationServer, client: o.Client, tokens: TokenSet, claims: o.IDToken | undefined): Promise<Profile> {
    if (p.type === 'oidc' && p.idToken) return { ...(claims as Profile) };
    if (p.userinfo?.request) {
      const profile = await p.userinfo.request({ tokens, provider: this.handlerProvider(ctx, p, as) });
      if (!profile || typeof profile !== 'object') throw new OAuthCallbackError(`${p.name}: userinfo.request() returned no profile.`);
      return profile;
    }
    const endpoint = p.userinfo?.url?.href ?? as.userinfo_endpoint;
    if (!endpoint) throw new InvalidEndpoints(`${p.name} has no userinfo endpoint: set \`userinfo\` or an \`issuer\` whose discovery document has one.`);
    const url = new URL(endpoint);
    for (const [key, value] of Object.entries(p.userinfo?.params ?? {})) url.searchParams.set(key, value);
    const target = { ...as, userinfo_endpoint: url.href };
    let response = await o.userInfoRequest(target, client, tokens.access_token!, this.http(p, url));
    if (p.userinfo?.conform) response = (await p.userinfo.conform(response.clone())) ?? response;
    if (p.type === 'oidc') {
      // The userinfo `sub` must be the ID token's (OIDC Core 5.3.2).
      return { ...(await o.processUserInfoResponse(target, client, claims!.sub, response)) } as Profile;
    }
    if (!response.ok) throw new OAuthCallbackError(`${p.name}'s userinfo endpoint answered ${response.status}.`);
    const body = (await response.json().catch(() => null)) as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new OAuthCallbackError(`${p.name}'s userinfo endpoint returned no JSON object.`);
    return body as Profile;
  }

  /**
   * Verifies the ID token's signature. Asymmetric algorithms only, with a key of `jwks_uri` chosen
   * by {@link JwksCache}: a `kid` it has not seen makes one refetch (shared by concurrent
   * callbacks), and one still unknown after it is refused, then refused without a fetch for a
   * minute. An HS* token (a MAC keyed with the client secret, OIDC Core 10.1) is accepted only when
   * the provider declares that very algorithm in `client.id_token_signed_response_alg` and has a
   * client secret at least as long as the MAC's key.
   */
  private async verifyIdTokenSignature(p: NormalizedOAuthProvider, as: o.AuthorizationServer, idToken: string): Promise<void> {
    let header: ProtectedHeaderParameters;
    try {
      header = decodeProtectedHeader(idToken);
    } catch {
      throw new OAuthCallbackError(`${p.name}'s ID token has no readable header.`);
    }
    const alg = typeof header.alg === 'string' ? header.alg : undefined;
    if (alg !== undefined && HS_ID_TOKEN_MIN_SECRET_BYTES.has(alg)) return this.verifyHsIdToken(p, alg, idToken);
    if (alg === undefined || !ASYMMETRIC_ID_TOKEN_ALGS.has(alg)) {
      throw new OAuthCallbackError(`${p.name}'s ID token is not signed with a supported asymmetric algorithm (${JSON.stringify(alg?.slice(0, 16) ?? null)}).`);
    }
    if (!as.jwks_uri) throw new OAuthCallbackError(`${p.name} has no jwks_uri to verify the ID token with: set \`issuer\` or \`jwks_endpoint\`.`);
    const jwksUri = as.jwks_uri;
    let key: CryptoKey;
    try {
      key = await this.jwks.getKey(`${p.id}\0${jwksUri}`, { alg, kid: header.kid }, () => this.fetchJwks(p, jwksUri));
    } catch (error) {
      if (error instanceof JwksKeySelectionError) throw new OAuthCallbackError(keySelectionMessage(p.name, alg, error), { cause: { provider: p.id, reason: error.reason } });
      if (error instanceof AuthError) throw error;
      throw new OAuthCallbackError(`Could not read ${p.name}'s JWKS: ${describe(error)}`, { cause: error });
    }
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
    if (!p.clientSecret) throw new OAuthCallbackError(`${p.name}'s ID tokens are MACed with the client secret (${alg}), but no \`clientSecret\` is configured.`);
    const secret = new TextEncoder().encode(p.clientSecret);
    const minBytes = HS_ID_TOKEN_MIN_SECRET_BYTES.get(alg)!;
    // OIDC Core 16.19: the secret MUST have at least the MAC key's octets; a shorter one is open to
    // offline guessing from any ID token it MACed, so such tokens prove nothing.
    if (secret.byteLength < minBytes) {
      throw new OAuthCallbackError(`${p.name}'s client secret is too short to verify ${alg} ID tokens: it must be at least ${minBytes} bytes.`);
    }
    try {
      await compactVerify(idToken, secret, { algorithms: [alg] });
    } catch {
      throw new OAuthCallbackError(`${p.name}'s ID token signature is invalid.`);
    }
  }

  /** Fetches a provider's JWKS: https (or loopback), no redirects, bounded time and size, the provider's `customFetch`. */
  private async fetchJwks(p: NormalizedOAuthProvider, jwksUri: string): Promise<unknown> {
    const url = safeUrl(jwksUri);
    if (!url || (url.protocol !== 'https:' && !isLoopback(url))) throw new OAuthCallbackError(`${p.name}: jwks_uri must be an https URL.`);
    const response = await boundedFetch(url.href, { method: 'GET', headers: { accept: 'application/json, application/jwk-set+json' }, redirect: 'manual', body: undefined }, p.customFetch);
    if (response.status !== 200) throw new OAuthCallbackError(`${p.name}'s JWKS endpoint answered ${response.status}.`);
    const body = (await response.json().catch(() => null)) as unknown;
    if (!body || typeof body !== 'object' || !Array.isArray((body as { keys?: unknown }).keys)) {
      throw new OAuthCallbackError(`${p.name}'s JWKS endpoint returned no JSON Web Key Set.`);
    }
    this.config.logger.debug('oauth_jwks_fetched', { provider: p.id, keys: (body as { keys: unknown[] }).keys.length });
    return body;
  }

  private async clientAuth(p: NormalizedOAuthProvider): Promise<o.ClientAuth> {
    const method = (p.client.token_endpoint_auth_method as string | undefined) ?? 'client_secret_basic';
    switch (method) {
      case 'client_secret_basic':
        return o.ClientSecretBasic(p.clientSecret ?? '');
      case 'client_secret_post':
        return o.ClientSecretPost(p.clientSecret ?? '');
      case 'client_secret_jwt':
        return o.ClientSecretJwt(p.clientSecret ?? '');
      case 'private_key_jwt':
        return o.PrivateKeyJwt(await this.privateKey(p));
      case 'none':
        return o.None();
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

  // ---- discovery ----------------------------------------------------------------------------

  /**
   * The authorization server metadata: discovered (cached per provider for {@link DISCOVERY_TTL_MS},
   * concurrent look-ups shared) when the provider has `wellKnown`/`issuer` and lacks an endpoint it
   * needs, with explicit endpoints overriding; else built from the explicit endpoints.
   */
  private async authorizationServer(p: NormalizedOAuthProvider): Promise<o.AuthorizationServer> {
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
      const discovered = await this.discover(p);
      const as: o.AuthorizationServer = { ...discovered };
      for (const [key, value] of Object.entries(explicit)) if (value !== undefined) (as as Record<string, unknown>)[key] = value;
      return as;
    }
    const as: o.AuthorizationServer = { issuer: p.issuer ?? NO_ISSUER };
    for (const [key, value] of Object.entries(explicit)) if (value !== undefined) (as as Record<string, unknown>)[key] = value;
    return as;
  }

  /** Fetches `wellKnown` (no redirects, bounded size and time) and checks its `issuer`. */
  private discover(p: NormalizedOAuthProvider): Promise<o.AuthorizationServer> {
    return this.discoverAt(p, p.wellKnown!, p.issuer);
  }

  private async discoverAt(p: NormalizedOAuthProvider, wellKnown: string, issuer: string | undefined): Promise<o.AuthorizationServer> {
    const url = new URL(wellKnown);
    if (url.protocol !== 'https:' && !isLoopback(url)) throw new OAuthSignInError(`${p.name}: discovery needs https (${url.origin}).`);
    const response = await boundedFetch(url.href, { method: 'GET', headers: { accept: 'application/json' }, redirect: 'manual', body: undefined }, p.customFetch);
    let expected = issuer;
    if (expected === undefined) {
      // Only `wellKnown` given: the document names the issuer, which ID tokens must then match.
      const body = (await response.clone().json().catch(() => null)) as { issuer?: unknown } | null;
      if (typeof body?.issuer !== 'string') throw new OAuthSignInError(`${p.name}: the discovery document has no issuer.`);
      expected = body.issuer;
    }
    const as = await o.processDiscoveryResponse(new URL(expected), response);
    this.config.logger.debug('oauth_discovery', { provider: p.id, issuer: as.issuer });
    return as;
  }

  // ---- helpers ------------------------------------------------------------------------------

  private provider(ctx: ProviderContext): NormalizedOAuthProvider {
    let p = this.providers.get(ctx.provider.id);
    if (!p) {
      p = normalizeOAuthProvider(providerOfType(ctx.provider, 'oauth', 'oidc').config, this.config.redirectProxyUrl);
      this.providers.set(ctx.provider.id, p);
    }
    return p;
  }

  /**
   * The provider as custom `request` handlers see it: the normalised config with `signinUrl`,
   * `callbackUrl` (the redirect URI this flow sent) and the endpoint URLs discovery found.
   */
  private handlerProvider(ctx: ProviderContext, p: NormalizedOAuthProvider, as: o.AuthorizationServer) {
    const withUrl = <E extends { url?: URL }>(endpoint: E | undefined, discovered: string | undefined) =>
      endpoint?.url || !discovered ? endpoint : { ...(endpoint ?? ({ params: {} } as unknown as E)), url: new URL(discovered) };
    return {
      ...p,
      signinUrl: ctx.signinUrl,
      callbackUrl: this.redirectUri(ctx, p),
      token: withUrl(p.token, as.token_endpoint),
      userinfo: withUrl(p.userinfo, as.userinfo_endpoint),
    };
  }

  /**
   * The checks in force. The fix for Auth.js's dead fallback: when the provider's metadata says it
   * does not support S256, an OIDC provider uses `nonce` instead of PKCE and an OAuth one `state`.
   */
  private effectiveChecks(p: NormalizedOAuthProvider, as: o.AuthorizationServer): Set<OAuthCheck> {
    const checks = new Set(p.checks);
    const methods = as.code_challenge_methods_supported;
    if (checks.has('pkce') && Array.isArray(methods) && !methods.includes('S256')) {
      checks.delete('pkce');
      checks.add(p.type === 'oidc' ? 'nonce' : 'state');
    }
    return checks;
  }

  private proxying(ctx: ProviderContext, p: NormalizedOAuthProvider): boolean {
    return p.redirectProxyUrl !== undefined && !this.onProxy(ctx, p);
  }

  private onProxy(ctx: ProviderContext, p: NormalizedOAuthProvider): boolean {
    return p.redirectProxyUrl !== undefined && safeUrl(p.redirectProxyUrl)?.origin === ctx.origin;
  }

  /** The redirect URI sent in both requests: the proxy's callback when proxying, else ours. */
  private redirectUri(ctx: ProviderContext, p: NormalizedOAuthProvider): string {
    return this.proxying(ctx, p) ? `${p.redirectProxyUrl}/callback/${p.id}` : ctx.providerCallbackUrl;
  }

  /** Query parameters of the sign-in request passed on to the provider (`prompt`, `login_hint`, ...). */
  private extraAuthorizationParams(ctx: ProviderContext): Record<string, string> {
    const out: Record<string, string> = {};
    let count = 0;
    for (const [key, value] of Object.entries(ctx.request.query)) {
      if (RESERVED_PARAMS.has(key) || typeof value !== 'string') continue;
      if (++count > 32 || key.length > 64 || value.length > 2048) throw new InvalidRequest('Too many or too long authorization parameters in the sign-in request.');
      out[key] = value;
    }
    return out;
  }

  /** The authorization response: the form body for `POST` (form_post), else the query. */
  private callbackParams(ctx: ProviderContext): URLSearchParams {
    const source = ctx.request.method === 'POST' ? ctx.request.body : ctx.request.query;
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(source ?? {})) {
      if (typeof value !== 'string') throw new InvalidRequest(`The callback parameter ${JSON.stringify(key.slice(0, 64))} must be a single string.`);
      if (value.length > 16_384) throw new InvalidRequest('A callback parameter is too long.');
      params.set(key, value);
    }
    return params;
  }

  private async open(ctx: ProviderContext, kind: 'state' | 'pkceCodeVerifier' | 'nonce', provider: string): Promise<OpenedCheck> {
    const opened = await this.checks.open(ctx, kind, provider, { consume: true });
    if (typeof opened.value !== 'string' || opened.value === '') throw new InvalidCheck(`The ${kind} check value is empty.`);
    return opened;
  }

  /**
   * Marks this callback's check values (or, without checks, its code) as used. A second callback
   * with the same values (a replay, even one racing the first) is refused before any token request.
   */
  private markUsed(providerId: string, values: CheckValues, code: string): void {
    const now = Date.now();
    if (this.usedChecks.size > 10_000) {
      for (const [key, expires] of this.usedChecks) if (expires <= now) this.usedChecks.delete(key);
    }
    const material = values.code_verifier ?? values.state ?? values.nonce ?? `code:${code}`;
    const key = createHash('sha256').update(`${providerId}\0${material}`).digest('base64url');
    const seen = this.usedChecks.get(key);
    if (seen !== undefined && seen > now) throw new InvalidCheck('This sign-in response was already used.');
    this.usedChecks.set(key, now + CHECK_MAX_AGE * 1000);
  }

  /**
   * Runs sign-ins of the same provider account one after the other (in this process). Two first
   * sign-ins racing would otherwise both create the user; the second would then find the first's
   * half-made user by email and be refused. Queued, the second finds the account and signs in.
   * Across processes the storage's unique (provider, providerAccountId) index still decides.
   */
  private async oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.accountQueues.get(key) ?? Promise.resolve();
    const current = previous.catch(() => undefined).then(fn);
    const tail = current.catch(() => undefined);
    this.accountQueues.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.accountQueues.get(key) === tail) this.accountQueues.delete(key);
    }
  }

  /** oauth4webapi transport options: bounded fetch, plain http only for loopback hosts. */
  private http(p: NormalizedOAuthProvider, target: string | URL) {
    return {
      [o.customFetch]: (url: string, init: FetchInit) => boundedFetch(url, init, p.customFetch),
      [o.allowInsecureRequests]: isLoopback(target),
    };
  }
}

/** fetch with a timeout and a cap on the body size; never follows redirects (oauth4webapi asks for `manual`). */
type FetchInit = { method: string; headers: Record<string, string>; body?: unknown; redirect: 'manual'; signal?: AbortSignal };

async function boundedFetch(url: string, init: FetchInit, customFetch?: (url: string, init: RequestInit) => Promise<Response>): Promise<Response> {
  const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(OAUTH_HTTP_TIMEOUT_MS)]) : AbortSignal.timeout(OAUTH_HTTP_TIMEOUT_MS);
  const response = await (customFetch ?? fetch)(url, { ...(init as RequestInit), signal });
  if (!response.body || response.status === 204 || response.status === 304) return response;
  const body = await readCappedBody(response, OAUTH_MAX_RESPONSE_BYTES);
  if (!body) throw new Error(`the response from ${new URL(url).origin} is too large`);
  const headers = new Headers(response.headers);
  headers.delete('content-encoding');
  headers.delete('content-length');
  return new Response(new Uint8Array(body), { status: response.status, statusText: response.statusText, headers });
}

/** Maps oauth4webapi and transport failures to the library's typed errors (no token or code in messages). */
function mapProtocolError(error: unknown, name: string): AuthError {
  if (error instanceof AuthError) return error;
  if (error instanceof o.ResponseBodyError) {
    return new OAuthCallbackError(`${name} refused the request (${error.error}).`, { cause: { error: error.error, status: error.status } });
  }
  if (error instanceof o.WWWAuthenticateChallengeError) return new OAuthCallbackError(`${name} refused the access token (WWW-Authenticate challenge).`);
  if (error instanceof o.OperationProcessingError) {
    const claim = (error.cause as { claim?: unknown } | undefined)?.claim;
    if (error.code === o.JWT_CLAIM_COMPARISON && claim === 'nonce') return new InvalidCheck('The ID token nonce does not match the nonce cookie.');
    return new OAuthCallbackError(`${name}'s response was rejected: ${error.message}.`);
  }
  if (error instanceof o.UnsupportedOperationError) return new OAuthCallbackError(`${name}'s response was rejected: ${error.message}.`);
  return new OAuthCallbackError(`Could not complete sign-in with ${name}: ${describe(error)}`, { cause: error });
}

async function importPrivateKey(key: ClientPrivateKey | undefined, name: string): Promise<o.CryptoKey | o.PrivateKey> {
  if (!key || typeof key !== 'object') throw new InvalidEndpoints(`${name}: private_key_jwt needs \`token.clientPrivateKey\`.`);
  if ('d' in key && typeof key.d === 'string') {
    const jwk = key as o.JWK & { d: string; alg?: string };
    if (!jwk.alg) throw new InvalidEndpoints(`${name}: the private JWK needs an \`alg\`.`);
    const imported = await importJWK(jwk as Parameters<typeof importJWK>[0], jwk.alg);
    return { key: imported as o.CryptoKey, kid: jwk.kid };
  }
  return key as o.CryptoKey | o.PrivateKey;
}

function jwtPayload(jwt: string): Record<string, unknown> | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as unknown;
    return payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function safeEqual(a: string, b: string): boolean {
  // Hashes have equal lengths, as timingSafeEqual requires.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function isLoopback(target: string | URL): boolean {
  const url = typeof target === 'string' ? safeUrl(target) : target;
  return url !== undefined && LOOPBACK.has(url.hostname);
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

function describe(error: unknown): string {
  if (error instanceof Error) return error.message.slice(0, 300);
  return 'unknown error';
}

/**
 * The `max_age` authorization parameter as seconds, or undefined when absent. A value that is not a
 * whole number of seconds is refused (`InvalidRequest`) before the user is sent to the provider.
 */
function parseMaxAge(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new InvalidRequest('The max_age authorization parameter must be a whole number of seconds.');
  return Number(value);
}
