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

/**
 * Two strings of a public length (a key of a fixed format) compared in constant time, in the
 * process's own code: every UTF-16 code unit of both is read and folded into one difference, with
 * no exit before the last, so the time depends on the length only; another length is `false` at
 * once. No copy into bytes first (what `equalBytes` needs), so it suits a comparison made on every
 * request; differential test against `timingSafeEqual` in constant-time.spec.ts.
 */
export function equalStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
