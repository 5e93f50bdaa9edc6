import type { DatabaseName } from './databases.js';

/**
 * The SQL `prisma migrate dev` makes of the models `PrismaAdapter` ships (`prismaSchemaPostgres`,
 * `prismaSchemaMysql`, `prismaSchemaSqlite`). Prisma's schema engine (which `migrate` runs) cannot be
 * installed here, so these tables are written by hand from Prisma's default type mapping and naming
 * (`<Model>_pkey`, `<Model>_<field>_key`, `<Model>_<field>_idx`, `<Model>_<field>_fkey`);
 * `test/prisma-adapter.e2e-spec.ts` checks them against the generated client's fields. The first five
 * tables are @auth/prisma-adapter's (see `AUTHJS_DDL['authjs-prisma']`) with the added columns.
 */
export const PRISMA_DDL: Record<DatabaseName, string[]> = {
  postgres: [
    `CREATE TABLE "User" ("id" TEXT NOT NULL, "name" TEXT, "email" TEXT NOT NULL, "emailVerified" TIMESTAMP(3), "image" TEXT, CONSTRAINT "User_pkey" PRIMARY KEY ("id"))`,
    `CREATE TABLE "Account" ("userId" TEXT NOT NULL, "type" TEXT NOT NULL, "provider" TEXT NOT NULL, "providerAccountId" TEXT NOT NULL, "refresh_token" TEXT, "access_token" TEXT, "expires_at" INTEGER, "token_type" TEXT, "scope" TEXT, "id_token" TEXT, "session_state" TEXT, CONSTRAINT "Account_pkey" PRIMARY KEY ("provider","providerAccountId"))`,
    `CREATE TABLE "Session" ("sessionToken" TEXT NOT NULL, "userId" TEXT NOT NULL, "expires" TIMESTAMP(3) NOT NULL, "createdAt" TIMESTAMP(3), "lastSeenAt" TIMESTAMP(3), "userAgent" VARCHAR(255), "ip" VARCHAR(64), "providerSid" VARCHAR(255), "amr" VARCHAR(255))`,
    `CREATE TABLE "VerificationToken" ("identifier" TEXT NOT NULL, "token" TEXT NOT NULL, "expires" TIMESTAMP(3) NOT NULL, CONSTRAINT "VerificationToken_pkey" PRIMARY KEY ("identifier","token"))`,
    `CREATE TABLE "Authenticator" ("credentialID" TEXT NOT NULL, "userId" TEXT NOT NULL, "providerAccountId" TEXT NOT NULL, "credentialPublicKey" TEXT NOT NULL, "counter" INTEGER NOT NULL, "credentialDeviceType" TEXT NOT NULL, "credentialBackedUp" BOOLEAN NOT NULL, "transports" TEXT, "name" VARCHAR(255), "lastUsedAt" TIMESTAMP(3), CONSTRAINT "Authenticator_pkey" PRIMARY KEY ("userId","credentialID"))`,
    `CREATE TABLE "two_factors" ("id" VARCHAR(255) NOT NULL, "userId" TEXT NOT NULL, "type" VARCHAR(32) NOT NULL, "name" VARCHAR(255), "secret" TEXT NOT NULL, "confirmedAt" TIMESTAMP(3), "createdAt" TIMESTAMP(3) NOT NULL, "lastUsedAt" TIMESTAMP(3), "lastUsedStep" BIGINT, CONSTRAINT "two_factors_pkey" PRIMARY KEY ("id"))`,
    `CREATE TABLE "refresh_token_families" ("id" VARCHAR(64) NOT NULL, "userId" TEXT NOT NULL, "clientId" VARCHAR(255) NOT NULL, "generation" INTEGER NOT NULL, "tokenHash" VARCHAR(64) NOT NULL, "rotatedAt" TIMESTAMP(3) NOT NULL, "expires" TIMESTAMP(3) NOT NULL, "authTime" TIMESTAMP(3) NOT NULL, "amr" VARCHAR(255), CONSTRAINT "refresh_token_families_pkey" PRIMARY KEY ("id"))`,
    `CREATE TABLE "api_keys" ("id" VARCHAR(32) NOT NULL, "userId" TEXT NOT NULL, "name" VARCHAR(100) NOT NULL, "keyHash" VARCHAR(64) NOT NULL, "hint" VARCHAR(8) NOT NULL, "scopes" VARCHAR(1000), "createdAt" TIMESTAMP(3) NOT NULL, "expires" TIMESTAMP(3), "lastUsedAt" TIMESTAMP(3), CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"))`,
    `CREATE TABLE "signing_keys" ("id" VARCHAR(64) NOT NULL, "alg" VARCHAR(16) NOT NULL, "publicJwk" TEXT NOT NULL, "privateKey" TEXT NOT NULL, "slot" BIGINT NOT NULL, "createdAt" TIMESTAMP(3) NOT NULL, "activatesAt" TIMESTAMP(3) NOT NULL, "removesAt" TIMESTAMP(3), CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("id"))`,
    `CREATE UNIQUE INDEX "User_email_key" ON "User"("email")`,
    `CREATE UNIQUE INDEX "Session_sessionToken_key" ON "Session"("sessionToken")`,
    `CREATE INDEX "Session_providerSid_idx" ON "Session"("providerSid")`,
    `CREATE UNIQUE INDEX "Authenticator_credentialID_key" ON "Authenticator"("credentialID")`,
    `CREATE INDEX "two_factors_userId_idx" ON "two_factors"("userId")`,
    `CREATE INDEX "refresh_token_families_userId_idx" ON "refresh_token_families"("userId")`,
    `CREATE INDEX "api_keys_userId_idx" ON "api_keys"("userId")`,
    `CREATE UNIQUE INDEX "signing_keys_slot_key" ON "signing_keys"("slot")`,
    `ALTER TABLE "Account" ADD CONSTRAINT "Account_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE`,
    `ALTER TABLE "Session" ADD CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE`,
    `ALTER TABLE "Authenticator" ADD CONSTRAINT "Authenticator_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE`,
    `ALTER TABLE "two_factors" ADD CONSTRAINT "two_factors_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE`,
    `ALTER TABLE "refresh_token_families" ADD CONSTRAINT "refresh_token_families_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE`,
    `ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE`,
  ],
  // Prisma's MySQL tables carry their own (case-insensitive) collation, whatever the database's.
  mariadb: [
    'CREATE TABLE `User` (`id` VARCHAR(191) NOT NULL, `name` VARCHAR(191) NULL, `email` VARCHAR(191) NOT NULL, `emailVerified` DATETIME(3) NULL, `image` VARCHAR(191) NULL, UNIQUE INDEX `User_email_key`(`email`), PRIMARY KEY (`id`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'CREATE TABLE `Account` (`userId` VARCHAR(191) NOT NULL, `type` VARCHAR(191) NOT NULL, `provider` VARCHAR(191) NOT NULL, `providerAccountId` VARCHAR(191) NOT NULL, `refresh_token` TEXT NULL, `access_token` TEXT NULL, `expires_at` INTEGER NULL, `token_type` VARCHAR(191) NULL, `scope` VARCHAR(191) NULL, `id_token` TEXT NULL, `session_state` VARCHAR(191) NULL, PRIMARY KEY (`provider`, `providerAccountId`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'CREATE TABLE `Session` (`sessionToken` VARCHAR(191) NOT NULL, `userId` VARCHAR(191) NOT NULL, `expires` DATETIME(3) NOT NULL, `createdAt` DATETIME(3) NULL, `lastSeenAt` DATETIME(3) NULL, `userAgent` VARCHAR(255) NULL, `ip` VARCHAR(64) NULL, `providerSid` VARCHAR(255) NULL, `amr` VARCHAR(255) NULL, UNIQUE INDEX `Session_sessionToken_key`(`sessionToken`), INDEX `Session_providerSid_idx`(`providerSid`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'CREATE TABLE `VerificationToken` (`identifier` VARCHAR(191) NOT NULL, `token` VARCHAR(191) NOT NULL, `expires` DATETIME(3) NOT NULL, PRIMARY KEY (`identifier`, `token`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'CREATE TABLE `Authenticator` (`credentialID` VARCHAR(191) NOT NULL, `userId` VARCHAR(191) NOT NULL, `providerAccountId` VARCHAR(191) NOT NULL, `credentialPublicKey` TEXT NOT NULL, `counter` INTEGER NOT NULL, `credentialDeviceType` VARCHAR(191) NOT NULL, `credentialBackedUp` BOOLEAN NOT NULL, `transports` VARCHAR(191) NULL, `name` VARCHAR(255) NULL, `lastUsedAt` DATETIME(3) NULL, UNIQUE INDEX `Authenticator_credentialID_key`(`credentialID`), PRIMARY KEY (`userId`, `credentialID`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'CREATE TABLE `two_factors` (`id` VARCHAR(255) NOT NULL, `userId` VARCHAR(191) NOT NULL, `type` VARCHAR(32) NOT NULL, `name` VARCHAR(255) NULL, `secret` TEXT NOT NULL, `confirmedAt` DATETIME(3) NULL, `createdAt` DATETIME(3) NOT NULL, `lastUsedAt` DATETIME(3) NULL, `lastUsedStep` BIGINT NULL, INDEX `two_factors_userId_idx`(`userId`), PRIMARY KEY (`id`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'CREATE TABLE `refresh_token_families` (`id` VARCHAR(64) NOT NULL, `userId` VARCHAR(191) NOT NULL, `clientId` VARCHAR(255) NOT NULL, `generation` INTEGER NOT NULL, `tokenHash` VARCHAR(64) NOT NULL, `rotatedAt` DATETIME(3) NOT NULL, `expires` DATETIME(3) NOT NULL, `authTime` DATETIME(3) NOT NULL, `amr` VARCHAR(255) NULL, INDEX `refresh_token_families_userId_idx`(`userId`), PRIMARY KEY (`id`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'CREATE TABLE `api_keys` (`id` VARCHAR(32) NOT NULL, `userId` VARCHAR(191) NOT NULL, `name` VARCHAR(100) NOT NULL, `keyHash` VARCHAR(64) NOT NULL, `hint` VARCHAR(8) NOT NULL, `scopes` VARCHAR(1000) NULL, `createdAt` DATETIME(3) NOT NULL, `expires` DATETIME(3) NULL, `lastUsedAt` DATETIME(3) NULL, INDEX `api_keys_userId_idx`(`userId`), PRIMARY KEY (`id`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'CREATE TABLE `signing_keys` (`id` VARCHAR(64) NOT NULL, `alg` VARCHAR(16) NOT NULL, `publicJwk` TEXT NOT NULL, `privateKey` TEXT NOT NULL, `slot` BIGINT NOT NULL, `createdAt` DATETIME(3) NOT NULL, `activatesAt` DATETIME(3) NOT NULL, `removesAt` DATETIME(3) NULL, UNIQUE INDEX `signing_keys_slot_key`(`slot`), PRIMARY KEY (`id`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'ALTER TABLE `Account` ADD CONSTRAINT `Account_userId_fkey` FOREIGN KEY (`userId`) REFERENCES `User`(`id`) ON DELETE CASCADE ON UPDATE CASCADE',
    'ALTER TABLE `Session` ADD CONSTRAINT `Session_userId_fkey` FOREIGN KEY (`userId`) REFERENCES `User`(`id`) ON DELETE CASCADE ON UPDATE CASCADE',
    'ALTER TABLE `Authenticator` ADD CONSTRAINT `Authenticator_userId_fkey` FOREIGN KEY (`userId`) REFERENCES `User`(`id`) ON DELETE CASCADE ON UPDATE CASCADE',
    'ALTER TABLE `two_factors` ADD CONSTRAINT `two_factors_userId_fkey` FOREIGN KEY (`userId`) REFERENCES `User`(`id`) ON DELETE CASCADE ON UPDATE CASCADE',
    'ALTER TABLE `refresh_token_families` ADD CONSTRAINT `refresh_token_families_userId_fkey` FOREIGN KEY (`userId`) REFERENCES `User`(`id`) ON DELETE CASCADE ON UPDATE CASCADE',
    'ALTER TABLE `api_keys` ADD CONSTRAINT `api_keys_userId_fkey` FOREIGN KEY (`userId`) REFERENCES `User`(`id`) ON DELETE CASCADE ON UPDATE CASCADE',
  ],
  sqlite: [
    `CREATE TABLE "User" ("id" TEXT NOT NULL PRIMARY KEY, "name" TEXT, "email" TEXT NOT NULL, "emailVerified" DATETIME, "image" TEXT)`,
    `CREATE TABLE "Account" ("userId" TEXT NOT NULL, "type" TEXT NOT NULL, "provider" TEXT NOT NULL, "providerAccountId" TEXT NOT NULL, "refresh_token" TEXT, "access_token" TEXT, "expires_at" INTEGER, "token_type" TEXT, "scope" TEXT, "id_token" TEXT, "session_state" TEXT, PRIMARY KEY ("provider", "providerAccountId"), CONSTRAINT "Account_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE)`,
    `CREATE TABLE "Session" ("sessionToken" TEXT NOT NULL, "userId" TEXT NOT NULL, "expires" DATETIME NOT NULL, "createdAt" DATETIME, "lastSeenAt" DATETIME, "userAgent" TEXT, "ip" TEXT, "providerSid" TEXT, "amr" TEXT, CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE)`,
    `CREATE TABLE "VerificationToken" ("identifier" TEXT NOT NULL, "token" TEXT NOT NULL, "expires" DATETIME NOT NULL, PRIMARY KEY ("identifier", "token"))`,
    `CREATE TABLE "Authenticator" ("credentialID" TEXT NOT NULL, "userId" TEXT NOT NULL, "providerAccountId" TEXT NOT NULL, "credentialPublicKey" TEXT NOT NULL, "counter" INTEGER NOT NULL, "credentialDeviceType" TEXT NOT NULL, "credentialBackedUp" BOOLEAN NOT NULL, "transports" TEXT, "name" TEXT, "lastUsedAt" DATETIME, PRIMARY KEY ("userId", "credentialID"), CONSTRAINT "Authenticator_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE)`,
    `CREATE TABLE "two_factors" ("id" TEXT NOT NULL PRIMARY KEY, "userId" TEXT NOT NULL, "type" TEXT NOT NULL, "name" TEXT, "secret" TEXT NOT NULL, "confirmedAt" DATETIME, "createdAt" DATETIME NOT NULL, "lastUsedAt" DATETIME, "lastUsedStep" BIGINT, CONSTRAINT "two_factors_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE)`,
    `CREATE TABLE "refresh_token_families" ("id" TEXT NOT NULL PRIMARY KEY, "userId" TEXT NOT NULL, "clientId" TEXT NOT NULL, "generation" INTEGER NOT NULL, "tokenHash" TEXT NOT NULL, "rotatedAt" DATETIME NOT NULL, "expires" DATETIME NOT NULL, "authTime" DATETIME NOT NULL, "amr" TEXT, CONSTRAINT "refresh_token_families_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE)`,
    `CREATE TABLE "api_keys" ("id" TEXT NOT NULL PRIMARY KEY, "userId" TEXT NOT NULL, "name" TEXT NOT NULL, "keyHash" TEXT NOT NULL, "hint" TEXT NOT NULL, "scopes" TEXT, "createdAt" DATETIME NOT NULL, "expires" DATETIME, "lastUsedAt" DATETIME, CONSTRAINT "api_keys_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE)`,
    `CREATE TABLE "signing_keys" ("id" TEXT NOT NULL PRIMARY KEY, "alg" TEXT NOT NULL, "publicJwk" TEXT NOT NULL, "privateKey" TEXT NOT NULL, "slot" BIGINT NOT NULL, "createdAt" DATETIME NOT NULL, "activatesAt" DATETIME NOT NULL, "removesAt" DATETIME)`,
    `CREATE UNIQUE INDEX "User_email_key" ON "User"("email")`,
    `CREATE UNIQUE INDEX "Session_sessionToken_key" ON "Session"("sessionToken")`,
    `CREATE INDEX "Session_providerSid_idx" ON "Session"("providerSid")`,
    `CREATE UNIQUE INDEX "Authenticator_credentialID_key" ON "Authenticator"("credentialID")`,
    `CREATE INDEX "two_factors_userId_idx" ON "two_factors"("userId")`,
    `CREATE INDEX "refresh_token_families_userId_idx" ON "refresh_token_families"("userId")`,
    `CREATE INDEX "api_keys_userId_idx" ON "api_keys"("userId")`,
    `CREATE UNIQUE INDEX "signing_keys_slot_key" ON "signing_keys"("slot")`,
  ],
};
