import { afterAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Adapter, InjectAuthAdapter } from '../lib/adapters/adapter.interface.js';
import { AuthModule } from '../lib/auth.module.js';
import { AUTH_CONFIG } from '../lib/config/auth.constants.js';
import type { ResolvedAuthConfig } from '../lib/config/resolved-config.js';
import { AuthConfigurationError } from '../lib/errors/auth.errors.js';
import { TEST_SECRET } from './setup/app.js';

describe('AuthModule bootstrap', () => {
  const apps: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('fails at bootstrap with one message listing every problem', async () => {
    const builder = Test.createTestingModule({
      imports: [
        AuthModule.forRoot({
          secret: 'too-short',
          providers: [
            { id: 'x', name: 'X', type: 'oauth' } as never,
            { id: 'x', name: 'Y', type: 'oauth' } as never,
            { id: 'mail', name: 'Mail', type: 'email', sendVerificationRequest: () => undefined },
          ],
        }),
      ],
    });
    const error = await builder.compile().then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(AuthConfigurationError);
    const message = (error as Error).message;
    expect(message).toMatch(/invalid AuthModule options \(\d+ problems\)/);
    expect(message).toMatch(/secret is too short/);
    expect(message).toMatch(/used by another provider/);
    expect(message).toMatch(/"mail".*needs storage.*TypeOrmModule\.forRoot/);
  });

  it('forRootAsync works with ConfigService and extras at the top level', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthModule.forRootAsync({
          imports: [ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ AUTH_SECRET: TEST_SECRET })] })],
          inject: [ConfigService],
          useFactory: (config: ConfigService) => ({ secret: config.getOrThrow<string>('AUTH_SECRET'), providers: [] }),
          basePath: '/api/auth',
        }),
      ],
    }).compile();
    apps.push(moduleRef);
    const config = moduleRef.get<ResolvedAuthConfig>(AUTH_CONFIG);
    expect(config.secrets).toEqual([TEST_SECRET]);
    expect(config.basePath).toBe('/api/auth');
    expect(config.session.strategy).toBe('jwt');
    expect(moduleRef.get(Adapter)).toBeNull();
  });

  it('instantiates an adapter class through Nest so it can inject its own dependencies', async () => {
    @Injectable()
    class Clock {
      now() {
        return 42;
      }
    }
    @Injectable()
    class ClockAdapter {
      constructor(readonly clock: Clock) {}
      async getUser() {
        return null;
      }
    }
    @Module({ providers: [Clock], exports: [Clock] })
    class ClockModule {}
    @Injectable()
    class Consumer {
      constructor(@InjectAuthAdapter() readonly adapter: ClockAdapter) {}
    }
    const moduleRef = await Test.createTestingModule({
      imports: [AuthModule.forRoot({ secret: TEST_SECRET, providers: [], session: { strategy: 'jwt' }, adapter: { useClass: ClockAdapter, imports: [ClockModule] }, isGlobal: true })],
      providers: [Consumer],
    }).compile();
    apps.push(moduleRef);
    const consumer = moduleRef.get(Consumer);
    expect(consumer.adapter).toBeInstanceOf(ClockAdapter);
    expect(consumer.adapter.clock.now()).toBe(42);
  });

  it('accepts an adapter factory', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthModule.forRoot({
          secret: TEST_SECRET,
          providers: [],
          session: { strategy: 'jwt' },
          adapter: { useFactory: () => ({ getUser: async () => null }) },
        }),
      ],
    }).compile();
    apps.push(moduleRef);
    expect(typeof moduleRef.get<{ getUser: unknown }>(Adapter).getUser).toBe('function');
  });

  it('a real app starts and serves the auth routes', async () => {
    @Module({ imports: [AuthModule.forRoot({ secret: TEST_SECRET, providers: [] })] })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { logger: false });
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address();
    const res = await fetch(`http://127.0.0.1:${port}/auth/csrf`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { csrfToken: string }).csrfToken).toMatch(/^[0-9a-f]{64}$/);
  });
});
