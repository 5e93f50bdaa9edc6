import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type DynamicModule, Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Redis } from 'ioredis';
import { Adapter, InjectAuthAdapter } from '../lib/adapters/adapter.interface.js';
import { authEntities } from '../lib/adapters/typeorm/auth-entities.js';
import { TypeOrmAdapter } from '../lib/adapters/typeorm/typeorm.adapter.js';
import { AuthModule } from '../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions, AuthOptionsFactory } from '../lib/config/auth-options.interface.js';
import { AUTH_CONFIG } from '../lib/config/auth.constants.js';
import type { ResolvedAuthConfig } from '../lib/config/resolved-config.js';
import { AuthConfigurationError } from '../lib/errors/auth.errors.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { MemoryRateLimitStore } from '../lib/rate-limit/memory-rate-limit.store.js';
import { RateLimitStore } from '../lib/rate-limit/rate-limit.store.js';
import { RedisRateLimitStore } from '../lib/rate-limit/redis-rate-limit.store.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { TestClient, location } from './setup/http-client.js';
import { connectRedis, redisAvailable } from './setup/redis.js';

describe('AuthModule bootstrap', () => {
  const apps: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  // promise: config.bootstrap-problems
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
    const error = await builder.compile().then(
      () => null,
      (e: unknown) => e,
    );
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
      imports: [
        AuthModule.forRoot({
          secret: TEST_SECRET,
          providers: [],
          session: { strategy: 'jwt' },
          adapter: { useClass: ClockAdapter, imports: [ClockModule] },
          isGlobal: true,
        }),
      ],
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

  it('forRootAsync builds the options with a useClass factory (createAuthOptions) that injects ConfigService', async () => {
    @Injectable()
    class AuthConfig implements AuthOptionsFactory {
      constructor(private readonly config: ConfigService) {}
      createAuthOptions(): AuthModuleOptions {
        return { secret: this.config.getOrThrow<string>('AUTH_SECRET'), providers: [], session: { maxAge: 600 } };
      }
    }
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthModule.forRootAsync({
          imports: [ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ AUTH_SECRET: TEST_SECRET })] })],
          useClass: AuthConfig,
          rateLimitStore: MemoryRateLimitStore,
        }),
      ],
    }).compile();
    apps.push(moduleRef);
    const config = moduleRef.get<ResolvedAuthConfig>(AUTH_CONFIG);
    expect(config.secrets).toEqual([TEST_SECRET]);
    expect(config.session.maxAge).toBe(600);
    expect(moduleRef.get(RateLimitStore)).toBeInstanceOf(MemoryRateLimitStore);
  });

  it('forRootAsync uses an existing options factory (useExisting) from an imported module', async () => {
    let calls = 0;
    @Injectable()
    class SharedAuthConfig implements AuthOptionsFactory {
      async createAuthOptions(): Promise<AuthModuleOptions> {
        calls++;
        return { secret: TEST_SECRET, providers: [], debug: true };
      }
    }
    @Module({ providers: [SharedAuthConfig], exports: [SharedAuthConfig] })
    class SharedConfigModule {}
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthModule.forRootAsync({ imports: [SharedConfigModule], useExisting: SharedAuthConfig, basePath: '/login' }),
      ],
    }).compile();
    apps.push(moduleRef);
    const config = moduleRef.get<ResolvedAuthConfig>(AUTH_CONFIG);
    expect(config.debug).toBe(true);
    expect(config.basePath).toBe('/login');
    expect(calls).toBe(1);
  });

  // promise: config.bootstrap-problems
  it('fails at bootstrap on typos in forRootAsync: every unknown key, with the key it is close to', async () => {
    const builder = Test.createTestingModule({
      imports: [
        AuthModule.forRootAsync({
          useFactory: () => ({ secret: TEST_SECRET, providers: [], sesion: { strategy: 'jwt' } }) as AuthModuleOptions,
          globalGaurd: true,
          basePath: '/auth',
        } as Parameters<typeof AuthModule.forRootAsync>[0]),
      ],
    });
    const error = await builder.compile().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthConfigurationError);
    expect((error as AuthConfigurationError).problems).toEqual([
      expect.stringMatching(/unknown option `sesion`: did you mean `session`\?/),
      expect.stringMatching(/unknown option `globalGaurd`: did you mean `globalGuard`\?/),
    ]);
  });

  // promise: config.bootstrap-problems
  it('fails at bootstrap on typos in forRoot, and on an option given next to useFactory', async () => {
    const forRoot = await Test.createTestingModule({
      imports: [
        AuthModule.forRoot({ secret: TEST_SECRET, providers: [], globalGaurd: true, sesion: {} } as AuthModuleOptions &
          AuthModuleExtras),
      ],
    })
      .compile()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect((forRoot as AuthConfigurationError).problems).toEqual([
      expect.stringMatching(/unknown option `globalGaurd`: did you mean `globalGuard`\?/),
      expect.stringMatching(/unknown option `sesion`: did you mean `session`\?/),
    ]);
    const misplaced = await Test.createTestingModule({
      imports: [
        AuthModule.forRootAsync({
          useFactory: () => ({ secret: TEST_SECRET, providers: [] }),
          secret: TEST_SECRET,
        } as Parameters<typeof AuthModule.forRootAsync>[0]),
      ],
    })
      .compile()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(misplaced).toBeInstanceOf(AuthConfigurationError);
    expect((misplaced as AuthConfigurationError).problems).toEqual([
      expect.stringMatching(/`secret` is an option, not a module setting/),
    ]);
  });
});

