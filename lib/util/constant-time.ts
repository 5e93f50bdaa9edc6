import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two strings in time that does not depend on where they differ or on their lengths: the
 * SHA-256 digests are compared, so `timingSafeEqual` always sees equal lengths. For tokens, codes and
 * issuer values; never `===` on a secret.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

/**
 * Two byte strings of a public length (a key of a fixed format, a digest) compared in constant time;
 * another length is `false` at once.
 */
export function equalBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
