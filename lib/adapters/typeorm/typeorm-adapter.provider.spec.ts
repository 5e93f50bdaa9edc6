import { afterEach, describe, expect, it } from '@jest/globals';
import { Module, type INestApplicationContext, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Adapter } from '../adapter.interface.js';
import { TypeOrmAdapter } from './typeorm.adapter.js';
import { createDefaultAdapterProvider } from './typeorm-adapter.provider.js';
import { authEntities } from './auth-entities.js';

/** A Nest app context with `imports`, and a module that holds the default adapter provider (as AuthModule does). */
async function start(imports: unknown[], provider: Provider): Promise<INestApplicationContext> {
  @Module({ providers: [provider], exports: [provider] })
  class StorageModule {}
  @Module({ imports: [...(imports as never[]), StorageModule] })
  class AppModule {}
  return NestFactory.createApplicationContext(AppModule, { logger: false });
}

describe('createDefaultAdapterProvider', () => {
  let app: INestApplicationContext | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('gives a working TypeOrmAdapter over the app data source, with the entities auto-loaded', async () => {
    const { provider, entities } = createDefaultAdapterProvider();
    expect(entities).toEqual([...authEntities]);
    app = await start(
      [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: ':memory:',
          autoLoadEntities: true,
          synchronize: true,
        }),
      ],
      provider,
    );
    const adapter = app.get<TypeOrmAdapter | null>(Adapter);
    expect(adapter).toBeInstanceOf(TypeOrmAdapter);
    const user = await adapter!.createUser({ id: 'u1', email: 'ada@example.com', emailVerified: null });
    expect(await adapter!.getUserByEmail('ada@example.com')).toEqual(user);
    await adapter!.createSession({ sessionToken: 't1', userId: 'u1', expires: new Date(Date.now() + 60_000) });
    expect((await adapter!.getSessionAndUser('t1'))?.user.id).toBe('u1');
  });

  it('uses a named data source', async () => {
    const { provider } = createDefaultAdapterProvider('auth');
    app = await start(
      [
        TypeOrmModule.forRoot({
          name: 'auth',
          type: 'better-sqlite3',
          database: ':memory:',
          autoLoadEntities: true,
          synchronize: true,
        }),
      ],
      provider,
    );
    const adapter = app.get<TypeOrmAdapter | null>(Adapter);
    expect(adapter).toBeInstanceOf(TypeOrmAdapter);
    await adapter!.createVerificationToken({
      identifier: 'a@example.com',
      token: 'h',
      expires: new Date(Date.now() + 60_000),
    });
    expect(await adapter!.useVerificationToken({ identifier: 'a@example.com', token: 'h' })).not.toBeNull();
  });

  it('yields null, and the app starts, when the app has no TypeORM', async () => {
    app = await start([], createDefaultAdapterProvider().provider);
    expect(app.get(Adapter)).toBeNull();
  });

  it('yields null when the named data source does not exist', async () => {
    app = await start(
      [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: ':memory:',
          autoLoadEntities: true,
          synchronize: true,
        }),
      ],
      createDefaultAdapterProvider('missing').provider,
    );
    expect(app.get(Adapter)).toBeNull();
  });
});
