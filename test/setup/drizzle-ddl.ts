import type { DatabaseName } from './databases.js';

/**
 * The DDL of `pgAuthTables`, `mysqlAuthTables` and `sqliteAuthTables` (lib/adapters/drizzle), as
 * drizzle-kit generates it (drizzle-kit is not installed here: written from the table definitions;
 * `test/drizzle-adapter.e2e-spec.ts` checks it against them column by column). The first five
 * tables are @auth/drizzle-adapter's (see `AUTHJS_DDL['authjs-drizzle']`) with the added columns.
 */
export const DRIZZLE_DDL: Record<DatabaseName, string[]> = {
  postgres: [
    `CREATE TABLE "user" ("id" text PRIMARY KEY NOT NULL, "name" text, "email" text, "emailVerified" timestamp, "image" text, CONSTRAINT "user_email_unique" UNIQUE("email"))`,
    `CREATE TABLE "account" ("userId" text NOT NULL, "type" text NOT NULL, "provider" text NOT NULL, "providerAccountId" text NOT NULL, "refresh_token" text, "access_token" text, "expires_at" integer, "token_type" text, "scope" text, "id_token" text, "session_state" text, CONSTRAINT "account_provider_providerAccountId_pk" PRIMARY KEY("provider","providerAccountId"), CONSTRAINT "account_userId_user_id_fk" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE cascade)`,
    `CREATE INDEX "account_userId_idx" ON "account" ("userId")`,
    `CREATE TABLE "session" ("sessionToken" text PRIMARY KEY NOT NULL, "userId" text NOT NULL, "expires" timestamp NOT NULL, "createdAt" timestamp(3), "lastSeenAt" timestamp(3), "userAgent" varchar(255), "ip" varchar(64), "providerSid" varchar(255), "amr" varchar(255), CONSTRAINT "session_userId_user_id_fk" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE cascade)`,
    `CREATE INDEX "session_userId_idx" ON "session" ("userId")`,
    `CREATE INDEX "session_providerSid_idx" ON "session" ("providerSid")`,
    `CREATE TABLE "verificationToken" ("identifier" text NOT NULL, "token" text NOT NULL, "expires" timestamp NOT NULL, CONSTRAINT "verificationToken_identifier_token_pk" PRIMARY KEY("identifier","token"))`,
    `CREATE TABLE "authenticator" ("credentialID" text NOT NULL, "userId" text NOT NULL, "providerAccountId" text NOT NULL, "credentialPublicKey" text NOT NULL, "counter" integer NOT NULL, "credentialDeviceType" text NOT NULL, "credentialBackedUp" boolean NOT NULL, "transports" text, "name" varchar(255), "lastUsedAt" timestamp(3), CONSTRAINT "authenticator_userId_credentialID_pk" PRIMARY KEY("userId","credentialID"), CONSTRAINT "authenticator_credentialID_unique" UNIQUE("credentialID"), CONSTRAINT "authenticator_userId_user_id_fk" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE cascade)`,
    `CREATE TABLE "two_factors" ("id" varchar(255) PRIMARY KEY NOT NULL, "userId" text NOT NULL, "type" varchar(32) NOT NULL, "name" varchar(255), "secret" text NOT NULL, "confirmedAt" timestamp(3), "createdAt" timestamp(3) NOT NULL, "lastUsedAt" timestamp(3), "lastUsedStep" bigint, CONSTRAINT "two_factors_userId_user_id_fk" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE cascade)`,
    `CREATE INDEX "two_factors_userId_idx" ON "two_factors" ("userId")`,
    `CREATE TABLE "refresh_token_families" ("id" varchar(64) PRIMARY KEY NOT NULL, "userId" text NOT NULL, "clientId" varchar(255) NOT NULL, "generation" integer NOT NULL, "tokenHash" varchar(64) NOT NULL, "rotatedAt" timestamp(3) NOT NULL, "expires" timestamp(3) NOT NULL, "authTime" timestamp(3) NOT NULL, "amr" varchar(255), CONSTRAINT "refresh_token_families_userId_user_id_fk" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE cascade)`,
    `CREATE INDEX "refresh_token_families_userId_idx" ON "refresh_token_families" ("userId")`,
    `CREATE TABLE "api_keys" ("id" varchar(32) PRIMARY KEY NOT NULL, "userId" text NOT NULL, "name" varchar(100) NOT NULL, "keyHash" varchar(64) NOT NULL, "hint" varchar(8) NOT NULL, "scopes" varchar(1000), "createdAt" timestamp(3) NOT NULL, "expires" timestamp(3), "lastUsedAt" timestamp(3), CONSTRAINT "api_keys_userId_user_id_fk" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE cascade)`,
    `CREATE INDEX "api_keys_userId_idx" ON "api_keys" ("userId")`,
    `CREATE TABLE "signing_keys" ("id" varchar(64) PRIMARY KEY NOT NULL, "alg" varchar(16) NOT NULL, "publicJwk" text NOT NULL, "privateKey" text NOT NULL, "slot" bigint NOT NULL, "createdAt" timestamp(3) NOT NULL, "activatesAt" timestamp(3) NOT NULL, "removesAt" timestamp(3))`,
    `CREATE UNIQUE INDEX "signing_keys_slot_unique" ON "signing_keys" ("slot")`,
  ],
  // The binary collation the tables' documentation asks for (the database's default here).
  mariadb: [
    'CREATE TABLE `user` (`id` varchar(255) NOT NULL, `name` varchar(255), `email` varchar(255), `emailVerified` timestamp(3) NULL, `image` varchar(255), CONSTRAINT `user_id` PRIMARY KEY(`id`), CONSTRAINT `user_email_unique` UNIQUE(`email`))',
    'CREATE TABLE `account` (`userId` varchar(255) NOT NULL, `type` varchar(255) NOT NULL, `provider` varchar(255) NOT NULL, `providerAccountId` varchar(255) NOT NULL, `refresh_token` text, `access_token` text, `expires_at` int, `token_type` varchar(255), `scope` varchar(255), `id_token` text, `session_state` varchar(255), CONSTRAINT `account_provider_providerAccountId_pk` PRIMARY KEY(`provider`,`providerAccountId`), CONSTRAINT `account_userId_user_id_fk` FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON DELETE cascade ON UPDATE no action)',
    'CREATE INDEX `account_userId_idx` ON `account` (`userId`)',
    'CREATE TABLE `session` (`sessionToken` varchar(255) NOT NULL, `userId` varchar(255) NOT NULL, `expires` timestamp(3) NOT NULL, `createdAt` datetime(3), `lastSeenAt` datetime(3), `userAgent` varchar(255), `ip` varchar(64), `providerSid` varchar(255), `amr` varchar(255), CONSTRAINT `session_sessionToken` PRIMARY KEY(`sessionToken`), CONSTRAINT `session_userId_user_id_fk` FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON DELETE cascade ON UPDATE no action)',
    'CREATE INDEX `session_userId_idx` ON `session` (`userId`)',
    'CREATE INDEX `session_providerSid_idx` ON `session` (`providerSid`)',
    'CREATE TABLE `verificationToken` (`identifier` varchar(255) NOT NULL, `token` varchar(255) NOT NULL, `expires` timestamp(3) NOT NULL, CONSTRAINT `verificationToken_identifier_token_pk` PRIMARY KEY(`identifier`,`token`))',
    'CREATE TABLE `authenticator` (`credentialID` varchar(255) NOT NULL, `userId` varchar(255) NOT NULL, `providerAccountId` varchar(255) NOT NULL, `credentialPublicKey` varchar(255) NOT NULL, `counter` int NOT NULL, `credentialDeviceType` varchar(255) NOT NULL, `credentialBackedUp` boolean NOT NULL, `transports` varchar(255), `name` varchar(255), `lastUsedAt` datetime(3), CONSTRAINT `authenticator_userId_credentialID_pk` PRIMARY KEY(`userId`,`credentialID`), CONSTRAINT `authenticator_credentialID_unique` UNIQUE(`credentialID`), CONSTRAINT `authenticator_userId_user_id_fk` FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON DELETE cascade ON UPDATE no action)',
    'CREATE TABLE `two_factors` (`id` varchar(255) NOT NULL, `userId` varchar(255) NOT NULL, `type` varchar(32) NOT NULL, `name` varchar(255), `secret` text NOT NULL, `confirmedAt` datetime(3), `createdAt` datetime(3) NOT NULL, `lastUsedAt` datetime(3), `lastUsedStep` bigint, CONSTRAINT `two_factors_id` PRIMARY KEY(`id`), CONSTRAINT `two_factors_userId_user_id_fk` FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON DELETE cascade ON UPDATE no action)',
    'CREATE INDEX `two_factors_userId_idx` ON `two_factors` (`userId`)',
    'CREATE TABLE `refresh_token_families` (`id` varchar(64) NOT NULL, `userId` varchar(255) NOT NULL, `clientId` varchar(255) NOT NULL, `generation` int NOT NULL, `tokenHash` varchar(64) NOT NULL, `rotatedAt` datetime(3) NOT NULL, `expires` datetime(3) NOT NULL, `authTime` datetime(3) NOT NULL, `amr` varchar(255), CONSTRAINT `refresh_token_families_id` PRIMARY KEY(`id`), CONSTRAINT `refresh_token_families_userId_user_id_fk` FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON DELETE cascade ON UPDATE no action)',
    'CREATE INDEX `refresh_token_families_userId_idx` ON `refresh_token_families` (`userId`)',
    'CREATE TABLE `api_keys` (`id` varchar(32) NOT NULL, `userId` varchar(255) NOT NULL, `name` varchar(100) NOT NULL, `keyHash` varchar(64) NOT NULL, `hint` varchar(8) NOT NULL, `scopes` varchar(1000), `createdAt` datetime(3) NOT NULL, `expires` datetime(3), `lastUsedAt` datetime(3), CONSTRAINT `api_keys_id` PRIMARY KEY(`id`), CONSTRAINT `api_keys_userId_user_id_fk` FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON DELETE cascade ON UPDATE no action)',
    'CREATE INDEX `api_keys_userId_idx` ON `api_keys` (`userId`)',
    'CREATE TABLE `signing_keys` (`id` varchar(64) NOT NULL, `alg` varchar(16) NOT NULL, `publicJwk` text NOT NULL, `privateKey` text NOT NULL, `slot` bigint NOT NULL, `createdAt` datetime(3) NOT NULL, `activatesAt` datetime(3) NOT NULL, `removesAt` datetime(3), CONSTRAINT `signing_keys_id` PRIMARY KEY(`id`), CONSTRAINT `signing_keys_slot_unique` UNIQUE(`slot`))',
  ],
  sqlite: [
    'CREATE TABLE `user` (`id` text PRIMARY KEY NOT NULL, `name` text, `email` text, `emailVerified` integer, `image` text)',
    'CREATE UNIQUE INDEX `user_email_unique` ON `user` (`email`)',
    'CREATE TABLE `account` (`userId` text NOT NULL, `type` text NOT NULL, `provider` text NOT NULL, `providerAccountId` text NOT NULL, `refresh_token` text, `access_token` text, `expires_at` integer, `token_type` text, `scope` text, `id_token` text, `session_state` text, PRIMARY KEY(`provider`, `providerAccountId`), FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade)',
    'CREATE INDEX `account_userId_idx` ON `account` (`userId`)',
    'CREATE TABLE `session` (`sessionToken` text PRIMARY KEY NOT NULL, `userId` text NOT NULL, `expires` integer NOT NULL, `createdAt` integer, `lastSeenAt` integer, `userAgent` text, `ip` text, `providerSid` text, `amr` text, FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade)',
    'CREATE INDEX `session_userId_idx` ON `session` (`userId`)',
    'CREATE INDEX `session_providerSid_idx` ON `session` (`providerSid`)',
    'CREATE TABLE `verificationToken` (`identifier` text NOT NULL, `token` text NOT NULL, `expires` integer NOT NULL, PRIMARY KEY(`identifier`, `token`))',
    'CREATE TABLE `authenticator` (`credentialID` text NOT NULL, `userId` text NOT NULL, `providerAccountId` text NOT NULL, `credentialPublicKey` text NOT NULL, `counter` integer NOT NULL, `credentialDeviceType` text NOT NULL, `credentialBackedUp` integer NOT NULL, `transports` text, `name` text, `lastUsedAt` integer, PRIMARY KEY(`userId`, `credentialID`), FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade)',
    'CREATE UNIQUE INDEX `authenticator_credentialID_unique` ON `authenticator` (`credentialID`)',
    'CREATE TABLE `two_factors` (`id` text PRIMARY KEY NOT NULL, `userId` text NOT NULL, `type` text NOT NULL, `name` text, `secret` text NOT NULL, `confirmedAt` integer, `createdAt` integer NOT NULL, `lastUsedAt` integer, `lastUsedStep` integer, FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade)',
    'CREATE INDEX `two_factors_userId_idx` ON `two_factors` (`userId`)',
    'CREATE TABLE `refresh_token_families` (`id` text PRIMARY KEY NOT NULL, `userId` text NOT NULL, `clientId` text NOT NULL, `generation` integer NOT NULL, `tokenHash` text NOT NULL, `rotatedAt` integer NOT NULL, `expires` integer NOT NULL, `authTime` integer NOT NULL, `amr` text, FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade)',
    'CREATE INDEX `refresh_token_families_userId_idx` ON `refresh_token_families` (`userId`)',
    'CREATE TABLE `api_keys` (`id` text PRIMARY KEY NOT NULL, `userId` text NOT NULL, `name` text NOT NULL, `keyHash` text NOT NULL, `hint` text NOT NULL, `scopes` text, `createdAt` integer NOT NULL, `expires` integer, `lastUsedAt` integer, FOREIGN KEY (`userId`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade)',
    'CREATE INDEX `api_keys_userId_idx` ON `api_keys` (`userId`)',
    'CREATE TABLE `signing_keys` (`id` text PRIMARY KEY NOT NULL, `alg` text NOT NULL, `publicJwk` text NOT NULL, `privateKey` text NOT NULL, `slot` integer NOT NULL, `createdAt` integer NOT NULL, `activatesAt` integer NOT NULL, `removesAt` integer)',
    'CREATE UNIQUE INDEX `signing_keys_slot_unique` ON `signing_keys` (`slot`)',
  ],
};
