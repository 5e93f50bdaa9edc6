// The server side of the refresh-token benchmark, started by refresh.bench.ts in a child process
// (pinned to its own core, as the guard bench's server is). One Nest app (Express) with native apps
// on the default TypeORM adapter: a password (Credentials) provider, `nativeApps` with one client,
// `accessToken.issuer`, database sessions, and a guarded route to prove the access tokens work. It
// stores `users` users, prints `READY <json>` and runs until SIGTERM; the families (sign-ins) are
// made over HTTP by the parent, through the authorization route and the token route.
import 'reflect-metadata';
import { Controller, type DynamicModule, Get, Module, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AddressInfo } from 'node:net';
import type { Adapter } from '../lib/adapters/adapter.interface.js';
import { AuthModule } from '../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { AdapterService } from '../lib/core/adapter.service.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { CurrentUser } from '../lib/guard/current-user.decorator.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';

/** What the parent asks for (argv[2], JSON). */
export interface RefreshServerConfig {
  secret: string;
  /** TypeORM options of the database (synchronized at start). */
  database: Record<string, unknown>;
  /** Users to store, each of whom the parent signs in once (one refresh-token family each). */
  users: number;
}

/** What the server prints after `READY `. */
export interface RefreshServerReady {
  port: number;
  /** The stored users' emails, in order (their password is `password`). */
  emails: string[];
  password: string;
  clientId: string;
  redirectUri: string;
  issuer: string;
  /** Resident set size after start-up and seeding, bytes. */
  rss: number;
}

const PASSWORD = 'correct horse battery staple';
const CLIENT_ID = 'bench-app';
const REDIRECT_URI = 'com.example.bench:/oauth';
const ISSUER = 'https://api.bench.example/auth';

@Controller()
class RefreshBenchController {
  /** What an app calls with its access token (`Authorization: Bearer`): the bench checks tokens here. */
  @Get('guarded')
  @UseGuards(AuthGuard)
  guarded(@CurrentUser('id') id: string) {
    return { ok: true, id };
  }
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as RefreshServerConfig;
  /** The adapter the module made (the default TypeOrmAdapter), set once the app is built. */
  const made: { storage?: Adapter } = {};
  const imports: DynamicModule[] = [
    TypeOrmModule.forRoot({ ...config.database, autoLoadEntities: true, synchronize: true } as never),
  ];
  const options: AuthModuleOptions & AuthModuleExtras = {
    secret: config.secret,
    trustHost: true,
    session: { strategy: 'database' },
    accessToken: { issuer: ISSUER },
    nativeApps: { clients: [{ clientId: CLIENT_ID, name: 'Bench app', redirectUris: [REDIRECT_URI] }] },
    providers: [
      Credentials({
        credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
        async authorize({ email, password }) {
          const user = typeof email === 'string' ? await made.storage!.getUserByEmail!(email) : null;
          return user && password === PASSWORD ? { id: user.id, email: user.email, name: user.name ?? null } : null;
        },
      }),
    ],
  };

  @Module({ imports: [...imports, AuthModule.forRoot(options)], controllers: [RefreshBenchController] })
  class RefreshBenchModule {}

  const app = await NestFactory.create(RefreshBenchModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const storage = (made.storage = app.get(AdapterService).raw as Adapter);

  const prefix = `refresh-bench-${Date.now().toString(36)}`;
  const emails: string[] = [];
  for (let i = 0; i < Math.max(1, config.users); i++) {
    const email = `${prefix}-${i}@example.com`;
    await storage.createUser!({ email, emailVerified: null, name: `Bench User ${i}`, image: null } as never);
    emails.push(email);
  }
  (globalThis as { gc?: () => void }).gc?.();

  const ready: RefreshServerReady = {
    port,
    emails,
    password: PASSWORD,
    clientId: CLIENT_ID,
    redirectUri: REDIRECT_URI,
    issuer: ISSUER,
    rss: process.memoryUsage().rss,
  };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
  process.once('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`refresh bench server failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
