import { describe, expect, it, jest } from '@jest/globals';
import { createHash, createPublicKey, generateKeyPairSync, sign as signBytes, type KeyObject } from 'node:crypto';
import { createLocalJWKSet, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import type { GivenSigningKey } from '../config/access-token.options.js';
import { ExpiringMap } from '../util/expiring-map.js';
import { AccessTokens, accessEntryBytes, type AccessTokenClaims } from './access-tokens.js';
import { CacheAdmission } from './cache-admission.js';
import { CREDENTIAL, type SessionState } from './session.types.js';
import type { JwtRevocation } from './jwt-revocation.js';
import { SigningKeys, type SigningKey } from './signing-keys.js';

const ISSUER = 'https://api.example.test/auth';

/** A key of `accessToken.keys` as the options resolve it. */
function givenKey(type: 'ed25519' | 'rsa'): GivenSigningKey {
  const { privateKey, publicKey } =
    type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
  return { alg: type === 'rsa' ? 'RS256' : 'EdDSA', privateKey, publicKey };
}

function tokens(
  secrets = ['first-secret-that-is-long-enough-000000'],
  keys: 'derived' | 'stored' | GivenSigningKey[] = 'derived',
  stored: { adapter?: MemoryAdapter; algorithm?: 'EdDSA' | 'RS256' } = {},
  session = { cacheMaxEntries: 10_000, cacheMaxBytes: 4 * 1024 * 1024 },
) {
  const revoked = new Set<string>();
  const revocation = {
    idOf: (t: { sid?: string }) => (t.sid ? `sid:${t.sid}` : undefined),
    clearedLocally: (id: string | undefined) => id === undefined || !revoked.has(id),
    isRevoked: async (t: { sid?: string }) => revoked.has(`sid:${t.sid}`),
  } as unknown as JwtRevocation;
  const config = {
    secrets,
    nativeApps: { clients: new Map() },
    accessToken: {
      enabled: true,
      keys,
      algorithm: stored.algorithm,
      maxAge: 600,
      issuer: ISSUER,
      audience: ISSUER,
      rotation: { every: 0, publishAhead: 3600, grace: 300 },
    },
    logger: { debug: () => undefined, error: () => undefined, warn: () => undefined },
    session,
  };
  const signingKeys = new SigningKeys(config as never, { raw: stored.adapter ?? new MemoryAdapter() } as never);
  return { at: new AccessTokens(config as never, revocation, signingKeys), revoked, signingKeys };
}

/** AccessTokens over stored keys (a MemoryAdapter), loaded as at bootstrap. */
async function storedTokens(algorithm: 'EdDSA' | 'RS256', adapter = new MemoryAdapter()) {
  const made = tokens(undefined, 'stored', { adapter, algorithm });
  await made.signingKeys.refresh();
  return made;
}

const user = { id: 'user-1', name: 'Ada', email: 'ada@example.test', image: null };
const now = () => Math.floor(Date.now() / 1000);
/** A token of sign-in `n` (its own `sid` and `jti`). */
function mint(at: AccessTokens, iat = now(), n = 1) {
  return at.sign({
    user,
    sid: `family-${n}`,
    clientId: 'ios',
    authTime: new Date(iat * 1000),
    amr: ['pwd', 'otp', 'mfa'],
    iat,
    jti: `jti-${n}`,
  }).token;
}
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const parts = (t: string) => t.split('.') as [string, string, string];
const decode = (p: string) => JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
/** The signing key, to re-sign a mutated token as the module would (private in the class). */
const signingKeyOf = (at: AccessTokens): SigningKey => (at as unknown as { keys: SigningKeys }).keys.signingKey();
/** A token of `header` and `claims` signed with `key` (the one that signs by default), as its algorithm signs. */
function resign(
  at: AccessTokens,
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  key: { alg: string; privateKey?: KeyObject } = signingKeyOf(at),
): string {
  const input = `${b64(header)}.${b64(claims)}`;
  const hash = key.alg === 'EdDSA' ? null : 'sha256';
  return `${input}.${signBytes(hash, Buffer.from(input), key.privateKey!).toString('base64url')}`;
}

describe('AccessTokens', () => {
  it('signs at+jwt EdDSA tokens with the claims of RFC 9068, deterministically', () => {
    const { at } = tokens();
    const iat = now();
    const token = mint(at, iat);
    expect(mint(at, iat)).toBe(token);
    const [h, p] = parts(token);
    expect(decode(h)).toEqual({ alg: 'EdDSA', typ: 'at+jwt', kid: at.jwks().keys[0]!.kid });
    expect(decode(p)).toEqual({
      iss: ISSUER,
      aud: ISSUER,
      sub: 'user-1',
      exp: iat + 600,
      iat,
      jti: 'jti-1',
      sid: 'family-1',
      client_id: 'ios',
      auth_time: iat,
      amr: ['pwd', 'otp', 'mfa'],
      acr: 'aal2',
      name: 'Ada',
      email: 'ada@example.test',
    });
  });

  it('derives one key per secret: the first signs, all verify and are published; other secrets verify nothing', () => {
    const old = tokens(['old-secret-that-is-long-enough-0000000000']).at;
    const rotated = tokens([
      'new-secret-that-is-long-enough-0000000000',
      'old-secret-that-is-long-enough-0000000000',
    ]).at;
    const other = tokens(['another-secret-that-is-long-enough-000000']).at;
    const token = mint(old);
    expect(rotated.jwks().keys.map((k) => k.kid)).toEqual([expect.any(String), old.jwks().keys[0]!.kid]);
    expect(rotated.verify(token).status).toBe('valid');
    expect(other.verify(token)).toEqual({ status: 'invalid', reason: 'unknown kid' });
    expect(decode(parts(mint(rotated))[0]).kid).toBe(rotated.jwks().keys[0]!.kid);
  });

  // Differential: what jose (with the same expectations) accepts, this verifier accepts, and the reverse.
  describe.each([
    ['EdDSA', () => tokens().at],
    ['RS256', () => tokens(undefined, [givenKey('rsa')]).at],
  ] as const)('agrees with jose on every mutation (%s)', (alg, make) => {
    const at = make();
    const jwks = createLocalJWKSet(at.jwks() as never);
    const good = mint(at);
    const [h, p, s] = parts(good);
    const header = decode(h);
    const claims = decode(p);
    const cases: Record<string, string> = {
      genuine: good,
      'alg none': `${b64({ ...header, alg: 'none' })}.${p}.`,
      'alg HS256': `${b64({ ...header, alg: 'HS256' })}.${p}.${s}`,
      'typ JWT (an ID token)': resign(at, { ...header, typ: 'JWT' }, claims),
      'no typ': resign(at, { alg, kid: header.kid }, claims),
      'typ application/at+jwt': resign(at, { ...header, typ: 'application/at+jwt' }, claims),
      'unknown kid': resign(at, { ...header, kid: 'other' }, claims),
      'crit header': resign(at, { ...header, crit: ['x'], x: 1 }, claims),
      'wrong iss': resign(at, header, { ...claims, iss: 'https://evil.example' }),
      'wrong aud': resign(at, header, { ...claims, aud: 'https://other.example' }),
      'aud array with ours': resign(at, header, { ...claims, aud: ['https://other.example', ISSUER] }),
      // Beyond either side's leeway (jose's clockTolerance; none here for exp).
      expired: resign(at, header, { ...claims, exp: now() - 60 }),
      'issued in the future': resign(at, header, { ...claims, iat: now() + 3600, exp: now() + 7200 }),
      'no exp': resign(at, header, { ...claims, exp: undefined }),
      'exp a string': resign(at, header, { ...claims, exp: String(now() + 60) }),
      'signature flipped': `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`,
      'claims changed, old signature': `${h}.${b64({ ...claims, sub: 'admin' })}.${s}`,
      'not JSON': `${h}.${Buffer.from('not json').toString('base64url')}.${s}`,
      'claims an array': resign(at, header, [] as never),
    };
    for (const [name, token] of Object.entries(cases)) {
      it(name, async () => {
        const ours = at.verify(token).status === 'valid';
        const theirs = await jwtVerify(token, jwks, {
          issuer: ISSUER,
          audience: ISSUER,
          typ: 'at+jwt',
          algorithms: [alg],
          requiredClaims: ['exp', 'iat', 'sub', 'jti'],
          clockTolerance: 15,
          maxTokenAge: '1 day',
        }).then(
          () => true,
          () => false,
        );
        expect({ name, ours }).toEqual({ name, ours: theirs });
      });
    }
  });

  it('signs RS256 tokens with a stored RSA key, deterministically: 342-character signatures jose verifies', async () => {
    const { at } = await storedTokens('RS256');
    const iat = now();
    const token = mint(at, iat);
    expect(mint(at, iat)).toBe(token);
    const [h, p, s] = parts(token);
    const [jwk] = at.jwks().keys;
    expect(decode(h)).toEqual({ alg: 'RS256', typ: 'at+jwt', kid: jwk!.kid });
    expect(s).toHaveLength(342);
    expect(at.verify(token)).toMatchObject({ status: 'valid', claims: decode(p) });
    // Published as kty RSA (n, e), its kid the RFC 7638 thumbprint of { e, kty, n } in that order.
    expect(jwk).toEqual({
      kty: 'RSA',
      n: expect.any(String),
      e: 'AQAB',
      kid: expect.any(String),
      alg: 'RS256',
      use: 'sig',
    });
    const { n, e } = jwk as { n: string; e: string };
    expect(Buffer.from(n, 'base64url')).toHaveLength(256); // 2048 bits
    const thumbprint = createHash('sha256').update(`{"e":"${e}","kty":"RSA","n":"${n}"}`).digest('base64url');
    expect(jwk!.kid).toBe(thumbprint);
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(at.jwks() as never), {
      issuer: ISSUER,
      audience: ISSUER,
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toEqual(decode(p));
  });

  it('lets the key decide the algorithm: RS256 under an Ed25519 kid and EdDSA under an RSA kid are refused', () => {
    const ed = givenKey('ed25519');
    const rsa = givenKey('rsa');
    const { at } = tokens(undefined, [ed, rsa]);
    const [edJwk, rsaJwk] = at.jwks().keys;
    expect([edJwk!.alg, rsaJwk!.alg]).toEqual(['EdDSA', 'RS256']);
    const claims = decode(parts(mint(at))[1]);
    const header = (alg: string, kid: string) => ({ alg, typ: 'at+jwt', kid });
    // Each signed by the key of its alg, under the other's kid.
    expect(at.verify(resign(at, header('RS256', edJwk!.kid), claims, rsa))).toEqual({
      status: 'invalid',
      reason: 'unexpected alg',
    });
    expect(at.verify(resign(at, header('EdDSA', rsaJwk!.kid), claims, ed))).toEqual({
      status: 'invalid',
      reason: 'unexpected alg',
    });
    // Under their own kids, both verify; another RSA key under the RSA kid does not.
    expect(at.verify(resign(at, header('RS256', rsaJwk!.kid), claims, rsa)).status).toBe('valid');
    expect(at.verify(resign(at, header('EdDSA', edJwk!.kid), claims, ed)).status).toBe('valid');
    expect(at.verify(resign(at, header('RS256', rsaJwk!.kid), claims, givenKey('rsa')))).toEqual({
      status: 'invalid',
      reason: 'bad signature',
    });
  });

  it('publishes a given RSA key by the thumbprint of its public half, and signs with it when it is first', () => {
    const rsa = givenKey('rsa');
    const { at } = tokens(undefined, [rsa, givenKey('ed25519')]);
    const pub = createPublicKey(rsa.privateKey).export({ format: 'jwk' });
    expect(at.jwks().keys[0]).toMatchObject({ kty: 'RSA', n: pub.n, e: pub.e, alg: 'RS256' });
    expect(decode(parts(mint(at))[0])).toMatchObject({ alg: 'RS256', kid: at.jwks().keys[0]!.kid });
  });

  it('refuses what jose would take but the module never issues: missing sid, client_id or auth_time', () => {
    const { at } = tokens();
    const [h, p] = parts(mint(at));
    const header = decode(h);
    const claims = decode(p);
    for (const claim of ['sid', 'client_id', 'auth_time'])
      expect(at.verify(resign(at, header, { ...claims, [claim]: undefined })).status).toBe('invalid');
  });

  it('refuses a token jose signed with another Ed25519 key under our kid', async () => {
    const { at } = tokens();
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const claims = decode(parts(mint(at))[1]);
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: at.jwks().keys[0]!.kid })
      .sign(privateKey);
    expect(at.verify(forged)).toEqual({ status: 'invalid', reason: 'bad signature' });
  });

  describe.each(['EdDSA', 'RS256'] as const)(
    'a token verified before (%s), no longer in the cache of states',
    (alg) => {
      // promise: access-tokens.signature-digests
      /** AccessTokens whose states cache holds nothing, so only the digests of verified tokens remain. */
      async function digestsOnly() {
        const made = alg === 'RS256' ? await storedTokens('RS256') : tokens();
        Object.assign(made.at, { verified: new ExpiringMap(0) });
        return made;
      }
      /**
       * Swaps the verifying half of the signing key for another key's: a signature checked from now on
       * fails, so what still verifies was answered from the digests.
       */
      function breakSignatureChecks(at: AccessTokens): void {
        const other = alg === 'RS256' ? givenKey('rsa') : givenKey('ed25519');
        signingKeyOf(at).publicKey = other.publicKey as KeyObject;
      }

      it('skips its signature check, and only its: a new token and an edited one are checked', async () => {
        const { at } = await digestsOnly();
        const seen = mint(at, undefined, 1);
        const unseen = mint(at, undefined, 2);
        expect(at.readSync(seen)).toMatchObject({ status: 'active', user: { id: 'user-1' } });
        breakSignatureChecks(at);
        expect(at.readSync(seen)).toMatchObject({ status: 'active', user: { id: 'user-1' } });
        expect(at.verify(unseen)).toEqual({ status: 'invalid', reason: 'bad signature' });
        // The seen token's signature on other claims, and its claims with the signature's last bit flipped.
        const [h, p, s] = parts(seen);
        const grafted = `${h}.${b64({ ...decode(p), sub: 'someone-else' })}.${s}`;
        const sig = Buffer.from(s, 'base64url');
        sig[sig.length - 1] = sig[sig.length - 1]! ^ 1;
        for (const forged of [grafted, `${h}.${p}.${sig.toString('base64url')}`])
          expect(at.verify(forged)).toEqual({ status: 'invalid', reason: 'bad signature' });
      });

      it('still checks its key, its claims and its family: a removed key, expiry and revocation refuse it', async () => {
        const { at, revoked, signingKeys } = await digestsOnly();
        const iat = now();
        const token = mint(at, iat, 1);
        expect(at.readSync(token)).toMatchObject({ status: 'active' });
        expect(at.verify(token, (iat + 600) * 1000)).toEqual({ status: 'expired', reason: 'expired' });
        revoked.add('sid:family-1');
        expect(await at.read(token)).toEqual({ status: 'invalid', clearCookies: [] });
        (signingKeys as unknown as { keys: SigningKey[] }).keys = [];
        expect(at.verify(token)).toEqual({ status: 'invalid', reason: 'unknown kid' });
      });
    },
  );

  it('keeps no digest of a verified token with session.cacheMaxEntries 0', () => {
    const { at } = tokens(undefined, 'derived', {}, { cacheMaxEntries: 0, cacheMaxBytes: 4 * 1024 * 1024 });
    const token = mint(at);
    expect(at.readSync(token)).toMatchObject({ status: 'active' });
    signingKeyOf(at).publicKey = givenKey('ed25519').publicKey as KeyObject;
    expect(at.verify(token)).toEqual({ status: 'invalid', reason: 'bad signature' });
  });

  it('reads a token as an active state, caches it, and refuses it once its family is revoked', async () => {
    const { at, revoked } = tokens();
    const token = mint(at);
    const state = at.readSync(token);
    expect(state).toMatchObject({
      status: 'active',
      strategy: 'access-token',
      bearer: true,
      user: { id: 'user-1', email: 'ada@example.test' },
    });
    expect((state as unknown as { token: AccessTokenClaims }).token.amr).toEqual(['pwd', 'otp', 'mfa']);
    revoked.add('sid:family-1');
    expect(at.readSync(token)).toBeUndefined();
    expect(await at.read(token)).toEqual({ status: 'invalid', clearCookies: [] });
  });

  it('once the verified tokens fill the cache, keeps a new one on its second request only (the cached ones stay)', () => {
    const { at } = tokens();
    // promise: access-tokens.cache-bounded
    // A cache of 4 (10,000 in the module), so the test signs a handful of tokens, not thousands.
    Object.assign(at, { verified: new ExpiringMap(4), admission: new CacheAdmission(8) });
    const minted = Array.from({ length: 5 }, (_, i) => mint(at, undefined, 10 + i));
    const checks = jest.spyOn(at, 'verify');
    for (const t of minted.slice(0, 4)) expect(at.readSync(t)).toMatchObject({ status: 'active' });
    expect(checks).toHaveBeenCalledTimes(4);
    // The fifth, first seen: verified and answered, not kept (it would push out a live entry).
    expect(at.readSync(minted[4]!)).toMatchObject({ status: 'active', user: { id: 'user-1' } });
    for (const t of minted.slice(0, 4)) at.readSync(t);
    expect(checks).toHaveBeenCalledTimes(5);
    // Seen again: kept (the oldest goes), so its third request checks no signature.
    at.readSync(minted[4]!);
    at.readSync(minted[4]!);
    expect(checks).toHaveBeenCalledTimes(6);
    at.readSync(minted[0]!);
    expect(checks).toHaveBeenCalledTimes(7);
  });

  it('keeps verified tokens within session.cacheMaxBytes, counted by accessEntryBytes', () => {
    // promise: access-tokens.cache-bounded
    const probe = tokens();
    const bytes = accessEntryBytes(mint(probe.at, undefined, 10));
    // Room for two entries and a half: the third is kept only once the first goes.
    const { at } = tokens(
      undefined,
      'derived',
      {},
      { cacheMaxEntries: 10_000, cacheMaxBytes: Math.floor(2.5 * bytes) },
    );
    const minted = Array.from({ length: 3 }, (_, i) => mint(at, undefined, 10 + i));
    expect(minted.every((t) => accessEntryBytes(t) === bytes)).toBe(true);
    const checks = jest.spyOn(at, 'verify');
    at.readSync(minted[0]!);
    at.readSync(minted[1]!);
    at.readSync(minted[0]!);
    at.readSync(minted[1]!);
    expect(checks).toHaveBeenCalledTimes(2);
    at.readSync(minted[2]!); // not kept: it would push out a live entry on its first request
    at.readSync(minted[2]!); // kept: the oldest goes
    at.readSync(minted[2]!);
    expect(checks).toHaveBeenCalledTimes(4);
    at.readSync(minted[1]!);
    at.readSync(minted[0]!);
    expect(checks).toHaveBeenCalledTimes(5);
  });

  it("gives each request its own copy of a cached token's state: edits to the user, claims or scopes stay in that request", () => {
    const { at } = tokens();
    const token = at.sign({
      user,
      sid: 'family-9',
      clientId: 'ios',
      authTime: new Date(),
      amr: ['pwd'],
      iat: now(),
      jti: 'j9',
      scope: ['notes:read'],
    }).token;
    const first = at.readSync(token) as Extract<SessionState, { status: 'active' }>;
    first.user.name = 'Mallory';
    (first.token as Record<string, unknown>).sub = 'someone-else';
    (first.session as unknown as Record<symbol, { scopes: string[] }>)[CREDENTIAL].scopes.push('admin');
    const next = at.readSync(token) as Extract<SessionState, { status: 'active' }>;
    expect(next.user.name).toBe('Ada');
    expect((next.token as Record<string, unknown>).sub).toBe('user-1');
    expect((next.session as unknown as Record<symbol, { scopes: string[] }>)[CREDENTIAL].scopes).toEqual([
      'notes:read',
    ]);
  });

  it('accepts only JWS-shaped bearer tokens of a bounded size', () => {
    const { at } = tokens();
    expect(at.accepts(mint(at))).toBe(true);
    expect(at.accepts('a.b.c.d.e')).toBe(false);
    expect(at.accepts('0123456789abcdef')).toBe(false);
    expect(at.accepts(`eyJ${'a'.repeat(5000)}.b.c`)).toBe(false);
  });

  it('checks the shape of a token given to verify itself, whichever token accepts took last', () => {
    const { at } = tokens();
    const good = mint(at);
    expect(at.accepts(good)).toBe(true);
    for (const bad of ['a.b.c.d.e', `${good}.x`, good.replace('.', '.$'), `eyJ${'a'.repeat(5000)}.b.c`])
      expect(at.verify(bad)).toEqual({ status: 'invalid', reason: 'not an access token' });
    expect(at.verify(good).status).toBe('valid');
    expect(at.verify(` ${good}`.slice(1)).status).toBe('valid');
  });
});
