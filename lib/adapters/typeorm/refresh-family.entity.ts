import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { AdapterRefreshFamily } from '../adapter.interface.js';
import { spaceSeparated } from './column-transformers.js';

/**
 * One native-app sign-in (beyond SPEC: refresh-token rotation), table `refresh_token_families`: the
 * current refresh token's generation and hash (never the token). Deleting the user deletes its
 * families (`ON DELETE CASCADE`). Never part of Auth.js's tables (migration `AuthRefreshFamilies…`).
 */
@Entity('refresh_token_families')
export class RefreshFamilyEntity implements AdapterRefreshFamily {
  /** A random id the library makes (43 base64url characters): the access tokens' `sid`. */
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'PK_refresh_token_families' })
  id!: string;

  @Index('IDX_refresh_token_families_userId')
  @ForeignKey('users', 'id', { onDelete: 'CASCADE', name: 'FK_refresh_token_families_userId' })
  @Column({ type: 'varchar', length: 255 })
  userId!: string;

  /** The registered native client it was issued to. */
  @Column({ type: 'varchar', length: 255 })
  clientId!: string;

  /** The current refresh token's generation: 0 at sign-in, one more per rotation. */
  @Column({ type: 'int' })
  generation!: number;

  /** SHA-256 (base64url) of the current refresh token. */
  @Column({ type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ type: Date, precision: 3 })
  rotatedAt!: Date;

  @Column({ type: Date, precision: 3 })
  expires!: Date;

  @Column({ type: Date, precision: 3 })
  authTime!: Date;

  /** What the sign-in proved: RFC 8176 method references, space-separated as `sessions.amr` (`NULL` when none). */
  @Column({ type: 'varchar', length: 255, nullable: true, transformer: spaceSeparated })
  amr!: string[];
}
