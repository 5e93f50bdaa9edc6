import type { MigrationInterface, QueryRunner } from 'typeorm';

// Rotated signing keys: the `signing_keys` table (one row per key: its public JWK and its private key
// as the library sealed it; one key per rotation slot, `UQ_signing_keys_slot`). Belongs to no user.
// Listed after the API key migration of each dialect.

/** Creates `signing_keys` on PostgreSQL. */
export class AuthSigningKeysPostgres1800000000001 implements MigrationInterface {
  name = 'AuthSigningKeysPostgres1800000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "signing_keys" ("id" character varying(64) NOT NULL, "alg" character varying(16) NOT NULL, "publicJwk" text NOT NULL, "privateKey" text NOT NULL, "slot" bigint NOT NULL, "createdAt" TIMESTAMP(3) NOT NULL, "activatesAt" TIMESTAMP(3) NOT NULL, "removesAt" TIMESTAMP(3), CONSTRAINT "PK_signing_keys" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_signing_keys_slot" ON "signing_keys" ("slot")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "signing_keys"`);
  }
}

/** Creates `signing_keys` on MySQL and MariaDB. */
export class AuthSigningKeysMysql1800000000001 implements MigrationInterface {
  name = 'AuthSigningKeysMysql1800000000001';

  async up(q: QueryRunner): Promise<void> {
    // Binary collation, as the schema migration's tables: key ids compare byte for byte.
    await q.query(
      'CREATE TABLE `signing_keys` (`id` varchar(64) NOT NULL, `alg` varchar(16) NOT NULL, `publicJwk` text NOT NULL, `privateKey` text NOT NULL, `slot` bigint NOT NULL, `createdAt` datetime(3) NOT NULL, `activatesAt` datetime(3) NOT NULL, `removesAt` datetime(3) NULL, UNIQUE INDEX `UQ_signing_keys_slot` (`slot`), PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE `signing_keys`');
  }
}

/** Creates `signing_keys` on SQLite. */
export class AuthSigningKeysSqlite1800000000001 implements MigrationInterface {
  name = 'AuthSigningKeysSqlite1800000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "signing_keys" ("id" varchar(64) PRIMARY KEY NOT NULL, "alg" varchar(16) NOT NULL, "publicJwk" text NOT NULL, "privateKey" text NOT NULL, "slot" bigint NOT NULL, "createdAt" datetime(3) NOT NULL, "activatesAt" datetime(3) NOT NULL, "removesAt" datetime(3))`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_signing_keys_slot" ON "signing_keys" ("slot")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "UQ_signing_keys_slot"`);
    await q.query(`DROP TABLE "signing_keys"`);
  }
}
