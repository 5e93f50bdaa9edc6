import type { AuthSchemaMapping, AuthSchemaPreset } from '../../lib/adapters/typeorm/schema-mapping.js';
import type { DatabaseName } from './databases.js';

/**
 * The tables of Auth.js's official adapters, written from the schemas their documentation gives
 * (see /work/shared/reference/authjs-schemas.md): `@auth/pg-adapter`'s schema.sql, the defaults of
 * `@auth/drizzle-adapter`'s defineTables() (the DDL drizzle-kit exports for them), the entities of
 * `@auth/typeorm-adapter`, and the SQL Prisma's migrate produces for the adapter's schema.prisma
 * (Prisma's engines are not installed here, so these tables are written by hand from its default
 * type mapping).
 */
export const AUTHJS_DDL: Record<AuthSchemaPreset, Partial<Record<DatabaseName, string[]>>> = {
  'authjs-pg': {
    postgres: [
      `CREATE TABLE verification_token (identifier TEXT NOT NULL, expires TIMESTAMPTZ NOT NULL, token TEXT NOT NULL, PRIMARY KEY (identifier, token))`,
      `CREATE TABLE accounts (id SERIAL, "userId" INTEGER NOT NULL, type VARCHAR(255) NOT NULL, provider VARCHAR(255) NOT NULL, "providerAccountId" VARCHAR(255) NOT NULL, refresh_token TEXT, access_token TEXT, expires_at BIGINT, id_token TEXT, scope TEXT, session_state TEXT, token_type TEXT, PRIMARY KEY (id))`,
      `CREATE TABLE sessions (id SERIAL, "userId" INTEGER NOT NULL, expires TIMESTAMPTZ NOT NULL, "sessionToken" VARCHAR(255) NOT NULL, PRIMARY KEY (id))`,
      `CREATE TABLE users (id SERIAL, name VARCHAR(255), email VARCHAR(255), "emailVerified" TIMESTAMPTZ, image TEXT, PRIMARY KEY (id))`,
    ],
  },
  'authjs-drizzle': {
    postgres: [
      `CREATE TABLE "user" (id text PRIMARY KEY NOT NULL, name text, email text, "emailVerified" timestamp, image text, CONSTRAINT user_email_unique UNIQUE (email))`,
      `CREATE TABLE account ("userId" text NOT NULL, type text NOT NULL, provider text NOT NULL, "providerAccountId" text NOT NULL, refresh_token text, access_token text, expires_at integer, token_type text, scope text, id_token text, session_state text, CONSTRAINT "account_provider_providerAccountId_pk" PRIMARY KEY (provider, "providerAccountId"), CONSTRAINT "account_userId_user_id_fk" FOREIGN KEY ("userId") REFERENCES "user"(id) ON DELETE CASCADE)`,
      `CREATE TABLE session ("sessionToken" text PRIMARY KEY NOT NULL, "userId" text NOT NULL, expires timestamp NOT NULL, CONSTRAINT "session_userId_user_id_fk" FOREIGN KEY ("userId") REFERENCES "user"(id) ON DELETE CASCADE)`,
      `CREATE TABLE "verificationToken" (identifier text NOT NULL, token text NOT NULL, expires timestamp NOT NULL, CONSTRAINT "verificationToken_identifier_token_pk" PRIMARY KEY (identifier, token))`,
      `CREATE TABLE authenticator ("credentialID" text NOT NULL, "userId" text NOT NULL, "providerAccountId" text NOT NULL, "credentialPublicKey" text NOT NULL, counter integer NOT NULL, "credentialDeviceType" text NOT NULL, "credentialBackedUp" boolean NOT NULL, transports text, CONSTRAINT "authenticator_userId_credentialID_pk" PRIMARY KEY ("userId", "credentialID"), CONSTRAINT "authenticator_credentialID_unique" UNIQUE ("credentialID"), CONSTRAINT "authenticator_userId_user_id_fk" FOREIGN KEY ("userId") REFERENCES "user"(id) ON DELETE CASCADE)`,
    ],
    mariadb: [
      `CREATE TABLE \`user\` (\`id\` varchar(255) NOT NULL, \`name\` varchar(255), \`email\` varchar(255), \`emailVerified\` timestamp(3) NULL, \`image\` varchar(255), CONSTRAINT \`user_id\` PRIMARY KEY(\`id\`), CONSTRAINT \`user_email_unique\` UNIQUE(\`email\`))`,
      `CREATE TABLE \`account\` (\`userId\` varchar(255) NOT NULL, \`type\` varchar(255) NOT NULL, \`provider\` varchar(255) NOT NULL, \`providerAccountId\` varchar(255) NOT NULL, \`refresh_token\` varchar(255), \`access_token\` varchar(255), \`expires_at\` int, \`token_type\` varchar(255), \`scope\` varchar(255), \`id_token\` varchar(2048), \`session_state\` varchar(255), CONSTRAINT \`account_provider_providerAccountId_pk\` PRIMARY KEY(\`provider\`,\`providerAccountId\`), CONSTRAINT \`account_userId_user_id_fk\` FOREIGN KEY (\`userId\`) REFERENCES \`user\`(\`id\`) ON DELETE cascade ON UPDATE no action)`,
      `CREATE TABLE \`session\` (\`sessionToken\` varchar(255) NOT NULL, \`userId\` varchar(255) NOT NULL, \`expires\` timestamp NOT NULL, CONSTRAINT \`session_sessionToken\` PRIMARY KEY(\`sessionToken\`), CONSTRAINT \`session_userId_user_id_fk\` FOREIGN KEY (\`userId\`) REFERENCES \`user\`(\`id\`) ON DELETE cascade ON UPDATE no action)`,
      `CREATE TABLE \`verificationToken\` (\`identifier\` varchar(255) NOT NULL, \`token\` varchar(255) NOT NULL, \`expires\` timestamp NOT NULL, CONSTRAINT \`verificationToken_identifier_token_pk\` PRIMARY KEY(\`identifier\`,\`token\`))`,
      `CREATE TABLE \`authenticator\` (\`credentialID\` varchar(255) NOT NULL, \`userId\` varchar(255) NOT NULL, \`providerAccountId\` varchar(255) NOT NULL, \`credentialPublicKey\` varchar(255) NOT NULL, \`counter\` int NOT NULL, \`credentialDeviceType\` varchar(255) NOT NULL, \`credentialBackedUp\` boolean NOT NULL, \`transports\` varchar(255), CONSTRAINT \`authenticator_userId_credentialID_pk\` PRIMARY KEY(\`userId\`,\`credentialID\`), CONSTRAINT \`authenticator_credentialID_unique\` UNIQUE(\`credentialID\`), CONSTRAINT \`authenticator_userId_user_id_fk\` FOREIGN KEY (\`userId\`) REFERENCES \`user\`(\`id\`) ON DELETE cascade ON UPDATE no action)`,
    ],
    sqlite: [
      `CREATE TABLE user (id text PRIMARY KEY NOT NULL, name text, email text, emailVerified integer, image text)`,
      `CREATE UNIQUE INDEX user_email_unique ON user (email)`,
      `CREATE TABLE account (userId text NOT NULL, type text NOT NULL, provider text NOT NULL, providerAccountId text NOT NULL, refresh_token text, access_token text, expires_at integer, token_type text, scope text, id_token text, session_state text, PRIMARY KEY (provider, providerAccountId), FOREIGN KEY (userId) REFERENCES user(id) ON UPDATE no action ON DELETE cascade)`,
      `CREATE TABLE session (sessionToken text PRIMARY KEY NOT NULL, userId text NOT NULL, expires integer NOT NULL, FOREIGN KEY (userId) REFERENCES user(id) ON UPDATE no action ON DELETE cascade)`,
      `CREATE TABLE verificationToken (identifier text NOT NULL, token text NOT NULL, expires integer NOT NULL, PRIMARY KEY (identifier, token))`,
      `CREATE TABLE authenticator (credentialID text NOT NULL, userId text NOT NULL, providerAccountId text NOT NULL, credentialPublicKey text NOT NULL, counter integer NOT NULL, credentialDeviceType text NOT NULL, credentialBackedUp integer NOT NULL, transports text, PRIMARY KEY (userId, credentialID), FOREIGN KEY (userId) REFERENCES user(id) ON UPDATE no action ON DELETE cascade)`,
      `CREATE UNIQUE INDEX authenticator_credentialID_unique ON authenticator (credentialID)`,
    ],
  },
  'authjs-typeorm': {
    postgres: [
      `CREATE TABLE users (id uuid NOT NULL DEFAULT gen_random_uuid(), name character varying, email character varying, "emailVerified" character varying, image character varying, CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY (id), CONSTRAINT "UQ_97672ac88f789774dd47f7c8be3" UNIQUE (email))`,
      `CREATE TABLE accounts (id uuid NOT NULL DEFAULT gen_random_uuid(), "userId" uuid NOT NULL, type character varying NOT NULL, provider character varying NOT NULL, "providerAccountId" character varying NOT NULL, refresh_token character varying, access_token character varying, expires_at bigint, token_type character varying, scope character varying, id_token character varying, session_state character varying, CONSTRAINT "PK_5a7a02c20412299d198e097a8fe" PRIMARY KEY (id), CONSTRAINT "FK_3aa23c0a6d107393e8b40e3e2a6" FOREIGN KEY ("userId") REFERENCES users(id) ON DELETE NO ACTION)`,
      `CREATE TABLE sessions (id uuid NOT NULL DEFAULT gen_random_uuid(), "sessionToken" character varying NOT NULL, "userId" uuid NOT NULL, expires character varying NOT NULL, CONSTRAINT "PK_3238ef96f18b355b671619111bc" PRIMARY KEY (id), CONSTRAINT "UQ_8b5e2ec52e335c0fe16d7ec3584" UNIQUE ("sessionToken"), CONSTRAINT "FK_57de40bc620f456c7311aa3a1e6" FOREIGN KEY ("userId") REFERENCES users(id) ON DELETE NO ACTION)`,
      `CREATE TABLE verification_tokens (id uuid NOT NULL DEFAULT gen_random_uuid(), token character varying NOT NULL, identifier character varying NOT NULL, expires character varying NOT NULL, CONSTRAINT "PK_f2d4d7a2aa57ef199e61567db22" PRIMARY KEY (id))`,
    ],
    sqlite: [
      `CREATE TABLE users (id varchar PRIMARY KEY NOT NULL, name varchar, email varchar, emailVerified varchar, image varchar, CONSTRAINT "UQ_97672ac88f789774dd47f7c8be3" UNIQUE (email))`,
      `CREATE TABLE accounts (id varchar PRIMARY KEY NOT NULL, userId varchar NOT NULL, type varchar NOT NULL, provider varchar NOT NULL, providerAccountId varchar NOT NULL, refresh_token varchar, access_token varchar, expires_at bigint, token_type varchar, scope varchar, id_token varchar, session_state varchar, CONSTRAINT "FK_3aa23c0a6d107393e8b40e3e2a6" FOREIGN KEY (userId) REFERENCES users (id) ON DELETE NO ACTION)`,
      `CREATE TABLE sessions (id varchar PRIMARY KEY NOT NULL, sessionToken varchar NOT NULL, userId varchar NOT NULL, expires varchar NOT NULL, CONSTRAINT "UQ_8b5e2ec52e335c0fe16d7ec3584" UNIQUE (sessionToken), CONSTRAINT "FK_57de40bc620f456c7311aa3a1e6" FOREIGN KEY (userId) REFERENCES users (id) ON DELETE NO ACTION)`,
      `CREATE TABLE verification_tokens (id varchar PRIMARY KEY NOT NULL, token varchar NOT NULL, identifier varchar NOT NULL, expires varchar NOT NULL)`,
    ],
  },
  'authjs-prisma': {
    postgres: [
      `CREATE TABLE "User" (id TEXT NOT NULL, name TEXT, email TEXT NOT NULL, "emailVerified" TIMESTAMP(3), image TEXT, CONSTRAINT "User_pkey" PRIMARY KEY (id))`,
      `CREATE UNIQUE INDEX "User_email_key" ON "User"(email)`,
      `CREATE TABLE "Account" ("userId" TEXT NOT NULL, type TEXT NOT NULL, provider TEXT NOT NULL, "providerAccountId" TEXT NOT NULL, refresh_token TEXT, access_token TEXT, expires_at INTEGER, token_type TEXT, scope TEXT, id_token TEXT, session_state TEXT, CONSTRAINT "Account_pkey" PRIMARY KEY (provider, "providerAccountId"), CONSTRAINT "Account_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"(id) ON DELETE CASCADE ON UPDATE CASCADE)`,
      `CREATE TABLE "Session" ("sessionToken" TEXT NOT NULL, "userId" TEXT NOT NULL, expires TIMESTAMP(3) NOT NULL, CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"(id) ON DELETE CASCADE ON UPDATE CASCADE)`,
      `CREATE UNIQUE INDEX "Session_sessionToken_key" ON "Session"("sessionToken")`,
      `CREATE TABLE "VerificationToken" (identifier TEXT NOT NULL, token TEXT NOT NULL, expires TIMESTAMP(3) NOT NULL, CONSTRAINT "VerificationToken_pkey" PRIMARY KEY (identifier, token))`,
      `CREATE UNIQUE INDEX "VerificationToken_token_key" ON "VerificationToken"(token)`,
      `CREATE TABLE "Authenticator" ("credentialID" TEXT NOT NULL, "userId" TEXT NOT NULL, "providerAccountId" TEXT NOT NULL, "credentialPublicKey" TEXT NOT NULL, counter INTEGER NOT NULL, "credentialDeviceType" TEXT NOT NULL, "credentialBackedUp" BOOLEAN NOT NULL, transports TEXT, CONSTRAINT "Authenticator_pkey" PRIMARY KEY ("userId", "credentialID"), CONSTRAINT "Authenticator_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"(id) ON DELETE CASCADE ON UPDATE CASCADE)`,
      `CREATE UNIQUE INDEX "Authenticator_credentialID_key" ON "Authenticator"("credentialID")`,
    ],
    sqlite: [
      `CREATE TABLE "User" (id TEXT NOT NULL PRIMARY KEY, name TEXT, email TEXT NOT NULL, emailVerified DATETIME, image TEXT)`,
      `CREATE UNIQUE INDEX "User_email_key" ON "User"(email)`,
      `CREATE TABLE "Account" (userId TEXT NOT NULL, type TEXT NOT NULL, provider TEXT NOT NULL, providerAccountId TEXT NOT NULL, refresh_token TEXT, access_token TEXT, expires_at INTEGER, token_type TEXT, scope TEXT, id_token TEXT, session_state TEXT, PRIMARY KEY (provider, providerAccountId), CONSTRAINT "Account_userId_fkey" FOREIGN KEY (userId) REFERENCES "User" (id) ON DELETE CASCADE ON UPDATE CASCADE)`,
      `CREATE TABLE "Session" (sessionToken TEXT NOT NULL, userId TEXT NOT NULL, expires DATETIME NOT NULL, CONSTRAINT "Session_userId_fkey" FOREIGN KEY (userId) REFERENCES "User" (id) ON DELETE CASCADE ON UPDATE CASCADE)`,
      `CREATE UNIQUE INDEX "Session_sessionToken_key" ON "Session"(sessionToken)`,
      `CREATE TABLE "VerificationToken" (identifier TEXT NOT NULL, token TEXT NOT NULL, expires DATETIME NOT NULL, PRIMARY KEY (identifier, token))`,
      `CREATE UNIQUE INDEX "VerificationToken_token_key" ON "VerificationToken"(token)`,
      `CREATE TABLE "Authenticator" (credentialID TEXT NOT NULL, userId TEXT NOT NULL, providerAccountId TEXT NOT NULL, credentialPublicKey TEXT NOT NULL, counter INTEGER NOT NULL, credentialDeviceType TEXT NOT NULL, credentialBackedUp BOOLEAN NOT NULL, transports TEXT, PRIMARY KEY (userId, credentialID), CONSTRAINT "Authenticator_userId_fkey" FOREIGN KEY (userId) REFERENCES "User" (id) ON DELETE CASCADE ON UPDATE CASCADE)`,
      `CREATE UNIQUE INDEX "Authenticator_credentialID_key" ON "Authenticator"(credentialID)`,
    ],
  },
};