const withRedis = await redisAvailable('rate-limit store as a provider');

(withRedis ? describe : describe.skip)('the rate-limit store, shared by two app instances through Redis', () => {
  const REDIS = Symbol('REDIS');
  const prefix = `nestjs-auth-test:${randomUUID()}:`;
  const LOCKOUT = { maxAttempts: 3, maxAttemptsPerIp: 1000, windowSeconds: 60 };
  const clients: Redis[] = [];

  /** The app's Redis client as a provider; global, as an app's Redis module usually is. */
  @Global()
  @Module({})
  class RedisModule {
    static with(client: Redis): DynamicModule {
      return { module: RedisModule, providers: [{ provide: REDIS, useValue: client }], exports: [REDIS] };
    }
  }

  /** A store class that gets the app's client injected. */
  @Injectable()
  class AppRedisStore extends RedisRateLimitStore {
    constructor(@Inject(REDIS) client: Redis) {
      super(client, { prefix });
    }
  }

  const forms: Array<[string, (client: Redis) => Partial<AuthModuleOptions> & AuthModuleExtras]> = [
    ['a class with an injected client (rateLimitStore)', () => ({ rateLimitStore: AppRedisStore })],
    [
      'a factory injecting the client (rateLimitStore)',
      () => ({
        rateLimitStore: { useFactory: (client: Redis) => new RedisRateLimitStore(client, { prefix }), inject: [REDIS] },
      }),
    ],
    ['an instance (rateLimitStore)', (client) => ({ rateLimitStore: new RedisRateLimitStore(client, { prefix }) })],
  ];

  beforeAll(async () => {
    for (let i = 0; i < 2 * forms.length; i++) clients.push((await connectRedis())!);
  });
  afterAll(async () => {
    const keys = await clients[0]!.keys(`${prefix}*`);
    if (keys.length) await clients[0]!.del(...keys);
    await Promise.all(clients.map((c) => c.quit()));
  });

  describe.each(forms.map(([label, auth], i) => ({ label, auth, i })))('given as $label', ({ auth, i }) => {
    const apps: TestApp[] = [];
    const email = `${randomUUID()}@example.test`;
    beforeAll(async () => {
      for (const client of [clients[2 * i]!, clients[2 * i + 1]!]) {
        const provider = Credentials({
          credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
          lockout: LOCKOUT,
          authorize: async (c) => (c.email === email && c.password === 'right' ? { id: 'u1', email } : null),
        });
        apps.push(
          await createTestApp({
            imports: [RedisModule.with(client)],
            auth: { providers: [provider], ...auth(client) },
          }),
        );
      }
    });
    afterAll(() => Promise.all(apps.map((a) => a.close())));

    const attempt = async (app: TestApp, password: string) => {
      const client = new TestClient(app.url);
      const csrfToken = await client.csrf();
      const res = await client.post('/auth/callback/credentials', {
        csrfToken,
        email,
        password,
        callbackUrl: '/public',
      });
      return location(res).searchParams.get('error');
    };

    it('counts failed attempts made on either instance, and locks the account out on both', async () => {
      const [a, b] = apps as [TestApp, TestApp];
      expect(a.app.get(RateLimitStore)).toBeInstanceOf(RedisRateLimitStore);
      expect(a.app.get(RateLimitStore)).not.toBe(b.app.get(RateLimitStore));
      expect(await attempt(a, 'wrong')).toBe('CredentialsSignin');
      expect(await attempt(b, 'wrong')).toBe('CredentialsSignin');
      expect(await attempt(a, 'wrong')).toBe('CredentialsSignin');
      // The fourth try, on the other instance, is refused before the password is checked.
      expect(await attempt(b, 'right')).toBe('RateLimited');
      expect(await attempt(a, 'right')).toBe('RateLimited');
      expect((await clients[0]!.keys(`${prefix}*`)).length).toBeGreaterThan(0);
    });
  });
});

