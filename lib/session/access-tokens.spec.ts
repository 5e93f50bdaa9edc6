import { describe, expect, it } from '@jest/globals';
import { sign as signBytes, type KeyObject } from 'node:crypto';
import { createLocalJWKSet, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { AccessTokens, type AccessTokenClaims } from './access-tokens.js';
import type { JwtRevocation } from './jwt-revocation.js';
import { SigningKeys } from './signing-keys.js';

const ISSUER = 'https://api.example.test/auth';

function tokens(secrets = ['first-secret-that-is-long-enough-000000']) {
  const revoked = new Set<string>();
  const revocation = {
    idOf: (t: { sid?: string }) => (t.sid ? `sid:${t.sid}` : undefined),
    clearedLocally: (id: string | undefined) => id === undefined || !revoked.has(id),
    isRevoked: async (t: { sid?: string }) => revoked.has(`sid:${t.sid}`),
  } as unknown as JwtRevocation;
  const config = {
    secrets,
    nativeApps: { clients: new Map() },
    accessToken: { enabled: true, keys: 'derived', maxAge: 600, issuer: ISSUER, audience: ISSUER },
    logger: { debug: () => undefined, error: () => undefined, warn: () => undefined },
  };
  return { at: new AccessTokens(config as never, revocation, new SigningKeys(config as never, {} as never)), revoked };
}

const user = { id: 'user-1', name: 'Ada', email: 'ada@example.test', image: null };
const now = () => Math.floor(Date.now() / 1000);
function mint(at: AccessTokens, iat = now()) {
  return at.sign({
    user,
    sid: 'family-1',
    clientId: 'ios',
    authTime: new Date(iat * 1000),
    amr: ['pwd', 'otp', 'mfa'],
    iat,
    jti: 'jti-1',
  }).token;
}
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const parts = (t: string) => t.split('.') as [string, string, string];
const decode = (p: string) => JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
/** The signing key, to re-sign a mutated token as the module would (private in the class). */
const privateKeyOf = (at: AccessTokens) =>
  (at as unknown as { keys: SigningKeys }).keys.signingKey().privateKey as KeyObject;
function resign(at: AccessTokens, header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${signBytes(null, Buffer.from(input), privateKeyOf(at)).toString('base64url')}`;
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
  describe('agrees with jose on every mutation', () => {
    const { at } = tokens();
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
      'no typ': resign(at, { alg: 'EdDSA', kid: header.kid }, claims),
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
          algorithms: ['EdDSA'],
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

  it('accepts only JWS-shaped bearer tokens of a bounded size', () => {
    const { at } = tokens();
    expect(at.accepts(mint(at))).toBe(true);
    expect(at.accepts('a.b.c.d.e')).toBe(false);
    expect(at.accepts('0123456789abcdef')).toBe(false);
    expect(at.accepts(`eyJ${'a'.repeat(5000)}.b.c`)).toBe(false);
  });
});
