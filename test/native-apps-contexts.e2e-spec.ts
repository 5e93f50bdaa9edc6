/**
 * A native app's access token (RFC 8252, `nativeApps`; an EdDSA JWT, `typ: at+jwt`) in every context
 * `AuthGuard` runs in besides HTTP routes: GraphQL over HTTP (`Authorization: Bearer`) and a
 * graphql-ws subscription (`connectionParams.authorization`), WebSocket gateways (socket.io's
 * handshake `auth.token`, the ws upgrade's `Authorization` header) and a TCP microservice (the
 * payload's `authorization: 'Bearer …'`). In each: the token is accepted with its user; a token with
 * a tampered signature (or claims) is refused; once the app's sign-in is revoked (`POST
 * /auth/revoke` with its refresh token) the same access token is refused there too, on a new
 * connection and on one opened before, while another sign-in's token still gets in. The user and the
 * tokens come from the app over HTTP, as test/native-apps.e2e-spec.ts gets them (oauth4webapi as the
 * app, a cookie-keeping client as the system browser). Each app runs on the project's HTTP platform
 * (Express or Fastify).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import {
  Controller,
  type DynamicModule,
  type INestApplication,
  Module,
  type Provider,
  type Type,
  UseGuards,
  type WebSocketAdapter,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Field, GraphQLModule, ObjectType, Query, Resolver, Subscription } from '@nestjs/graphql';
import {
  type ClientProxy,
  ClientProxyFactory,
  MessagePattern,
  type MicroserviceOptions,
  Payload,
  Transport,
} from '@nestjs/microservices';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { WsAdapter } from '@nestjs/platform-ws';
import { type OnGatewayConnection, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { type Client, createClient } from 'graphql-ws';
import { firstValueFrom } from 'rxjs';
import { io, type Socket } from 'socket.io-client';
import { WebSocket } from 'ws';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { AuthModule } from '../lib/auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { Auth } from '../lib/core/public.decorator.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { AuthSession, CurrentUser } from '../lib/guard/current-user.decorator.js';
import { graphqlContext } from '../lib/guard/graphql-ws.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import type { Session, User } from '../lib/types/common.types.js';
import { TEST_PLATFORM, TEST_SECRET } from './setup/app.js';
import { TestClient } from './setup/http-client.js';
import { appOf, authorizeInBrowser } from './setup/native-app.js';

const ISSUER = 'https://api.example.test/auth';
const PASSWORD = 'correct horse battery';
const SCHEME_REDIRECT = 'com.example.app:/oauth';

// ---- the app under test ------------------------------------------------------------------------

/** AuthModule's options: native apps on, a password sign-in for the browser step. */
function authOptions(
  adapter: MemoryAdapter,
  strategy: 'jwt' | 'database',
): Partial<AuthModuleOptions> & AuthModuleExtras {
  return {
    adapter,
    session: { strategy },
    logger: { error: () => undefined, warn: () => undefined },
    accessToken: { issuer: ISSUER },
    apiKeys: { rateLimit: false },
    nativeApps: { clients: [{ clientId: 'ios', name: 'Acme for iOS', redirectUris: [SCHEME_REDIRECT] }] },
    providers: [
      Credentials({
        credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
        async authorize({ email, password }) {
          const user = typeof email === 'string' ? await adapter.getUserByEmail(email) : null;
          return user && password === PASSWORD ? { id: user.id, email: user.email, name: user.name ?? null } : null;
        },
      }),
    ],
  };
}

