import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropAuthTables } from './drop-auth-tables.js';
import { AuthPasskeyNamesMysql1764720000000 } from './passkey-names.migrations.js';
import { AuthSessionDetailsMysql1764806400000 } from './session-details.migrations.js';
import { AuthTwoFactorMysql1780000000000 } from './two-factor.migrations.js';
import { AuthRefreshFamiliesMysql1790000000000 } from './refresh-families.migrations.js';
import { AuthApiKeysMysql1800000000000 } from './api-keys.migrations.js';
import { AuthSigningKeysMysql1800000000001 } from './signing-keys.migrations.js';

// Binary collation: tokens and provider ids compare byte for byte (a case-insensitive collation
// would let `ABC` match `abc`), as on PostgreSQL and SQLite.
const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/** Creates the nestjs-auth tables on MySQL 8 / MariaDB 10.5+ (the schema of the exported entities). */
export class AuthSchemaMysql1764547200000 implements MigrationInterface {
  name = 'AuthSchemaMysql1764547200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE \`users\` (\`id\` varchar(255) NOT NULL, \`name\` varchar(255) NULL, \`email\` varchar(255) NULL, \`emailVerified\` datetime(3) NULL, \`image\` text NULL, UNIQUE INDEX \`UQ_users_email\` (\`email\`), PRIMARY KEY (\`id\`)) ${TABLE_OPTIONS}`,
    );
    await q.query(
      `CREATE TABLE \`accounts\` (\`provider\` varchar(255) NOT NULL, \`providerAccountId\` varchar(255) NOT NULL, \`userId\` varchar(255) NOT NULL, \`type\` varchar(255) NOT NULL, \`access_token\` text NULL, \`refresh_token\` text NULL, \`id_token\` text NULL, \`expires_at\` bigint NULL, \`token_type\` varchar(255) NULL, \`scope\` text NULL, \`session_state\` text NULL, INDEX \`IDX_accounts_userId\` (\`userId\`), PRIMARY KEY (\`provider\`, \`providerAccountId\`)) ${TABLE_OPTIONS}`,
    );
    await q.query(
      `CREATE TABLE \`sessions\` (\`sessionToken\` varchar(255) NOT NULL, \`userId\` varchar(255) NOT NULL, \`expires\` datetime(3) NOT NULL, INDEX \`IDX_sessions_userId\` (\`userId\`), PRIMARY KEY (\`sessionToken\`)) ${TABLE_OPTIONS}`,
    );
    await q.query(
      `CREATE TABLE \`verification_tokens\` (\`identifier\` varchar(255) NOT NULL, \`token\` varchar(255) NOT NULL, \`expires\` datetime(3) NOT NULL, PRIMARY KEY (\`identifier\`, \`token\`)) ${TABLE_OPTIONS}`,
    );
    await q.query(
      `CREATE TABLE \`authenticators\` (\`credentialID\` varchar(512) NOT NULL, \`userId\` varchar(255) NOT NULL, \`providerAccountId\` varchar(512) NOT NULL, \`credentialPublicKey\` text NOT NULL, \`counter\` bigint NOT NULL, \`credentialDeviceType\` varchar(32) NOT NULL, \`credentialBackedUp\` tinyint NOT NULL, \`transports\` varchar(255) NULL, INDEX \`IDX_authenticators_userId\` (\`userId\`), PRIMARY KEY (\`credentialID\`)) ${TABLE_OPTIONS}`,
    );
    await q.query(
      `ALTER TABLE \`accounts\` ADD CONSTRAINT \`FK_accounts_userId\` FOREIGN KEY (\`userId\`) REFERENCES \`users\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE \`sessions\` ADD CONSTRAINT \`FK_sessions_userId\` FOREIGN KEY (\`userId\`) REFERENCES \`users\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE \`authenticators\` ADD CONSTRAINT \`FK_authenticators_userId\` FOREIGN KEY (\`userId\`) REFERENCES \`users\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await dropAuthTables(q, '`');
  }
}

/** Every nestjs-auth migration for MySQL and MariaDB, oldest first: add it to your data source's `migrations`. */
export const authMigrationsMysql = [
  AuthSchemaMysql1764547200000,
  AuthPasskeyNamesMysql1764720000000,
  AuthSessionDetailsMysql1764806400000,
  AuthTwoFactorMysql1780000000000,
  AuthRefreshFamiliesMysql1790000000000,
  AuthApiKeysMysql1800000000000,
  AuthSigningKeysMysql1800000000001,
];
