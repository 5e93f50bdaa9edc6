import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { AdapterApiKey } from '../adapter.interface.js';
import { spaceSeparated } from './column-transformers.js';

/**
 * An API key of a user (beyond SPEC), table `api_keys`: its public id and the hash of the whole key,
 * never the key. Deleting the user deletes its keys (`ON DELETE CASCADE`). Never part of Auth.js's
 * tables (migration `AuthApiKeys…`).
 */
@Entity('api_keys')
export class ApiKeyEntity implements AdapterApiKey {
  /** The key's public id (12 base62 characters, part of the key itself). */
  @PrimaryColumn({ type: 'varchar', length: 32, primaryKeyConstraintName: 'PK_api_keys' })
  id!: string;

  @Index('IDX_api_keys_userId')
  @ForeignKey('users', 'id', { onDelete: 'CASCADE', name: 'FK_api_keys_userId' })
  @Column({ type: 'varchar', length: 255 })
  userId!: string;

  /** What the user called it. */
  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** SHA-256 (base64url) of the whole key. */
  @Column({ type: 'varchar', length: 64 })
  keyHash!: string;

  /** The key's last four characters, to tell keys apart in a list. */
  @Column({ type: 'varchar', length: 8 })
  hint!: string;

  /** What the key may do: words, space-separated as `sessions.amr` (`NULL` when none). */
  @Column({ type: 'varchar', length: 1000, nullable: true, transformer: spaceSeparated })
  scopes!: string[];

  @Column({ type: Date, precision: 3 })
  createdAt!: Date;

  /** When it stops working; `NULL`: never. */
  @Column({ type: Date, precision: 3, nullable: true })
  expires!: Date | null;

  @Column({ type: Date, precision: 3, nullable: true })
  lastUsedAt!: Date | null;
}
