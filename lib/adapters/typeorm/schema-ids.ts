import { randomBytes, randomUUID } from 'node:crypto';
import type { AuthIdStrategy, AuthSchemaMapping } from './schema-mapping.js';
import { ROW_ID } from './schema-entities.js';

// Ids under a schema mapping: who makes them, and which strings can be ids at all.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^[1-9]\d{0,9}$/;

/** A cuid-like id: `c` and 24 random base-36 characters (about 124 bits). */
export function cuidLike(): string {
  const bytes = randomBytes(24);
  let out = 'c';
  for (const byte of bytes) out += (byte % 36).toString(36);
  return out;
}

function make(strategy: Exclude<AuthIdStrategy, 'database'>, given?: string): string {
  if (strategy === 'uuid') return randomUUID();
  if (strategy === 'cuid') return cuidLike();
  return given || randomUUID();
}

/** The id rules of a mapping (or of the default entities, with no mapping). */
export class SchemaIds {
  constructor(private readonly mapping?: AuthSchemaMapping) {}

  /** The id to insert for a new user, or `undefined` when the database makes it. */
  newUserId(given: string | undefined): string | undefined {
    const strategy = this.mapping?.userId ?? 'given';
    if (strategy === 'database') return undefined;
    // A given id the column cannot hold (not a UUID for a `uuid` column: a credentials user's own
    // id, say) is replaced, as Auth.js's adapters replace or ignore it.
    if (strategy === 'given' && given && !this.validUserId(given)) return randomUUID();
    return make(strategy, given);
  }

  /** The surrogate key to insert with a record, when the mapping has one the adapter makes. */
  rowId(record: 'account' | 'session' | 'verificationToken'): Record<string, string> {
    const rowId = this.mapping?.[record].rowId;
    return rowId && rowId.strategy !== 'database' ? { [ROW_ID]: make(rowId.strategy) } : {};
  }

  /**
   * Whether a string can be a user id in this schema: an `integer` or `uuid` column would refuse
   * anything else with an SQL error, so such values match nothing instead.
   */
  validUserId(id: unknown): id is string {
    if (typeof id !== 'string' || id === '') return false;
    if (this.mapping?.idType === 'integer') return INTEGER.test(id) && Number(id) <= 2_147_483_647;
    if (this.mapping?.idType === 'uuid') return UUID.test(id);
    return true;
  }
}
