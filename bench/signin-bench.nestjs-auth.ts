// nestjs-auth's app in the sign-in bench: Nest on Express, the default TypeORM adapter on the
// bench's SQLite file (WAL), a Credentials provider whose `authorize` reads the user through the
// adapter and checks the password with `verifyPassword`, and the Email provider with
// `consumeOnGet: true` (the GET of the link signs in, as Auth.js and better-auth do; the default is a
// confirmation page whose POST signs in). Sessions: JWT or database, as the parent asks. For the
// passkey flow, `Passkey()` (relying party `localhost` at the origin the parent gives; the options
// route's rate limit kept on, at limits the load stays under); for the two-factor flow, the
// `twoFactor` option (policy `optional`) and users with a confirmed authenticator app, stored
// through the adapter as the account API stores them (the secret sealed with the app's secret).
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Adapter } from '../lib/adapters/adapter.interface.js';
import { AuthModule } from '../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { AUTH_CONFIG } from '../lib/config/auth.constants.js';
import type { ResolvedAuthConfig } from '../lib/config/resolved-config.js';
import type { TwoFactorAdapter } from '../lib/adapters/adapter-extensions.js';
import { AdapterService } from '../lib/core/adapter.service.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { verifyPassword } from '../lib/methods/credentials/password.js';
import { hashEmailToken } from '../lib/methods/email/email-token.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { sealTotpSecret } from '../lib/methods/two-factor/totp-secret.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import {
  base32,
  benchEmail,
  magicToken,
  totpKey,
  twoFactorEmail,
  type SigninApp,
  type SigninServerConfig,
} from './signin-bench.common.js';

export async function start(config: SigninServerConfig): Promise<SigninApp> {
  /** The adapter the module made (the default TypeOrmAdapter), set once the app is built. */
  const made: { storage?: Adapter } = {};
  /** The users' password hashes: what an app keeps in a column of its user row, read with it. */
  const hashes = new Map<string, string>();
  const options: AuthModuleOptions & AuthModuleExtras = {
    secret: config.secret,
    trustHost: true,
    // BENCH_SIGNIN_DEBUG=<file>: why sign-ins fail (the bench only sees the error redirect), appended there.
    ...(process.env.BENCH_SIGNIN_DEBUG
      ? {
          logger: {
            error: (error: Error) =>
              appendFileSync(process.env.BENCH_SIGNIN_DEBUG!, `${error.name}: ${error.message}\n`),
          },
        }
      : {}),
    session: { strategy: config.session },
    providers: [
      Credentials({
        credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
        async authorize({ email, password }) {
          const user = typeof email === 'string' ? await made.storage!.getUserByEmail!(email) : null;
          // Always verify (an unknown user is checked against the dummy hash), as the docs ask.
          if (!(await verifyPassword(String(password), user ? (hashes.get(user.email) ?? null) : null))) return null;
          return { id: user!.id, email: user!.email, name: user!.name ?? null };
        },
      }),
      Email({ consumeOnGet: true, maxAge: 3600, sendVerificationRequest: async () => undefined }),
      ...(config.oidc ? [{ id: 'idp', name: 'IdP', type: 'oidc' as const, ...config.oidc }] : []),
      ...(config.passkey
        ? [
            Passkey({
              relyingParty: { id: 'localhost', name: 'Sign-in bench', origin: config.passkey.origin },
              // Counted as in production, at limits the bench's one client address stays under.
              rateLimit: { maxPerIp: 1_000_000_000, maxPerAddress: 1_000_000_000, windowSeconds: 600 },
            }),
          ]
        : []),
    ],
    ...(config.twoFactor ? { twoFactor: { policy: 'optional' as const } } : {}),
  };

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: config.file,
        enableWAL: true,
        autoLoadEntities: true,
        synchronize: true,
      }),
      AuthModule.forRoot(options),
    ],
  })
  class SigninBenchModule {}

  const app = await NestFactory.create(SigninBenchModule, { logger: false });
  await app.listen(config.port ?? 0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const storage = (made.storage = app.get(AdapterService).raw as Adapter);

  for (let i = 0; i < config.users; i++) {
    const email = benchEmail(i);
    await storage.createUser!({ email, emailVerified: new Date(), name: `Bench User ${i}`, image: null } as never);
    hashes.set(email, config.passwordHash);
  }
  if (config.twoFactor) {
    // As the account API leaves an enrolled user: a confirmed TOTP factor, its secret sealed.
    const { secrets } = app.get<ResolvedAuthConfig>(AUTH_CONFIG);
    const factors = storage as Adapter & TwoFactorAdapter;
    for (let i = 0; i < config.twoFactor.users; i++) {
      const email = twoFactorEmail(i);
      const user = await storage.createUser!({
        email,
        emailVerified: new Date(),
        name: `Bench 2FA ${i}`,
        image: null,
      } as never);
      hashes.set(email, config.twoFactor.passwordHash);
      const now = new Date();
      await factors.createTwoFactor({
        id: randomUUID(),
        userId: user.id,
        type: 'totp',
        name: 'Phone',
        secret: sealTotpSecret(base32(Buffer.from(totpKey(config.twoFactor.seed, i))), secrets),
        confirmedAt: now,
        createdAt: now,
        lastUsedAt: null,
        lastUsedStep: null,
      });
    }
  }
  const expires = new Date(Date.now() + 3600_000);
  for (let i = 0; i < config.magicLinks; i++) {
    const identifier = benchEmail(i % config.users);
    const token = hashEmailToken(config.secret, identifier, magicToken(config.tokenPrefix, i));
    await storage.createVerificationToken!({ identifier, token, expires });
  }
  return {
    port,
    ready: {
      sessionCookie: 'authjs.session-token',
      credentials: { path: '/auth/callback/credentials', body: 'form', csrfPath: '/auth/csrf' },
      oauthStart: { path: '/auth/signin/idp', body: 'form', csrfPath: '/auth/csrf' },
      magicLinkPath: '/auth/callback/email?token={token}&email={email}',
      passkey: {
        optionsPath: '/auth/webauthn-options/passkey?action={action}&email={email}',
        verifyPath: '/auth/callback/passkey',
      },
      twoFactor: { path: '/auth/two-factor', body: 'form' },
      sessionPath: '/auth/session',
    },
    close: () => app.close(),
  };
}
