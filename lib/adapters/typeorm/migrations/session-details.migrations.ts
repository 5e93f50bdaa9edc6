import type { MigrationInterface, QueryRunner } from 'typeorm';

// Sessions as devices (issue 21): when a session began and was last used, a label of its browser,
// a coarse address, and the OpenID Provider's session id (`providerSid`, back-channel logout by
// `sid`). Five nullable columns on `sessions`, and an index on `providerSid`. Listed after the
// schema migration of each dialect.

/** Adds the session details to `sessions` on PostgreSQL. */
export class AuthSessionDetailsPostgres1764806400000 implements MigrationInterface {
  name = 'AuthSessionDetailsPostgres1764806400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "sessions" ADD "createdAt" TIMESTAMP(3)`);
    await q.query(`ALTER TABLE "sessions" ADD "lastSeenAt" TIMESTAMP(3)`);
    await q.query(`ALTER TABLE "sessions" ADD "userAgent" character varying(255)`);
    await q.query(`ALTER TABLE "sessions" ADD "ip" character varying(64)`);
    await q.query(`ALTER TABLE "sessions" ADD "providerSid" character varying(255)`);
    await q.query(`CREATE INDEX "IDX_sessions_providerSid" ON "sessions" ("providerSid")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_sessions_providerSid"`);
    for (const column of ['providerSid', 'ip', 'userAgent', 'lastSeenAt', 'createdAt'])
      await q.query(`ALTER TABLE "sessions" DROP COLUMN "${column}"`);
  }
}

/** Adds the session details to `sessions` on MySQL and MariaDB. */
export class AuthSessionDetailsMysql1764806400000 implements MigrationInterface {
  name = 'AuthSessionDetailsMysql1764806400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE `sessions` ADD `createdAt` datetime(3) NULL, ADD `lastSeenAt` datetime(3) NULL, ADD `userAgent` varchar(255) NULL, ADD `ip` varchar(64) NULL, ADD `providerSid` varchar(255) NULL',
    );
    await q.query('CREATE INDEX `IDX_sessions_providerSid` ON `sessions` (`providerSid`)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX `IDX_sessions_providerSid` ON `sessions`');
    await q.query(
      'ALTER TABLE `sessions` DROP COLUMN `providerSid`, DROP COLUMN `ip`, DROP COLUMN `userAgent`, DROP COLUMN `lastSeenAt`, DROP COLUMN `createdAt`',
    );
  }
}

/** Adds the session details to `sessions` on SQLite. */
export class AuthSessionDetailsSqlite1764806400000 implements MigrationInterface {
  name = 'AuthSessionDetailsSqlite1764806400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "sessions" ADD COLUMN "createdAt" datetime(3)`);
    await q.query(`ALTER TABLE "sessions" ADD COLUMN "lastSeenAt" datetime(3)`);
    await q.query(`ALTER TABLE "sessions" ADD COLUMN "userAgent" varchar(255)`);
    await q.query(`ALTER TABLE "sessions" ADD COLUMN "ip" varchar(64)`);
    await q.query(`ALTER TABLE "sessions" ADD COLUMN "providerSid" varchar(255)`);
    await q.query(`CREATE INDEX "IDX_sessions_providerSid" ON "sessions" ("providerSid")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_sessions_providerSid"`);
    for (const column of ['providerSid', 'ip', 'userAgent', 'lastSeenAt', 'createdAt'])
      await q.query(`ALTER TABLE "sessions" DROP COLUMN "${column}"`);
  }
}
