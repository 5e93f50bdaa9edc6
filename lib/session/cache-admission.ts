/**
 * Which tokens a full session cache lets in: only one seen before. A cache with room takes every
 * token; once full, keeping a new one means evicting the oldest, which is a loss whenever the new
 * token is never seen again (a scanner, a one-off client, more distinct users than the cache
 * holds). So, when the entry to evict is still current, a token is admitted on its second offer
 * only: the first leaves a 30-bit fingerprint here. Fingerprints are forgotten all at once when
 * `max` of them are held (a token has that many other first offers' time to come back), which
 * bounds the memory to a `Set` of small integers.
 *
 * A fingerprint is cheap (a few characters of the token, not all of it) and may collide: a
 * collision only admits a token at its first offer, which is what a cache without admission does.
 * The cache itself answers only the exact token its entry holds.
 */
export class CacheAdmission {
  private seen = new Set<number>();

  constructor(private readonly max: number) {}

  /** True when `token` was offered before (since the fingerprints were last forgotten); else records it. */
  admits(token: string): boolean {
    const print = fingerprint(token);
    if (this.seen.delete(print)) return true;
    if (this.seen.size >= this.max) this.seen = new Set();
    this.seen.add(print);
    return false;
  }
}

/**
 * A 30-bit hash of a token's length, its last 12 characters (a JWE ends with its authentication tag,
 * a database session token is random throughout) and 4 spread over the rest.
 */
export function fingerprint(token: string): number {
  const n = token.length;
  let h = n;
  for (let k = Math.max(0, n - 12); k < n; k++) h = (Math.imul(h, 31) + token.charCodeAt(k)) | 0;
  for (let k = 1; k <= 4; k++) h = (Math.imul(h, 31) + token.charCodeAt(((n * k) / 5) | 0)) | 0;
  return h & 0x3fffffff;
}