// promise: typeorm.default-adapter-entities
// An app that uses TypeORM for its own tables, lists its entities by hand and passes no adapter.
@Entity('notes')
class Note {
  @PrimaryGeneratedColumn() id!: number;
  @Column('text') text!: string;
}

describe('the default TypeORM adapter, in an app that lists its own entities (real SQLite)', () => {
  const sqlite = (entities: Function[]) =>
    TypeOrmModule.forRoot({ type: 'better-sqlite3', database: ':memory:', entities, synchronize: true });

  async function boot(entities: Function[], session?: AuthModuleOptions['session'], extras: AuthModuleExtras = {}) {
    const lines: string[] = [];
    const spy = jest.spyOn(Logger.prototype, 'log').mockImplementation(function (this: Logger, message: unknown) {
      if ((this as unknown as { context?: string }).context === 'AuthModule') lines.push(String(message));
    });
    try {
      const moduleRef = await Test.createTestingModule({
        imports: [sqlite(entities), AuthModule.forRoot({ secret: TEST_SECRET, providers: [], session, ...extras })],
      }).compile();
      return { moduleRef, lines };
    } finally {
      spy.mockRestore();
    }
  }

  it('fails at bootstrap, saying to add autoLoadEntities or authEntities, when the data source lacks the entities', async () => {
    const error = await boot([Note]).then(
      ({ moduleRef }) => moduleRef.close().then(() => null),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthConfigurationError);
    const message = (error as Error).message;
    expect(message).toMatch(/no `adapter`.*TypeOrmAdapter.*UserEntity/);
    expect(message).toContain('autoLoadEntities: true');
    expect(message).toContain('entities: [...authEntities, ...yours]');
  });

  it('boots with the entities listed, and says it picked database sessions and why', async () => {
    const { moduleRef, lines } = await boot([Note, ...authEntities]);
    try {
      expect(moduleRef.get(Adapter)).toBeInstanceOf(TypeOrmAdapter);
      expect(moduleRef.get<ResolvedAuthConfig>(AUTH_CONFIG).session.strategy).toBe('database');
      expect(lines).toEqual([
        expect.stringMatching(
          /session\.strategy is not set: using database sessions, because no `adapter` was given and a TypeORM data source .* is, so the default TypeOrmAdapter/,
        ),
      ]);
      // The adapter works: a user round-trips through the app's data source.
      const adapter = moduleRef.get<TypeOrmAdapter>(Adapter);
      const user = await adapter.createUser({ id: randomUUID(), email: 'note@example.test', emailVerified: null });
      expect((await adapter.getUserByEmail('note@example.test'))?.id).toBe(user.id);
    } finally {
      await moduleRef.close();
    }
  });

  it('`adapter: null` leaves the data source alone: no adapter, JWT sessions, nothing logged', async () => {
    const { moduleRef, lines } = await boot([Note, ...authEntities], undefined, { adapter: null });
    try {
      expect(moduleRef.get(Adapter)).toBeNull();
      expect(moduleRef.get<ResolvedAuthConfig>(AUTH_CONFIG).session.strategy).toBe('jwt');
      expect(lines).toEqual([]);
    } finally {
      await moduleRef.close();
    }
    const error = await boot([Note, ...authEntities], { strategy: 'database' }, { adapter: null }).then(
      ({ moduleRef: ref }) => ref.close().then(() => null),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthConfigurationError);
    expect((error as Error).message).toMatch(/session\.strategy is 'database' but no adapter is available/);
  });

  it('logs nothing about the strategy when the app chose it', async () => {
    const { moduleRef, lines } = await boot([Note, ...authEntities], { strategy: 'jwt' });
    await moduleRef.close();
    expect(lines).toEqual([]);
  });
});
