/**
 * Runs sign-ins of the same provider account one after the other (in this process). Two first
 * sign-ins racing would otherwise both create the user; the second would then find the first's
 * half-made user by email and be refused. Queued, the second finds the account and signs in.
 * Across processes the storage's unique (provider, providerAccountId) index still decides.
 */
export class AccountQueue {
  private readonly queues = new Map<string, Promise<unknown>>();

  /** Runs `fn` once every earlier call with the same key has settled; a failure does not block the next. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const current = previous.catch(() => undefined).then(fn);
    const tail = current.catch(() => undefined);
    this.queues.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    }
  }

  /** Keys with sign-ins queued or running. */
  get pending(): number {
    return this.queues.size;
  }
}
