import type { DataSource, ObjectLiteral } from 'typeorm';
import type { AccountTokens, AdapterAccount } from '../adapter.interface.js';
import type { EntityClass } from './auth-entities.js';
import type { TypeOrmQueries } from './typeorm-queries.js';

/** What a compare-and-swap of an account's tokens must still find in the row. */
export type AccountTokensMatch = Pick<AdapterAccount, 'provider' | 'providerAccountId'> & {
  refresh_token: string | null;
  expires_at: number | null;
};

/**
 * The compare-and-swap behind `TypeOrmAdapter.updateAccountTokens`: one `UPDATE` whose `WHERE`
 * carries the `refresh_token` and `expires_at` that were read, so of concurrent callers with the same
 * `match` exactly one changes the row. Only the columns the entity maps are written.
 *
 * @returns the rows changed, or `undefined` when the driver does not report it
 */
export async function swapAccountTokens(
  dataSource: DataSource,
  queries: TypeOrmQueries,
  entity: EntityClass<ObjectLiteral>,
  match: AccountTokensMatch,
  next: AccountTokens,
): Promise<number | undefined> {
  const repo = queries.repo(entity);
  const [keyWhere, params] = queries.where(repo.metadata, {
    provider: match.provider,
    providerAccountId: match.providerAccountId,
  });
  const parts = [keyWhere];
  const column = (property: string) =>
    dataSource.driver.escape(repo.metadata.findColumnWithPropertyName(property)?.databaseName ?? property);
  if (match.refresh_token === null) parts.push(`${column('refresh_token')} IS NULL`);
  else {
    parts.push(`${column('refresh_token')} = :m_refresh_token`);
    params.m_refresh_token = match.refresh_token;
    // MySQL compares text case-insensitively: the token must match byte for byte.
    if (queries.mysql) parts.push(`BINARY ${column('refresh_token')} = :m_refresh_token`);
  }
  if (match.expires_at === null) parts.push(`${column('expires_at')} IS NULL`);
  else {
    parts.push(`${column('expires_at')} = :m_expires_at`);
    params.m_expires_at = match.expires_at;
  }
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined && repo.metadata.findColumnWithPropertyName(key)) changes[key] = value;
  }
  const result = await repo.createQueryBuilder().update().set(changes).where(parts.join(' AND '), params).execute();
  return result.affected;
}
