import { createHash, createHmac, randomBytes } from 'node:crypto';

/** Bytes of CSPRNG output in a default sign-in token (256 bits; base64url gives 43 characters). */
export const EMAIL_TOKEN_BYTES = 32;

/** Longest token accepted from a link or from a custom `generateVerificationToken`. */
export const EMAIL_TOKEN_MAX_LENGTH = 512;

/** A fresh sign-in token: 32 random bytes, base64url. */
export function generateEmailToken(): string {
  return randomBytes(EMAIL_TOKEN_BYTES).toString('base64url');
}

/**
 * What the database stores for a sign-in token: HMAC-SHA256 keyed with the secret over the
 * purpose, the identifier and the token (hex). A database dump alone cannot be turned into a
 * working link, and the row only matches the address it was issued for, even with an adapter that
 * looked rows up by token alone (the CVE-2022-39263 class of bug).
 */
export function hashEmailToken(
  secret: string,
  identifier: string,
  token: string,
  scheme: 'hmac' | 'authjs' = 'hmac',
): string {
  // Auth.js's format (`tokenHash: 'authjs'`), for a database shared with an Auth.js app; the address
  // is still matched, by the adapter's (identifier, token) lookup.
  if (scheme === 'authjs') return createHash('sha256').update(`${token}${secret}`, 'utf8').digest('hex');
  return createHmac('sha256', secret).update(`nestjs-auth:email-signin\0${identifier}\0${token}`, 'utf8').digest('hex');
}

/** True for a token worth looking up: a non-empty string of bounded length, no control characters. */
export function isPlausibleToken(token: unknown): token is string {
  return (
    typeof token === 'string' &&
    token.length > 0 &&
    token.length <= EMAIL_TOKEN_MAX_LENGTH &&
    !/[\u0000-\u001f\u007f]/.test(token)
  );
}