interface ContextApp {
  app: INestApplication;
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  adapter: MemoryAdapter;
  /** With `rpc: true`: a TCP ClientProxy to the app's microservice. */
  send?: (pattern: string, payload: unknown) => Promise<{ answer?: unknown; refused?: unknown }>;
  close(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (for the microservice). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * An app with AuthModule (native apps on) on the project's HTTP platform at 127.0.0.1, with the
 * given modules, providers (resolvers, gateways) and controllers; a WebSocket adapter when given,
 * and a TCP microservice with a client to it when `rpc` is set.
 */
async function startApp(options: {
  strategy: 'jwt' | 'database';
  imports?: Array<Type<unknown> | DynamicModule>;
  providers?: Provider[];
  controllers?: Type<unknown>[];
  wsAdapter?: (app: INestApplication) => WebSocketAdapter;
  rpc?: boolean;
}): Promise<ContextApp> {
  const adapter = new MemoryAdapter();
  @Module({
    imports: [
      ...(options.imports ?? []),
      AuthModule.forRoot({ secret: TEST_SECRET, ...authOptions(adapter, options.strategy) } as AuthModuleOptions &
        AuthModuleExtras),
    ],
    providers: options.providers ?? [],
    controllers: options.controllers ?? [],
  })
  class ContextAppModule {}

  const app =
    TEST_PLATFORM === 'fastify'
      ? await NestFactory.create(ContextAppModule, new FastifyAdapter(), { logger: false })
      : await NestFactory.create(ContextAppModule, { logger: false });
  if (options.wsAdapter) app.useWebSocketAdapter(options.wsAdapter(app));
  let client: ClientProxy | undefined;
  if (options.rpc) {
    const port = await freePort();
    app.connectMicroservice<MicroserviceOptions>({ transport: Transport.TCP, options: { host: '127.0.0.1', port } });
    await app.startAllMicroservices();
    client = ClientProxyFactory.create({ transport: Transport.TCP, options: { host: '127.0.0.1', port } });
  }
  await app.listen(0, '127.0.0.1');
  if (TEST_PLATFORM === 'fastify') await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
  const { port } = app.getHttpServer().address() as AddressInfo;
  if (client) await client.connect();
  const send = client
    ? (pattern: string, payload: unknown) =>
        firstValueFrom(client.send<unknown>(pattern, payload)).then(
          (answer) => ({ answer }),
          (refused: unknown) => ({ refused }),
        )
    : undefined;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    adapter,
    send,
    close: async () => {
      await client?.close();
      await app.close();
    },
  };
}

// ---- the native app and the system browser (as in test/native-apps.e2e-spec.ts) --------------------

interface SignedInApp {
  userId: string;
  email: string;
  accessToken: string;
  refreshToken: string;
  /** The app signs out: RFC 7009 revocation of its refresh token (the whole sign-in ends). */
  revoke(): Promise<void>;
}

/** A new user, signed in on the native app through the browser: the app's token pair. */
async function signedInApp(t: ContextApp): Promise<SignedInApp> {
  const email = `${randomUUID()}@example.test`;
  const user = await t.adapter.createUser({ email, emailVerified: null, name: 'App User' } as never);
  const app = appOf(t.url);
  const req = await app.request();
  const redirect = await authorizeInBrowser(new TestClient(t.url), req.url, email);
  const tokens = await app.exchange(req, redirect);
  expect(tokens.access_token.split('.')).toHaveLength(3);
  expect(JSON.parse(Buffer.from(tokens.access_token.split('.')[0]!, 'base64url').toString())).toMatchObject({
    alg: 'EdDSA',
    typ: 'at+jwt',
  });
  return {
    userId: user.id,
    email,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token!,
    async revoke() {
      const res = await app.revoke(tokens.refresh_token!);
      expect(res.status).toBe(200);
      // The revocation took over HTTP: /auth/session shows no session for the token any more.
      const session = await fetch(`${t.url}/auth/session`, { headers: bearer(tokens.access_token) });
      expect({ status: session.status, body: (await session.json()) as unknown }).toEqual({ status: 200, body: null });
    },
  };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The token with one character of its signature changed (same header and claims). */
function tamperedSignature(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const i = Math.floor(s.length / 2);
  return `${h}.${p}.${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
}

/** The token with its `sub` changed to another user's (the signature no longer covers it). */
function tamperedClaims(token: string, sub: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  return `${h}.${Buffer.from(JSON.stringify({ ...claims, sub })).toString('base64url')}.${s}`;
}

// ---- GraphQL -----------------------------------------------------------------------------------

@ObjectType()
class AppViewer {
  @Field(() => String) id!: string;
  @Field(() => String, { nullable: true }) email?: string | null;
  @Field(() => String, { nullable: true }) expires?: string;
}

@Resolver(() => AppViewer)
class AppViewerResolver {
  @Query(() => AppViewer)
  @UseGuards(AuthGuard)
  viewer(@CurrentUser() user: User, @AuthSession() session: Session): AppViewer {
    return { id: String(user.id), email: user.email, expires: session.expires };
  }

  /** Only API keys with `notes:read` (`@Auth()` in GraphQL). */
  @Query(() => String)
  @UseGuards(AuthGuard)
  @Auth({ accept: ['apiKey'], scopes: ['notes:read'] })
  notes(@CurrentUser() user: User): string {
    return `notes of ${user.id}`;
  }

  @Subscription(() => String, { resolve: (value: string) => value })
  @UseGuards(AuthGuard)
  async *ticks(@CurrentUser() user: User): AsyncGenerator<string> {
    yield `tick for ${user.id} ${user.email}`;
  }
}

interface GraphQLAnswer {
  status: number;
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

type SubscriptionAnswer = {
  data?: unknown;
  errors?: GraphQLAnswer['errors'];
  closed?: { code: number; reason: string };
};

describe('native app access token in GraphQL (HTTP queries and graphql-ws subscriptions), JWT sessions', () => {
  let t: ContextApp;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startApp({
      strategy: 'jwt',
      imports: [
        GraphQLModule.forRootAsync<ApolloDriverConfig>({
          driver: ApolloDriver,
          inject: [AuthService],
          useFactory: (auth: AuthService) => ({
            autoSchemaFile: true,
            context: graphqlContext,
            subscriptions: { 'graphql-ws': { ...auth.graphqlWsOptions() } },
          }),
        }),
      ],
      providers: [AppViewerResolver],
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
  });
  afterAll(() => t?.close());

  async function ask(query: string, headers: Record<string, string> = {}): Promise<GraphQLAnswer> {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, ...((await res.json()) as Omit<GraphQLAnswer, 'status'>) };
  }

  function expectRefused(answer: GraphQLAnswer, reason: string) {
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason });
    expect(answer.data ?? null).toBeNull();
  }

  function wsClient(authorization: string): Client {
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization },
      retryAttempts: 0,
    });
    clients.push(client);
    return client;
  }

  /** Subscribes once; resolves with the first event, the GraphQL errors, or the close code and reason. */
  function subscribeOnce(client: Client): Promise<SubscriptionAnswer> {
    return new Promise<SubscriptionAnswer>((resolve, reject) => {
      const stop = client.subscribe(
        { query: 'subscription { ticks }' },
        {
          next: (value) => {
            stop();
            resolve(value as SubscriptionAnswer);
          },
          error: (error: unknown) => {
            if (Array.isArray(error)) resolve({ errors: error as GraphQLAnswer['errors'] });
            else if (error && typeof (error as { code?: unknown }).code === 'number') {
              const { code, reason } = error as { code: number; reason: string };
              resolve({ closed: { code, reason } });
            } else reject(error instanceof Error ? error : new Error(String(error)));
          },
          complete: () => reject(new Error('completed without an answer')),
        },
      );
    });
  }

  // promise: guard.credentials
  it('@Auth() in GraphQL: an API key with the scope passes; without it FORBIDDEN, another kind UNAUTHENTICATED', async () => {
    const a = await signedInApp(t);
    const auth = t.app.get(AuthService);
    const reader = await auth.createApiKey(a.userId, { name: 'reader', scopes: ['notes:read'] });
    const other = await auth.createApiKey(a.userId, { name: 'other', scopes: ['notes:write'] });
    expect((await ask('{ notes }', bearer(reader.key))).data?.notes).toBe(`notes of ${a.userId}`);
    const forbidden = await ask('{ notes }', bearer(other.key));
    expect(forbidden.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'InsufficientScope' });
    expectRefused(await ask('{ notes }', bearer(a.accessToken)), 'CredentialNotAccepted');
    // A route without @Auth() takes no API key.
    expectRefused(await ask('{ viewer { id } }', bearer(reader.key)), 'CredentialNotAccepted');
  });

  it('answers a query with the user and session of an access token, and refuses it tampered', async () => {
    const a = await signedInApp(t);
    const answer = await ask('{ viewer { id email expires } }', bearer(a.accessToken));
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.viewer).toEqual({ id: a.userId, email: a.email, expires: expect.any(String) });
    expectRefused(await ask('{ viewer { id } }', bearer(tamperedSignature(a.accessToken))), 'InvalidSession');
    const other = await signedInApp(t);
    expectRefused(
      await ask('{ viewer { id } }', bearer(tamperedClaims(a.accessToken, other.userId))),
      'InvalidSession',
    );
  });

  it('starts a subscription for an access token in connectionParams; a tampered one is closed with 4401', async () => {
    const a = await signedInApp(t);
    expect(await subscribeOnce(wsClient(`Bearer ${a.accessToken}`))).toEqual({
      data: { ticks: `tick for ${a.userId} ${a.email}` },
    });
    expect(await subscribeOnce(wsClient(`Bearer ${tamperedSignature(a.accessToken)}`))).toEqual({
      closed: { code: 4401, reason: 'InvalidSession' },
    });
  });

  it('refuses the access token once the app revoked its sign-in: queries, new connections, and the next subscription of an open one', async () => {
    const a = await signedInApp(t);
    const b = await signedInApp(t);
    // A connection opened before the revocation.
    const open = wsClient(`Bearer ${a.accessToken}`);
    expect(await subscribeOnce(open)).toEqual({ data: { ticks: `tick for ${a.userId} ${a.email}` } });
    expect((await ask('{ viewer { id } }', bearer(a.accessToken))).data).toEqual({ viewer: { id: a.userId } });

    await a.revoke();

    expectRefused(await ask('{ viewer { id } }', bearer(a.accessToken)), 'InvalidSession');
    expect(await subscribeOnce(wsClient(`Bearer ${a.accessToken}`))).toEqual({
      closed: { code: 4401, reason: 'InvalidSession' },
    });
    const next = await subscribeOnce(open);
    expect(next.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'InvalidSession' });
    // Another sign-in's token is untouched.
    expect((await ask('{ viewer { email } }', bearer(b.accessToken))).data).toEqual({ viewer: { email: b.email } });
    expect(await subscribeOnce(wsClient(`Bearer ${b.accessToken}`))).toEqual({
      data: { ticks: `tick for ${b.userId} ${b.email}` },
    });
  });
});

// ---- WebSockets --------------------------------------------------------------------------------

// socket.io: the handshake's `auth: { token }`.
@WebSocketGateway()
@UseGuards(AuthGuard)
class AppChatGateway {
  @SubscribeMessage('whoami')
  whoami(@CurrentUser() user: User, @AuthSession() session: Session) {
    return { id: user.id, email: user.email, expires: session.expires };
  }
}

// ws: the upgrade request's `Authorization` header, kept on the socket by handleConnection.
@WebSocketGateway({ path: '/ws' })
@UseGuards(AuthGuard)
class AppPlainGateway implements OnGatewayConnection {
  handleConnection(client: WebSocket & { request?: IncomingMessage }, request: IncomingMessage) {
    client.request = request;
  }

  @SubscribeMessage('whoami')
  whoami(@CurrentUser() user: User) {
    return { event: 'whoami', data: { id: user.id, email: user.email } };
  }
}

interface Refusal {
  statusCode: number;
  status: string;
  error: string;
  message: string;
}

describe('native app access token in a socket.io gateway (handshake auth.token), database sessions', () => {
  let t: ContextApp;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    t = await startApp({ strategy: 'database', providers: [AppChatGateway] });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.disconnect();
  });
  afterAll(() => t?.close());

  async function connect(auth: Record<string, string>, headers: Record<string, string> = {}): Promise<Socket> {
    const socket = io(t.url, { transports: ['websocket'], auth, extraHeaders: headers, reconnection: false });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    return socket;
  }

  /** Sends a message; resolves with its answer, or with the `exception` the server emitted instead. */
  function send(socket: Socket): Promise<{ answer?: unknown; refused?: Refusal }> {
    return new Promise((resolve) => {
      const onException = (refused: Refusal) => resolve({ refused });
      socket.once('exception', onException);
      socket.emit('whoami', {}, (answer: unknown) => {
        socket.off('exception', onException);
        resolve({ answer });
      });
    });
  }

  const refusal = (error: string) => ({
    refused: { statusCode: 401, status: 'error', error, message: expect.any(String) },
  });

  it('gives the user and session of an access token to the handler, and refuses it tampered', async () => {
    const a = await signedInApp(t);
    expect(await send(await connect({ token: a.accessToken }))).toEqual({
      answer: { id: a.userId, email: a.email, expires: expect.any(String) },
    });
    // The handshake's Authorization header works as well.
    expect(await send(await connect({}, bearer(a.accessToken)))).toEqual({
      answer: { id: a.userId, email: a.email, expires: expect.any(String) },
    });
    expect(await send(await connect({ token: tamperedSignature(a.accessToken) }))).toEqual(refusal('InvalidSession'));
    const other = await signedInApp(t);
    expect(await send(await connect({ token: tamperedClaims(a.accessToken, other.userId) }))).toEqual(
      refusal('InvalidSession'),
    );
  });

  it('refuses the access token once the app revoked its sign-in: on a new socket and on the next message of an open one', async () => {
    const a = await signedInApp(t);
    const b = await signedInApp(t);
    const open = await connect({ token: a.accessToken });
    expect((await send(open)).answer).toMatchObject({ id: a.userId });

    await a.revoke();

    expect(await send(open)).toEqual(refusal('InvalidSession'));
    expect(await send(await connect({ token: a.accessToken }))).toEqual(refusal('InvalidSession'));
    expect((await send(await connect({ token: b.accessToken }))).answer).toMatchObject({
      id: b.userId,
      email: b.email,
    });
  });
});

describe('native app access token in a ws gateway (WsAdapter, upgrade Authorization header), JWT sessions', () => {
  let t: ContextApp;
  const sockets: WebSocket[] = [];

  beforeAll(async () => {
    t = await startApp({ strategy: 'jwt', providers: [AppPlainGateway], wsAdapter: (app) => new WsAdapter(app) });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  afterAll(() => t?.close());

  async function connect(headers: Record<string, string>): Promise<WebSocket> {
    const socket = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers });
    sockets.push(socket);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return socket;
  }

  async function ask(socket: WebSocket): Promise<{ event: string; data: unknown }> {
    const answer = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
    socket.send(JSON.stringify({ event: 'whoami', data: {} }));
    return JSON.parse(await answer) as { event: string; data: unknown };
  }

  const refusal = (error: string) => ({
    event: 'exception',
    data: { statusCode: 401, status: 'error', error, message: expect.any(String) },
  });

  it('gives the user of an access token to the handler, and refuses it tampered', async () => {
    const a = await signedInApp(t);
    expect(await ask(await connect(bearer(a.accessToken)))).toEqual({
      event: 'whoami',
      data: { id: a.userId, email: a.email },
    });
    expect(await ask(await connect(bearer(tamperedSignature(a.accessToken))))).toEqual(refusal('InvalidSession'));
  });

  it('refuses the access token once the app revoked its sign-in: on a new connection and on the next message of an open one', async () => {
    const a = await signedInApp(t);
    const b = await signedInApp(t);
    const open = await connect(bearer(a.accessToken));
    expect((await ask(open)).data).toEqual({ id: a.userId, email: a.email });

    await a.revoke();

    expect(await ask(open)).toEqual(refusal('InvalidSession'));
    expect(await ask(await connect(bearer(a.accessToken)))).toEqual(refusal('InvalidSession'));
    expect((await ask(await connect(bearer(b.accessToken)))).data).toEqual({ id: b.userId, email: b.email });
  });
});

// ---- Microservices -------------------------------------------------------------------------------

@Controller()
@UseGuards(AuthGuard)
class AppOrdersController {
  @MessagePattern('orders.mine')
  mine(@CurrentUser() user: User | undefined, @Payload('limit') limit: number) {
    return { id: user?.id ?? null, email: user?.email ?? null, limit };
  }

  @MessagePattern('orders.delete')
  @Auth({ accept: ['accessToken', 'apiKey'], scopes: ['orders:delete'] })
  remove(@CurrentUser() user: User | undefined) {
    return { deletedBy: user?.id ?? null };
  }
}

describe('native app access token in a TCP microservice (payload authorization), database sessions', () => {
  let t: ContextApp;
  let send: NonNullable<ContextApp['send']>;

  beforeAll(async () => {
    t = await startApp({ strategy: 'database', controllers: [AppOrdersController], rpc: true });
    send = t.send!;
  });
  afterAll(() => t?.close());

  const refusal = (error: string) => ({
    refused: { statusCode: 401, status: 'error', error, message: expect.any(String) },
  });

  // promise: guard.credentials
  it('@Auth() over RPC: a missing scope is refused as InsufficientScope (403), another kind as CredentialNotAccepted', async () => {
    const a = await signedInApp(t);
    const auth = t.app.get(AuthService);
    const deleter = await auth.createApiKey(a.userId, { name: 'deleter', scopes: ['orders:delete'] });
    const reader = await auth.createApiKey(a.userId, { name: 'reader', scopes: ['orders:read'] });
    expect(await send('orders.delete', { authorization: `Bearer ${deleter.key}` })).toEqual({
      answer: { deletedBy: a.userId },
    });
    expect(await send('orders.delete', { authorization: `Bearer ${reader.key}` })).toEqual({
      refused: { statusCode: 403, status: 'error', error: 'InsufficientScope', message: expect.any(String) },
    });
    // A native app's token has every scope (no `scope` claim); an API key where none is taken is refused.
    expect(await send('orders.delete', { authorization: `Bearer ${a.accessToken}` })).toEqual({
      answer: { deletedBy: a.userId },
    });
    expect(await send('orders.mine', { authorization: `Bearer ${deleter.key}`, limit: 1 })).toEqual(
      refusal('CredentialNotAccepted'),
    );
  });

  it('reads `authorization: Bearer <access token>` from the payload, and refuses it tampered', async () => {
    const a = await signedInApp(t);
    expect(await send('orders.mine', { authorization: `Bearer ${a.accessToken}`, limit: 5 })).toEqual({
      answer: { id: a.userId, email: a.email, limit: 5 },
    });
    expect(
      await send('orders.mine', { authorization: `Bearer ${tamperedSignature(a.accessToken)}`, limit: 5 }),
    ).toEqual(refusal('InvalidSession'));
    const other = await signedInApp(t);
    expect(
      await send('orders.mine', { authorization: `Bearer ${tamperedClaims(a.accessToken, other.userId)}`, limit: 5 }),
    ).toEqual(refusal('InvalidSession'));
  });

  it('refuses the access token once the app revoked its sign-in, and still lets another sign-in in', async () => {
    const a = await signedInApp(t);
    const b = await signedInApp(t);
    expect((await send('orders.mine', { authorization: `Bearer ${a.accessToken}`, limit: 1 })).answer).toEqual({
      id: a.userId,
      email: a.email,
      limit: 1,
    });

    await a.revoke();

    expect(await send('orders.mine', { authorization: `Bearer ${a.accessToken}`, limit: 1 })).toEqual(
      refusal('InvalidSession'),
    );
    expect((await send('orders.mine', { authorization: `Bearer ${b.accessToken}`, limit: 2 })).answer).toEqual({
      id: b.userId,
      email: b.email,
      limit: 2,
    });
  });
});
