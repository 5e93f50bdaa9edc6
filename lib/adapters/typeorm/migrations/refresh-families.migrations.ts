import type { MigrationInterface, QueryRunner } from 'typeorm';

// Native-app sign-ins: the `refresh_token_families` table (one row per sign-in: the current refresh
// token's generation and hash, never the token; deleted with the user). Listed after the two-factor
// migration of each dialect.

/** Creates `refresh_token_families` on PostgreSQL. */
export class AuthRefreshFamiliesPostgres1790000000000 implements MigrationInterface {
  name = 'AuthRefreshFamiliesPostgres1790000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "refresh_token_families" ("id" character varying(64) NOT NULL, "userId" character varying(255) NOT NULL, "clientId" character varying(255) NOT NULL, "generation" integer NOT NULL, "tokenHash" character varying(64) NOT NULL, "rotatedAt" TIMESTAMP(3) NOT NULL, "expires" TIMESTAMP(3) NOT NULL, "authTime" TIMESTAMP(3) NOT NULL, "amr" character varying(255), CONSTRAINT "PK_refresh_token_families" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "IDX_refresh_token_families_userId" ON "refresh_token_families" ("userId")`);
    await q.query(
      `ALTER TABLE "refresh_token_families" ADD CONSTRAINT "FK_refresh_token_families_userId" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "refresh_token_families"`);
  }
}

/** Creates `refresh_token_families` on MySQL and MariaDB. */
export class AuthRefreshFamiliesMysql1790000000000 implements MigrationInterface {
  name = 'AuthRefreshFamiliesMysql1790000000000';

  async up(q: QueryRunner): Promise<void> {
    // Binary collation, as the schema migration's tables: ids and hashes compare byte for byte.
    await q.query(
      'CREATE TABLE `refresh_token_families` (`id` varchar(64) NOT NULL, `userId` varchar(255) NOT NULL, `clientId` varchar(255) NOT NULL, `generation` int NOT NULL, `tokenHash` varchar(64) NOT NULL, `rotatedAt` datetime(3) NOT NULL, `expires` datetime(3) NOT NULL, `authTime` datetime(3) NOT NULL, `amr` varchar(255) NULL, INDEX `IDX_refresh_token_families_userId` (`userId`), PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    );
    await q.query(
      'ALTER TABLE `refresh_token_families` ADD CONSTRAINT `FK_refresh_token_families_userId` FOREIGN KEY (`userId`) REFERENCES `users`(`id`) ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE `refresh_token_families`');
  }
}

/** Creates `refresh_token_families` on SQLite. */
export class AuthRefreshFamiliesSqlite1790000000000 implements MigrationInterface {
  name = 'AuthRefreshFamiliesSqlite1790000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "refresh_token_families" ("id" varchar(64) PRIMARY KEY NOT NULL, "userId" varchar(255) NOT NULL, "clientId" varchar(255) NOT NULL, "generation" integer NOT NULL, "tokenHash" varchar(64) NOT NULL, "rotatedAt" datetime(3) NOT NULL, "expires" datetime(3) NOT NULL, "authTime" datetime(3) NOT NULL, "amr" varchar(255), CONSTRAINT "FK_refresh_token_families_userId" FOREIGN KEY ("userId") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`,
    );
    await q.query(`CREATE INDEX "IDX_refresh_token_families_userId" ON "refresh_token_families" ("userId")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_refresh_token_families_userId"`);
    await q.query(`DROP TABLE "refresh_token_families"`);
  }
}
