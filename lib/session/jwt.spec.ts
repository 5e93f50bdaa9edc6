import { describe, expect, it } from '@jest/globals';
import { createHash, hkdfSync } from 'node:crypto';
import { EncryptJWT, base64url, compactDecrypt, decodeProtectedHeader } from 'jose';
import { MissingSecret } from '../errors/auth.errors.js';
import { createJwtCodec, decode, encode } from './jwt.js';

const SECRET = 'first-secret-that-is-long-enough-0000000';
const OTHER = 'second-secret-that-is-long-enough-111111';
const SALT = 'authjs.session-token';
const now = () => Math.floor(Date.now() / 1000);

/** The key, derived here independently of the module under test (RFC 5869 via node:crypto). */
function key(secret: string, salt: string, length: 32 | 64): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, length));
}

/** RFC 7638 thumbprint of an oct JWK, computed by hand. */
function thumbprint(k: Uint8Array): string {
  const json = `{"k":"${base64url.encode(k)}","kty":"oct"}`;
  return createHash(k.length === 64 ? 'sha512' : 'sha256')
    .update(json)
    .digest('base64url');
}

describe('encode', () => {
  it('produces a dir/A256CBC-HS512 JWE with the thumbprint kid, keyed by HKDF of the secret and salt', async () => {
    const token = await encode({ token: { sub: 'u1', name: 'Ada' }, secret: SECRET, salt: SALT, maxAge: 60 });
    expect(token.split('.')).toHaveLength(5);
    expect(token.split('.')[1]).toBe(''); // dir: no encrypted key
    const k = key(SECRET, SALT, 64);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'dir', enc: 'A256CBC-HS512', kid: thumbprint(k) });
    const { plaintext } = await compactDecrypt(token, k);
    const claims = JSON.parse(new TextDecoder().decode(plaintext));
    expect(claims).toMatchObject({ sub: 'u1', name: 'Ada' });
    expect(Math.abs(claims.iat - now())).toBeLessThanOrEqual(1);
    expect(claims.exp).toBe(claims.iat + 60);
    expect(claims.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sets fresh iat/exp/jti on every call, replacing those of the payload, and defaults maxAge to 30 days', async () => {
    const a = await decode({
      token: await encode({ token: { exp: 1, iat: 1, jti: 'x' }, secret: SECRET, salt: SALT }),
      secret: SECRET,
      salt: SALT,
    });
    const b = await decode({
      token: await encode({ token: {}, secret: SECRET, salt: SALT }),
      secret: SECRET,
      salt: SALT,
    });
    expect(a!.exp).toBe(a!.iat! + 2_592_000);
    expect(a!.jti).not.toBe('x');
    expect(a!.jti).not.toBe(b!.jti);
  });

  it('encrypts with the first secret of a list', async () => {
    const token = await encode({ token: { sub: 'u' }, secret: [SECRET, OTHER], salt: SALT });
    expect(decodeProtectedHeader(token).kid).toBe(thumbprint(key(SECRET, SALT, 64)));
    expect(await decode({ token, secret: SECRET, salt: SALT })).toMatchObject({ sub: 'u' });
    expect(await decode({ token, secret: OTHER, salt: SALT })).toBeNull();
  });

  it('refuses to run without a secret or a salt', async () => {
    await expect(encode({ token: {}, secret: '', salt: SALT })).rejects.toBeInstanceOf(MissingSecret);
    await expect(encode({ token: {}, secret: [], salt: SALT })).rejects.toBeInstanceOf(MissingSecret);
    await expect(decode({ token: 'x', secret: undefined as never, salt: SALT })).rejects.toBeInstanceOf(MissingSecret);
    await expect(encode({ token: {}, secret: SECRET, salt: '' })).rejects.toThrow(/salt/);
  });
});

