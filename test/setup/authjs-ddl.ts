import type { AuthSchemaPreset } from '../../lib/adapters/typeorm/schema-mapping.js';
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
  'authjs-typeorm': {},
  'authjs-prisma': {},
};
