import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { AdapterSigningKey } from '../adapter.interface.js';
import { bigintToNumber } from './column-transformers.js';

/**
 * A key that signs access tokens (beyond SPEC), table `signing_keys`: its public JWK and its private
 * key as the library sealed it. One key per rotation slot (`UQ_signing_keys_slot`), so instances
 * rotating at once make one key. Belongs to no user. Never part of Auth.js's tables (migration
 * `AuthSigningKeys…`).
 */
@Entity('signing_keys')
export class SigningKeyEntity implements AdapterSigningKey {
  /** The key id (`kid`): the RFC 7638 thumbprint of its public key. */
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'PK_signing_keys' })
  id!: string;

  /** `EdDSA` (Ed25519) or `RS256` (RSA, `accessToken.algorithm`); `ES256` only for given keys, never stored. */
  @Column({ type: 'varchar', length: 16 })
  alg!: string;

  /** The public key, a JWK as JSON text. */
  @Column({ type: 'text' })
  publicJwk!: string;

  /** The private key, sealed by the library under the secret. Never a key in clear. */
  @Column({ type: 'text' })
  privateKey!: string;

  /** The rotation slot it was made for; unique. */
  @Index('UQ_signing_keys_slot', { unique: true })
  @Column({ type: 'bigint', transformer: bigintToNumber })
  slot!: number;

  @Column({ type: Date, precision: 3 })
  createdAt!: Date;

  @Column({ type: Date, precision: 3 })
  activatesAt!: Date;

  /** When it stops being published; `NULL`: not scheduled. */
  @Column({ type: Date, precision: 3, nullable: true })
  removesAt!: Date | null;
}
