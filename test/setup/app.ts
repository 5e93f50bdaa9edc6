import {
  Controller,
  Get,
  type DynamicModule,
  type INestApplication,
  Module,
  type Provider,
  type Type,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { AuthModule } from '../../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../../lib/config/auth-options.interface.js';
import { AuthGuard } from '../../lib/guard/auth.guard.js';
import { AuthSession, CurrentUser } from '../../lib/guard/current-user.decorator.js';
import { SkipSessionCache } from '../../lib/core/public.decorator.js';
import type { Session } from '../../lib/types/common.types.js';

/** A secret for tests (32+ characters). */
export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789';

@Controller()
class TestRoutesController {
  /** Guarded: the signed-in user and session. */
  @Get('me')
  @UseGuards(AuthGuard)
  me(@CurrentUser() user: unknown, @AuthSession() session: Session) {
    return { user, session };
  }

  /** Guarded: changes the user and session it was given (they must not leak into the next request). */
  @Get('me/scribble')
  @UseGuards(AuthGuard)
  scribble(@CurrentUser() user: Record<string, unknown>, @AuthSession() session: Session) {
    user.name = 'scribbled';
    user.extra = true;
    session.expires = 'scribbled';
    return { ok: true };
  }

  /** Guarded, and always checked against the database (`@SkipSessionCache()`). */
  @Get('me/fresh')
  @UseGuards(AuthGuard)
  @SkipSessionCache()
  fresh(@CurrentUser('id') id: string) {
    return { id };
  }

  /** Not guarded. */
  @Get('public')
  open() {
    return { ok: true };
  }
}

/** The HTTP platform the e2e suites run on: `AUTH_TEST_PLATFORM=fastify`, else Express. */
export type TestPlatform = 'express' | 'fastify';
export const TEST_PLATFORM: TestPlatform = process.env.AUTH_TEST_PLATFORM === 'fastify' ? 'fastify' : 'express';

export interface TestAppOptions {
  /** AuthModule options and extras (secret defaults to TEST_SECRET). */
  auth: Partial<AuthModuleOptions> & AuthModuleExtras;
  /** Extra modules (e.g. TypeOrmModule.forRoot(...)). */
  imports?: Array<Type<unknown> | DynamicModule>;
  controllers?: Type<unknown>[];
  providers?: Provider[];
  /** Log Nest's messages (off by default to keep test output readable). */
  logger?: boolean;
  /** The HTTP platform (default: {@link TEST_PLATFORM}). */
  platform?: TestPlatform;
  /** `app.enableCors(cors)` before listening (the app's own CORS, which the library never sets). */
  cors?: Parameters<INestApplication['enableCors']>[0];
  /** `app.setGlobalPrefix(globalPrefix)` before listening. */
  globalPrefix?: string;
}

export interface TestApp {
  app: INestApplication;
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a Nest app (Express, or Fastify: {@link TestAppOptions.platform}) with AuthModule on 127.0.0.1 (random port), a guarded `GET /me`
 * and an open `GET /public`.
 */
export async function createTestApp(options: TestAppOptions): Promise<TestApp> {
  const { auth } = options;
  @Module({
    imports: [
      ...(options.imports ?? []),
      AuthModule.forRoot({ secret: TEST_SECRET, providers: [], ...auth } as AuthModuleOptions & AuthModuleExtras),
    ],
    controllers: [TestRoutesController, ...(options.controllers ?? [])],
    providers: options.providers ?? [],
  })
  class TestAppModule {}

  return listenTestApp(TestAppModule, options);
}

/**
 * Starts a Nest app of `module` on 127.0.0.1 (random port), on the project's HTTP platform (or
 * `options.platform`): what {@link createTestApp} does with the module it builds, for suites that
 * build their own (an adapter from `forRootAsync`, say).
 */
export async function listenTestApp(
  module: Type<unknown>,
  options: Pick<TestAppOptions, 'logger' | 'platform' | 'cors' | 'globalPrefix'> = {},
): Promise<TestApp> {
  const logger = options.logger ? undefined : false;
  const platform = options.platform ?? TEST_PLATFORM;
  const app =
    platform === 'fastify'
      ? // Loaded only on Fastify runs: every suite loads this file, and the Express project need not pay for Fastify.
        await NestFactory.create(module, new (await import('@nestjs/platform-fastify')).FastifyAdapter(), { logger })
      : await NestFactory.create(module, { logger });
  if (options.cors) app.enableCors(options.cors);
  if (options.globalPrefix) app.setGlobalPrefix(options.globalPrefix);
  await app.listen(0, '127.0.0.1');
  // Fastify answers through supertest's `app.getHttpServer()` only once its plugins are loaded.
  if (platform === 'fastify') await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
