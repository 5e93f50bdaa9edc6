import { constants, sign as signBytes, verify as verifyBytes, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { SessionTokenError } from '../errors/auth.errors.js';
import type { JWT } from '../types/common.types.js';
import { DigestTable } from '../util/digest-table.js';
import { ExpiringMap } from '../util/expiring-map.js';
import { CacheAdmission } from './cache-admission.js';
import { ownCopy } from './cache-entries.js';
import { CLOCK_SKEW_SECONDS, dateMs, isoStringOfMs } from '../util/instant.js';
import { assuranceOf, cleanAmr, acrOf, AMR_CLAIM, ACR_CLAIM } from './assurance.js';
import { JwtRevocation } from './jwt-revocation.js';
import { SigningKeys, type SigningKey } from './signing-keys.js';
import { CREDENTIAL, ownBearerState, type AuthUser, type CredentialInfo, type SessionState } from './session.types.js';

/** The `typ` header of an access token (RFC 9068 section 2.1). */
export const ACCESS_TOKEN_TYP = 'at+jwt';
/**
 * The signature algorithms: Ed25519 (RFC 8037) and RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518
 * section 3.3), both deterministic, and P-256 (given keys only).
 */
const ALGS: ReadonlySet<string> = new Set(['EdDSA', 'RS256', 'ES256']);
/** The longest access token read; longer is refused unparsed. */
const MAX_TOKEN_LENGTH = 4096;
/**
 * The memory a verified token's cache entry is counted for, from its token alone (so removing an
 * entry subtracts what adding it counted, as `jwtEntryBytes` does for sessions): the token (a byte
 * a character), its decoded claims (about 3/4 of its payload part) and the objects around them
 * (claims, user, session, credential, map and admission slots). Calibrated on V8's heap after a GC
 * (Node.js 20, 64-bit, 2,000 entries, each token read out of its own header): an Ed25519 token of
 * 692 characters measured 2,235 bytes (counted 2,212), an RS256 one of 948 characters 2,425
 * (counted 2,468).
 */
export function accessEntryBytes(raw: string): number {
  const first = raw.indexOf('.');
  const payload = raw.indexOf('.', first + 1) - first - 1;
  return raw.length + ((3 * Math.max(0, payload)) >> 2) + 1150;
}
/** Checked protected headers remembered at most (forgotten all at once when more come). */
const HEADERS_KEPT = 32;
/** A compact JWS: three base64url parts (a session JWE has five). */
const JWS = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** What an access token says, as the module issues it. */
export interface AccessTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  exp: number;
  iat: number;
  jti: string;
  /** The refresh-token family (one sign-in of a native app): ending it revokes the token by this id. */
  sid: string;
  /** The native app's client id, or `session` for a token a signed-in user asked for. */
  client_id: string;
  auth_time: number;
  /** Space-separated scopes, when the token is limited to them. */
  scope?: string;
  amr?: string[];
  acr?: string;
  name?: string | null;
  email?: string | null;
  picture?: string | null;
}

/** What {@link AccessTokens.verify} makes of a token. */
export type AccessTokenCheck =
  { status: 'valid'; claims: AccessTokenClaims } | { status: 'expired' | 'invalid'; reason: string };

type ActiveState = Extract<SessionState, { status: 'active' }>;

/**
 * The access tokens of native apps: JWTs signed with Ed25519 or RSA (RS256) (`typ: at+jwt`), verified
 * here without storage and by anyone with the public keys (`{basePath}/jwks`).
 *
 * The keys are {@link SigningKeys}' (stored and rotated, derived from the secrets, or given). Ed25519
 * and RS256 (PKCS #1 v1.5) signatures are deterministic: the same claims give the same token, which a
 * retried refresh relies on.
 *
 * Verification checks what RFC 8725 asks: the key named by `kid` decides the algorithm (`alg: none`,
 * HS256 and any other than the key's refused before it is used), `typ`, `iss`, `aud`, `exp`, `iat`; a token whose
 * `sid` was revoked (its family ended) is refused through {@link JwtRevocation}, which the
 * revocation bus feeds on every instance.
 */
