import type { ObjectLiteral } from 'typeorm';

// PostgreSQL session lookups that arrive together share one statement; see LookupBatcher.

/** A lookup waiting for its batch. */
interface PendingLookup {
  token: string;
  resolve(row: ObjectLiteral | undefined): void;
  reject(error: unknown): void;
}

/** Tokens looked up in one statement at most. */
const BATCH_MAX = 64;

/**
 * Gathers the session lookups that arrive in one turn of the event loop (concurrent requests whose
 * bytes came in together) and answers them with one statement, `token = ANY($1)`: one round trip
 * and one execution for all of them instead of one each, on the same prepared-statement path. A
 * lone lookup runs the single-token statement. A failed batch fails each of its lookups.
 */
export class LookupBatcher {
  private pending: PendingLookup[] = [];
  private scheduled = false;

  constructor(
    private readonly single: (token: string) => Promise<ObjectLiteral | undefined>,
    private readonly many: (tokens: string[]) => Promise<ObjectLiteral[] | undefined>,
    private readonly tokenAlias: string,
  ) {}

  lookup(token: string): Promise<ObjectLiteral | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.push({ token, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    const pending = this.pending;
    this.pending = [];
    this.scheduled = false;
    for (let i = 0; i < pending.length; i += BATCH_MAX) this.run(pending.slice(i, i + BATCH_MAX));
  };

  private run(group: PendingLookup[]): void {
    if (group.length === 1) {
      const [one] = group;
      this.single(one.token).then(one.resolve, one.reject);
      return;
    }
    const tokens = [...new Set(group.map((p) => p.token))];
    this.many(tokens).then(
      (rows) => {
        if (!rows) {
          // No pool to batch on: each lookup on its own path.
          for (const p of group) this.single(p.token).then(p.resolve, p.reject);
          return;
        }
        const byToken = new Map<unknown, ObjectLiteral>();
        for (const row of rows) byToken.set(row[this.tokenAlias], row);
        for (const p of group) p.resolve(byToken.get(p.token));
      },
      (error: unknown) => {
        for (const p of group) p.reject(error);
      },
    );
  }
}
