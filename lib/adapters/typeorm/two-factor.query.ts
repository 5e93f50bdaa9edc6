import type { ObjectLiteral, Repository } from 'typeorm';
import type { AdapterTwoFactor } from '../adapter.interface.js';
import { plain, type TypeOrmQueries } from './typeorm-queries.js';

// The stored form of a factor, as MemoryAdapter keeps it: the contract's fields only.
export { storedTwoFactor } from '../memory-store.helpers.js';

// The two-factor statements of `TypeOrmAdapter` (beyond SPEC: `TwoFactorAdapter`), on the
// `two_factors` table of `TwoFactorEntity`. Every statement names the factor's user as well as its id.

/** A factor as the adapter returns it: a plain object, its optional columns `null` when empty. */
export function twoFactorOf(row: ObjectLiteral): AdapterTwoFactor {
  const found = plain(row) as AdapterTwoFactor;
  return {
    ...found,
    name: found.name ?? null,
    confirmedAt: found.confirmedAt ?? null,
    lastUsedAt: found.lastUsedAt ?? null,
    lastUsedStep: found.lastUsedStep ?? null,
  };
}

/**
 * The compare-and-set behind `TypeOrmAdapter.useTwoFactorStep`: one conditional `UPDATE` that
 * writes only when the factor is the user's and its `lastUsedStep` is empty or below `step`.
 * PostgreSQL and InnoDB re-check the condition on the row a concurrent update committed, SQLite
 * runs one write at a time: of concurrent calls with one step, exactly one changes the row.
 *
 * @returns the rows changed, or `undefined` when the driver does not report it
 */
export async function useStep(
  queries: TypeOrmQueries,
  repo: Repository<ObjectLiteral>,
  key: { id: string; userId: string },
  step: number,
  at: Date,
): Promise<number | undefined> {
  const [where, params] = queries.where(repo.metadata, key);
  const column = repo.metadata.findColumnWithPropertyName('lastUsedStep')!;
  const last = repo.manager.connection.driver.escape(column.databaseName);
  const result = await repo
    .createQueryBuilder()
    .update()
    .set({ lastUsedStep: step, lastUsedAt: at })
    .where(where, params)
    .andWhere(`(${last} IS NULL OR ${last} < :step)`, { step })
    .execute();
  return result.affected;
}
