import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { AdapterUser } from '../adapter.interface.js';

/**
 * A user (SPEC 2.8), table `users`. Extend it to add columns, keeping the table name:
 *
 * @example
 * @Entity('users')
 * export class AppUser extends UserEntity {
 *   @Column({ type: 'varchar', length: 32, default: 'member' }) role!: string;
 * }
 */
@Entity('users')
export class UserEntity implements AdapterUser {
  /** Given by the library (a random UUID) when the user is created. */
  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'PK_users' })
  id!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  name!: string | null;

  /** Unique; null for users whose provider gave no address. */
  @Index('UQ_users_email', { unique: true })
  @Column({ type: 'varchar', length: 255, nullable: true })
  email!: string;

  /** When the address was first verified by an email sign-in (millisecond precision). */
  @Column({ type: Date, precision: 3, nullable: true })
  emailVerified!: Date | null;

  @Column({ type: 'text', nullable: true })
  image!: string | null;
}
