// The node:crypto session JWT decrypter against `jose`, the reference it replaces on the read path:
// tokens jose mints (and hand-built ones with authentic tags but forbidden headers) get the same
// verdict from both, and no single changed character of a valid token is ever accepted.
import { describe, expect, it } from '@jest/globals';
import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { EncryptJWT, base64url, calculateJwkThumbprint, jwtDecrypt } from 'jose';
import { createJwtCodec, thumbprint, type JwtInspection } from './jwt.js';

const SECRET = 'fast-path-secret-that-is-long-enough-000';
const NEXT = 'fast-path-next-secret-long-enough-111111';
const SALT = 'authjs.session-token';
const seconds = () => Math.floor(Date.now() / 1000);

function key(secret: string, length: 32 | 64): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, SALT, `Auth.js Generated Encryption Key (${SALT})`, length));
}
const kidOf = (secret: string, length: 32 | 64) => thumbprint(key(secret, length));

/** What jose's jwtDecrypt says of a token, with the options the decoder used before this path. */
async function joseVerdict(token: string, secrets: string[]): Promise<JwtInspection> {
  try {
    const { payload } = await jwtDecrypt(
      token,
      ({ kid, enc }) => {
        const length = enc === 'A256GCM' ? 32 : 64;
        if (kid === undefined) return key(secrets[0], length);
        const secret = secrets.find((s) => kidOf(s, length) === kid);
        if (!secret) throw new Error('no key');
        return key(secret, length);
      },
      {
        clockTolerance: 15,
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256CBC-HS512', 'A256GCM'],
        requiredClaims: ['exp'],
      },
    );
    return { status: 'valid', payload };
  } catch (error) {
    return { status: (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid' };
  }
}

/** A token jose mints: `dir` with the given enc, header extras and claims. */
function joseToken(
  claims: Record<string, unknown>,
  options: { enc?: 'A256CBC-HS512' | 'A256GCM'; secret?: string; kid?: boolean } = {},
): Promise<string> {
  const enc = options.enc ?? 'A256CBC-HS512';
  const length = enc === 'A256GCM' ? 32 : 64;
  const secret = options.secret ?? SECRET;
  const header = { alg: 'dir', enc, ...(options.kid === false ? {} : { kid: kidOf(secret, length) }) };
  return new EncryptJWT(claims).setProtectedHeader(header).encrypt(key(secret, length));
}

/**
 * An A256CBC-HS512 token built by hand (RFC 7518 section 5.2), so a header jose would not mint
 * (zip, crit, another alg) still carries an authentic tag: only the header rules can refuse it.
 */
function handToken(header: Record<string, unknown>, plaintext: string | Buffer, secret = SECRET): string {
  const k = key(secret, 64);
  const h = base64url.encode(JSON.stringify(header));
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', k.subarray(32), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(h.length * 8));
  const tag = createHmac('sha512', k.subarray(0, 32)).update(h).update(iv).update(ciphertext).update(al).digest();
  return [
    h,
    '',
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    tag.subarray(0, 32).toString('base64url'),
  ].join('.');
}

const claims = () => ({ sub: 'user-1', name: 'Ada', email: 'ada@example.com', iat: seconds(), exp: seconds() + 3600 });
const codec = (secrets = [SECRET]) => createJwtCodec(secrets, SALT, 3600);
const cbcHeader = () => ({ alg: 'dir', enc: 'A256CBC-HS512', kid: kidOf(SECRET, 64) });

describe('JweDecrypter (node:crypto) against jose', () => {
  it('computes the same kid as jose (RFC 7638 thumbprint, SHA-512 / SHA-256)', async () => {
    for (const [length, hash] of [
      [64, 'sha512'],
      [32, 'sha256'],
    ] as const) {
      const k = key(SECRET, length);
      expect(thumbprint(k)).toBe(await calculateJwkThumbprint({ kty: 'oct', k: base64url.encode(k) }, hash));
    }
  });

  it.each([
    ['A256CBC-HS512 with kid', { enc: 'A256CBC-HS512' as const }],
    ['A256CBC-HS512 without kid', { enc: 'A256CBC-HS512' as const, kid: false }],
    ['A256GCM with kid', { enc: 'A256GCM' as const }],
    ['A256GCM without kid', { enc: 'A256GCM' as const, kid: false }],
  ])('reads a jose-minted %s token exactly as jose does', async (_label, options) => {
    const payloads = [
      claims(),
      { ...claims(), picture: null, nested: { roles: ['a', 'b'] }, unicode: 'Zoë 🌍' },
      { exp: seconds() + 10 },
      { ...claims(), name: 'x'.repeat(3000) },
    ];
    for (const payload of payloads) {
      const token = await joseToken(payload, options);
      const ours = codec().inspectSync(token);
      expect(ours).toEqual(await joseVerdict(token, [SECRET]));
      expect(ours).toEqual({ status: 'valid', payload });
    }
  });

  it('refuses every single-character change of a valid token (CBC and GCM)', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    for (const enc of ['A256CBC-HS512', 'A256GCM'] as const) {
      const token = await joseToken({ sub: 'u', exp: seconds() + 3600 }, { enc });
      const decrypter = codec();
      expect(decrypter.inspectSync(token).status).toBe('valid');
      let tried = 0;
      for (let i = 0; i < token.length; i++) {
        // Two replacements per position: the low bit flipped, and the next character of the alphabet.
        const flipped = String.fromCharCode(token.charCodeAt(i) ^ 1);
        const next = alphabet[(alphabet.indexOf(token[i]) + 1) % alphabet.length];
        for (const replacement of [flipped, next]) {
          const tampered = token.slice(0, i) + replacement + token.slice(i + 1);
          if (tampered === token) continue;
          tried++;
          expect({ i, verdict: decrypter.inspectSync(tampered).status }).toEqual({ i, verdict: 'invalid' });
        }
      }
      expect(tried).toBeGreaterThan(token.length);
    }
  });

  it('refuses truncated, extended and re-assembled tokens', async () => {
    const token = await joseToken(claims());
    const parts = token.split('.');
    const other = (await joseToken(claims())).split('.');
    const variants = [
      token.slice(0, -1),
      `${token}A`,
      `${token}.`,
      parts.slice(0, 4).join('.'),
      [parts[0], 'AAAA', ...parts.slice(2)].join('.'), // an encrypted key with dir
      [parts[0], '', other[2], parts[3], parts[4]].join('.'), // another token's IV
      [parts[0], '', parts[2], parts[3], other[4]].join('.'), // another token's tag
      [parts[0], '', parts[2], `${parts[3]}${parts[3]}`, parts[4]].join('.'),
      `${token}==`,
      '',
      'x'.repeat(300 * 1024),
    ];
    for (const variant of variants) {
      expect(codec().inspectSync(variant)).toEqual({ status: 'invalid' });
      expect(await joseVerdict(variant, [SECRET])).toEqual({ status: 'invalid' });
    }
  });

  it('refuses the non-canonical encoding of the same bytes (bits past the data set in the last character)', async () => {
    const token = await joseToken(claims());
    const parts = token.split('.');
    const tag = parts[4]; // 32 bytes: 43 characters, the last carrying 2 spare bits
    const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(tag.at(-1)!);
    const sameBytes = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[last | 1];
    const variant = [...parts.slice(0, 4), tag.slice(0, -1) + sameBytes].join('.');
    expect(Buffer.from(variant.split('.')[4], 'base64url')).toEqual(Buffer.from(tag, 'base64url'));
    expect(codec().inspectSync(variant)).toEqual({ status: 'invalid' });
  });

  it('keeps the header rules even when the tag is authentic: alg, enc, zip, crit, kid', async () => {
    const payload = JSON.stringify(claims());
    const refused: Record<string, unknown>[] = [
      { ...cbcHeader(), alg: 'A256KW' },
      { ...cbcHeader(), alg: 'none' },
      { ...cbcHeader(), enc: 'A128CBC-HS256' },
      { ...cbcHeader(), crit: ['exp'], exp: 1 },
      { ...cbcHeader(), crit: [] },
      { ...cbcHeader(), kid: 'someone-else' },
      { ...cbcHeader(), kid: 7 },
      { ...cbcHeader(), sub: 'someone-else' }, // a replicated claim that differs from the payload's
    ];
    for (const header of refused) {
      const token = handToken(header, payload);
      expect({ header, ours: codec().inspectSync(token) }).toEqual({ header, ours: { status: 'invalid' } });
      expect({ header, jose: await joseVerdict(token, [SECRET]) }).toEqual({ header, jose: { status: 'invalid' } });
    }
    // zip: jose would inflate a DEF payload; session tokens are never compressed, so it is refused.
    expect(codec().inspectSync(handToken({ ...cbcHeader(), zip: 'DEF' }, payload))).toEqual({ status: 'invalid' });
    // The same builder with an acceptable header is read: the refusals above are the header's.
    const fine = handToken({ ...cbcHeader(), typ: 'JWT', sub: 'user-1' }, payload);
    expect(codec().inspectSync(fine)).toEqual(await joseVerdict(fine, [SECRET]));
    expect(codec().inspectSync(fine).status).toBe('valid');
  });

  it('applies the claim rules as jose does, plus range checks', async () => {
    const now = seconds();
    const cases: [string | Buffer, JwtInspection['status']][] = [
      [JSON.stringify({ sub: 'u' }), 'invalid'], // no exp
      [JSON.stringify({ exp: String(now + 60) }), 'invalid'],
      [JSON.stringify({ exp: now + 60, iat: 'yesterday' }), 'invalid'],
      [JSON.stringify({ exp: now + 60, nbf: now + 600 }), 'invalid'],
      [JSON.stringify({ exp: now + 60, iat: now + 600 }), 'invalid'], // ours: issued in the future
      [JSON.stringify({ exp: 1e300 }), 'invalid'], // ours: no Date holds it
      [JSON.stringify({ exp: now - 60 }), 'expired'],
      [JSON.stringify({ exp: now - 5 }), 'valid'], // within the 15 s tolerance
      [JSON.stringify([1, 2]), 'invalid'],
      ['null', 'invalid'],
      ['not json', 'invalid'],
      [Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'invalid'], // not UTF-8
    ];
    for (const [plaintext, status] of cases) {
      const token = handToken(cbcHeader(), plaintext);
      expect({ plaintext: String(plaintext), status: codec().inspectSync(token).status }).toEqual({
        plaintext: String(plaintext),
        status,
      });
    }
  });

  it('picks the secret by kid for rotation; a token without kid is tried with the first secret only', async () => {
    const byNext = await joseToken(claims(), { secret: NEXT });
    expect(codec([SECRET, NEXT]).inspectSync(byNext).status).toBe('valid');
    expect(codec([SECRET]).inspectSync(byNext).status).toBe('invalid');
    const noKidNext = await joseToken(claims(), { secret: NEXT, kid: false });
    expect(codec([SECRET, NEXT]).inspectSync(noKidNext)).toEqual(await joseVerdict(noKidNext, [SECRET, NEXT]));
    expect(codec([SECRET, NEXT]).inspectSync(noKidNext).status).toBe('invalid');
    expect(codec([NEXT, SECRET]).inspectSync(noKidNext).status).toBe('valid');
  });

  it('gives the same verdict the second time a header is seen (its parsed form is remembered)', async () => {
    const decrypter = codec();
    const tokens = await Promise.all([joseToken(claims()), joseToken(claims()), joseToken({ exp: seconds() - 60 })]);
    const first = tokens.map((t) => decrypter.inspectSync(t).status);
    const again = tokens.map((t) => decrypter.inspectSync(t).status);
    expect(first).toEqual(['valid', 'valid', 'expired']);
    expect(again).toEqual(first);
  });
});
