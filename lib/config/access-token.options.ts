import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { Adapter } from '../adapters/adapter.interface.js';
import { SIGNING_KEY_ADAPTER_METHODS } from '../adapters/adapter-extensions.js';
import type { AccessTokenAlgorithm, AccessTokenOptions, SigningKeyRotation } from './auth-options.interface.js';

/** The algorithm of a signing key: Ed25519 (RFC 8037), P-256 (given keys only) or RSA PKCS #1 v1.5 with SHA-256. */
export type SigningAlgorithm = 'EdDSA' | 'ES256' | 'RS256';

/** A signing key given in the options, parsed. */
export interface GivenSigningKey {
  alg: SigningAlgorithm;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** The algorithms `accessToken.algorithm` takes. */
const ALGORITHMS: readonly AccessTokenAlgorithm[] = ['EdDSA', 'RS256'];
/** The RSA modulus sizes a given key may have, in bits (below 2048 is weak; above 4096 only slow and long). */
export const RSA_MODULUS_BITS = { min: 2048, max: 4096 } as const;

/** `accessToken` as the module runs with it. */
export interface ResolvedAccessToken {
  /** Whether access tokens are issued and accepted: `accessToken` or `nativeApps` is set. */
  enabled: boolean;
  maxAge: number;
  /** `null` when neither `accessToken.issuer` nor `url` says it (then access tokens are off). */
  issuer: string | null;
  /** The `aud` of tokens for this API (what the guard requires). */
  audience: string | null;
  /** Other services' audiences a user may get a token for. */
  audiences: ReadonlySet<string>;
  /** The scopes that may be asked for; `null`: any. */
  scopes: ReadonlySet<string> | null;
  keys: 'stored' | 'derived' | GivenSigningKey[];
  /** The algorithm of the stored keys made from now on (given keys have their own). */
  algorithm: AccessTokenAlgorithm;
  rotation: Required<SigningKeyRotation>;
  /**
   * Whether `issuer` and `audience` were derived (from `url` and `basePath`; the audience from the
   * issuer) rather than given: derived ones follow the app's global prefix ({@link withGlobalPrefix}).
   */
  derived: { issuer: boolean; audience: boolean };
}

const KEYS: ReadonlySet<string> = new Set(
  Object.keys({
    maxAge: 0,
    issuer: 0,
    audience: 0,
    audiences: 0,
    scopes: 0,
    keys: 0,
    algorithm: 0,
    rotation: 0,
  } satisfies Record<keyof AccessTokenOptions, 0>),
);
const ROTATION_KEYS: ReadonlySet<string> = new Set(
  Object.keys({ every: 0, publishAhead: 0, grace: 0 } satisfies Record<keyof SigningKeyRotation, 0>),
);
/** A scope: a short word (RFC 6749 section 3.3 allows more; this keeps them readable and safe to log). */
export const SCOPE = /^[A-Za-z0-9_.:/-]{1,64}$/;

/**
 * Checks and resolves `accessToken`. `required`: native apps are on, which need access tokens (and
 * their issuer). Each problem is pushed as one sentence saying what to write instead.
 */
export function resolveAccessToken(
  option: unknown,
  context: { adapter: Adapter | null; url: URL | undefined; basePath: string; required: boolean },
  problems: string[],
): ResolvedAccessToken {
  const given = option !== undefined && option !== null && option !== false;
  const o = (given ? option : {}) as Record<string, unknown>;
  if (typeof o !== 'object' || Array.isArray(o)) problems.push('accessToken must be an object (e.g. {}).');
  for (const key of Object.keys(o))
    if (!KEYS.has(key)) problems.push(`accessToken.${key} is not an option; the options are ${[...KEYS].join(', ')}.`);
  const seconds = (
    from: Record<string, unknown>,
    key: string,
    at: string,
    fallback: number,
    min: number,
    max: number,
  ): number => {
    const value = from[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      problems.push(`${at} must be a whole number of seconds from ${min} to ${max}, not ${JSON.stringify(value)}.`);
      return fallback;
    }
    return value;
  };
  const maxAge = seconds(o, 'maxAge', 'accessToken.maxAge', 600, 5, 86_400);
  const text = (key: 'issuer' | 'audience'): string | undefined => {
    const value = o[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !value.trim() || value.length > 512) {
      problems.push(`accessToken.${key} must be a non-empty string (a URL, e.g. 'https://api.example.com').`);
      return undefined;
    }
    return value;
  };
  const enabled = given || context.required;
  const issuer = text('issuer') ?? (context.url ? `${context.url.origin}${context.basePath}` : null);
  if (given && issuer === null)
    problems.push(
      "accessToken needs a stable issuer: set `url` (or AUTH_URL) to the API's public origin, or `accessToken.issuer` (e.g. 'https://api.example.com/auth').",
    );
  const list = (key: 'audiences' | 'scopes', check: (v: string) => boolean, example: string): Set<string> | null => {
    const value = o[key];
    if (value === undefined) return null;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && check(v))) {
      problems.push(`accessToken.${key} must be a list of strings, e.g. ${example}.`);
      return null;
    }
    return new Set(value as string[]);
  };
  const audiences =
    list('audiences', (v) => v.length > 0 && v.length <= 512, "['https://billing.example.com']") ?? new Set();
  const scopes = list('scopes', (v) => SCOPE.test(v), "['read:notes', 'write:notes']");
  const r = (o.rotation ?? {}) as Record<string, unknown>;
  if (typeof r !== 'object' || Array.isArray(r)) problems.push('accessToken.rotation must be an object.');
  for (const key of Object.keys(r))
    if (!ROTATION_KEYS.has(key))
      problems.push(`accessToken.rotation.${key} is not an option; the options are ${[...ROTATION_KEYS].join(', ')}.`);
  const rotation = {
    every: seconds(r, 'every', 'accessToken.rotation.every', 30 * 86_400, 0, 400 * 86_400),
    publishAhead: seconds(r, 'publishAhead', 'accessToken.rotation.publishAhead', 3600, 1, 30 * 86_400),
    grace: seconds(r, 'grace', 'accessToken.rotation.grace', 300, 0, 30 * 86_400),
  };
  if (rotation.every !== 0 && rotation.every <= rotation.publishAhead)
    problems.push(
      'accessToken.rotation.every must be longer than rotation.publishAhead (or 0: rotate on demand only).',
    );
  const storable =
    context.adapter !== null &&
    SIGNING_KEY_ADAPTER_METHODS.every((m) => typeof (context.adapter as Record<string, unknown>)[m] === 'function');
  let keys: ResolvedAccessToken['keys'] = storable ? 'stored' : 'derived';
  const saidBefore = problems.length;
  if (o.keys === 'stored' && !storable && enabled)
    problems.push(
      "accessToken.keys 'stored' needs an adapter with the signing-key methods (SigningKeyAdapter: TypeOrmAdapter with SigningKeyEntity, table signing_keys, migration AuthSigningKeys…; MemoryAdapter) (MissingAdapterMethods).",
    );
  if (o.keys === 'derived' || o.keys === 'stored') keys = o.keys;
  else if (Array.isArray(o.keys)) keys = givenKeys(o.keys, problems);
  else if (o.keys !== undefined)
    problems.push("accessToken.keys must be 'stored', 'derived' or a list of private JWKs (Ed25519, P-256 or RSA).");
  const algorithm = resolveAlgorithm(o.algorithm, keys, enabled && problems.length === saidBefore, problems);
  return {
    enabled: enabled && issuer !== null,
    maxAge,
    issuer,
    audience: text('audience') ?? issuer,
    audiences,
    scopes,
    keys,
    algorithm,
    rotation,
    derived: { issuer: o.issuer === undefined, audience: o.audience === undefined },
  };
}

