import type { AdapterSession, AdapterUser } from './adapter.interface.js';

/**
 * An optional adapter capability: `getSessionAndUser` answered without a promise, for a store that
 * reads synchronously (TypeORM on better-sqlite3). With the default callbacks, the guard then
 * answers an uncached database session in the request's own turn of the event loop. The answer is
 * checked exactly as `getSessionAndUser`'s is (missing user, invalid or passed expiry fail closed);
 * an expired row's deletion and a due `updateAge` extension are written after the answer.
 */
export interface SynchronousSessionLookupAdapter {
  /**
   * What `getSessionAndUser(sessionToken)` would resolve to: the session and its user, or `null`
   * when there is none. `undefined` when it cannot answer synchronously right now (say, the
   * connection is not open yet): the caller then asks `getSessionAndUser`.
   */
  getSessionAndUserSync(sessionToken: string): { session: AdapterSession; user: AdapterUser } | null | undefined;
}

/** The adapter's synchronous lookup, bound, when it has one. */
export function synchronousLookupOf(
  adapter: unknown,
): SynchronousSessionLookupAdapter['getSessionAndUserSync'] | undefined {
  const fn = (adapter as Partial<SynchronousSessionLookupAdapter> | null)?.getSessionAndUserSync;
  return typeof fn === 'function' ? fn.bind(adapter) : undefined;
}
