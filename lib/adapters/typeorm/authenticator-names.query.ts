import type { ObjectLiteral, Repository } from 'typeorm';
import { AdapterNotFoundError } from '../../errors/auth.errors.js';

// Passkey management beyond SPEC (issue 21): the `name` and `lastUsedAt` columns of authenticators.
// Both are optional: the default entity has them (migration `AuthPasskeyNames…`), Auth.js's tables
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
