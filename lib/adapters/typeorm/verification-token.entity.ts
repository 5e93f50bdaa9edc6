import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { VerificationToken } from '../adapter.interface.js';

/**
 * A single-use email sign-in token (SPEC 2.11), table `verification_tokens`, keyed by
 * `(identifier, token)`. The token is stored hashed with the secret.
 */
@Entity('verification_tokens')
export class VerificationTokenEntity implements VerificationToken {
  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'PK_verification_tokens' })
  identifier!: string;

  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'PK_verification_tokens' })
  token!: string;

  @Column({ type: Date, precision: 3 })
  expires!: Date;
}
