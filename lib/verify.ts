/**
 * `nestjs-auth/verify`: verifies the access tokens nestjs-auth issues, in another service, with
 * nothing but `jose`. No Nest, nothing else from the library, no Node built-in: it runs on Node.js,
 * in edge runtimes (Vercel's Edge Runtime, Cloudflare Workers, Deno, Bun) and in middleware.
 *
 * ```ts
 * import { AccessTokenError, createAccessTokenVerifier } from 'nestjs-auth/verify';
 *
 * const verify = createAccessTokenVerifier({
 *   jwksUrl: 'https://api.example.com/auth/jwks',
 *   issuer: 'https://api.example.com/auth',
 *   audience: 'https://api.example.com/auth',
 *   requiredScopes: ['orders:read'],
 * });
 *
 * try {
 *   const { sub, scopes } = await verify(bearerToken);
 * } catch (error) {
 *   if (error instanceof AccessTokenError) {
 *     // 401 (invalid_token, expired_token) or 403 (insufficient_scope), with error.code
 *   } else throw error; // the JWK Set could not be read: not the token's fault (503)
 * }
 * ```
 *
 * @module nestjs-auth/verify
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { JSONWebKeySet, JWTPayload, JWTVerifyGetKey, ProtectedHeaderParameters } from 'jose';

export type { JSONWebKeySet } from 'jose';

/** The `typ` header of an access token (RFC 9068 section 2.1). */
const ACCESS_TOKEN_TYP = 'at+jwt';
/**
 * The signature algorithms nestjs-auth signs with: Ed25519 (RFC 8037), RSA PKCS #1 v1.5 with SHA-256
 * (`accessToken.algorithm: 'RS256'`) and P-256. Nothing else is accepted.
 */
const ALGORITHMS = ['EdDSA', 'RS256', 'ES256'];
/** The algorithms, as a message says them. */
const ALGORITHMS_SAID = `${ALGORITHMS.slice(0, -1).join(', ')} or ${ALGORITHMS.at(-1)}`;
/** The longest access token read; a longer one is refused unparsed (as the library's own verifier does). */
const MAX_TOKEN_LENGTH = 4096;
/** The longest `sub`, `jti`, `sid` and `client_id` accepted. */
const MAX_ID_LENGTH = 255;
/** The longest `scope` claim accepted. */
const MAX_SCOPE_LENGTH = 2048;
/** A compact JWS: three base64url parts, the signature not empty (a session JWE has five). */
const COMPACT_JWS = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** A scope name, as `@Auth({ scopes })` takes it. */
const SCOPE_NAME = /^[A-Za-z0-9_.:/-]{1,64}$/;

/**
 * Why a token was refused:
 * - `invalid_token`: not an access token of this issuer for this audience (malformed, a disallowed
 *   `alg`, a wrong `typ`, an unknown `kid`, a bad signature, a wrong `iss` or `aud`, issued in the
 *   future, a required claim missing). Answer `401` with `WWW-Authenticate: Bearer error="invalid_token"`.
 * - `expired_token`: a sound token past its `exp` (beyond the clock tolerance). Answer `401` with
 *   `error="invalid_token"` too (RFC 6750 has no other code); the app refreshes it and tries again.
 * - `insufficient_scope`: a sound token without one of the `requiredScopes`. Answer `403` with
 *   `error="insufficient_scope"`.
 */
export type AccessTokenErrorCode = 'invalid_token' | 'expired_token' | 'insufficient_scope';

/**
 * A token refused by a verifier of {@link createAccessTokenVerifier}: {@link AccessTokenError.code}
 * says why in a word that stays the same across versions, the message in a sentence for logs. The
 * message never contains the token, nor a value read from it (only the issuer and audience expected).
 */
export class AccessTokenError extends Error {
  /** Why the token was refused (stable: match on it, not on the message). */
  readonly code: AccessTokenErrorCode;

  constructor(code: AccessTokenErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AccessTokenError';
    this.code = code;
  }
}

