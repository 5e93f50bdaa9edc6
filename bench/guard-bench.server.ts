// The server side of the guard benchmark, started by guard.bench.ts in a child process (pinned to
// its own core). It serves one small route through AuthGuard and the same route without it, mints
// a session for the scenario, prints `READY <json>` and runs until SIGTERM.
import 'reflect-metadata';
import { type CanActivate, Controller, Get, Injectable, Module, UseGuards, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AddressInfo } from 'node:net';
import { Adapter } from '../lib/adapters/adapter.interface.js';
import { AuthModule } from '../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { encode } from '../lib/session/jwt.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { CurrentUser } from '../lib/guard/current-user.decorator.js';

/** What the parent asks for (argv[2], JSON). */
export interface BenchServerConfig {
  strategy: 'jwt' | 'database';
  /** TypeORM options of the database (database strategy). */
  database?: Record<string, unknown>;
  /** `session.cacheTtl` in seconds. */
  cacheTtl?: number;
  /** `session.jwtRevocation`. */
  jwtRevocation?: boolean;
  secret: string;
}

/** What the server prints after `READY `. */
export interface BenchServerReady {
  port: number;
  /** The Cookie header that carries the session. */
  cookie: string;
  userId: string;
}

/** The floor: a guard that lets everything through, to show what any Nest guard costs. */
@Injectable()
class AllowAllGuard implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@Controller()
class BenchController {
  @Get('guarded')
  @UseGuards(AuthGuard)
  guarded(@CurrentUser('id') id: string) {
    return { ok: true, id };
  }

  @Get('allow-all')
  @UseGuards(AllowAllGuard)
  allowAll(@CurrentUser('id') id: string | undefined) {
    return { ok: true, id: id ?? 'anonymous' };
  }

  // The same handler, parameter decorator included, without the guard: the difference is the guard.
  @Get('open')
  open(@CurrentUser('id') id: string | undefined) {
    return { ok: true, id: id ?? 'anonymous' };
  }
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as BenchServerConfig;
  const imports: DynamicModule[] = [];
  if (config.database)
    imports.push(TypeOrmModule.forRoot({ ...config.database, autoLoadEntities: true, synchronize: true } as never));
  const options: AuthModuleOptions & AuthModuleExtras = {
    secret: config.secret,
    providers: [],
    trustHost: true,
    session: {
      strategy: config.strategy,
      ...(config.cacheTtl ? { cacheTtl: config.cacheTtl } : {}),
      ...(config.jwtRevocation ? { jwtRevocation: true } : {}),
    },
  };

  @Module({ imports: [...imports, AuthModule.forRoot(options)], controllers: [BenchController] })
  class BenchModule {}

  const app = await NestFactory.create(BenchModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;

  const cookieName = 'authjs.session-token';
  let sessionToken: string;
  let userId: string;
  if (config.strategy === 'jwt') {
    userId = 'bench-user';
    sessionToken = await encode({
      token: { sub: userId, name: 'Bench User', email: 'bench@example.com', picture: null },
      secret: config.secret,
      salt: cookieName,
    });
  } else {
    const adapter = app.get<Adapter>(Adapter, { strict: false });
    const user = await adapter.createUser!({
      email: `bench-${Date.now()}@example.com`,
      name: 'Bench User',
      image: null,
      emailVerified: null,
    } as never);
    userId = user.id;
    sessionToken = `bench-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    await adapter.createSession!({ sessionToken, userId, expires: new Date(Date.now() + 24 * 3600 * 1000) });
  }

  const ready: BenchServerReady = { port, cookie: `${cookieName}=${sessionToken}`, userId };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);

  process.once('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench server failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
