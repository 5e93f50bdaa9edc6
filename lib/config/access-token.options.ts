import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { Adapter } from '../adapters/adapter.interface.js';
import { SIGNING_KEY_ADAPTER_METHODS } from '../adapters/adapter-extensions.js';
import type { AccessTokenOptions, SigningKeyRotation } from './auth-options.interface.js';

/** A signing key given in the options, parsed. */
export interface GivenSigningKey {
  alg: 'EdDSA' | 'ES256';
  privateKey: KeyObject;
  publicKey: KeyObject;
}

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
  if (o.keys === 'stored' && !storable && enabled)
    problems.push(
      "accessToken.keys 'stored' needs an adapter with the signing-key methods (SigningKeyAdapter: TypeOrmAdapter with SigningKeyEntity, table signing_keys, migration AuthSigningKeys…; MemoryAdapter) (MissingAdapterMethods).",
    );
  if (o.keys === 'derived' || o.keys === 'stored') keys = o.keys;
  else if (Array.isArray(o.keys)) keys = givenKeys(o.keys, problems);
  else if (o.keys !== undefined)
    problems.push("accessToken.keys must be 'stored', 'derived' or a list of private JWKs (Ed25519 or P-256).");
  return {
    enabled: enabled && issuer !== null,
    maxAge,
    issuer,
    audience: text('audience') ?? issuer,
    audiences,
    scopes,
    keys,
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

/** The private JWKs of `accessToken.keys`, parsed; a key that is not one is a problem. */
function givenKeys(list: unknown[], problems: string[]): GivenSigningKey[] {
  const keys: GivenSigningKey[] = [];
  if (list.length === 0) problems.push('accessToken.keys must list at least one private JWK.');
  for (const [i, jwk] of list.entries()) {
    const j = jwk as Record<string, unknown> | null;
    const alg =
      j?.kty === 'OKP' && j.crv === 'Ed25519' ? 'EdDSA' : j?.kty === 'EC' && j.crv === 'P-256' ? 'ES256' : null;
    if (!j || typeof j !== 'object' || !alg || typeof j.d !== 'string') {
      problems.push(
        `accessToken.keys[${i}] must be a private JWK: { kty: 'OKP', crv: 'Ed25519', x, d } or { kty: 'EC', crv: 'P-256', x, y, d }.`,
      );
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