/** The claims of an access token nestjs-auth issues (RFC 9068, with the library's own). */
export interface AccessTokenClaims extends JWTPayload {
  /** The issuer: the auth server's URL with its base path (`accessToken.issuer`). */
  iss: string;
  /** The API the token is for (`accessToken.audience`, or one of `accessToken.audiences`). */
  aud: string | string[];
  /** The user's id. */
  sub: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** Issued at, seconds since the epoch. */
  iat: number;
  /** The token's id. */
  jti: string;
  /** The sign-in it belongs to (a native app's refresh-token family): ending it revokes the token. */
  sid: string;
  /** The native app's client id, or `session` for a token a signed-in user asked for. */
  client_id: string;
  /** When the user signed in, seconds since the epoch. */
  auth_time: number;
  /** Space-separated scopes, when the token is limited to them. */
  scope?: string;
  /** How the user signed in (RFC 8176: `pwd`, `otp`, `hwk`, `mfa`, ...). */
  amr?: string[];
  /** The assurance level reached: `aal1`, or `aal2` with a second factor or a passkey. */
  acr?: string;
  name?: string | null;
  email?: string | null;
  picture?: string | null;
}

/** What a verifier returns for a token it accepts. */
export interface VerifiedAccessToken {
  /** The user's id (`sub`). */
  sub: string;
  /**
   * The token's scopes (its `scope` claim, split on spaces). Empty when the token has no `scope`
   * claim: such a token is not limited to scopes (a native app's acts for its user, as the library's
   * guard treats it), so `requiredScopes` accepts it. Tell the two apart with `claims.scope`.
   */
  scopes: string[];
  /** The client the token was issued to (`client_id`): a native app's id, or `session`. */
  clientId: string;
  /** The sign-in the token belongs to (`sid`). */
  sessionId: string;
  /** When the user signed in (`auth_time`), seconds since the epoch. */
  authTime: number;
  /** How the user signed in (`amr`); empty when the token does not say. */
  amr: string[];
  /** The assurance level (`acr`: `aal1` or `aal2`), when the token says. */
  acr: string | undefined;
  /** Every claim of the token, as verified. */
  claims: AccessTokenClaims;
}

/** What {@link createAccessTokenVerifier} takes: where the public keys are, and what to require. */
export interface AccessTokenVerifierOptions {
  /**
   * The JWK Set URL: the library's `GET {basePath}/jwks`, e.g. `https://api.example.com/auth/jwks`.
   * Fetched on first use and cached (jose's `createRemoteJWKSet`: kept for 10 minutes, fetched again
   * at most every 30 seconds when a token names a `kid` it does not hold, as after a key rotation).
   * Give this or {@link AccessTokenVerifierOptions.jwks}, not both.
   */
  jwksUrl?: string | URL;
  /** The public keys themselves, as a JWK Set (jose's `createLocalJWKSet`), instead of a URL. */
  jwks?: JSONWebKeySet;
  /** The `iss` required, exactly: the library's `accessToken.issuer` (its URL with the base path by default). */
  issuer: string;
  /** The `aud` required (the token's `aud`, or one of its values): `accessToken.audience`, or one of `accessToken.audiences`. */
  audience: string;
  /** Seconds of clock skew allowed on `exp` and `iat` (and `nbf`, if present). @default 5 */
  clockTolerance?: number;
  /**
   * Scopes the token must have, every one; a token limited to scopes (with a `scope` claim) without
   * one of them is refused with `insufficient_scope`. A token without a `scope` claim has every scope.
   * @default none
   */
  requiredScopes?: string[];
}

/** Verifies one access token; resolves to what it says, or rejects with an {@link AccessTokenError}. */
export type AccessTokenVerifier = (token: string) => Promise<VerifiedAccessToken>;

