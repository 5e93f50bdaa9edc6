import { hash } from 'node:crypto';

/** Ways per bucket: a digest may sit in any of its bucket's 4 slots. */
const WAYS = 4;
/** 32-bit words per slot: 4 of digest (its first 128 bits), 1 of expiry (epoch seconds; 0 is empty). */
const WORDS = 5;
/** Bytes a slot takes. */
export const DIGEST_SLOT_BYTES = WORDS * 4;

/**
 * A bounded set of strings known by their SHA-256 digest, each until it expires, in one fixed block
 * of memory: what a process remembers of the many tokens it checked (an access token whose
 * signature it verified, say) for a fraction of what a `Map` of the tokens would take.
 *
 * A string is held as the first 128 bits of its SHA-256 (20 bytes a slot with its expiry), in a
 * 4-way set-associative table (as a CPU cache is): the digest picks a bucket of 4 slots, and a new
 * digest takes an empty or expired slot there, else the one that expires first. So memory is the
 * `Uint32Array` alone, allocated on the first `add` (its pages are touched as they fill), nothing
 * the garbage collector walks, and `has` and `add` are a hash and at most 4 slot compares. A
 * bucket that overflows forgets a digest early; with the table a quarter full that is under 1 % of
 * them.
 *
 * Another string with the same 128 bits is a second preimage of SHA-256 (about 2^128 tries, less
 * the log of the digests held): what `has` says of one string is safe to act on for no other.
 */
export class DigestTable {
  private table: Uint32Array | undefined;
  private buckets: number;
  /** The digest being looked up or added: four 32-bit words, reused by every call. */
  private readonly digest = new Uint32Array(4);
  /** Whether {@link digest} holds a looked-up string's digest yet. */
  private looked = false;

  /** @param maxBytes memory the table may take (a whole number of 4-slot buckets; under one keeps nothing) */
  constructor(maxBytes: number) {
    this.buckets = Math.floor(maxBytes / (WAYS * DIGEST_SLOT_BYTES));
  }

  /** Strings the table can hold at most. */
  get capacity(): number {
    return this.buckets * WAYS;
  }

  /** Whether `value` was added and has not expired by `nowSec` (epoch seconds). */
  has(value: string, nowSec: number): boolean {
    if (this.buckets === 0) return false;
    // Hashed even before the first add, so that `addLastLookedUp` holds this string.
    const first = this.bucketOf(value);
    const table = this.table;
    if (table === undefined) return false;
    const slot = this.find(table, first);
    return slot >= 0 && table[slot + 4] > nowSec;
  }

  /** Holds `value` until `expiresSec` (epoch seconds), in place of the digest of its bucket that expires first. */
  add(value: string, expiresSec: number, nowSec: number): void {
    if (this.buckets === 0 || !(expiresSec > nowSec)) return;
    this.store(this.bucketOf(value), expiresSec);
  }

  /**
   * {@link add} of the string the last {@link has} looked up, without hashing it again: call it in
   * the same synchronous turn as that `has`, with no other lookup between (a verified token's
   * signature check). No string is kept or compared to tell which one that was.
   */
  addLastLookedUp(expiresSec: number, nowSec: number): void {
    if (this.buckets === 0 || !(expiresSec > nowSec) || !this.looked) return;
    this.store(this.digestBucket(), expiresSec);
  }

  private store(first: number, expiresSec: number): void {
    const table = (this.table ??= this.allocate());
    if (table === undefined) return;
    let target = this.find(table, first);
    if (target < 0) {
      target = first;
      for (let way = 1, slot = first + WORDS; way < WAYS; way++, slot += WORDS)
        if (table[slot + 4] < table[target + 4]) target = slot;
    }
    table.set(this.digest, target);
    // Whole seconds, at most 2^32 - 1 (the year 2106): a later expiry is held as that.
    table[target + 4] = Math.min(Math.ceil(expiresSec), 0xffffffff);
  }

  /**
   * The table's memory, or undefined when the process cannot have it (a bound of gigabytes on a
   * small machine): the table then keeps nothing, and every string reads as not seen (fails closed).
   */
  private allocate(): Uint32Array | undefined {
    try {
      return new Uint32Array(this.buckets * WAYS * WORDS);
    } catch {
      this.buckets = 0;
      return undefined;
    }
  }

  /** Forgets every string. */
  clear(): void {
    this.table?.fill(0);
  }

  /** Puts the first 128 bits of `value`'s SHA-256 in {@link digest}; returns its bucket's first slot. */
  private bucketOf(value: string): number {
    const bytes = hash('sha256', value, 'binary');
    for (let i = 0; i < 4; i++) this.digest[i] = word(bytes, 4 * i);
    this.looked = true;
    return this.digestBucket();
  }

  /** The first slot of the bucket of the digest {@link digest} holds. */
  private digestBucket(): number {
    return (this.digest[0]! % this.buckets) * WAYS * WORDS;
  }

  /** The slot of the bucket starting at `first` that holds {@link digest}, or -1. */
  private find(table: Uint32Array, first: number): number {
    const d = this.digest;
    const w0 = d[0];
    const w1 = d[1];
    const w2 = d[2];
    const w3 = d[3];
    for (let way = 0, slot = first; way < WAYS; way++, slot += WORDS)
      if (table[slot] === w0 && table[slot + 1] === w1 && table[slot + 2] === w2 && table[slot + 3] === w3) return slot;
    return -1;
  }
}

/** Four characters of a binary (latin1) digest (one byte each) as an unsigned 32-bit word. */
function word(digest: string, at: number): number {
  return (
    (digest.charCodeAt(at) |
      (digest.charCodeAt(at + 1) << 8) |
      (digest.charCodeAt(at + 2) << 16) |
      (digest.charCodeAt(at + 3) << 24)) >>>
    0
  );
}
