/**
 * A bounded in-memory map whose entries expire: what the module remembers per process (used check
 * cookies, revoked JWTs, cached sessions). When full, expired entries are swept and, if it is still
 * full, the oldest entry is dropped, so memory stays capped under a flood at the cost of forgetting
 * the oldest. Times are epoch milliseconds; pass `now` where the caller already read the clock.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  /** No entry expires before this (a lower bound): a sweep before it would find nothing. */
  private earliest = Number.POSITIVE_INFINITY;
  /** Inserts into a full map left before the next whole sweep: a sweep costs the whole map. */
  private sweepCredit = 0;

  constructor(private readonly max: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value of a live entry; an expired entry is deleted and reads as missing. */
  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (!(entry.expiresAt > now)) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, expiresAt: number, now = Date.now()): void {
    if (!this.entries.has(key) && this.entries.size >= this.max) this.makeRoom(now);
    this.entries.set(key, { value, expiresAt });
    if (expiresAt < this.earliest) this.earliest = expiresAt;
  }

  /**
   * Records `key` until `expiresAt` unless a live entry has it: true the first time, false while
   * it is remembered (a replay).
   */
  remember(key: K, value: V, expiresAt: number, now = Date.now()): boolean {
    if (this.get(key, now) !== undefined) return false;
    this.set(key, value, expiresAt, now);
    return true;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.earliest = Number.POSITIVE_INFINITY;
  }

  /**
   * Frees one place in a full map: the oldest entry when it has expired (in a map whose entries
   * live alike, the first to expire); else, when some entry may have expired, a sweep of the whole
   * map, at most once per `max / 16` inserts (so a full map costs a constant per insert, not its
   * size); else the oldest entry goes.
   */
  private makeRoom(now: number): void {
    const first = this.entries.entries().next().value;
    if (!first) return;
    if (!(first[1].expiresAt > now)) {
      this.entries.delete(first[0]);
      return;
    }
    if (now >= this.earliest && this.sweepCredit <= 0) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const [key, entry] of this.entries) {
        if (!(entry.expiresAt > now)) this.entries.delete(key);
        else if (entry.expiresAt < earliest) earliest = entry.expiresAt;
      }
      this.earliest = earliest;
      this.sweepCredit = Math.max(1, this.max >> 4);
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as K);
      return;
    }
    if (this.sweepCredit > 0) this.sweepCredit--;
    // The oldest entry, found above: a second walk from the start would skip the holes deletions leave.
    this.entries.delete(first[0]);
  }
}
