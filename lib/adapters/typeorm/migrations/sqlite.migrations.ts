import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropAuthTables } from './drop-auth-tables.js';
import { AuthPasskeyNamesSqlite1764720000000 } from './passkey-names.migrations.js';
import { AuthSessionDetailsSqlite1764806400000 } from './session-details.migrations.js';
import { AuthTwoFactorSqlite1780000000000 } from './two-factor.migrations.js';
import { AuthRefreshFamiliesSqlite1790000000000 } from './refresh-families.migrations.js';
import { AuthApiKeysSqlite1800000000000 } from './api-keys.migrations.js';
import { AuthSigningKeysSqlite1800000000001 } from './signing-keys.migrations.js';

/** Creates the nestjs-auth tables on SQLite (the schema of the exported entities). */
export class AuthSchemaSqlite1764547200000 implements MigrationInterface {
  name = 'AuthSchemaSqlite1764547200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "users" ("id" varchar(255) PRIMARY KEY NOT NULL, "name" varchar(255), "email" varchar(255), "emailVerified" datetime(3), "image" text)`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_users_email" ON "users" ("email")`);
    await q.query(
      `CREATE TABLE "accounts" ("provider" varchar(255) NOT NULL, "providerAccountId" varchar(255) NOT NULL, "userId" varchar(255) NOT NULL, "type" varchar(255) NOT NULL, "access_token" text, "refresh_token" text, "id_token" text, "expires_at" bigint, "token_type" varchar(255), "scope" text, "session_state" text, CONSTRAINT "FK_accounts_userId" FOREIGN KEY ("userId") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION, PRIMARY KEY ("provider", "providerAccountId"))`,
    );
    await q.query(`CREATE INDEX "IDX_accounts_userId" ON "accounts" ("userId")`);
    await q.query(
      `CREATE TABLE "sessions" ("sessionToken" varchar(255) PRIMARY KEY NOT NULL, "userId" varchar(255) NOT NULL, "expires" datetime(3) NOT NULL, CONSTRAINT "FK_sessions_userId" FOREIGN KEY ("userId") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`,
    );
    await q.query(`CREATE INDEX "IDX_sessions_userId" ON "sessions" ("userId")`);
    await q.query(
      `CREATE TABLE "verification_tokens" ("identifier" varchar(255) NOT NULL, "token" varchar(255) NOT NULL, "expires" datetime(3) NOT NULL, PRIMARY KEY ("identifier", "token"))`,
    );
    await q.query(
      `CREATE TABLE "authenticators" ("credentialID" varchar(512) PRIMARY KEY NOT NULL, "userId" varchar(255) NOT NULL, "providerAccountId" varchar(512) NOT NULL, "credentialPublicKey" text NOT NULL, "counter" bigint NOT NULL, "credentialDeviceType" varchar(32) NOT NULL, "credentialBackedUp" boolean NOT NULL, "transports" varchar(255), CONSTRAINT "FK_authenticators_userId" FOREIGN KEY ("userId") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`,
    );
    await q.query(`CREATE INDEX "IDX_authenticators_userId" ON "authenticators" ("userId")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropAuthTables(q, '"');
  }
}

/** Every nestjs-auth migration for SQLite, oldest first: add it to your data source's `migrations`. */
export const authMigrationsSqlite = [
  AuthSchemaSqlite1764547200000,
  AuthPasskeyNamesSqlite1764720000000,
  AuthSessionDetailsSqlite1764806400000,
  AuthTwoFactorSqlite1780000000000,
  AuthRefreshFamiliesSqlite1790000000000,
  AuthApiKeysSqlite1800000000000,
  AuthSigningKeysSqlite1800000000001,
];
