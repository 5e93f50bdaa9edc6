import type { AdapterApiKey } from '../adapter.interface.js';
import { storedApiKey } from '../memory-store.helpers.js';
import type { EntityClass } from './auth-entities.js';
import type { ApiKeyEntity } from './api-key.entity.js';
import type { TypeOrmQueries } from './typeorm-queries.js';

// The stored form of a key, as MemoryAdapter keeps it and checks it on every read: the contract's
// fields only, `null` for a row whose fields are not of their types.
export { apiKeyPatch, newApiKey, storedApiKey } from '../memory-store.helpers.js';

// The API key statements of `TypeOrmAdapter` (beyond SPEC: `ApiKeyAdapter`), on the `api_keys` table
// of `ApiKeyEntity`. Every statement that changes a key names its user as well as its id.

/** The user's keys, oldest first (ties by id), each checked as it is read: a row that is no valid key is left out. */
export async function listApiKeys(
  queries: TypeOrmQueries,
  entity: EntityClass<ApiKeyEntity>,
  userId: string,
): Promise<AdapterApiKey[]> {
  const rows = await queries
    .select(entity, 'k', { userId })
    .orderBy('k.createdAt', 'ASC')
    .addOrderBy('k.id', 'ASC')
    .getMany();
  return rows.map(storedApiKey).filter((key): key is AdapterApiKey => key !== null);
}
