import type { MigrationInterface, QueryRunner } from 'typeorm';

// Two-factor authentication: the `two_factors` table (a user's TOTP authenticator apps and backup
// codes, deleted with the user) and `sessions.amr`, how the session's user signed in (RFC 8176
// method references). Listed after the session details migration of each dialect.

/** Creates `two_factors` and adds `sessions.amr` on PostgreSQL. */
export class AuthTwoFactorPostgres1780000000000 implements MigrationInterface {
  name = 'AuthTwoFactorPostgres1780000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "two_factors" ("id" character varying(255) NOT NULL, "userId" character varying(255) NOT NULL, "type" character varying(32) NOT NULL, "name" character varying(255), "secret" text NOT NULL, "confirmedAt" TIMESTAMP(3), "createdAt" TIMESTAMP(3) NOT NULL, "lastUsedAt" TIMESTAMP(3), "lastUsedStep" bigint, CONSTRAINT "PK_two_factors" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "IDX_two_factors_userId" ON "two_factors" ("userId")`);
    await q.query(
      `ALTER TABLE "two_factors" ADD CONSTRAINT "FK_two_factors_userId" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(`ALTER TABLE "sessions" ADD "amr" character varying(255)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "sessions" DROP COLUMN "amr"`);
    await q.query(`DROP TABLE "two_factors"`);
  }
}

/** Creates `two_factors` and adds `sessions.amr` on MySQL and MariaDB. */
export class AuthTwoFactorMysql1780000000000 implements MigrationInterface {
  name = 'AuthTwoFactorMysql1780000000000';

  async up(q: QueryRunner): Promise<void> {
    // Binary collation, as the schema migration's tables: ids compare byte for byte.
    await q.query(
      'CREATE TABLE `two_factors` (`id` varchar(255) NOT NULL, `userId` varchar(255) NOT NULL, `type` varchar(32) NOT NULL, `name` varchar(255) NULL, `secret` text NOT NULL, `confirmedAt` datetime(3) NULL, `createdAt` datetime(3) NOT NULL, `lastUsedAt` datetime(3) NULL, `lastUsedStep` bigint NULL, INDEX `IDX_two_factors_userId` (`userId`), PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    );
    await q.query(
      'ALTER TABLE `two_factors` ADD CONSTRAINT `FK_two_factors_userId` FOREIGN KEY (`userId`) REFERENCES `users`(`id`) ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await q.query('ALTER TABLE `sessions` ADD `amr` varchar(255) NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE `sessions` DROP COLUMN `amr`');
    await q.query('DROP TABLE `two_factors`');
  }
}

/** Creates `two_factors` and adds `sessions.amr` on SQLite. */
export class AuthTwoFactorSqlite1780000000000 implements MigrationInterface {
  name = 'AuthTwoFactorSqlite1780000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "two_factors" ("id" varchar(255) PRIMARY KEY NOT NULL, "userId" varchar(255) NOT NULL, "type" varchar(32) NOT NULL, "name" varchar(255), "secret" text NOT NULL, "confirmedAt" datetime(3), "createdAt" datetime(3) NOT NULL, "lastUsedAt" datetime(3), "lastUsedStep" bigint, CONSTRAINT "FK_two_factors_userId" FOREIGN KEY ("userId") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`,
    );
    await q.query(`CREATE INDEX "IDX_two_factors_userId" ON "two_factors" ("userId")`);
    await q.query(`ALTER TABLE "sessions" ADD COLUMN "amr" varchar(255)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "sessions" DROP COLUMN "amr"`);
    await q.query(`DROP INDEX "IDX_two_factors_userId"`);
    await q.query(`DROP TABLE "two_factors"`);
  }
}