/** A mapping with renamed (snake_case) tables and columns, and its tables. */
export const SNAKE_MAPPING = {
  user: { table: 'auth_user', columns: { emailVerified: 'email_verified' } },
  account: {
    table: 'auth_account',
    columns: { userId: 'user_id', providerAccountId: 'provider_account_id' },
  },
  // With the optional columns of the device list (beyond SPEC), mapped because these tables have them.
  session: {
    table: 'auth_session',
    columns: {
      sessionToken: 'session_token',
      userId: 'user_id',
      createdAt: 'created_at',
      lastSeenAt: 'last_seen_at',
      userAgent: 'user_agent',
      ip: 'ip',
      providerSid: 'provider_sid',
    },
  },
  verificationToken: { table: 'auth_verification_token' },
  authenticator: {
    table: 'auth_authenticator',
    columns: {
      credentialID: 'credential_id',
      userId: 'user_id',
      providerAccountId: 'provider_account_id',
      credentialPublicKey: 'credential_public_key',
      credentialDeviceType: 'credential_device_type',
      credentialBackedUp: 'credential_backed_up',
      // The passkey's name and last use (beyond SPEC), mapped because these tables have them.
      name: 'passkey_name',
      lastUsedAt: 'last_used_at',
    },
  },
  userId: 'uuid',
  idType: 'text',
  dates: 'native',
  cascade: true,
} as const satisfies AuthSchemaMapping;

