import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { UseGuards } from '@nestjs/common';
import { Args, Field, GraphQLModule, ObjectType, Query, Resolver, Subscription } from '@nestjs/graphql';
import { type Client, createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import { Public } from '../lib/core/public.decorator.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthSession, CurrentUser } from '../lib/guard/current-user.decorator.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { graphqlContext, GRAPHQL_WS_UNAUTHORIZED } from '../lib/guard/graphql-ws.js';
import type { Session, User } from '../lib/types/common.types.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { databaseSessions, jwtSession, SESSION_COOKIE } from './setup/context-sessions.js';

// Code-first: the shape the README shows.
@ObjectType()
class Viewer {
  @Field(() => String) id!: string;
  @Field(() => String, { nullable: true }) email?: string | null;
  @Field(() => String, { nullable: true }) expires?: string;
}

@Resolver(() => Viewer)
class ViewerResolver {
  @Query(() => Viewer)
  @UseGuards(AuthGuard)
  viewer(@CurrentUser() user: User, @AuthSession() session: Session): Viewer {
    return { id: String(user.id), email: user.email, expires: session.expires };
  }

  @Query(() => String)
  @Public()
  hello(@Args('name', { type: () => String, nullable: true }) name?: string): string {
    return `hello ${name ?? 'world'}`;
  }

  /** Not marked: guarded only by the global guard. */
  @Query(() => String, { nullable: true })
  email(@CurrentUser('email') email: string): string {
    return email;
  }
}

// Subscriptions over graphql-ws: authenticated on connection_init, the guard runs again when one starts.
@Resolver()
class TicksResolver {
  @Query(() => String)
  @Public()
  ready(): string {
    return 'yes';
  }

  @Subscription(() => String, { resolve: (value: string) => value })
  @UseGuards(AuthGuard)
  async *ticks(@CurrentUser('email') email: string): AsyncGenerator<string> {
    yield `tick for ${email}`;
  }
}

// Schema-first: the same checks against a hand-written schema.
const typeDefs = /* GraphQL */ `
  type Query {
    whoami: String!
    ping: String!
  }
`;

@Resolver()
class SchemaFirstResolver {
  @Query('whoami')
  @UseGuards(AuthGuard)
  whoami(@CurrentUser('email') email: string): string {
    return email;
  }

  @Query('ping')
  ping(): string {
    return 'pong';
  }
}

const graphql = (options: Omit<ApolloDriverConfig, 'driver'>) =>
  GraphQLModule.forRoot<ApolloDriverConfig>({
    driver: ApolloDriver,
    // The guard reads the request from the GraphQL context's `req` (Express and Fastify alike).
    context: graphqlContext,
    ...options,
  });

interface GraphQLAnswer {
  status: number;
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

async function ask(app: TestApp, query: string, headers: Record<string, string> = {}): Promise<GraphQLAnswer> {
  const res = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, ...((await res.json()) as Omit<GraphQLAnswer, 'status'>) };
}

const cookie = (token: string) => ({ cookie: `${SESSION_COOKIE}=${token}` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function expectRefused(answer: GraphQLAnswer, reason: string) {
  expect(answer.errors).toHaveLength(1);
  expect(answer.errors?.[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason });
  // A refused nullable field answers null; a non-null one nulls the whole answer.
  expect(Object.values(answer.data ?? {}).every((value) => value === null)).toBe(true);
}

describe('GraphQL (Apollo, code-first), guard per resolver, JWT sessions', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({
      auth: { session: { strategy: 'jwt' } },
      imports: [graphql({ autoSchemaFile: true })],
      providers: [ViewerResolver],
    });
  });
  afterAll(() => app?.close());

  it('answers the signed-in user and session to a session cookie and to a bearer token', async () => {
    const token = await jwtSession();
    for (const headers of [cookie(token), bearer(token)]) {
      const answer = await ask(app, '{ viewer { id email expires } }', headers);
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.viewer).toEqual({ id: 'jwt-user', email: 'jwt@example.test', expires: expect.any(String) });
    }
  });

  it('refuses without a session (SessionRequired) and with a junk one (InvalidSession), as GraphQL errors', async () => {
    expectRefused(await ask(app, '{ viewer { id } }'), 'SessionRequired');
    expectRefused(await ask(app, '{ viewer { id } }', cookie('junk')), 'InvalidSession');
    expectRefused(await ask(app, '{ viewer { id } }', bearer('not-a-token')), 'InvalidSession');
  });

  it('refuses an expired JWT with the reason HTTP routes give', async () => {
    const token = await jwtSession(-60);
    const http = (await (await fetch(`${app.url}/me`, { headers: cookie(token) })).json()) as { error: string };
    expect(http.error).toMatch(/^(SessionExpired|InvalidSession)$/);
    expectRefused(await ask(app, '{ viewer { id } }', cookie(token)), http.error);
  });

  it('answers unguarded resolvers without a session', async () => {
    const answer = await ask(app, '{ hello(name: "you") email }');
    expect(answer.data).toEqual({ hello: 'hello you', email: null });
  });
});