describe('decode', () => {
  it('round-trips the payload', async () => {
    const token = await encode({
      token: { sub: 'u1', email: 'a@b.c', picture: null, custom: { n: 1 } },
      secret: SECRET,
      salt: SALT,
    });
    expect(await decode({ token, secret: SECRET, salt: SALT })).toMatchObject({
      sub: 'u1',
      email: 'a@b.c',
      picture: null,
      custom: { n: 1 },
    });
  });

  it('decrypts with any secret of the list, matching the kid (rotation)', async () => {
    const old = await encode({ token: { sub: 'old' }, secret: OTHER, salt: SALT });
    expect(await decode({ token: old, secret: [SECRET, OTHER], salt: SALT })).toMatchObject({ sub: 'old' });
    expect(await decode({ token: old, secret: [SECRET], salt: SALT })).toBeNull();
  });

  it('tries a token without kid with the first secret only (as Auth.js)', async () => {
    const mint = (secret: string) =>
      new EncryptJWT({ sub: 'legacy' })
        .setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512' })
        .setExpirationTime('1h')
        .encrypt(key(secret, SALT, 64));
    expect(await decode({ token: await mint(SECRET), secret: [SECRET, OTHER], salt: SALT })).toMatchObject({
      sub: 'legacy',
    });
    expect(await decode({ token: await mint(OTHER), secret: [SECRET, OTHER], salt: SALT })).toBeNull();
  });

  it('accepts A256GCM tokens with a 32-byte key and a sha256 thumbprint', async () => {
    const k = key(OTHER, SALT, 32);
    const token = await new EncryptJWT({ sub: 'gcm' })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: thumbprint(k) })
      .setExpirationTime('1h')
      .encrypt(k);
    expect(await decode({ token, secret: [SECRET, OTHER], salt: SALT })).toMatchObject({ sub: 'gcm' });
  });

  it('returns null for the wrong secret or the wrong salt', async () => {
    const token = await encode({ token: { sub: 'u' }, secret: SECRET, salt: SALT });
    expect(await decode({ token, secret: OTHER, salt: SALT })).toBeNull();
    // A check cookie (salted with its own name) can never pass for a session (CVE-2023-48309).
    expect(await decode({ token, secret: SECRET, salt: '__Secure-authjs.session-token' })).toBeNull();
    const check = await encode({
      token: { value: 'verifier', provider: 'idp' },
      secret: SECRET,
      salt: 'authjs.pkce.code_verifier',
    });
    expect(await decode({ token: check, secret: SECRET, salt: SALT })).toBeNull();
  });

  it('returns null for an expired token, and accepts one within the 15 s clock tolerance', async () => {
    const expired = await encode({ token: { sub: 'u' }, secret: SECRET, salt: SALT, maxAge: -60 });
    expect(await decode({ token: expired, secret: SECRET, salt: SALT })).toBeNull();
    const justExpired = await encode({ token: { sub: 'u' }, secret: SECRET, salt: SALT, maxAge: -5 });
    expect(await decode({ token: justExpired, secret: SECRET, salt: SALT })).toMatchObject({ sub: 'u' });
  });

  it('returns null for a token without exp (it would never expire)', async () => {
    const k = key(SECRET, SALT, 64);
    const token = await new EncryptJWT({ sub: 'forever' })
      .setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512', kid: thumbprint(k) })
      .encrypt(k);
    expect(await decode({ token, secret: SECRET, salt: SALT })).toBeNull();
  });

  it('returns null when any segment is altered', async () => {
    const token = await encode({ token: { sub: 'u', role: 'user' }, secret: SECRET, salt: SALT });
    const parts = token.split('.');
    for (const i of [0, 2, 3, 4]) {
      const altered = [...parts];
      const s = altered[i];
      const mid = Math.floor(s.length / 2);
      altered[i] = s.slice(0, mid) + (s[mid] === 'A' ? 'B' : 'A') + s.slice(mid + 1);
      expect(await decode({ token: altered.join('.'), secret: SECRET, salt: SALT })).toBeNull();
    }
    // Truncated, and with a non-empty encrypted key.
    expect(await decode({ token: token.slice(0, -10), secret: SECRET, salt: SALT })).toBeNull();
    expect(
      await decode({ token: [parts[0], 'AAAA', ...parts.slice(2)].join('.'), secret: SECRET, salt: SALT }),
    ).toBeNull();
  });

  it('returns null for headers outside the allowlist (alg, enc, zip)', async () => {
    const token = await encode({ token: { sub: 'u' }, secret: SECRET, salt: SALT });
    const [, ...rest] = token.split('.');
    for (const header of [
      { alg: 'none', enc: 'A256CBC-HS512' },
      { alg: 'A256KW', enc: 'A256CBC-HS512' },
      { alg: 'dir', enc: 'A128CBC-HS256' },
      { alg: 'dir', enc: 'A256CBC-HS512', zip: 'DEF' },
      { alg: 'dir', enc: 'A256CBC-HS512', crit: ['exp'], exp: 1 },
    ]) {
      const forged = [base64url.encode(JSON.stringify(header)), ...rest].join('.');
      expect(await decode({ token: forged, secret: SECRET, salt: SALT })).toBeNull();
    }
  });

  it.each([
    ['an empty string', ''],
    ['one segment', 'abc'],
    ['three segments (a JWS)', 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln'],
    ['four segments', 'a.b.c.d'],
    ['six segments', 'a.b.c.d.e.f'],
    ['only dots', '....'],
    ['bad base64', '%%%.%%%.%%%.%%%.%%%'],
    ['a header that is not JSON', `${base64url.encode('not json')}..AAAA.AAAA.AAAA`],
    ['a header that is JSON but not an object', `${base64url.encode('[1]')}..AAAA.AAAA.AAAA`],
    ['unicode', 'é.ü.☃.𝄞.\u0000'],
    ['10 KB of junk', 'x'.repeat(10_240)],
    ['10 KB of junk in five segments', Array.from({ length: 5 }, () => 'A'.repeat(2048)).join('.')],
    ['300 KB', 'a.b.c.d.'.padEnd(300 * 1024, 'A')],
  ])('returns null, never throws, for %s', async (_label, token) => {
    await expect(decode({ token, secret: SECRET, salt: SALT })).resolves.toBeNull();
  });

  it('returns null for a missing or non-string token', async () => {
    expect(await decode({ token: undefined, secret: SECRET, salt: SALT })).toBeNull();
    expect(await decode({ token: 42 as never, secret: SECRET, salt: SALT })).toBeNull();
    expect(await decode({ token: {} as never, secret: SECRET, salt: SALT })).toBeNull();
  });
});