/**
 * Makes a verifier of the access tokens nestjs-auth issues (JWTs `typ: at+jwt`, RFC 9068). It checks
 * what the library's own verifier checks (RFC 8725):
 * - a compact JWS of at most 4096 characters;
 * - `alg` pinned to `EdDSA`, `RS256` or `ES256` (`none`, HS256 and every other refused before any
 *   key is used), and the key named by `kid` decides it: a token whose `alg` is not its key's (its
 *   `alg` and key type in the JWK Set) is refused;
 * - `typ` `at+jwt` (or `application/at+jwt`), no `crit`;
 * - the signature, with the key of the JWK Set whose `kid` the token names;
 * - `iss` and `aud` as given; `exp` not passed and `iat` not in the future (each within
 *   `clockTolerance`);
 * - `sub`, `jti`, `sid` and `client_id` non-empty strings, `auth_time` a number, `scope` a string;
 * - then every one of `requiredScopes`.
 *
 * It does not know whether the token was revoked since it was issued (the sign-in ended): access
 * tokens are short-lived for that (`accessToken.maxAge`, 10 minutes by default).
 *
 * @returns a function of a token (without `Bearer `) that resolves to the {@link VerifiedAccessToken},
 *   or rejects with an {@link AccessTokenError} (`invalid_token`, `expired_token` or
 *   `insufficient_scope`). Any other rejection means the token could not be judged (the JWK Set URL
 *   did not answer with a JWK Set): answer 503, not 401.
 * @throws TypeError for options that are not what this takes (no key source or two, an empty issuer
 *   or audience, a negative tolerance, a malformed scope name, a `jwks` that is not a JWK Set).
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions): AccessTokenVerifier {
  const { issuer, audience } = options;
  if (typeof issuer !== 'string' || !issuer)
    throw new TypeError('createAccessTokenVerifier: issuer must be a non-empty string.');
  if (typeof audience !== 'string' || !audience)
    throw new TypeError('createAccessTokenVerifier: audience must be a non-empty string.');
  const clockTolerance = options.clockTolerance ?? 5;
  if (typeof clockTolerance !== 'number' || !Number.isFinite(clockTolerance) || clockTolerance < 0)
    throw new TypeError('createAccessTokenVerifier: clockTolerance must be a number of seconds, 0 or more.');
  const requiredScopes = options.requiredScopes ?? [];
  if (!Array.isArray(requiredScopes) || requiredScopes.some((s) => typeof s !== 'string' || !SCOPE_NAME.test(s)))
    throw new TypeError(
      'createAccessTokenVerifier: requiredScopes must list scope names (letters, digits, _ . : / -).',
    );
  const keys = keySetOf(options);

  return async (token: string): Promise<VerifiedAccessToken> => {
    checkHeader(token);
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        algorithms: ALGORITHMS,
        typ: ACCESS_TOKEN_TYP,
        issuer,
        audience,
        clockTolerance,
        requiredClaims: ['exp', 'iat', 'sub', 'jti', 'sid', 'client_id', 'auth_time'],
      }));
    } catch (error) {
      throw refusal(error, { issuer, audience });
    }
    return accepted(checkClaims(claims, clockTolerance), requiredScopes);
  };
}

/** The key set of the options: remote (cached) or local. */
function keySetOf(options: AccessTokenVerifierOptions): JWTVerifyGetKey {
  const { jwksUrl, jwks } = options;
  if ((jwksUrl === undefined) === (jwks === undefined))
    throw new TypeError('createAccessTokenVerifier: give jwksUrl or jwks (one of them).');
  if (jwks !== undefined) {
    try {
      return createLocalJWKSet(jwks);
    } catch (error) {
      throw new TypeError('createAccessTokenVerifier: jwks must be a JWK Set ({ keys: [...] }).', { cause: error });
    }
  }
  let url: URL;
  try {
    url = new URL(jwksUrl!);
  } catch (error) {
    throw new TypeError('createAccessTokenVerifier: jwksUrl must be an absolute URL.', { cause: error });
  }
  return createRemoteJWKSet(url);
}

/** The refusal for invalid input. */
const invalid = (reason: string) => new AccessTokenError('invalid_token', `Access token refused: ${reason}.`);

/** Checks what can be checked before a key is used: the shape and the header (RFC 8725 sections 3.1, 3.11). */
function checkHeader(token: unknown): void {
  if (typeof token !== 'string') throw invalid('not a string');
  if (token.length > MAX_TOKEN_LENGTH) throw invalid(`longer than ${MAX_TOKEN_LENGTH} characters`);
  if (!COMPACT_JWS.test(token)) throw invalid('not a compact JWS (three base64url parts, signed)');
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw invalid('malformed header');
  }
  if (typeof header.alg !== 'string' || !ALGORITHMS.includes(header.alg))
    throw invalid(`alg must be ${ALGORITHMS_SAID}`);
  if (typeof header.typ !== 'string' || !typOk(header.typ)) throw invalid(`typ must be ${ACCESS_TOKEN_TYP} (RFC 9068)`);
  if (header.crit !== undefined) throw invalid('crit header parameters are not understood');
  if (typeof header.kid !== 'string' || !header.kid) throw invalid('no kid in the header');
}