describe('GraphQL (Apollo, code-first), globalGuard: true, database sessions', () => {
  let app: TestApp;
  let sessions: Awaited<ReturnType<typeof databaseSessions>>;
  beforeAll(async () => {
    sessions = await databaseSessions();
    app = await createTestApp({
      auth: { adapter: sessions.adapter, session: { strategy: 'database' }, globalGuard: true },
      imports: [graphql({ autoSchemaFile: true })],
      providers: [ViewerResolver],
    });
  });
  afterAll(() => app?.close());

  it('lets @Public() resolvers answer without a session, and guards the others', async () => {
    expect((await ask(app, '{ hello }')).data).toEqual({ hello: 'hello world' });
    expectRefused(await ask(app, '{ email }'), 'SessionRequired');
    const token = await sessions.session();
    expect((await ask(app, '{ email }', cookie(token))).data).toEqual({ email: 'db@example.test' });
    expect((await ask(app, '{ viewer { id } }', bearer(token))).data).toEqual({ viewer: { id: 'db-user' } });
  });

  it('refuses an expired session (SessionExpired), an unknown one and a revoked one (InvalidSession)', async () => {
    expectRefused(await ask(app, '{ email }', cookie(await sessions.session(-1000))), 'SessionExpired');
    expectRefused(await ask(app, '{ email }', cookie('no-such-session')), 'InvalidSession');
    const token = await sessions.session();
    expect((await ask(app, '{ email }', cookie(token))).data).toEqual({ email: 'db@example.test' });
    await sessions.adapter.deleteSession(token);
    expectRefused(await ask(app, '{ email }', cookie(token)), 'InvalidSession');
  });

  it('still serves the auth routes next to GraphQL', async () => {
    const res = await fetch(`${app.url}/auth/session`);
    expect(res.status).toBe(200);
  });
});

describe('GraphQL (Apollo, schema-first), guard per resolver', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({
      auth: { session: { strategy: 'jwt' } },
      imports: [graphql({ typeDefs })],
      providers: [SchemaFirstResolver],
    });
  });
  afterAll(() => app?.close());

  it('answers a signed-in query, refuses an anonymous one with the reason, and leaves the open one open', async () => {
    const token = await jwtSession();
    expect((await ask(app, '{ whoami }', cookie(token))).data).toEqual({ whoami: 'jwt@example.test' });
    expect((await ask(app, '{ whoami }', bearer(token))).data).toEqual({ whoami: 'jwt@example.test' });
    expectRefused(await ask(app, '{ whoami }'), 'SessionRequired');
    expect((await ask(app, '{ ping }')).data).toEqual({ ping: 'pong' });
  });
});

/** A graphql-ws subscription module: `onConnect` from AuthService, `graphqlContext` for HTTP and subscriptions. */
const graphqlWithSubscriptions = () =>
  GraphQLModule.forRootAsync<ApolloDriverConfig>({
    driver: ApolloDriver,
    inject: [AuthService],
    useFactory: (auth: AuthService) => ({
      autoSchemaFile: true,
      context: graphqlContext,
      subscriptions: { 'graphql-ws': { ...auth.graphqlWsOptions() } },
    }),
  });

type SubscriptionAnswer = {
  data?: unknown;
  errors?: GraphQLAnswer['errors'];
  closed?: { code: number; reason: string };
};

