// The bare-route baseline of the guard benchmark, started by guard.bench.ts like guard-bench.server.ts
// (pinned to the same core): a Nest app (Express) serving the routes the scenarios load with the
// same handler, and nothing of this library, not even imported. Loaded as the guarded server is, its
// peak RSS is what the same load costs a Nest app without the auth module: the guarded server's
// peak over it is what the module costs under load (code, caches, and what they make V8's heap grow).
import 'reflect-metadata';
import { Controller, createParamDecorator, type ExecutionContext, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import type { BenchServerReady } from './guard-bench.server.js';

/** `@CurrentUser('id')` without the library: the user a guard left on the request, if any. */
const UserId = createParamDecorator(
  (_: unknown, context: ExecutionContext) => context.getArgByIndex<{ user?: { id?: string } }>(0).user?.id,
);

@Controller()
class BareController {
  // Every path a scenario loads (the guarded ones too), the same handler, no guard.
  @Get(['open', 'guarded', 'guarded-api-key', 'allow-all', 'sets-user', 'opens-jwe'])
  open(@UserId() id: string | undefined) {
    return { ok: true, id: id ?? 'anonymous' };
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

/**
 * What the bare app loads beside Nest (the first argument, JSON): with `orm: 'typeorm-postgres'`, a
 * TypeORM DataSource on PostgreSQL, initialised and queried once, that no route uses (what an app
 * whose own code uses TypeORM has loaded before it adds any auth module).
 */
interface BareConfig {
  orm?: 'typeorm-postgres';
  postgresUrl?: string;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as BareConfig;
  if (config.orm === 'typeorm-postgres') {
    const { DataSource } = await import('typeorm');
    const dataSource = await new DataSource({ type: 'postgres', url: config.postgresUrl }).initialize();
    await dataSource.query('SELECT 1');
  }
  const app = await NestFactory.create(BareModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  const ready: BenchServerReady = { port, cookie: '', userId: '', rss, heapUsed };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
  process.once('SIGTERM', () => void app.close().finally(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`bare bench server failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