/**
 * The access-token settings once the app's global prefix (`app.setGlobalPrefix`) is known: an
 * issuer derived from `url` and `basePath` takes the prefix too (`https://api.example.com/api/auth`),
 * and so does an audience derived from it. Given ones stay as given.
 */
export function withGlobalPrefix(
  resolved: ResolvedAccessToken,
  url: URL | undefined,
  basePath: string,
): ResolvedAccessToken {
  const issuer = resolved.derived.issuer && url ? `${url.origin}${basePath}` : resolved.issuer;
  const audience = resolved.derived.audience ? issuer : resolved.audience;
  return { ...resolved, issuer, audience };
}

/**
 * `accessToken.algorithm`, checked against the keys: stored keys are made with it; derived keys are
 * Ed25519 only (node:crypto cannot make an RSA key from a secret deterministically); given keys each
 * have their own, which an explicit algorithm must not contradict. `check`: access tokens are on and
 * the keys were sound (no problem was said about them).
 */
function resolveAlgorithm(
  value: unknown,
  keys: ResolvedAccessToken['keys'],
  check: boolean,
  problems: string[],
): AccessTokenAlgorithm {
  if (value === undefined) return 'EdDSA';
  if (typeof value !== 'string' || !ALGORITHMS.includes(value as AccessTokenAlgorithm)) {
    problems.push(
      `accessToken.algorithm must be ${ALGORITHMS.map((a) => `'${a}'`).join(' or ')} (the default 'EdDSA': Ed25519; 'RS256': RSA 2048-bit), not ${JSON.stringify(value)}.`,
    );
    return 'EdDSA';
  }
  const algorithm = value as AccessTokenAlgorithm;
  if (!check) return algorithm;
  if (keys === 'derived' && algorithm === 'RS256')
    problems.push(
      "accessToken.algorithm 'RS256' needs stored or given keys: derived keys are Ed25519 only (an RSA key cannot be derived from the secret). Use an adapter with signing-key storage (SigningKeyAdapter: TypeOrmAdapter with SigningKeyEntity, MemoryAdapter) and keys 'stored', or give RSA private JWKs in accessToken.keys.",
    );
  if (Array.isArray(keys))
    for (const [i, key] of keys.entries())
      if (key.alg !== algorithm)
        problems.push(
          `accessToken.keys[${i}] is an ${key.alg} key but accessToken.algorithm is '${algorithm}': leave algorithm out when you give keys (each key signs with its own), or give ${algorithm} keys.`,
        );
  return algorithm;
}