@Injectable()
export class AccessTokens {
  /**
   * Verified tokens, each until it expires, within the session cache's bounds (`session.cacheMaxEntries`
   * and `session.cacheMaxBytes`, counted by {@link accessEntryBytes}); the oldest goes first.
   */
  private readonly verified: ExpiringMap<string, ActiveState>;
  /**
   * When the verified tokens fill the cache, a new one is kept on its second request only: a stream
   * of tokens seen once (more clients than the cache holds) neither evicts the ones that come back
   * nor churns the heap (as the session cache does).
   */
  private readonly admission: CacheAdmission;
  /**
   * The tokens whose signature this process verified, as digests (20 bytes each, in a table of
   * `session.cacheMaxBytes`; none with `session.cacheMaxEntries: 0`), until they expire. A token
   * seen before but no longer in {@link verified} (more clients than it holds) skips only the
   * signature check: its header, key and claims are checked again.
   */
  private readonly signed: DigestTable;
  /** Protected headers that passed {@link headerOf}'s checks, by their base64url text. */
  private readonly headers = new Map<string, { alg: string; kid: unknown }>();

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: ResolvedAuthConfig,
    private readonly revocation: JwtRevocation,
    private readonly keys: SigningKeys,
  ) {
    const { cacheMaxEntries, cacheMaxBytes } = config.session;
    this.verified = new ExpiringMap(cacheMaxEntries, { max: cacheMaxBytes, of: accessEntryBytes });
    this.admission = new CacheAdmission(Math.max(64, 2 * cacheMaxEntries));
    this.signed = new DigestTable(cacheMaxEntries === 0 ? 0 : cacheMaxBytes);
  }

  /** Whether the module issues and accepts access tokens (`accessToken` or `nativeApps`). */
  get enabled(): boolean {
    return this.config.accessToken?.enabled === true;
  }

  /** Whether a bearer token is one of these (a JWS, not a session JWE or a database token). */
  accepts(raw: string): boolean {
    return this.enabled && raw.length <= MAX_TOKEN_LENGTH && JWS.test(raw);
  }

  /** The public keys, as a JWK Set (`{basePath}/jwks`). */
  jwks(): ReturnType<SigningKeys['jwks']> {
    return this.enabled ? this.keys.jwks() : { keys: [] };
  }

  /**
   * Signs an access token for a user (with the first secret's key). `iat` (seconds) fixes the
   * token: the same claims and `iat` give the same token.
   */
  sign(input: {
    user: { id: string; name?: string | null; email?: string | null; image?: string | null };
    sid: string;
    clientId: string;
    authTime: Date;
    amr: readonly string[];
    iat: number;
    jti: string;
    /** Another service's `aud` (one of `accessToken.audiences`); this API's by default. */
    audience?: string;
    scope?: readonly string[];
  }): { token: string; expiresIn: number } {
    const { issuer, maxAge } = this.config.accessToken;
    const audience = input.audience ?? this.config.accessToken.audience;
    if (!issuer || !audience) throw new SessionTokenError('Access tokens need an issuer (url or accessToken.issuer).');
    const amr = cleanAmr(input.amr);
    const claims: AccessTokenClaims = {
      iss: issuer,
      aud: audience,
      sub: input.user.id,
      exp: input.iat + maxAge,
      iat: input.iat,
      jti: input.jti,
      sid: input.sid,
      client_id: input.clientId,
      auth_time: Math.floor((dateMs(input.authTime) ?? 0) / 1000),
      ...(input.scope ? { scope: input.scope.join(' ') } : {}),
      ...(amr.length ? { [AMR_CLAIM]: amr, [ACR_CLAIM]: acrOf(assuranceOf(amr).aal) } : {}),
      ...(input.user.name != null ? { name: input.user.name } : {}),
      ...(input.user.email != null ? { email: input.user.email } : {}),
      ...(input.user.image != null ? { picture: input.user.image } : {}),
    };
    const key = this.keys.signingKey();
    const header = b64json({ alg: key.alg, typ: ACCESS_TOKEN_TYP, kid: key.kid });
    const signingInput = `${header}.${b64json(claims)}`;
    const signature = signBytes(hashOf(key), Buffer.from(signingInput), inputOf(key, key.privateKey!)).toString(
      'base64url',
    );
    return { token: `${signingInput}.${signature}`, expiresIn: maxAge };
  }

  /** Checks a token's header, signature and claims (not revocation). Never throws. */
  verify(raw: string, now: number = Date.now()): AccessTokenCheck {
    if (!this.accepts(raw)) return { status: 'invalid', reason: 'not an access token' };
    const [headerPart, payloadPart, signaturePart] = raw.split('.') as [string, string, string];
    const header = this.headerOf(headerPart);
    if (typeof header === 'string') return { status: 'invalid', reason: header };
    const key = this.keys.byKid(header.kid, now);
    if (!key) return { status: 'invalid', reason: 'unknown kid' };
    // The key decides the algorithm, never the token (RFC 8725 section 2.1).
    if (header.alg !== key.alg) return { status: 'invalid', reason: 'unexpected alg' };
    const nowSec = now / 1000;
    // A token verified before is the same bytes under the same key (its digest covers all of it).
    const known = this.signed.has(raw, nowSec);
    if (!known && !verifySignature(key, `${headerPart}.${payloadPart}`, signaturePart))
      return { status: 'invalid', reason: 'bad signature' };
    const c = parseJson(payloadPart);
    if (!c) return { status: 'invalid', reason: 'malformed claims' };
    const { issuer, audience } = this.config.accessToken;
    if (c.iss !== issuer) return { status: 'invalid', reason: 'wrong iss' };
    if (!(c.aud === audience || (Array.isArray(c.aud) && c.aud.includes(audience))))
      return { status: 'invalid', reason: 'wrong aud' };
    for (const claim of ['exp', 'iat', 'auth_time'] as const)
      if (typeof c[claim] !== 'number' || !Number.isFinite(c[claim]))
        return { status: 'invalid', reason: `no ${claim}` };
    for (const claim of ['sub', 'jti', 'sid', 'client_id'] as const)
      if (typeof c[claim] !== 'string' || !c[claim] || (c[claim] as string).length > 255)
        return { status: 'invalid', reason: `no ${claim}` };
    if (c.scope !== undefined && (typeof c.scope !== 'string' || c.scope.length > 2048))
      return { status: 'invalid', reason: 'malformed scope' };
    if ((c.iat as number) > nowSec + CLOCK_SKEW_SECONDS) return { status: 'invalid', reason: 'issued in the future' };
    if ((c.exp as number) <= nowSec) return { status: 'expired', reason: 'expired' };
    // `has` above hashed this token; nothing between touched the table.
    if (!known) this.signed.addLastLookedUp(c.exp as number, nowSec);
    return { status: 'valid', claims: c as unknown as AccessTokenClaims };
  }

  /**
   * What a protected header says (its `alg` and `kid`), or why it is refused. The headers that pass
   * are few (one per key, as the module signs them), so they are remembered by their exact text and
   * a token's header is decoded once, not on every request.
   */
  private headerOf(part: string): { alg: string; kid: unknown } | string {
    const known = this.headers.get(part);
    if (known) return known;
    const header = parseJson(part);
    if (!header) return 'malformed header';
    if (typeof header.alg !== 'string' || !ALGS.has(header.alg)) return 'unexpected alg';
    if (typeof header.typ !== 'string' || !typOk(header.typ)) return 'not typ at+jwt';
    if (header.crit !== undefined) return 'crit not understood';
    if (this.headers.size >= HEADERS_KEPT) this.headers.clear();
    const checked = { alg: header.alg, kid: header.kid };
    // Its own copy: a slice of the token would keep the request's whole header alive.
    this.headers.set(ownCopy(part), checked);
    return checked;
  }

  /**
   * The request state of a bearer access token when it can be told without waiting (verified now
   * or before, and not revoked in this process, with no shared store to ask), else `undefined`.
   */
  readSync(raw: string, now: number = Date.now()): SessionState | undefined {
    const hit = this.verified.get(raw, now);
    const state = hit ?? this.check(raw, now);
    if (state.status !== 'active') return state;
    if (!this.revocation.clearedLocally(this.revocation.idOf(state.token!), now)) return undefined;
    // A state just built is the request's own unless the cache keeps it too.
    return hit || this.keep(raw, state, now) ? ownBearerState(state) : state;
  }

  /** The request state of a bearer access token: verified, then checked against revocation. */
  async read(raw: string, now: number = Date.now()): Promise<SessionState> {
    let state = this.verified.get(raw, now) ?? this.check(raw, now);
    // A key another instance made a moment ago: read the keys again (rate-limited), then check again.
    if (state.status === 'invalid' && (await this.keys.learn(kidOf(raw)))) state = this.check(raw, now);
    if (state.status !== 'active') return state;
    let revoked: boolean;
    try {
      revoked = await this.revocation.isRevoked(state.token!, now);
    } catch (error) {
      this.config.logger.error(
        new SessionTokenError('The revocation list could not be read (rateLimitStore): access token refused.', {
          cause: error,
        }),
      );
      return { status: 'invalid', clearCookies: [] };
    }
    if (revoked) {
      this.verified.delete(raw);
      return { status: 'invalid', clearCookies: [] };
    }
    return this.keep(raw, state, now) ? ownBearerState(state) : state;
  }

  /**
   * Caches a verified token's state until it expires, unless it would push out a live entry on its
   * first request. True when the cache holds this state (kept now, or before).
   */
  private keep(raw: string, state: ActiveState, now: number): boolean {
    const held = this.verified.get(raw, now);
    if (held !== undefined) return held === state;
    if (this.verified.evictsLive(now, raw, state) && !this.admission.admits(raw)) return false;
    return this.verified.set(raw, state, (state.token!.exp as number) * 1000, now);
  }

  private check(raw: string, now: number): SessionState {
    const result = this.verify(raw, now);
    if (result.status !== 'valid') {
      this.config.logger.debug('access_token_refused', { reason: result.reason });
      return { status: result.status, clearCookies: [] };
    }
    const c = result.claims;
    const user: AuthUser = { id: c.sub, name: c.name ?? null, email: c.email ?? null, image: c.picture ?? null };
    const expires = isoStringOfMs(c.exp * 1000);
    const session = { user: { id: c.sub, name: user.name, email: user.email, image: user.image }, expires };
    const credential: CredentialInfo = {
      kind: 'accessToken',
      scopes: c.scope === undefined ? null : c.scope.split(' ').filter(Boolean),
      clientId: c.client_id,
    };
    // Enumerable, so the copies a request gets keep it; JSON leaves a symbol out anyway.
    (session as Record<symbol, unknown>)[CREDENTIAL] = credential;
    return {
      status: 'active',
      strategy: 'access-token',
      user,
      session: session as never,
      token: c as unknown as JWT,
      sessionToken: raw,
      bearer: true,
      signedInAt: new Date(c.auth_time * 1000),
    };
  }
}

