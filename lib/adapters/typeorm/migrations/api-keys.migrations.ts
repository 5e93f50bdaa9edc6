import type { MigrationInterface, QueryRunner } from 'typeorm';

// API keys: the `api_keys` table (one row per key: its public id and the hash of the whole key,
// never the key; deleted with the user). Listed after the refresh-token family migration of each
// dialect.

/** Creates `api_keys` on PostgreSQL. */
export class AuthApiKeysPostgres1800000000000 implements MigrationInterface {
  name = 'AuthApiKeysPostgres1800000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "api_keys" ("id" character varying(32) NOT NULL, "userId" character varying(255) NOT NULL, "name" character varying(100) NOT NULL, "keyHash" character varying(64) NOT NULL, "hint" character varying(8) NOT NULL, "scopes" character varying(1000), "createdAt" TIMESTAMP(3) NOT NULL, "expires" TIMESTAMP(3), "lastUsedAt" TIMESTAMP(3), CONSTRAINT "PK_api_keys" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "IDX_api_keys_userId" ON "api_keys" ("userId")`);
    await q.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "FK_api_keys_userId" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "api_keys"`);
  }
}

/** Creates `api_keys` on MySQL and MariaDB. */
export class AuthApiKeysMysql1800000000000 implements MigrationInterface {
  name = 'AuthApiKeysMysql1800000000000';

  async up(q: QueryRunner): Promise<void> {
    // Binary collation, as the schema migration's tables: ids and hashes compare byte for byte.
    await q.query(
      'CREATE TABLE `api_keys` (`id` varchar(32) NOT NULL, `userId` varchar(255) NOT NULL, `name` varchar(100) NOT NULL, `keyHash` varchar(64) NOT NULL, `hint` varchar(8) NOT NULL, `scopes` varchar(1000) NULL, `createdAt` datetime(3) NOT NULL, `expires` datetime(3) NULL, `lastUsedAt` datetime(3) NULL, INDEX `IDX_api_keys_userId` (`userId`), PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    );
    await q.query(
      'ALTER TABLE `api_keys` ADD CONSTRAINT `FK_api_keys_userId` FOREIGN KEY (`userId`) REFERENCES `users`(`id`) ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE `api_keys`');
  }
}

/** Creates `api_keys` on SQLite. */
export class AuthApiKeysSqlite1800000000000 implements MigrationInterface {
  name = 'AuthApiKeysSqlite1800000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "api_keys" ("id" varchar(32) PRIMARY KEY NOT NULL, "userId" varchar(255) NOT NULL, "name" varchar(100) NOT NULL, "keyHash" varchar(64) NOT NULL, "hint" varchar(8) NOT NULL, "scopes" varchar(1000), "createdAt" datetime(3) NOT NULL, "expires" datetime(3), "lastUsedAt" datetime(3), CONSTRAINT "FK_api_keys_userId" FOREIGN KEY ("userId") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`,
    );
    await q.query(`CREATE INDEX "IDX_api_keys_userId" ON "api_keys" ("userId")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_api_keys_userId"`);
    await q.query(`DROP TABLE "api_keys"`);
  }
}