/** A real graphql-ws client over a real socket (upgrade headers such as Cookie and Origin, connectionParams). */
function wsClient(app: TestApp, options: { headers?: Record<string, string>; authorization?: string }): Client {
  return createClient({
    url: `${app.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: class extends WebSocket {
      constructor(url: string, protocols: string[]) {
        super(url, protocols, { headers: options.headers });
      }
    },
    connectionParams: options.authorization ? { authorization: options.authorization } : {},
    retryAttempts: 0,
  });
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

async function subscribe(app: TestApp, options: { headers?: Record<string, string>; authorization?: string }) {
  const client = wsClient(app, options);
  try {
    return await subscribeOnce(client);
  } finally {
    await client.dispose();
  }
}

describe('GraphQL subscriptions (graphql-ws), authenticated on connection_init, JWT sessions', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({
      auth: { session: { strategy: 'jwt' }, trustedOrigins: ['http://127.0.0.1:2'] },
      imports: [graphqlWithSubscriptions()],
      providers: [TicksResolver],
    });
  });
  afterAll(() => app?.close());

  it('starts a subscription for a session cookie on the upgrade or a bearer token in connectionParams', async () => {
    const token = await jwtSession();
    const tick = { data: { ticks: 'tick for jwt@example.test' } };
    expect(await subscribe(app, { headers: cookie(token) })).toEqual(tick);
    expect(await subscribe(app, { authorization: `Bearer ${token}` })).toEqual(tick);
    // A browser on the app's own origin.
    const origin = { origin: app.url, ...cookie(token) };
    expect(await subscribe(app, { headers: origin })).toEqual(tick);
    // A front end the app lists in `trustedOrigins` (a single-page app on another origin).
    expect(await subscribe(app, { headers: { origin: 'http://127.0.0.1:2', ...cookie(token) } })).toEqual(tick);
  });

  it('closes a connection without a valid session with 4401 and the reason, before any operation', async () => {
    expect(await subscribe(app, {})).toEqual({ closed: { code: 4401, reason: 'SessionRequired' } });
    expect(await subscribe(app, { authorization: 'Bearer junk' })).toEqual({
      closed: { code: 4401, reason: 'InvalidSession' },
    });
    expect(await subscribe(app, { headers: cookie('junk') })).toEqual({
      closed: { code: 4401, reason: 'InvalidSession' },
    });
    expect(GRAPHQL_WS_UNAUTHORIZED).toBe(4401);
  });

  it('does not read the cookie of an upgrade from another origin (a page of another site)', async () => {
    const token = await jwtSession();
    const elsewhere = { origin: 'https://evil.example', ...cookie(token) };
    expect(await subscribe(app, { headers: elsewhere })).toEqual({ closed: { code: 4401, reason: 'SessionRequired' } });
    // A sandboxed frame's opaque origin, and a same host on another port.
    const opaque = { origin: 'null', ...cookie(token) };
    expect(await subscribe(app, { headers: opaque })).toEqual({ closed: { code: 4401, reason: 'SessionRequired' } });
    const otherPort = { origin: 'http://127.0.0.1:1', ...cookie(token) };
    expect(await subscribe(app, { headers: otherPort })).toEqual({ closed: { code: 4401, reason: 'SessionRequired' } });
    // A bearer token is not sent by the browser on its own: it still counts.
    expect(
      await subscribe(app, { headers: { origin: 'https://evil.example' }, authorization: `Bearer ${token}` }),
    ).toEqual({ data: { ticks: 'tick for jwt@example.test' } });
  });

  it('still answers queries over HTTP with the same context function', async () => {
    expect((await ask(app, '{ ready }')).data).toEqual({ ready: 'yes' });
  });
});

describe('GraphQL subscriptions (graphql-ws), database sessions', () => {
  let app: TestApp;
  let sessions: Awaited<ReturnType<typeof databaseSessions>>;
  beforeAll(async () => {
    sessions = await databaseSessions();
    app = await createTestApp({
      auth: { adapter: sessions.adapter, session: { strategy: 'database' } },
      imports: [graphqlWithSubscriptions()],
      providers: [TicksResolver],
    });
  });
  afterAll(() => app?.close());

  it('refuses an expired session on connection_init (SessionExpired)', async () => {
    const expired = await sessions.session(-1000);
    expect(await subscribe(app, { headers: cookie(expired) })).toEqual({
      closed: { code: 4401, reason: 'SessionExpired' },
    });
  });

  it('checks the session again when a subscription starts: revoked while connected, the next one is refused', async () => {
    const token = await sessions.session();
    const client = wsClient(app, { headers: cookie(token) });
    try {
      expect(await subscribeOnce(client)).toEqual({ data: { ticks: 'tick for db@example.test' } });
      await sessions.adapter.deleteSession(token);
      const refused = await subscribeOnce(client);
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'InvalidSession' });
    } finally {
      await client.dispose();
    }
  });
});

describe('GraphQL with no context option (@nestjs/apollo puts `req` there itself)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({
      auth: { session: { strategy: 'jwt' } },
      imports: [GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, autoSchemaFile: true })],
      providers: [ViewerResolver],
    });
  });
  afterAll(() => app?.close());

  it('reads the session and refuses without one', async () => {
    const answer = await ask(app, '{ viewer { id } }', cookie(await jwtSession()));
    expect(answer.data).toEqual({ viewer: { id: 'jwt-user' } });
    expectRefused(await ask(app, '{ viewer { id } }'), 'SessionRequired');
  });
});
