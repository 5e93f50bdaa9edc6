/**
 * A bounded in-memory map whose entries expire: what the module remembers per process (used check
 * cookies, revoked JWTs, cached sessions). When full, expired entries are swept and, if it is still
 * full, the oldest entry is dropped, so memory stays capped under a flood at the cost of forgetting
 * the oldest. Times are epoch milliseconds; pass `now` where the caller already read the clock.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

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
  }

  private makeRoom(now: number): void {
    for (const [key, entry] of this.entries) if (!(entry.expiresAt > now)) this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as K);
  }
}
