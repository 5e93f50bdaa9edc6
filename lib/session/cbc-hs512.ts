import { createDecipheriv, hash, type Decipher, type KeyObject } from 'node:crypto';
import { B64U_VALUE } from '../util/base64url.js';

// A256CBC-HS512 (RFC 7518 section 5.2.2.2) opened without creating a crypto object per token. In a
// loop over 50,000 tokens, opening one took 17-26 µs with a `createHmac` and a `createDecipheriv`
// per token and 10-11 µs this way: most of the difference is building and tearing down two OpenSSL
// contexts and their wrappers (garbage for the collector besides). So, per key, once:
// - HMAC-SHA-512 is computed by its definition, H((K ^ opad) || H((K ^ ipad) || m)), with the
//   one-shot `crypto.hash` and the two padded keys prepared;
// - AES-256-CBC decryption runs on one decipher per key, reused: CBC decrypts a block with the
//   ciphertext block before it, so the token's IV is fed first, as a block whose output (garbage of
//   the previous token's state) is dropped; then the PKCS #7 padding is checked and removed.
// Both are the textbook constructions, checked against OpenSSL's own HMAC and CBC in
// cbc-hs512.spec.ts. Everything here is synchronous, so the shared buffers are never seen by two
// tokens at once.

const AES_BLOCK = 16;
/** SHA-512's block size: the HMAC key is padded to it. */
const SHA512_BLOCK = 128;
const SHA512_LENGTH = 64;
/** The tag is the first half of the HMAC (32 bytes), the IV one block. */
export const CBC_HS512_TAG_LENGTH = 32;
/** Decoded tokens up to this size share one message buffer; a larger one gets its own. */
const SHARED_MESSAGE_BYTES = 16 * 1024;

/** Characters of the tag's base64url (43 for 32 bytes); the last carries 4 bits of the tag and 2 zero bits. */
const TAG_CHARS = Math.ceil((CBC_HS512_TAG_LENGTH * 8) / 6);

/**
 * True when the token's tag (`token[from, from + 43)`, canonical base64url) is the first 32 bytes
 * of the HMAC (`mac`, its 64 bytes in base64url), compared in constant time: every character, no
 * early exit. Base64url is one-to-one on canonical text, so equal characters are equal bytes. The
 * first 42 characters of both encode the same 252 bits; of the 43rd, the top 4 of its 6 bits.
 */
function tagMatches(token: string, from: number, mac: string): boolean {
  let diff = 0;
  for (let k = 0; k < TAG_CHARS - 1; k++) diff |= token.charCodeAt(from + k) ^ mac.charCodeAt(k);
  const last = TAG_CHARS - 1;
  const code = token.charCodeAt(from + last);
  // Outside the alphabet (the caller checks it; this does not rely on it): -1, which fails below.
  const tail = code < 128 ? B64U_VALUE[code] : -1;
  // Its 2 low bits must be zero (canonical), and the other 4 the HMAC's.
  diff |= ((tail ^ B64U_VALUE[mac.charCodeAt(last)]) >> 2) | (tail & 0x03);
  return diff === 0;
}

/** Base64url text's decoded length (canonical, unpadded). */
const decodedLength = (chars: number) => Math.floor((chars * 3) / 4);

/** One A256CBC-HS512 key (32 bytes MAC key, 32 bytes AES key): opens tokens made with it. */
export class CbcHs512Key {
  /** The MAC key XOR ipad, padded to a SHA-512 block: the start of the inner hash's input. */
  private readonly innerPad: Buffer;
  /** The MAC key XOR opad, padded, followed by room for the inner digest: the outer hash's input. */
  private readonly outer: Buffer;
  private cbc: Decipher;
  private readonly aes: KeyObject;
  private shared = Buffer.alloc(0);

