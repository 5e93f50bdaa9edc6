import type { MigrationInterface, QueryRunner } from 'typeorm';

// Passkey management (issue 21): the name a user gives a passkey and when it last signed in, two
// nullable columns on `authenticators`. Listed after the schema migration of each dialect.

/** Adds `authenticators.name` and `authenticators.lastUsedAt` on PostgreSQL. */
export class AuthPasskeyNamesPostgres1764720000000 implements MigrationInterface {
  name = 'AuthPasskeyNamesPostgres1764720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "authenticators" ADD "name" character varying(255)`);
    await q.query(`ALTER TABLE "authenticators" ADD "lastUsedAt" TIMESTAMP(3)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "authenticators" DROP COLUMN "lastUsedAt"`);
    await q.query(`ALTER TABLE "authenticators" DROP COLUMN "name"`);
  }
}

/** Adds `authenticators.name` and `authenticators.lastUsedAt` on MySQL and MariaDB. */
export class AuthPasskeyNamesMysql1764720000000 implements MigrationInterface {
  name = 'AuthPasskeyNamesMysql1764720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE `authenticators` ADD `name` varchar(255) NULL, ADD `lastUsedAt` datetime(3) NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE `authenticators` DROP COLUMN `lastUsedAt`, DROP COLUMN `name`');
  }
}

/** Adds `authenticators.name` and `authenticators.lastUsedAt` on SQLite. */
export class AuthPasskeyNamesSqlite1764720000000 implements MigrationInterface {
  name = 'AuthPasskeyNamesSqlite1764720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "authenticators" ADD COLUMN "name" varchar(255)`);
    await q.query(`ALTER TABLE "authenticators" ADD COLUMN "lastUsedAt" datetime(3)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "authenticators" DROP COLUMN "lastUsedAt"`);
    await q.query(`ALTER TABLE "authenticators" DROP COLUMN "name"`);
  }
}
