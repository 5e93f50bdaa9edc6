import type { EntitySchema } from 'typeorm';
import { AccountEntity } from './account.entity.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { AuthenticatorEntity } from './authenticator.entity.js';
import { RefreshFamilyEntity } from './refresh-family.entity.js';
import { SessionEntity } from './session.entity.js';
import { SigningKeyEntity } from './signing-key.entity.js';
import { TwoFactorEntity } from './two-factor.entity.js';
import { UserEntity } from './user.entity.js';
import { VerificationTokenEntity } from './verification-token.entity.js';

/** A class TypeORM knows as an entity, building instances of `T`, or an entity schema of `T`. */
export type EntityClass<T> = (new () => T) | EntitySchema<T>;

/**
 * The entity classes `TypeOrmAdapter` works with: the exported ones, or subclasses of them that
 * add columns (keep the table names: the foreign keys reference `users` by name).
 */
export interface TypeOrmAdapterEntities {
  User: EntityClass<UserEntity>;
  Account: EntityClass<AccountEntity>;
  Session: EntityClass<SessionEntity>;
  VerificationToken: EntityClass<VerificationTokenEntity>;
  Authenticator: EntityClass<AuthenticatorEntity>;
  /**
   * Two-factor authentication's factors (beyond SPEC). Optional, so entity objects written before it
   * still compile; set it to `undefined` to run without the table (the adapter then has no
   * `TwoFactorAdapter` methods: two-factor authentication is unavailable).
   */
  TwoFactor?: EntityClass<TwoFactorEntity>;
  /**
   * Native-app sign-ins' refresh-token families (beyond SPEC). Optional, as `TwoFactor`; set it to
   * `undefined` to run without the table (the adapter then has no `RefreshTokenAdapter` methods).
   */
  RefreshFamily?: EntityClass<RefreshFamilyEntity>;
  /**
   * API keys (beyond SPEC). Optional, as `TwoFactor`; set it to `undefined` to run without the table
   * (the adapter then has no `ApiKeyAdapter` methods).
   */
  ApiKey?: EntityClass<ApiKeyEntity>;
  /**
   * The keys that sign access tokens, rotated (beyond SPEC). Optional, as `TwoFactor`; set it to
   * `undefined` to run without the table (the adapter then has no `SigningKeyAdapter` methods).
   */
  SigningKey?: EntityClass<SigningKeyEntity>;
}

/** The default entities, by role. */
export const defaultAuthEntities: Readonly<TypeOrmAdapterEntities> = Object.freeze({
  User: UserEntity,
  Account: AccountEntity,
  Session: SessionEntity,
  VerificationToken: VerificationTokenEntity,
  Authenticator: AuthenticatorEntity,
  TwoFactor: TwoFactorEntity,
  RefreshFamily: RefreshFamilyEntity,
  ApiKey: ApiKeyEntity,
  SigningKey: SigningKeyEntity,
});

/**
 * The default entities as a list, for a data source's `entities` when `autoLoadEntities` is off:
 * `TypeOrmModule.forRoot({ ..., entities: [...authEntities, ...yours] })`.
 */
export const authEntities: readonly (new () => object)[] = Object.freeze([
  UserEntity,
  AccountEntity,
  SessionEntity,
  VerificationTokenEntity,
  AuthenticatorEntity,
  TwoFactorEntity,
  RefreshFamilyEntity,
  ApiKeyEntity,
  SigningKeyEntity,
]);
