import type { AdapterSigningKey } from '../adapter.interface.js';
import { storedSigningKey } from '../memory-store.helpers.js';
import type { EntityClass } from './auth-entities.js';
import type { SigningKeyEntity } from './signing-key.entity.js';
import type { TypeOrmQueries } from './typeorm-queries.js';

// The stored form of a key, as MemoryAdapter keeps it and checks it on every read: the contract's
// fields only, `null` for a row whose fields are not of their types.
export { newSigningKey, signingKeyPatch, storedSigningKey } from '../memory-store.helpers.js';

// The signing-key statements of `TypeOrmAdapter` (beyond SPEC: `SigningKeyAdapter`), on the
// `signing_keys` table of `SigningKeyEntity`. A second key for a slot is refused by the unique index
// `UQ_signing_keys_slot` in the one INSERT: of instances rotating at once, one writes.

/** Every key, oldest slot first, each checked as it is read: a row that is no valid key is left out. */
export async function listSigningKeys(
  queries: TypeOrmQueries,
  entity: EntityClass<SigningKeyEntity>,
): Promise<AdapterSigningKey[]> {
  const rows = await queries.repo(entity).createQueryBuilder('k').orderBy('k.slot', 'ASC').getMany();
  return rows.map(storedSigningKey).filter((key): key is AdapterSigningKey => key !== null);
}
