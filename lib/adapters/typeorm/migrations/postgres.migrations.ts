import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropAuthTables } from './drop-auth-tables.js';
import { AuthPasskeyNamesPostgres1764720000000 } from './passkey-names.migrations.js';
import { AuthSessionDetailsPostgres1764806400000 } from './session-details.migrations.js';
import { AuthTwoFactorPostgres1780000000000 } from './two-factor.migrations.js';
import { AuthRefreshFamiliesPostgres1790000000000 } from './refresh-families.migrations.js';
import { AuthApiKeysPostgres1800000000000 } from './api-keys.migrations.js';
import { AuthSigningKeysPostgres1800000000001 } from './signing-keys.migrations.js';

/** Creates the nestjs-auth tables on PostgreSQL (the schema of the exported entities). */
export class AuthSchemaPostgres1764547200000 implements MigrationInterface {
  name = 'AuthSchemaPostgres1764547200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "users" ("id" character varying(255) NOT NULL, "name" character varying(255), "email" character varying(255), "emailVerified" TIMESTAMP(3), "image" text, CONSTRAINT "PK_users" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_users_email" ON "users" ("email")`);
    await q.query(
      `CREATE TABLE "accounts" ("provider" character varying(255) NOT NULL, "providerAccountId" character varying(255) NOT NULL, "userId" character varying(255) NOT NULL, "type" character varying(255) NOT NULL, "access_token" text, "refresh_token" text, "id_token" text, "expires_at" bigint, "token_type" character varying(255), "scope" text, "session_state" text, CONSTRAINT "PK_accounts" PRIMARY KEY ("provider", "providerAccountId"))`,
    );
    await q.query(`CREATE INDEX "IDX_accounts_userId" ON "accounts" ("userId")`);
    await q.query(
      `CREATE TABLE "sessions" ("sessionToken" character varying(255) NOT NULL, "userId" character varying(255) NOT NULL, "expires" TIMESTAMP(3) NOT NULL, CONSTRAINT "PK_sessions" PRIMARY KEY ("sessionToken"))`,
    );
    await q.query(`CREATE INDEX "IDX_sessions_userId" ON "sessions" ("userId")`);
    await q.query(
      `CREATE TABLE "verification_tokens" ("identifier" character varying(255) NOT NULL, "token" character varying(255) NOT NULL, "expires" TIMESTAMP(3) NOT NULL, CONSTRAINT "PK_verification_tokens" PRIMARY KEY ("identifier", "token"))`,
    );
    await q.query(
      `CREATE TABLE "authenticators" ("credentialID" character varying(512) NOT NULL, "userId" character varying(255) NOT NULL, "providerAccountId" character varying(512) NOT NULL, "credentialPublicKey" text NOT NULL, "counter" bigint NOT NULL, "credentialDeviceType" character varying(32) NOT NULL, "credentialBackedUp" boolean NOT NULL, "transports" character varying(255), CONSTRAINT "PK_authenticators" PRIMARY KEY ("credentialID"))`,
    );
    await q.query(`CREATE INDEX "IDX_authenticators_userId" ON "authenticators" ("userId")`);
    await q.query(
      `ALTER TABLE "accounts" ADD CONSTRAINT "FK_accounts_userId" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "sessions" ADD CONSTRAINT "FK_sessions_userId" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "authenticators" ADD CONSTRAINT "FK_authenticators_userId" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await dropAuthTables(q, '"');
  }
}

/** Every nestjs-auth migration for PostgreSQL, oldest first: add it to your data source's `migrations`. */
export const authMigrationsPostgres = [
  AuthSchemaPostgres1764547200000,
  AuthPasskeyNamesPostgres1764720000000,
  AuthSessionDetailsPostgres1764806400000,
  AuthTwoFactorPostgres1780000000000,
  AuthRefreshFamiliesPostgres1790000000000,
  AuthApiKeysPostgres1800000000000,
  AuthSigningKeysPostgres1800000000001,
];
