import type { ObjectLiteral, Repository } from 'typeorm';
import type { RefreshRotation } from '../memory-store.helpers.js';
import type { TypeOrmQueries } from './typeorm-queries.js';

// The stored form of a family, as MemoryAdapter keeps it and checks it on every read: the contract's
// fields only, `null` for a row whose fields are not of their types.
export { newRefreshFamily, refreshRotation, storedRefreshFamily } from '../memory-store.helpers.js';

// The refresh-token statements of `TypeOrmAdapter` (beyond SPEC: `RefreshTokenAdapter`), on the
// `refresh_token_families` table of `RefreshFamilyEntity`.

/**
 * The compare-and-set behind `TypeOrmAdapter.rotateRefreshFamily`: one conditional `UPDATE ... WHERE
 * id = ? AND generation = ?` that writes the next generation, hash and dates. PostgreSQL and InnoDB
 * re-check the condition on the row a concurrent update committed, SQLite runs one write at a time:
 * of concurrent calls with one `from`, exactly one changes the row (it changes `generation`, so the
 * row counts as changed on MySQL too).
 *
 * @returns the rows changed, or `undefined` when the driver does not report it
 */
export async function rotateFamily(
  queries: TypeOrmQueries,
  repo: Repository<ObjectLiteral>,
  id: string,
  from: number,
  next: RefreshRotation,
): Promise<number | undefined> {
  const [where, params] = queries.where(repo.metadata, { id, generation: from });
  const result = await repo
    .createQueryBuilder()
    .update()
    .set({ generation: next.generation, tokenHash: next.tokenHash, rotatedAt: next.rotatedAt, expires: next.expires })
    .where(where, params)
    .execute();
  return result.affected;
}
