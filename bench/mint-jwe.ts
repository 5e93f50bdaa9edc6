// Mints session JWTs for the benchmark's 50,000-cookie scenario without waiting on jose's async
// encoder per token: the construction of lib/session/jwt.ts's `encode` (JWE compact, `dir`,
// `A256CBC-HS512`, HKDF key, thumbprint `kid`, `iat`/`exp`/`jti`), written against node:crypto.
// Bench-only; the guard decrypts these like any other session (the server's first token comes from
// the library's own encoder, and a refused token would fail the run).
import { createCipheriv, createHmac, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { thumbprint } from '../lib/session/jwt.js';

export function jweMinter(secret: string, salt: string, maxAge = 30 * 24 * 3600): (claims: object) => string {
  const key = new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, 64));
  const header = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256CBC-HS512', kid: thumbprint(key) })).toString(
    'base64url',
  );
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(header.length * 8));
  return (claims) => {
    const now = Math.floor(Date.now() / 1000);
    const plaintext = JSON.stringify({ ...claims, iat: now, exp: now + maxAge, jti: randomUUID() });
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-cbc', key.subarray(32), iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const tag = createHmac('sha512', key.subarray(0, 32))
      .update(header)
      .update(iv)
      .update(ciphertext)
      .update(al)
      .digest()
      .subarray(0, 32);
    return `${header}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${tag.toString('base64url')}`;
  };
}
