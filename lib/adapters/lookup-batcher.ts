import { createHash } from 'node:crypto';

// PostgreSQL session lookups that arrive together share one statement; see LookupBatcher. One
// implementation for the TypeORM, Drizzle and Prisma adapters.

/** A lookup waiting for its batch. */
interface PendingLookup<Row> {
  token: string;
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}

/** Tokens looked up in one statement at most. */
const BATCH_MAX = 64;

/**
 * Gathers the session lookups that arrive in one turn of the event loop (concurrent requests whose
 * bytes came in together) and answers them with one statement, `token = ANY($1)`: one round trip
 * and one execution for all of them instead of one each, on the same prepared-statement path. A
 * lone lookup runs the single-token statement. A failed batch fails each of its lookups.
 *
 * A row answers the lookup whose token is exactly (`===`) the row's token as `tokenOf` reads it, so
 * a statement that matched case-insensitively still answers no other token than its own.
 *
 * @typeParam Row - A row of the lookup's statement, as the adapter's driver returns it.
 */
export class LookupBatcher<Row> {
  private pending: PendingLookup<Row>[] = [];
  private scheduled = false;

  /**
   * @param single - The row of one token (the single-token statement), or `undefined`.
   * @param many - The rows of several distinct tokens (the `ANY($1)` statement); `undefined` when it
   *   cannot run now, each lookup then runs `single`.
   * @param tokenOf - The session token of a row of `many`.
   */
  constructor(
    private readonly single: (token: string) => Promise<Row | undefined>,
    private readonly many: (tokens: string[]) => Promise<Row[] | undefined>,
    private readonly tokenOf: (row: Row) => unknown,
  ) {}

  /** The row of `token` (or `undefined`), from the batch of this event-loop turn. */
  lookup(token: string): Promise<Row | undefined> {
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

  private run(group: PendingLookup<Row>[]): void {
    if (group.length === 1) return this.one(group[0]);
    const tokens = [...new Set(group.map((p) => p.token))];
    attempt(() => this.many(tokens))
      .then((found) => {
        if (!found) return found;
        const byToken = new Map<unknown, Row>();
        for (const row of found) byToken.set(this.tokenOf(row), row);
        return byToken;
      })
      .then(
        (byToken) => {
          // Nothing to batch on: each lookup on its own path.
          if (!byToken) for (const p of group) this.one(p);
          else for (const p of group) p.resolve(byToken.get(p.token));
        },
        (error: unknown) => {
          for (const p of group) p.reject(error);
        },
      );
  }

  private one(lookup: PendingLookup<Row>): void {
    attempt(() => this.single(lookup.token)).then(lookup.resolve, lookup.reject);
  }
}

/** `run()`'s promise; a throw before it (a driver refusing its arguments) rejects it instead. */
function attempt<T>(run: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve) => resolve(run()));
}

/**
 * The name of a lookup's prepared statement on node-postgres: a hash of its SQL, so adapters (or
 * two of one kind over different tables) sharing a pool never give one name two texts. `kind`
 * names what the statement is for (the session lookup's is `session`).
 */
export function lookupStatementName(sql: string, kind = 'session'): string {
  return `nestjs_auth_${kind}_${createHash('sha256').update(sql).digest('hex').slice(0, 16)}`;
}