describe('createJwtCodec', () => {
  it('encodes and decodes like encode/decode, with its maxAge', async () => {
    const codec = createJwtCodec([SECRET, OTHER], SALT, 120);
    const token = await codec.encode({ sub: 'c' });
    const payload = await decode({ token, secret: SECRET, salt: SALT });
    expect(payload!.exp).toBe(payload!.iat! + 120);
    expect(await codec.decode(await encode({ token: { sub: 'o' }, secret: OTHER, salt: SALT }))).toMatchObject({
      sub: 'o',
    });
    expect(await codec.decode('junk')).toBeNull();
  });

  it('says why a token was refused: expired or invalid', async () => {
    const codec = createJwtCodec([SECRET], SALT, 60);
    const expired = await encode({ token: { sub: 'u' }, secret: SECRET, salt: SALT, maxAge: -60 });
    expect(await codec.inspect(expired)).toEqual({ status: 'expired' });
    expect(await codec.inspect(await encode({ token: {}, secret: OTHER, salt: SALT, maxAge: -60 }))).toEqual({
      status: 'invalid',
    });
    expect(await codec.inspect('x'.repeat(10_000))).toEqual({ status: 'invalid' });
    expect(await codec.inspect(await codec.encode({ sub: 'v' }))).toMatchObject({
      status: 'valid',
      payload: { sub: 'v' },
    });
  });

  it('keeps working after its keys were evicted from the shared key cache', async () => {
    const codec = createJwtCodec([SECRET], SALT, 60);
    const token = await codec.encode({ sub: 'kept' });
    for (let i = 0; i < 100; i++) await decode({ token: 'x', secret: SECRET, salt: `salt-${i}` });
    expect(await codec.decode(token)).toMatchObject({ sub: 'kept' });
  });

  it('falls back to 30 days for a non-positive maxAge and refuses an empty secret list', async () => {
    const payload = await createJwtCodec([SECRET], SALT, 0).decode(await createJwtCodec([SECRET], SALT, 0).encode({}));
    expect(payload!.exp! - payload!.iat!).toBe(2_592_000);
    expect(() => createJwtCodec([], SALT, 60)).toThrow(MissingSecret);
  });
});
