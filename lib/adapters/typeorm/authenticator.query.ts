import type { ObjectLiteral, Repository } from 'typeorm';
import { AdapterNotFoundError } from '../../errors/auth.errors.js';
import type { Keys, TypeOrmQueries } from './typeorm-queries.js';

// The authenticator writes of `TypeOrmAdapter`: the counter's compare-and-set, and passkey
// management beyond SPEC (issue 21), the `name` and `lastUsedAt` columns. Those two are optional: the default entity has them (migration `AuthPasskeyNames…`), Auth.js's tables
// have them only when a schema mapping names them, and a custom entity may leave them out.

/** Whether the authenticator entity has the column of `property`. */
export function hasColumn(repo: Repository<ObjectLiteral>, property: 'name' | 'lastUsedAt'): boolean {
  return Boolean(repo.metadata.findColumnWithPropertyName(property));
}

/** What the counter update also writes: the time of use, when the table has the column. */
export function usedNow(repo: Repository<ObjectLiteral>): { lastUsedAt?: Date } {
  return hasColumn(repo, 'lastUsedAt') ? { lastUsedAt: new Date() } : {};
}

/**
 * Sets (or clears) the name of an authenticator; `false` when no row has that credential id. Throws
 * `AdapterNotFoundError` when the table has no `name` column.
 */
export async function updateName(
  repo: Repository<ObjectLiteral>,
  where: string,
  params: ObjectLiteral,
  name: string | null,
): Promise<boolean> {
  if (!hasColumn(repo, 'name'))
    throw new AdapterNotFoundError(
      'authenticator',
      'The authenticators table has no `name` column: run the AuthPasskeyNames migration, or map the column.',
    );
  const result = await repo.createQueryBuilder().update().set({ name }).where(where, params).execute();
  return result.affected !== 0;
}

/**
 * The compare-and-set behind `TypeOrmAdapter.updateAuthenticatorCounter`: the `WHERE` carries the
 * counter that was read (`expectedCounter`), so of concurrent updates from the same value exactly one
 * changes a row. Also records the time of use (see {@link usedNow}).
 *
 * @returns the rows changed, or `undefined` when the driver does not report it
 */
export async function compareAndSetCounter(
  queries: TypeOrmQueries,
  repo: Repository<ObjectLiteral>,
  credentialID: string,
  newCounter: number,
  expectedCounter: number | undefined,
): Promise<number | undefined> {
  const keys: Keys = expectedCounter === undefined ? { credentialID } : { credentialID, counter: expectedCounter };
  const [where, params] = queries.where(repo.metadata, keys);
  const set = { counter: newCounter, ...usedNow(repo) };
  const result = await repo.createQueryBuilder().update().set(set).where(where, params).execute();
  return result.affected;
}
