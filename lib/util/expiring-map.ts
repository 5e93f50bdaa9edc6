/**
 * A bounded in-memory map whose entries expire: what the module remembers per process (used check
 * cookies, revoked JWTs, cached sessions). When full, expired entries are swept and, if it is still
 * full, the oldest entry is dropped, so memory stays capped under a flood at the cost of forgetting
 * the oldest. Times are epoch milliseconds; pass `now` where the caller already read the clock.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number; bytes: number }>();
  /** With `bytes`: what the entries held are counted for, by `bytes.of`. */
  private held = 0;
  /** No entry expires before this (a lower bound): a sweep before it would find nothing. */
  private earliest = Number.POSITIVE_INFINITY;
  /** Inserts into a full map left before the next whole sweep: a sweep costs the whole map. */
  private sweepCredit = 0;

  /**
   * @param max entries kept at most; `0` keeps none (a cache turned off: `remember` then tells no replay)
   * @param bytes optionally, a bound on memory too: entries are counted for `of(key, value)` bytes,
   *   and the oldest go while the total would pass `max` (an entry larger than the whole bound is not kept)
   */
  constructor(
    private readonly max: number,
    private readonly bytes?: { max: number; of: (key: K, value: V) => number },
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The bytes counted for the entries held (0 without a byte bound). */
  get heldBytes(): number {
    return this.held;
  }

  /** The value of a live entry; an expired entry is deleted and reads as missing. */
  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (!(entry.expiresAt > now)) {
      this.drop(key, entry);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` until `expiresAt`; false when it is not kept (no room at all: a bound of 0, or larger than the byte bound). */
  set(key: K, value: V, expiresAt: number, now = Date.now()): boolean {
    if (this.max <= 0) return false;
    const bytes = this.bytes ? this.bytes.of(key, value) : 0;
    if (this.bytes) {
      this.delete(key);
      if (bytes > this.bytes.max) return false;
      while (this.entries.size > 0 && this.held + bytes > this.bytes.max) this.makeRoom(now);
    }
    if (!this.entries.has(key) && this.entries.size >= this.max) this.makeRoom(now);
    this.entries.set(key, { value, expiresAt, bytes });
    this.held += bytes;
    if (expiresAt < this.earliest) this.earliest = expiresAt;
    return true;
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

  /**
   * Whether storing a new entry now would push out a live one: the map is full (by entries, or by
   * bytes with this entry's) and its oldest entry is current.
   */
  evictsLive(now: number, key: K, value: V): boolean {
    const full =
      this.entries.size >= this.max ||
      (this.bytes !== undefined && this.held + this.bytes.of(key, value) > this.bytes.max);
    if (!full) return false;
    const oldest = this.entries.values().next().value;
    return oldest !== undefined && oldest.expiresAt > now;
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.drop(key, entry);
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
    this.earliest = Number.POSITIVE_INFINITY;
  }

  private drop(key: K, entry: { bytes: number }): void {
    this.entries.delete(key);
    this.held -= entry.bytes;
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
      this.drop(first[0], first[1]);
      return;
    }
    if (now >= this.earliest && this.sweepCredit <= 0) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const [key, entry] of this.entries) {
        if (!(entry.expiresAt > now)) this.drop(key, entry);
        else if (entry.expiresAt < earliest) earliest = entry.expiresAt;
      }
      this.earliest = earliest;
      this.sweepCredit = Math.max(1, this.max >> 4);
      const oldest = this.entries.entries().next().value;
      if (oldest && this.entries.size >= this.max) this.drop(oldest[0], oldest[1]);
      return;
    }
    if (this.sweepCredit > 0) this.sweepCredit--;
    // The oldest entry, found above: a second walk from the start would skip the holes deletions leave.
    this.drop(first[0], first[1]);
  }
}
