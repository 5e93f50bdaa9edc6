// The A256CBC-HS512 opener against OpenSSL's own HMAC and CBC: the same tag, the same plaintext,
// and every padding or length it must refuse; a refused token leaves the reused decipher clean.
import { describe, expect, it } from '@jest/globals';
import { createCipheriv, createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { CbcHs512Key } from './cbc-hs512.js';

const macKey = randomBytes(32);
const aesKey = randomBytes(32);
const header = Buffer.from('{"alg":"dir","enc":"A256CBC-HS512"}').toString('base64url');
const al = Buffer.alloc(8);
al.writeBigUInt64BE(BigInt(header.length * 8));

/** A compact token (RFC 7516) with OpenSSL's CBC (its padding, unless `raw`) and HMAC. */
function token(ciphertext: Buffer, iv = randomBytes(16)): string {
  const tag = createHmac('sha512', macKey).update(header).update(iv).update(ciphertext).update(al).digest();
  return `${header}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${tag.subarray(0, 32).toString('base64url')}`;
}
function encrypt(plaintext: Buffer, iv: Buffer, padding = true): Buffer {
  const cipher = createCipheriv('aes-256-cbc', aesKey, iv);
  cipher.setAutoPadding(padding);
  return Buffer.concat([cipher.update(plaintext), cipher.final()]);
}
function open(key: CbcHs512Key, value: string): Buffer | undefined {
  const h = value.indexOf('.');
  const i = h + 2;
  const c = value.indexOf('.', i);
  const t = value.indexOf('.', c + 1);
  return key.open(value, h, i, c, t, al);
}
const opener = () => new CbcHs512Key(createSecretKey(macKey), createSecretKey(aesKey));

describe('CbcHs512Key', () => {
  it('opens what OpenSSL encrypts, for every plaintext length from 0 to 80 bytes and a large one', () => {
    const key = opener();
    for (const length of [...Array.from({ length: 81 }, (_, n) => n), 40_000]) {
      const plaintext = randomBytes(length);
      const iv = randomBytes(16);
      expect(open(key, token(encrypt(plaintext, iv), iv))).toEqual(plaintext);
    }
  });

  it('refuses a wrong tag, a wrong MAC key, and a changed IV or ciphertext before decrypting', () => {
    const key = opener();
    const iv = randomBytes(16);
    const good = token(encrypt(Buffer.from('{"sub":"u"}'), iv), iv);
    expect(open(key, good)).toBeDefined();
    const parts = good.split('.');
    const flip = (s: string) => Buffer.from(s, 'base64url').map((b, k) => (k === 0 ? b ^ 1 : b));
    for (const index of [2, 3, 4]) {
      const changed = [...parts];
      changed[index] = Buffer.from(flip(parts[index])).toString('base64url');
      expect(open(key, changed.join('.'))).toBeUndefined();
    }
    const other = new CbcHs512Key(createSecretKey(randomBytes(32)), createSecretKey(aesKey));
    expect(open(other, good)).toBeUndefined();
    expect(open(key, good)).toBeDefined();
  });

  it('compares the tag character by character: any changed character, or a non-canonical last one, is refused', () => {
    const key = opener();
    const iv = randomBytes(16);
    const good = token(encrypt(Buffer.from('{"sub":"u"}'), iv), iv);
    const at = good.lastIndexOf('.') + 1;
    expect(good.length - at).toBe(43);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let k = at; k < good.length; k++) {
      const other = alphabet[(alphabet.indexOf(good[k]) + 1) % 64];
      expect(open(key, `${good.slice(0, k)}${other}${good.slice(k + 1)}`)).toBeUndefined();
    }
    // The last character holds 4 bits of the tag and 2 zero bits: setting either zero bit changes no
    // tag byte, and is refused all the same.
    const last = alphabet.indexOf(good[good.length - 1]);
    for (const bits of [1, 2, 3]) expect(open(key, `${good.slice(0, -1)}${alphabet[last | bits]}`)).toBeUndefined();
    // Characters outside the alphabet, last or not, never match.
    for (const odd of ['é', '€', '=', '.'])
      for (const k of [at, good.length - 1])
        expect(open(key, `${good.slice(0, k)}${odd}${good.slice(k + 1)}`)).toBeUndefined();
    expect(open(key, good)).toBeDefined();
  });

  it('refuses an authentic tag over bad padding or wrong lengths, and opens the next token as before', () => {
    const key = opener();
    const iv = randomBytes(16);
    const block = Buffer.alloc(16, 7);
    const cases = [
      encrypt(Buffer.concat([Buffer.alloc(15, 1), Buffer.from([0])]), iv, false), // pad byte 0
      encrypt(Buffer.concat([Buffer.alloc(15, 1), Buffer.from([17])]), iv, false), // pad byte over a block
      encrypt(Buffer.concat([Buffer.alloc(13, 1), Buffer.from([2, 3, 3])]), iv, false), // pad bytes differ
      Buffer.alloc(0), // no block
    ];
    for (const ciphertext of cases) expect(open(key, token(ciphertext, iv))).toBeUndefined();
    expect(open(key, token(block.subarray(0, 15), iv))).toBeUndefined(); // not whole blocks
    expect(open(key, token(encrypt(block, randomBytes(16)), randomBytes(12)))).toBeUndefined(); // short IV
    const plaintext = Buffer.from('{"sub":"after"}');
    expect(open(key, token(encrypt(plaintext, iv), iv))).toEqual(plaintext);
  });
});