/** Whether `signature` (base64url) is `key`'s over `signingInput`; never throws. */
function verifySignature(key: SigningKey, signingInput: string, signature: string): boolean {
  try {
    return verifyBytes(
      hashOf(key),
      Buffer.from(signingInput),
      inputOf(key, key.publicKey),
      Buffer.from(signature, 'base64url'),
    );
  } catch {
    return false;
  }
}

/** The digest of a key's signatures: none for Ed25519, SHA-256 for ES256 and RS256. */
function hashOf(key: SigningKey): string | null {
  return key.alg === 'EdDSA' ? null : 'sha256';
}

/**
 * The key as node:crypto's sign and verify take it, with the options of its algorithm: ES256's
 * signature is r || s (JWS, RFC 7518 section 3.4), not DER; RS256's padding is PKCS #1 v1.5.
 */
function inputOf(key: SigningKey, half: KeyObject): { key: KeyObject; dsaEncoding?: 'ieee-p1363'; padding?: number } {
  if (key.alg === 'ES256') return { key: half, dsaEncoding: 'ieee-p1363' };
  if (key.alg === 'RS256') return { key: half, padding: constants.RSA_PKCS1_PADDING };
  return { key: half };
}

/** The `kid` a token's header names, or undefined. */
function kidOf(raw: string): unknown {
  return parseJson(raw.slice(0, Math.max(0, raw.indexOf('.'))))?.kid;
}

function b64json(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A base64url JSON object, or null. */
function parseJson(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** `at+jwt`, also as the media type `application/at+jwt` (RFC 9068 section 4), any case. */
function typOk(typ: string): boolean {
  const t = typ.toLowerCase();
  return t === ACCESS_TOKEN_TYP || t === `application/${ACCESS_TOKEN_TYP}`;
}
