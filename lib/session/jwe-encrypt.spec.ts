// The session JWT's encryption against what it replaced: `jose`'s EncryptJWT (the encoder of
// Auth.js) must write the very same bytes given the same IV, and jose and @auth/core must read it.
import { describe, expect, it } from '@jest/globals';
import { createSecretKey, hkdfSync } from 'node:crypto';
import { decode as authjsDecode } from '@auth/core/jwt';
import { EncryptJWT, base64url, compactDecrypt, jwtDecrypt } from 'jose';
import { encryptJwe, sessionClaims, type CbcHs512EncryptionKey } from './jwe-encrypt.js';
import { thumbprint } from './jwt.js';

const SECRET = 'jwe-encrypt-spec-secret-long-enough-000000';
const SALT = 'authjs.session-token';
const RAW = new Uint8Array(hkdfSync('sha256', SECRET, SALT, `Auth.js Generated Encryption Key (${SALT})`, 64));
const KEY: CbcHs512EncryptionKey = {
  kid: thumbprint(RAW),
  mac: createSecretKey(RAW.subarray(0, 32)),
  aes: createSecretKey(RAW.subarray(32)),
};
const ISSUED = { iat: 1_700_000_000, exp: 1_700_003_600, jti: '6f1c2b1e-3f0a-4c49-9d2e-0f6b7a1d2c3e' };

/** What jose's EncryptJWT wrote for the same claims, key and IV (as lib/session/jwt.ts did before). */
async function joseEncrypt(payload: Record<string, unknown>, iv: Uint8Array): Promise<string> {
  return new EncryptJWT({ ...payload })
    .setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512', kid: KEY.kid })
    .setIssuedAt(ISSUED.iat)
    .setExpirationTime(ISSUED.exp)
    .setJti(ISSUED.jti)
    .setInitializationVector(iv)
    .encrypt(RAW);
}

const ours = (payload: Record<string, unknown>) => encryptJwe(KEY, sessionClaims(payload, ISSUED));
const ivOf = (jwe: string) => base64url.decode(jwe.split('.')[2]);
const plaintextOf = async (jwe: string) => new TextDecoder().decode((await compactDecrypt(jwe, RAW)).plaintext);

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
  toJSON() {
    return `${this.x},${this.y}`;
  }
}

describe('encryptJwe (session JWT, dir + A256CBC-HS512)', () => {
  it.each([
    ['a typical session', { name: 'Ada', email: 'ada@example.com', sub: 'u1', picture: null }],
    ['an empty payload', {}],
    ['non-ASCII text and nesting', { name: 'Zoë 日本 🎉', roles: ['a', 'b'], nested: { deep: [1, { x: true }] } }],
    ['claims already set, which keep their place', { jti: 'old', sub: 'u', exp: 1, name: 'n', iat: 2 }],
    ['a block-sized plaintext (a whole block of padding)', { p: 'x'.repeat(16 * 8 - 67) }],
  ])('writes what jose wrote, byte for byte for the same IV: %s', async (_, payload) => {
    const jwe = ours(payload);
    expect(jwe).toBe(await joseEncrypt(payload, ivOf(jwe)));
  });

  it('writes the protected header {"alg","enc","kid"} in that order', () => {
    const header = Buffer.from(ours({ sub: 'u' }).split('.')[0], 'base64url').toString();
    expect(header).toBe(`{"alg":"dir","enc":"A256CBC-HS512","kid":"${KEY.kid}"}`);
  });

  it('puts iat, exp, jti after the payload, a claim already there keeping its place with the new value', async () => {
    expect(await plaintextOf(ours({ sub: 'u', name: 'n' }))).toBe(
      `{"sub":"u","name":"n","iat":${ISSUED.iat},"exp":${ISSUED.exp},"jti":"${ISSUED.jti}"}`,
    );
    expect(await plaintextOf(ours({ exp: 1, sub: 'u', jti: 'old' }))).toBe(
      `{"exp":${ISSUED.exp},"sub":"u","jti":"${ISSUED.jti}","iat":${ISSUED.iat}}`,
    );
  });

  it('copies the payload as jose did (structured clone): class instances and dates serialize the same', async () => {
    const payload = { at: new Date(0), point: new Point(1, 2), map: new Map([['k', 1]]), gone: undefined };
    const jwe = ours(payload);
    expect(jwe).toBe(await joseEncrypt(payload, ivOf(jwe)));
    // The clone drops Point's prototype (its toJSON), as jose's copy did.
    expect(JSON.parse(await plaintextOf(jwe))).toMatchObject({ at: '1970-01-01T00:00:00.000Z', point: { x: 1, y: 2 } });
  });

  it('is read by jose (jwtDecrypt) and by @auth/core (decode) with the same secret and salt', async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { sub: 'u1', name: 'Ada' };
    const jwe = encryptJwe(KEY, sessionClaims(payload, { iat: now, exp: now + 60, jti: 'j' }));
    const { payload: read, protectedHeader } = await jwtDecrypt(jwe, RAW);
    expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256CBC-HS512', kid: KEY.kid });
    expect(read).toEqual({ ...payload, iat: now, exp: now + 60, jti: 'j' });
    expect(await authjsDecode({ token: jwe, secret: SECRET, salt: SALT })).toEqual(read);
  });

  it('uses a fresh IV every time', () => {
    const ivs = new Set(Array.from({ length: 20 }, () => ours({}).split('.')[2]));
    expect(ivs.size).toBe(20);
  });

  it('refuses what jose refused: times that are not finite numbers, an infinite nbf, a function', async () => {
    expect(() => sessionClaims({}, { ...ISSUED, iat: NaN })).toThrow(new TypeError('Invalid setIssuedAt input'));
    expect(() => sessionClaims({}, { ...ISSUED, exp: Infinity })).toThrow(
      new TypeError('Invalid setExpirationTime input'),
    );
    expect(() => sessionClaims({}, { ...ISSUED, jti: 1 as never })).toThrow(TypeError);
    expect(() => sessionClaims({ nbf: -Infinity }, ISSUED)).toThrow(
      new TypeError('"nbf" claim must be a finite number'),
    );
    await expect(joseEncrypt({ nbf: -Infinity }, new Uint8Array(16))).rejects.toThrow(TypeError);
    expect(() => sessionClaims({ f: () => 1 }, ISSUED)).toThrow();
    await expect(joseEncrypt({ f: () => 1 }, new Uint8Array(16))).rejects.toThrow();
  });
});