export const SNAKE_DDL: Partial<Record<DatabaseName, string[]>> = {
  postgres: [
    `CREATE TABLE auth_user (id text PRIMARY KEY, name text, email text UNIQUE, email_verified timestamptz, image text)`,
    `CREATE TABLE auth_account (user_id text NOT NULL REFERENCES auth_user(id) ON DELETE CASCADE, type text NOT NULL, provider text NOT NULL, provider_account_id text NOT NULL, refresh_token text, access_token text, expires_at bigint, token_type text, scope text, id_token text, session_state text, PRIMARY KEY (provider, provider_account_id))`,
    `CREATE TABLE auth_session (session_token text PRIMARY KEY, user_id text NOT NULL REFERENCES auth_user(id) ON DELETE CASCADE, expires timestamptz NOT NULL, created_at timestamptz, last_seen_at timestamptz, user_agent text, ip text, provider_sid text)`,
    `CREATE TABLE auth_verification_token (identifier text NOT NULL, token text NOT NULL, expires timestamptz NOT NULL, PRIMARY KEY (identifier, token))`,
    `CREATE TABLE auth_authenticator (credential_id text PRIMARY KEY, user_id text NOT NULL REFERENCES auth_user(id) ON DELETE CASCADE, provider_account_id text NOT NULL, credential_public_key text NOT NULL, counter bigint NOT NULL, credential_device_type text NOT NULL, credential_backed_up boolean NOT NULL, transports text, passkey_name text, last_used_at timestamptz)`,
  ],
  mariadb: [
    `CREATE TABLE auth_user (id varchar(64) PRIMARY KEY, name varchar(255), email varchar(255) UNIQUE, email_verified datetime(3), image text) CHARACTER SET utf8mb4`,
    `CREATE TABLE auth_account (user_id varchar(64) NOT NULL, type varchar(32) NOT NULL, provider varchar(191) NOT NULL, provider_account_id varchar(191) NOT NULL, refresh_token text, access_token text, expires_at bigint, token_type varchar(64), scope text, id_token text, session_state text, PRIMARY KEY (provider, provider_account_id), CONSTRAINT auth_account_user FOREIGN KEY (user_id) REFERENCES auth_user(id) ON DELETE CASCADE) CHARACTER SET utf8mb4`,
    `CREATE TABLE auth_session (session_token varchar(255) PRIMARY KEY, user_id varchar(64) NOT NULL, expires datetime(3) NOT NULL, created_at datetime(3), last_seen_at datetime(3), user_agent varchar(255), ip varchar(64), provider_sid varchar(255), CONSTRAINT auth_session_user FOREIGN KEY (user_id) REFERENCES auth_user(id) ON DELETE CASCADE) CHARACTER SET utf8mb4`,
    `CREATE TABLE auth_verification_token (identifier varchar(191) NOT NULL, token varchar(191) NOT NULL, expires datetime(3) NOT NULL, PRIMARY KEY (identifier, token)) CHARACTER SET utf8mb4`,
    `CREATE TABLE auth_authenticator (credential_id varchar(512) PRIMARY KEY, user_id varchar(64) NOT NULL, provider_account_id varchar(512) NOT NULL, credential_public_key text NOT NULL, counter bigint NOT NULL, credential_device_type varchar(32) NOT NULL, credential_backed_up boolean NOT NULL, transports varchar(255), passkey_name varchar(255), last_used_at datetime(3), CONSTRAINT auth_authenticator_user FOREIGN KEY (user_id) REFERENCES auth_user(id) ON DELETE CASCADE) CHARACTER SET utf8mb4`,
  ],
  sqlite: [
    `CREATE TABLE auth_user (id text PRIMARY KEY, name text, email text UNIQUE, email_verified datetime, image text)`,
    `CREATE TABLE auth_account (user_id text NOT NULL REFERENCES auth_user(id) ON DELETE CASCADE, type text NOT NULL, provider text NOT NULL, provider_account_id text NOT NULL, refresh_token text, access_token text, expires_at bigint, token_type text, scope text, id_token text, session_state text, PRIMARY KEY (provider, provider_account_id))`,
    `CREATE TABLE auth_session (session_token text PRIMARY KEY, user_id text NOT NULL REFERENCES auth_user(id) ON DELETE CASCADE, expires datetime NOT NULL, created_at datetime, last_seen_at datetime, user_agent text, ip text, provider_sid text)`,
    `CREATE TABLE auth_verification_token (identifier text NOT NULL, token text NOT NULL, expires datetime NOT NULL, PRIMARY KEY (identifier, token))`,
    `CREATE TABLE auth_authenticator (credential_id text PRIMARY KEY, user_id text NOT NULL REFERENCES auth_user(id) ON DELETE CASCADE, provider_account_id text NOT NULL, credential_public_key text NOT NULL, counter bigint NOT NULL, credential_device_type text NOT NULL, credential_backed_up boolean NOT NULL, transports text, passkey_name text, last_used_at datetime)`,
  ],
};
