import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { AdapterTwoFactor } from '../adapter.interface.js';
import { bigintToNumber } from './column-transformers.js';

/**
 * A second factor of a user (beyond SPEC: two-factor authentication), table `two_factors`: a TOTP
 * authenticator app, or one backup code per row. Deleting the user deletes its factors
 * (`ON DELETE CASCADE`). Never part of Auth.js's tables (migration `AuthTwoFactor…`).
 */
@Entity('two_factors')
export class TwoFactorEntity implements AdapterTwoFactor {
  /** A random id the library makes (a UUID). */
  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'PK_two_factors' })
  id!: string;

  @Index('IDX_two_factors_userId')
  @ForeignKey('users', 'id', { onDelete: 'CASCADE', name: 'FK_two_factors_userId' })
  @Column({ type: 'varchar', length: 255 })
  userId!: string;

  /** `totp` or `backup-code`. */
  @Column({ type: 'varchar', length: 32 })
  type!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  name!: string | null;

  /** TOTP: the sealed shared secret; a backup code: its keyed hash. Never a secret in clear. */
  @Column({ type: 'text' })
  secret!: string;

  @Column({ type: Date, precision: 3, nullable: true })
  confirmedAt!: Date | null;

  @Column({ type: Date, precision: 3 })
  createdAt!: Date;

  @Column({ type: Date, precision: 3, nullable: true })
  lastUsedAt!: Date | null;

  /** TOTP: the last time step accepted (seconds since the epoch / period), hence `bigint`. */
  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber })
  lastUsedStep!: number | null;
}
