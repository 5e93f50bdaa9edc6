import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { AdapterSession } from '../adapter.interface.js';

/**
 * A session of the `database` strategy (SPEC 2.10), table `sessions`, keyed by its token.
 * Deleting the user deletes its sessions (`ON DELETE CASCADE`).
 */
@Entity('sessions')
export class SessionEntity implements AdapterSession {
  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'PK_sessions' })
  sessionToken!: string;

  @Index('IDX_sessions_userId')
  @ForeignKey('users', 'id', { onDelete: 'CASCADE', name: 'FK_sessions_userId' })
  @Column({ type: 'varchar', length: 255 })
  userId!: string;

  @Column({ type: Date, precision: 3 })
  expires!: Date;
}
