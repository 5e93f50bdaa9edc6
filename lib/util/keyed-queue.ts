/**
 * Runs calls with the same key one after the other (in this process). The OAuth callback queues
 * sign-ins of one provider account (two first sign-ins racing would otherwise both create the
 * user; queued, the second finds the account and signs in); account management queues changes to
 * one user's sign-in methods (two unlinks racing could otherwise each leave the other as the
 * last way in, and both succeed). Across processes the storage's constraints still decide.
 */
export class KeyedQueue {
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

  /** Keys with calls queued or running. */
  get pending(): number {
    return this.queues.size;
  }
}
