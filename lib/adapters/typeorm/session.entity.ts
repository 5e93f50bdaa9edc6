import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { AdapterSession, AdapterSessionDetails } from '../adapter.interface.js';

/**
 * A session of the `database` strategy (SPEC 2.10), table `sessions`, keyed by its token.
 * Deleting the user deletes its sessions (`ON DELETE CASCADE`). The nullable columns after
 * `expires` are beyond SPEC (the device list of issue 21; `providerSid` for back-channel logout;
 * `amr` for two-factor authentication's assurance level):
 * `getSessionAndUser` never returns them, `listSessionsByUserId` does.
 */
@Entity('sessions')
export class SessionEntity implements AdapterSession, AdapterSessionDetails {
  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'PK_sessions' })
  sessionToken!: string;

  @Index('IDX_sessions_userId')
  @ForeignKey('users', 'id', { onDelete: 'CASCADE', name: 'FK_sessions_userId' })
  @Column({ type: 'varchar', length: 255 })
  userId!: string;

  @Column({ type: Date, precision: 3 })
  expires!: Date;

  @Column({ type: Date, precision: 3, nullable: true })
  createdAt!: Date | null;

  @Column({ type: Date, precision: 3, nullable: true })
  lastSeenAt!: Date | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  userAgent!: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip!: string | null;

  @Index('IDX_sessions_providerSid')
  @Column({ type: 'varchar', length: 255, nullable: true })
  providerSid!: string | null;

  /** How the user signed in: RFC 8176 method references, space-separated (migration `AuthTwoFactor…`). */
  @Column({ type: 'varchar', length: 255, nullable: true })
  amr!: string | null;
}
