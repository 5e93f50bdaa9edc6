// Auth.js's app in the sign-in bench, as its documentation sets it up: `@auth/express` on Express
// 5, `@auth/kysely-adapter` on the bench's SQLite file (better-sqlite3, WAL; the tables its
// documentation gives for SQLite), a Credentials provider whose `authorize` reads the user through
// the adapter and checks the password with the same `verifyPassword` nestjs-auth's app calls (Auth.js
// has no password hashing of its own), and an email provider. Auth.js's credentials sign-in makes JWT
// sessions only; the magic link makes the session kind the parent asks for.
import { ExpressAuth } from '@auth/express';
import Credentials from '@auth/express/providers/credentials';
import { KyselyAdapter } from '@auth/kysely-adapter';
import express from 'express';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Kysely, SqliteDialect } from 'kysely';
import { verifyPassword } from '../lib/methods/credentials/password.js';
import { benchEmail, magicToken, type SigninApp, type SigninServerConfig } from './signin-bench.common.js';

// better-sqlite3 ships no types here.
const { default: Database } = (await import('better-sqlite3' as string)) as {
  default: new (file: string) => { pragma(sql: string): unknown; exec(sql: string): unknown; close(): void };
};

const DDL = [
  `CREATE TABLE "User" (id TEXT PRIMARY KEY NOT NULL, name TEXT, email TEXT NOT NULL UNIQUE, "emailVerified" TEXT, image TEXT)`,
  `CREATE TABLE "Account" (id INTEGER PRIMARY KEY, "userId" TEXT NOT NULL REFERENCES "User"(id) ON DELETE CASCADE, type TEXT NOT NULL, provider TEXT NOT NULL, "providerAccountId" TEXT NOT NULL, refresh_token TEXT, access_token TEXT, expires_at INTEGER, token_type TEXT, scope TEXT, id_token TEXT, session_state TEXT, UNIQUE (provider, "providerAccountId"))`,
  `CREATE TABLE "Session" (id INTEGER PRIMARY KEY, "userId" TEXT NOT NULL REFERENCES "User"(id) ON DELETE CASCADE, "sessionToken" TEXT NOT NULL UNIQUE, expires TEXT NOT NULL)`,
  `CREATE TABLE "VerificationToken" (identifier TEXT NOT NULL, token TEXT NOT NULL UNIQUE, expires TEXT NOT NULL, UNIQUE (identifier, token))`,
];

export async function start(config: SigninServerConfig): Promise<SigninApp> {
  const sqlite = new Database(config.file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  for (const statement of DDL) sqlite.exec(statement);
  const db = new Kysely<never>({ dialect: new SqliteDialect({ database: sqlite as never }) });
  const adapter = KyselyAdapter(db as never);
  const hashes = new Map<string, string>();

  const app = express();
  app.set('trust proxy', true);
  app.use(
    /^\/auth\/(.*)/,
    ExpressAuth({
      providers: [
        Credentials({
          credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
          async authorize({ email, password }) {
            const user = typeof email === 'string' ? await adapter.getUserByEmail!(email) : null;
            if (!(await verifyPassword(String(password), user ? (hashes.get(user.email) ?? null) : null))) return null;
            return { id: user!.id, email: user!.email, name: user!.name ?? null };
          },
        }),
        {
          id: 'email',
          name: 'Email',
          type: 'email',
          maxAge: 3600,
          sendVerificationRequest: async () => undefined,
        } as never,
        ...(config.oidc ? [{ id: 'idp', name: 'IdP', type: 'oidc' as const, ...config.oidc }] : []),
      ],
      adapter,
      session: { strategy: config.session },
      secret: config.secret,
      trustHost: true,
    }),
  );
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(config.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  for (let i = 0; i < config.users; i++) {
    const email = benchEmail(i);
    await adapter.createUser!({ id: '', email, emailVerified: new Date(), name: `Bench User ${i}`, image: null });
    hashes.set(email, config.passwordHash);
  }
  const expires = new Date(Date.now() + 3600_000);
  for (let i = 0; i < config.magicLinks; i++) {
    // What Auth.js stores for an emailed token: SHA-256 of the token and the secret, hex.
    const token = createHash('sha256')
      .update(`${magicToken(config.tokenPrefix, i)}${config.secret}`)
      .digest('hex');
    await adapter.createVerificationToken!({ identifier: benchEmail(i % config.users), token, expires });
  }
  return {
    port,
    ready: {
      sessionCookie: 'authjs.session-token',
      credentials: { path: '/auth/callback/credentials', body: 'form', csrfPath: '/auth/csrf' },
      oauthStart: { path: '/auth/signin/idp', body: 'form', csrfPath: '/auth/csrf' },
      magicLinkPath: '/auth/callback/email?token={token}&email={email}',
      sessionPath: '/auth/session',
    },
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await db.destroy();
    },
  };
}
