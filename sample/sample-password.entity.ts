import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The sample's own password table: the library stores users, not passwords, so an app that signs
 * users in with credentials keeps the hashes itself (here, next to the library's tables).
 */
@Entity('sample_passwords')
export class SamplePassword {
  /** The login, lower-cased. */
  @PrimaryColumn('varchar', { length: 320 })
  email!: string;

  /** The library user this password signs in (`users.id`). */
  @Column('varchar', { length: 255 })
  userId!: string;

  /** From `hashPassword` (algorithm and parameters included). */
  @Column('text')
  passwordHash!: string;
}
