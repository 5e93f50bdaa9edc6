import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, type INestApplication, Module, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type ClientProxy,
  ClientProxyFactory,
  MessagePattern,
  type MicroserviceOptions,
  Payload,
  Transport,
} from '@nestjs/microservices';
import { createServer } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { AuthModule } from '../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { Public } from '../lib/core/public.decorator.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { CurrentUser } from '../lib/guard/current-user.decorator.js';
import type { User } from '../lib/types/common.types.js';
import { TEST_SECRET } from './setup/app.js';
import { databaseSessions, jwtSession } from './setup/context-sessions.js';

// The shape the README shows: the caller puts `authorization` in the payload.
@Controller()
@UseGuards(AuthGuard)
class OrdersController {
  @MessagePattern('orders.mine')
  mine(@CurrentUser() user: User | undefined, @Payload('limit') limit: number) {
    return { email: user?.email ?? null, limit };
  }

  @MessagePattern('health')
  @Public()
  health(@CurrentUser() user?: User) {
    return { ok: true, user: user ?? null };
  }
}

/** What a message got back: its answer, or the error the server sent instead. */
type Outcome = { answer?: unknown; refused?: unknown };

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An app with AuthModule and a TCP microservice, and a ClientProxy to it. */
async function rpcApp(auth: Partial<AuthModuleOptions> & AuthModuleExtras) {
  @Module({
    imports: [
      AuthModule.forRoot({ secret: TEST_SECRET, providers: [], ...auth } as AuthModuleOptions & AuthModuleExtras),
    ],
    controllers: [OrdersController],
  })
  class RpcAppModule {}
  const port = await freePort();
  const app: INestApplication = await NestFactory.create(RpcAppModule, { logger: false });
  app.connectMicroservice<MicroserviceOptions>({ transport: Transport.TCP, options: { host: '127.0.0.1', port } });
  await app.startAllMicroservices();
  await app.init();
  const client: ClientProxy = ClientProxyFactory.create({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port },
  });
  await client.connect();
  const send = (pattern: string, payload: unknown) =>
    firstValueFrom(client.send<unknown>(pattern, payload)).then(
      (answer): Outcome => ({ answer }),
      (refused: unknown): Outcome => ({ refused }),
    );
  return { send, close: async () => (await client.close(), await app.close()) };
}

describe('Microservices (TCP), rpc: token (the default)', () => {
  let rpc: Awaited<ReturnType<typeof rpcApp>>;
  let sessions: Awaited<ReturnType<typeof databaseSessions>>;
  beforeAll(async () => {
    sessions = await databaseSessions();
    rpc = await rpcApp({ adapter: sessions.adapter, session: { strategy: 'database' } });
  });
  afterAll(() => rpc?.close());

  it('reads `authorization: Bearer <session token>` from the payload', async () => {
    const authorization = `Bearer ${await sessions.session()}`;
    expect(await rpc.send('orders.mine', { authorization, limit: 5 })).toEqual({
      answer: { email: 'db@example.test', limit: 5 },
    });
  });

  it('refuses a message without a valid token with an RpcException carrying the reason', async () => {
    const refused = (payload: unknown) => rpc.send('orders.mine', payload).then((r) => r.refused);
    expect(await refused({ limit: 5 })).toEqual({
      statusCode: 401,
      status: 'error',
      error: 'SessionRequired',
      message: expect.any(String),
    });
    expect(await refused({ authorization: 'Bearer no-such-session' })).toMatchObject({ error: 'InvalidSession' });
    expect(await refused({ authorization: `Bearer ${await sessions.session(-1000)}` })).toMatchObject({
      error: 'SessionExpired',
    });
    // Payloads that are no object, or carry a forged user, never crash the guard or get in.
    for (const payload of [42, 'text', true, [1, 2], { user: { email: 'forged@example.test' } }])
      expect(await refused(payload)).toMatchObject({ error: 'SessionRequired' });
  });

  it('lets @Public() handlers through, and never takes a user from the payload', async () => {
    expect(await rpc.send('health', { user: { email: 'forged@example.test' } })).toEqual({
      answer: { ok: true, user: null },
    });
  });
});

describe('Microservices (TCP), rpc: skip, JWT sessions', () => {
  let rpc: Awaited<ReturnType<typeof rpcApp>>;
  beforeAll(async () => {
    rpc = await rpcApp({ session: { strategy: 'jwt' }, rpc: 'skip' });
  });
  afterAll(() => rpc?.close());

  it('lets every message through unread', async () => {
    expect(await rpc.send('orders.mine', { limit: 1 })).toEqual({ answer: { email: null, limit: 1 } });
    const authorization = `Bearer ${await jwtSession()}`;
    expect(await rpc.send('orders.mine', { authorization, limit: 2 })).toEqual({ answer: { email: null, limit: 2 } });
  });
});

describe('Microservices (TCP), rpc: token, JWT sessions', () => {
  let rpc: Awaited<ReturnType<typeof rpcApp>>;
  beforeAll(async () => {
    rpc = await rpcApp({ session: { strategy: 'jwt' } });
  });
  afterAll(() => rpc?.close());

  it('reads a session JWT from the payload', async () => {
    const authorization = `Bearer ${await jwtSession()}`;
    expect(await rpc.send('orders.mine', { authorization, limit: 3 })).toEqual({
      answer: { email: 'jwt@example.test', limit: 3 },
    });
  });
});

describe('The rpc option', () => {
  it('refuses an unknown value at bootstrap', async () => {
    const options = { secret: TEST_SECRET, providers: [], rpc: 'tokens' } as unknown as AuthModuleOptions;
    await expect(
      NestFactory.create(AuthModule.forRoot(options), { logger: false, abortOnError: false }),
    ).rejects.toThrow(/rpc must be 'token' or 'skip', not "tokens"/);
  });
});
