// The server of bench/route-order.bench.ts: a Nest app (Express) whose feature module serves
// `GET /open` (no guard), with AuthModule (JWT sessions, one OAuth provider, the memory adapter)
// imported before the feature module, after it, or not at all. Express matches a request against
// the routes in the order they were registered, and Nest registers them module by module in the
// order of `imports`: with the auth module first, each request to `/open` is tested against every
// route of the module before it reaches its own.
import 'reflect-metadata';
import { Controller, Get, Module, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { AuthModule } from '../lib/auth.module.js';
import { GitHub } from '../lib/providers/catalog/github.provider.js';
import type { BenchServerReady } from './guard-bench.server.js';

/** Where AuthModule goes in the root module's `imports` (the first argument, JSON). */
export interface RouteOrderConfig {
  auth: 'none' | 'before' | 'after';
  /**
   * Takes the module's gate off its routes once the app has started (each route's `match` back to
   * Express's own), to measure in the same run what the routes cost without it.
   */
  ungated?: boolean;
}

/** What the server reports besides the guard bench's fields: the Express layers before `/open`. */
export interface RouteOrderReady extends BenchServerReady {
  layersBefore: number;
  /** Routes whose `match` is the module's gate rather than Express's own. */
  gatedRoutes: number;
}

@Controller()
class FeatureController {
  @Get('open')
  open() {
    return { ok: true };
  }
}

@Module({ controllers: [FeatureController] })
class FeatureModule {}

async function main(): Promise<void> {
  const { auth, ungated } = JSON.parse(process.argv[2] ?? '{}') as RouteOrderConfig;
  const authModule = AuthModule.forRoot({
    secret: 'route-order-bench-secret-0123456789abcdef0123456789',
    url: 'http://127.0.0.1:3000',
    session: { strategy: 'jwt' },
    providers: [GitHub({ clientId: 'bench', clientSecret: 'bench' })],
    adapter: new MemoryAdapter(),
  });
  const imports: Array<Type | DynamicModule> =
    auth === 'before' ? [authModule, FeatureModule] : auth === 'after' ? [FeatureModule, authModule] : [FeatureModule];
  @Module({ imports })
  class AppModule {}
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const express = app.getHttpAdapter().getInstance() as {
    router?: { stack: Array<{ route?: { path?: string }; match?: unknown }> };
  };
  const stack = express.router?.stack ?? [];
  if (ungated) for (const layer of stack) delete layer.match;
  const layersBefore = stack.findIndex((layer) => layer.route?.path === '/open');
  const gatedRoutes = stack.filter((layer) => Object.hasOwn(layer, 'match')).length;
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  const ready: RouteOrderReady = { port, cookie: '', userId: '', rss, heapUsed, layersBefore, gatedRoutes };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
  process.once('SIGTERM', () => void app.close().finally(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`route-order bench server failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
