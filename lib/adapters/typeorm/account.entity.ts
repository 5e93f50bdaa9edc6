import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { AuthorizationDetails } from 'oauth4webapi';
import type { AdapterAccountType } from '../../providers/provider.types.js';
import { bigintToNumber } from './column-transformers.js';

/**
 * An account linking a user to a provider (SPEC 2.9), table `accounts`. The primary key is
 * `(provider, providerAccountId)`: one provider account belongs to one user. Deleting the user
 * deletes its accounts (`ON DELETE CASCADE`). Tokens are `text`: an OIDC id_token easily runs to
 * several kilobytes. (It has the fields of `AdapterAccount` but not TokenSet's index signature:
 * token parameters without a column are not stored.)
 */
@Entity('accounts')
export class AccountEntity {
  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'PK_accounts' })
  provider!: string;

  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'PK_accounts' })
  providerAccountId!: string;

  @Index('IDX_accounts_userId')
  @ForeignKey('users', 'id', { onDelete: 'CASCADE', name: 'FK_accounts_userId' })
  @Column({ type: 'varchar', length: 255 })
  userId!: string;

  @Column({ type: 'varchar', length: 255 })
  type!: AdapterAccountType;

  @Column({ type: 'text', nullable: true })
  access_token?: string;

  @Column({ type: 'text', nullable: true })
  refresh_token?: string;

  @Column({ type: 'text', nullable: true })
  id_token?: string;

  /** Absolute expiry of the access token, in seconds since the epoch. */
  @Column({ type: 'bigint', nullable: true, transformer: bigintToNumber })
  expires_at?: number;

  @Column({ type: 'varchar', length: 255, nullable: true })
  token_type?: Lowercase<string>;

  @Column({ type: 'text', nullable: true })
  scope?: string;

  @Column({ type: 'text', nullable: true })
  session_state?: string;
}

/**
 * The account entity with `authorization_details` (RFC 9396), beyond the columns of Auth.js's
 * schemas and therefore opt-in: pass it as `Account` to `TypeOrmAdapter` and add the nullable `text`
 * column `authorization_details` to `accounts` in a migration of your own.
 */
@Entity('accounts')
export class AccountWithAuthorizationDetailsEntity extends AccountEntity {
  @Column({ type: 'simple-json', nullable: true })
  authorization_details?: AuthorizationDetails[];
}
