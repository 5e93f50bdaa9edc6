import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { AdapterAuthenticator } from '../adapter.interface.js';
import { bigintToNumber } from './column-transformers.js';

/**
 * A WebAuthn authenticator (SPEC 2.12), table `authenticators`, keyed by its credential id
 * (base64url, up to 512 characters). Deleting the user deletes its authenticators
 * (`ON DELETE CASCADE`). `name` and `lastUsedAt` are beyond SPEC (passkey management, issue 21).
 */
@Entity('authenticators')
export class AuthenticatorEntity implements AdapterAuthenticator {
  @PrimaryColumn({ type: 'varchar', length: 512, primaryKeyConstraintName: 'PK_authenticators' })
  credentialID!: string;

  @Index('IDX_authenticators_userId')
  @ForeignKey('users', 'id', { onDelete: 'CASCADE', name: 'FK_authenticators_userId' })
  @Column({ type: 'varchar', length: 255 })
  userId!: string;

  @Column({ type: 'varchar', length: 512 })
  providerAccountId!: string;

  @Column({ type: 'text' })
  credentialPublicKey!: string;

  /** The signature counter: an unsigned 32-bit value, hence `bigint`. */
  @Column({ type: 'bigint', transformer: bigintToNumber })
  counter!: number;

  @Column({ type: 'varchar', length: 32 })
  credentialDeviceType!: string;

  @Column({ type: 'boolean' })
  credentialBackedUp!: boolean;

  @Column({ type: 'varchar', length: 255, nullable: true })
  transports!: string | null;

  /** The name the user gave the passkey (beyond SPEC; migration `AuthPasskeyNames…`). */
  @Column({ type: 'varchar', length: 255, nullable: true })
  name!: string | null;

  /** When the passkey last signed in, written with the counter (beyond SPEC; millisecond precision). */
  @Column({ type: Date, precision: 3, nullable: true })
  lastUsedAt!: Date | null;
}