  constructor(mac: KeyObject, aes: KeyObject) {
    const key = mac.export();
    if (key.length > SHA512_BLOCK) throw new RangeError('An HMAC key longer than a SHA-512 block is hashed first.');
    this.innerPad = Buffer.alloc(SHA512_BLOCK, 0x36);
    this.outer = Buffer.alloc(SHA512_BLOCK + SHA512_LENGTH, 0x5c);
    for (let i = 0; i < key.length; i++) {
      this.innerPad[i] ^= key[i];
      this.outer[i] ^= key[i];
    }
    key.fill(0);
    this.aes = aes;
    this.cbc = this.newCbc();
  }

  /**
   * The plaintext of a token whose parts are `token[0, h)` (protected header, the AAD),
   * `token[i, c)` (IV), `token(c, t)` (ciphertext) and `token(t, end)` (tag), all canonical
   * base64url; `al` is the AAD length block. Undefined unless the tag is authentic (compared in
   * constant time before anything is decrypted), the lengths are right and the padding is valid.
   */
  open(token: string, h: number, i: number, c: number, t: number, al: Buffer): Buffer | undefined {
    const ivLength = decodedLength(c - i);
    const ctLength = decodedLength(t - c - 1);
    if (ivLength !== AES_BLOCK || ctLength === 0 || ctLength % AES_BLOCK !== 0) return undefined;
    if (decodedLength(token.length - t - 1) !== CBC_HS512_TAG_LENGTH) return undefined;
    // K ^ ipad || AAD || IV || ciphertext || AL, written in place (no concatenation).
    const size = SHA512_BLOCK + h + ivLength + ctLength + al.length;
    const message = this.messageBuffer(size);
    this.innerPad.copy(message, 0);
    let at = SHA512_BLOCK + message.write(token.slice(0, h), SHA512_BLOCK, 'latin1');
    const ivAt = at;
    at += message.write(token.slice(i, c), at, 'base64url');
    const ctAt = at;
    at += message.write(token.slice(c + 1, t), at, 'base64url');
    at += al.copy(message, at);
    if (at !== size) return undefined;
    // Digests as strings: a digest returned as a Buffer is a new ArrayBuffer from C++ (the two cost
    // 2.9-3.0 µs so in a micro-benchmark, 1.7 µs as strings). The inner one is written into the
    // outer hash's input; the HMAC, in base64url, is compared with the tag as the token spells it.
    this.outer.write(hash('sha512', message.subarray(0, size), 'binary'), SHA512_BLOCK, 'latin1');
    if (!tagMatches(token, t + 1, hash('sha512', this.outer, 'base64url'))) return undefined;
    // IV || ciphertext lie side by side in the message.
    return this.decrypt(message.subarray(ivAt, ctAt + ctLength));
  }

  /** CBC decryption of IV || ciphertext (whole blocks), then PKCS #7 padding removed; undefined if not valid. */
  private decrypt(ivAndCiphertext: Buffer): Buffer | undefined {
    let out: Buffer;
    try {
      out = this.cbc.update(ivAndCiphertext);
    } catch {
      out = Buffer.alloc(0);
    }
    if (out.length !== ivAndCiphertext.length) {
      // Never expected with whole blocks; a fresh decipher keeps the next token unaffected.
      this.cbc = this.newCbc();
      return undefined;
    }
    // The first block decrypted the IV under the previous token's state: not plaintext.
    const plain = out.subarray(AES_BLOCK);
    const pad = plain[plain.length - 1];
    if (pad < 1 || pad > AES_BLOCK) return undefined;
    for (let k = plain.length - pad; k < plain.length - 1; k++) if (plain[k] !== pad) return undefined;
    return plain.subarray(0, plain.length - pad);
  }

  /** The buffer the MAC input is written to: one reused for ordinary tokens, its own for a large one. */
  private messageBuffer(size: number): Buffer {
    if (size > SHARED_MESSAGE_BYTES) return Buffer.allocUnsafe(size);
    if (this.shared.length < size) this.shared = Buffer.allocUnsafe(SHARED_MESSAGE_BYTES);
    return this.shared;
  }

  private newCbc(): Decipher {
    const cbc = createDecipheriv('aes-256-cbc', this.aes, Buffer.alloc(AES_BLOCK));
    cbc.setAutoPadding(false);
    return cbc;
  }
}