/** `at+jwt`, also as the media type `application/at+jwt` (RFC 9068 section 4), any case. */
function typOk(typ: string): boolean {
  const t = typ.toLowerCase();
  return t === ACCESS_TOKEN_TYP || t === `application/${ACCESS_TOKEN_TYP}`;
}

/** Token errors jose reports, by code: each one the token's fault. */
const TOKEN_ERRORS: ReadonlySet<string> = new Set([
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JWS_INVALID',
  'ERR_JWT_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_EXPIRED',
]);

/**
 * What a failure of jose's verification means: an {@link AccessTokenError} when the token is at
 * fault, else the error as it is (the JWK Set could not be fetched or read).
 */
function refusal(error: unknown, expected: { issuer: string; audience: string }): unknown {
  const { code, claim } = (error ?? {}) as { code?: unknown; claim?: unknown };
  if (typeof code !== 'string' || !TOKEN_ERRORS.has(code)) return error;
  const refuse = (reason: string) =>
    new AccessTokenError('invalid_token', `Access token refused: ${reason}.`, { cause: error });
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new AccessTokenError('expired_token', 'Access token refused: it has expired (exp).', { cause: error });
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return refuse('no key of the JWK Set matches its kid and alg');
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return refuse('its kid names more than one key of the JWK Set');
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return refuse('the signature does not verify');
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return refuse(`alg must be ${ALGORITHMS_SAID}`);
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      switch (claim) {
        case 'iss':
          return refuse(`iss is not ${JSON.stringify(expected.issuer)}`);
        case 'aud':
          return refuse(`aud does not include ${JSON.stringify(expected.audience)}`);
        case 'typ':
          return refuse(`typ must be ${ACCESS_TOKEN_TYP} (RFC 9068)`);
        case 'nbf':
          return refuse('not valid yet (nbf)');
        default:
          return refuse(`the ${String(claim)} claim is missing or malformed`);
      }
    default:
      return refuse('malformed');
  }
}

/** Checks the claims jose leaves to the caller; the claims, typed. */
function checkClaims(c: JWTPayload, clockTolerance: number): AccessTokenClaims {
  for (const claim of ['exp', 'iat', 'auth_time'] as const)
    if (typeof c[claim] !== 'number' || !Number.isFinite(c[claim]))
      throw invalid(`the ${claim} claim must be a number`);
  for (const claim of ['sub', 'jti', 'sid', 'client_id'] as const) {
    const value = c[claim];
    if (typeof value !== 'string' || !value || value.length > MAX_ID_LENGTH)
      throw invalid(`the ${claim} claim must be a string of 1 to ${MAX_ID_LENGTH} characters`);
  }
  if (c.scope !== undefined && (typeof c.scope !== 'string' || c.scope.length > MAX_SCOPE_LENGTH))
    throw invalid(`the scope claim must be a string of at most ${MAX_SCOPE_LENGTH} characters`);
  // jose checks `iat` against the clock only with `maxTokenAge`: a token from the future is refused here.
  if ((c.iat as number) > Date.now() / 1000 + clockTolerance) throw invalid('issued in the future (iat)');
  return c as AccessTokenClaims;
}

/** The verified token, once its scopes are checked. */
function accepted(claims: AccessTokenClaims, requiredScopes: readonly string[]): VerifiedAccessToken {
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
  if (claims.scope !== undefined) {
    const missing = requiredScopes.filter((s) => !scopes.includes(s));
    if (missing.length)
      throw new AccessTokenError(
        'insufficient_scope',
        `Access token refused: it lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`,
      );
  }
  return {
    sub: claims.sub,
    scopes,
    clientId: claims.client_id,
    sessionId: claims.sid,
    authTime: claims.auth_time,
    amr: Array.isArray(claims.amr) ? claims.amr.filter((m): m is string => typeof m === 'string') : [],
    acr: typeof claims.acr === 'string' ? claims.acr : undefined,
    claims,
  };
}
