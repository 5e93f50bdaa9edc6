// better-auth's app in the sign-in bench, as its documentation sets it up: `betterAuth` on its
// own Kysely storage over a better-sqlite3 database (the bench's SQLite file, WAL), its tables made
// by its own migrations, mounted on Express 5 with `toNodeHandler`; email and password with its own
// default password hashing (scrypt through node:crypto, the cost every library is given here), and
// its magic-link plugin. Sessions are database rows (its only kind; the cookie cache is off by
// default and stays off). Its rate limiter is turned off: at its defaults it would refuse the load.
// For the two-factor flow, its `twoFactor` plugin, and users enrolled as its `/two-factor/enable`
// and first `/verify-totp` leave them (`twoFactorEnabled`, a verified row with the secret encrypted
// by its `symmetricEncrypt`); their password is checked by a `password.verify` on a token-cost
// scrypt hash (the password step is done before timing; the timed step is the code).
import { betterAuth } from 'better-auth';
import { hashPassword, symmetricEncrypt } from 'better-auth/crypto';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { genericOAuth } from 'better-auth/plugins/generic-oauth';
import { magicLink } from 'better-auth/plugins/magic-link';
import { twoFactor } from 'better-auth/plugins/two-factor';
import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyPassword } from '../lib/methods/credentials/password.js';
import {
  BENCH_PASSWORD,
  benchEmail,
  magicToken,
  totpKey,
  twoFactorEmail,
  type SigninApp,
  type SigninServerConfig,
} from './signin-bench.common.js';

// better-sqlite3 ships no types here.
const { default: Database } = (await import('better-sqlite3' as string)) as {
  default: new (file: string) => { pragma(sql: string): unknown; close(): void };
};

export async function start(config: SigninServerConfig): Promise<SigninApp> {
  const sqlite = new Database(config.file);
  sqlite.pragma('journal_mode = WAL');
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(config.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseURL = `http://127.0.0.1:${port}`;

  const options = {
    database: sqlite as never,
    secret: config.secret,
    baseURL,
    trustedOrigins: [baseURL],
    emailAndPassword: {
      enabled: true,
      // The two-factor flow's users have a token-cost hash (see the top of the file); the other
      // flows keep better-auth's own hashing, untouched.
      ...(config.twoFactor
        ? {
            password: {
              hash: () => Promise.reject(new Error('the bench stores its hashes itself')),
              verify: ({ hash, password }: { hash: string; password: string }) => verifyPassword(password, hash),
            },
          }
        : {}),
    },
    plugins: [
      ...(config.twoFactor ? [twoFactor({ issuer: 'Sign-in bench' })] : []),
      magicLink({ sendMagicLink: async () => undefined, expiresIn: 3600 }),
      ...(config.oidc
        ? [
            genericOAuth({
              config: [
                {
                  providerId: 'idp',
                  discoveryUrl: `${config.oidc.issuer}/.well-known/openid-configuration`,
                  clientId: config.oidc.clientId,
                  clientSecret: config.oidc.clientSecret,
                  tokenEndpointAuth: { method: 'client_secret_basic' as const },
                  scopes: ['openid', 'email', 'profile'],
                  pkce: true,
                },
              ],
            }),
          ]
        : []),
    ],
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    logger: { disabled: true },
  };
  const { runMigrations } = await getMigrations(options);
  await runMigrations();
  const auth = betterAuth(options);
  app.all('/api/auth/*splat', toNodeHandler(auth));

  const ctx = await auth.$context;
  // Its own hash of the bench password (`salt:key`, hex), made once: every user has the same password.
  const passwordHash = await hashPassword(BENCH_PASSWORD);
  for (let i = 0; i < config.users; i++) {
    const user = await ctx.internalAdapter.createUser(
      {
        email: benchEmail(i),
        name: `Bench User ${i}`,
        emailVerified: true,
      },
      { method: 'email-password' },
    );
    await ctx.internalAdapter.linkAccount({
      userId: user.id,
      providerId: 'credential',
      accountId: user.id,
      password: passwordHash,
    });
  }
  if (config.twoFactor) {
    for (let i = 0; i < config.twoFactor.users; i++) {
      const user = await ctx.internalAdapter.createUser(
        { email: twoFactorEmail(i), name: `Bench 2FA ${i}`, emailVerified: true },
        { method: 'email-password' },
      );
      await ctx.internalAdapter.updateUser(user.id, { twoFactorEnabled: true });
      await ctx.internalAdapter.linkAccount({
        userId: user.id,
        providerId: 'credential',
        accountId: user.id,
        password: config.twoFactor.passwordHash,
      });
      await ctx.adapter.create({
        model: 'twoFactor',
        data: {
          secret: await symmetricEncrypt({ key: ctx.secretConfig, data: totpKey(config.twoFactor.seed, i) }),
          backupCodes: await symmetricEncrypt({ key: ctx.secretConfig, data: JSON.stringify([]) }),
          userId: user.id,
          verified: true,
        },
      });
    }
  }
  const expiresAt = new Date(Date.now() + 3600_000);
  for (let i = 0; i < config.magicLinks; i++) {
    // What the plugin stores for a link (its default `storeToken: 'plain'`).
    await ctx.internalAdapter.createVerificationValue({
      identifier: `magic-link:${magicToken(config.tokenPrefix, i)}`,
      value: JSON.stringify({ type: 'magic-link', email: benchEmail(i % config.users) }),
      expiresAt,
    });
  }
  return {
    port,
    ready: {
      sessionCookie: 'better-auth.session_token',
      credentials: { path: '/api/auth/sign-in/email', body: 'json' },
      oauthStart: { path: '/api/auth/sign-in/social', body: 'json' },
      magicLinkPath: '/api/auth/magic-link/verify?token={token}&callbackURL=%2F',
      twoFactor: { path: '/api/auth/two-factor/verify-totp', body: 'json' },
      sessionPath: '/api/auth/get-session',
    },
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      sqlite.close();
    },
  };
}
