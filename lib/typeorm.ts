// The TypeORM entry of nestjs-auth (`nestjs-auth/typeorm`): the adapter, its entities and migrations.
// A separate entry because TypeORM and @nestjs/typeorm are optional peers: importing `nestjs-auth`
// loads neither (AuthModule loads the default adapter itself, only when it is given no `adapter`).

/**
 * TypeORM storage: `TypeOrmAdapter`, its entities, the migrations for PostgreSQL, MySQL and SQLite,
 * and the schema presets (`authSchemaEntities`). A separate entry, so an app without TypeORM never
 * loads it.
 *
 * @module nestjs-auth/typeorm
 */

export { TypeOrmAdapter, type TypeOrmAdapterOptions } from './adapters/typeorm/typeorm.adapter.js';
export { authEntities, defaultAuthEntities } from './adapters/typeorm/auth-entities.js';
export type { TypeOrmAdapterEntities, EntityClass } from './adapters/typeorm/auth-entities.js';
export { UserEntity } from './adapters/typeorm/user.entity.js';
export { AccountEntity, AccountWithAuthorizationDetailsEntity } from './adapters/typeorm/account.entity.js';
export { SessionEntity } from './adapters/typeorm/session.entity.js';
export { VerificationTokenEntity } from './adapters/typeorm/verification-token.entity.js';
export { AuthenticatorEntity } from './adapters/typeorm/authenticator.entity.js';
export { TwoFactorEntity } from './adapters/typeorm/two-factor.entity.js';
export { RefreshFamilyEntity } from './adapters/typeorm/refresh-family.entity.js';
export { ApiKeyEntity } from './adapters/typeorm/api-key.entity.js';
export { SigningKeyEntity } from './adapters/typeorm/signing-key.entity.js';
export {
  AuthSchemaPostgres1764547200000,
  authMigrationsPostgres,
} from './adapters/typeorm/migrations/postgres.migrations.js';
export { AuthSchemaMysql1764547200000, authMigrationsMysql } from './adapters/typeorm/migrations/mysql.migrations.js';
export {
  AuthSchemaSqlite1764547200000,
  authMigrationsSqlite,
} from './adapters/typeorm/migrations/sqlite.migrations.js';
export {
  AuthPasskeyNamesPostgres1764720000000,
  AuthPasskeyNamesMysql1764720000000,
  AuthPasskeyNamesSqlite1764720000000,
} from './adapters/typeorm/migrations/passkey-names.migrations.js';
export {
  AuthSessionDetailsPostgres1764806400000,
  AuthSessionDetailsMysql1764806400000,
  AuthSessionDetailsSqlite1764806400000,
} from './adapters/typeorm/migrations/session-details.migrations.js';
export {
  AuthTwoFactorPostgres1780000000000,
  AuthTwoFactorMysql1780000000000,
  AuthTwoFactorSqlite1780000000000,
} from './adapters/typeorm/migrations/two-factor.migrations.js';
export {
  AuthRefreshFamiliesPostgres1790000000000,
  AuthRefreshFamiliesMysql1790000000000,
  AuthRefreshFamiliesSqlite1790000000000,
} from './adapters/typeorm/migrations/refresh-families.migrations.js';
export {
  AuthApiKeysPostgres1800000000000,
  AuthApiKeysMysql1800000000000,
  AuthApiKeysSqlite1800000000000,
} from './adapters/typeorm/migrations/api-keys.migrations.js';
export {
  AuthSigningKeysPostgres1800000000001,
  AuthSigningKeysMysql1800000000001,
  AuthSigningKeysSqlite1800000000001,
} from './adapters/typeorm/migrations/signing-keys.migrations.js';
export { authSchemaEntities } from './adapters/typeorm/schema-entities.js';
export type {
  AuthSchemaPreset,
  AuthSchemaMapping,
  AuthSchemaOption,
  AuthSchemaDialect,
  AuthTableMapping,
  AuthIdStrategy,
  AuthDateStorage,
  AuthIdColumnType,
} from './adapters/typeorm/schema-mapping.js';