/** The private JWKs of `accessToken.keys`, parsed; a key that is not one is a problem. */
function givenKeys(list: unknown[], problems: string[]): GivenSigningKey[] {
  const keys: GivenSigningKey[] = [];
  if (list.length === 0) problems.push('accessToken.keys must list at least one private JWK.');
  for (const [i, jwk] of list.entries()) {
    const j = jwk as Record<string, unknown> | null;
    const alg =
      j?.kty === 'OKP' && j.crv === 'Ed25519'
        ? 'EdDSA'
        : j?.kty === 'EC' && j.crv === 'P-256'
          ? 'ES256'
          : j?.kty === 'RSA'
            ? 'RS256'
            : null;
    if (!j || typeof j !== 'object' || !alg || typeof j.d !== 'string') {
      problems.push(
        `accessToken.keys[${i}] must be a private JWK: { kty: 'OKP', crv: 'Ed25519', x, d }, { kty: 'EC', crv: 'P-256', x, y, d } or { kty: 'RSA', n, e, d, p, q, dp, dq, qi }.`,
      );
      continue;
    }
    if (alg === 'RS256') {
      const key = givenRsaKey(j, `accessToken.keys[${i}]`, problems);
      if (key) keys.push(key);
      continue;
    }
    try {
      const privateKey = createPrivateKey({ key: j as never, format: 'jwk' });
      keys.push({ alg, privateKey, publicKey: createPublicKey(privateKey) });
    } catch {
      problems.push(`accessToken.keys[${i}] is not a valid ${String(j.crv)} private key.`);
    }
  }
  return keys;
}

/**
 * An RSA private JWK (RS256): `alg` RS256 or absent, every private member (node:crypto needs the CRT
 * ones), a modulus of 2048 to 4096 bits, and parts that agree (it signs what its public half verifies).
 */
function givenRsaKey(j: Record<string, unknown>, at: string, problems: string[]): GivenSigningKey | undefined {
  if (j.alg !== undefined && j.alg !== 'RS256') {
    problems.push(
      `${at} is an RSA key with alg ${JSON.stringify(j.alg)}: RSA keys sign RS256 only (set alg 'RS256' or leave it out).`,
    );
    return undefined;
  }
  const missing = ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'].filter((m) => typeof j[m] !== 'string' || !j[m]);
  if (missing.length) {
    problems.push(
      `${at} is an RSA private JWK without ${missing.join(', ')}: give the whole private key (as \`privateKey.export({ format: 'jwk' })\` writes it).`,
    );
    return undefined;
  }
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: j as never, format: 'jwk' });
    publicKey = createPublicKey(privateKey);
  } catch {
    problems.push(`${at} is not a valid RSA private key.`);
    return undefined;
  }
  const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < RSA_MODULUS_BITS.min || bits > RSA_MODULUS_BITS.max) {
    problems.push(
      `${at} is an RSA key of ${bits} bits: RS256 keys must have ${RSA_MODULUS_BITS.min} to ${RSA_MODULUS_BITS.max} bits (make one with generateKeyPairSync('rsa', { modulusLength: 2048 })).`,
    );
    return undefined;
  }
  let agrees: boolean;
  try {
    const probe = Buffer.from('nestjs-auth signing key check');
    agrees = verify('sha256', probe, publicKey, sign('sha256', probe, privateKey));
  } catch {
    agrees = false;
  }
  if (!agrees) {
    problems.push(
      `${at} is not a valid RSA private key: its parts do not agree (it does not sign what its n and e verify).`,
    );
    return undefined;
  }
  return { alg: 'RS256', privateKey, publicKey };
}
