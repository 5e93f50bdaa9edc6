import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { UseGuards } from '@nestjs/common';
import { Args, Field, GraphQLModule, ObjectType, Query, Resolver, Subscription } from '@nestjs/graphql';
import type { Request } from 'express';
import { createClient } from 'graphql-ws';
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { Public } from '../lib/core/public.decorator.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthSession, CurrentUser } from '../lib/guard/current-user.decorator.js';
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

// Subscriptions over graphql-ws: the guard runs when a subscription starts.
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

/** HTTP requests as they are; a subscription's request made of its upgrade headers and connectionParams. */
const contextWithSubscriptions = (ctx: {
  req?: Request;
  extra?: { request: IncomingMessage };
  connectionParams?: { authorization?: string };
}) => {
  if (ctx.req) return { req: ctx.req };
  const headers = ctx.extra?.request.headers ?? {};
  return { req: { headers: { cookie: headers.cookie, authorization: ctx.connectionParams?.authorization } } };
};

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
    // The guard reads the request from the GraphQL context's `req`.
    context: ({ req }: { req: Request }) => ({ req }),
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

describe('GraphQL subscriptions (graphql-ws)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({
      auth: { session: { strategy: 'jwt' } },
      imports: [
        graphql({
          autoSchemaFile: true,
          subscriptions: { 'graphql-ws': true },
          context: contextWithSubscriptions,
        }),
      ],
      providers: [TicksResolver],
    });
  });
  afterAll(() => app?.close());

  /** Subscribes once; resolves with the first answer or the errors. */
  async function subscribe(options: { headers?: Record<string, string>; authorization?: string }) {
    const client = createClient({
      url: `${app.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols: string[]) {
          super(url, protocols, { headers: options.headers });
        }
      },
      connectionParams: options.authorization ? { authorization: options.authorization } : {},
      retryAttempts: 0,
    });
    try {
      return await new Promise<{ data?: unknown; errors?: GraphQLAnswer['errors'] }>((resolve, reject) => {
        client.subscribe(
          { query: 'subscription { ticks }' },
          {
            next: (value) => resolve(value as { data?: unknown }),
            error: (errors) => resolve({ errors: errors as GraphQLAnswer['errors'] }),
            complete: () => reject(new Error('completed without an answer')),
          },
        );
      });
    } finally {
      await client.dispose();
    }
  }

  it('starts a subscription for a session cookie on the upgrade or a bearer token in connectionParams', async () => {
    const token = await jwtSession();
    expect(await subscribe({ headers: cookie(token) })).toEqual({ data: { ticks: 'tick for jwt@example.test' } });
    expect(await subscribe({ authorization: `Bearer ${token}` })).toEqual({
      data: { ticks: 'tick for jwt@example.test' },
    });
  });

  it('refuses a subscription without a session with UNAUTHENTICATED and the reason', async () => {
    const refused = await subscribe({});
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'SessionRequired' });
    const junk = await subscribe({ authorization: 'Bearer junk' });
    expect(junk.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'InvalidSession' });
  });

  it('still answers queries over HTTP with the same context function', async () => {
    expect((await ask(app, '{ ready }')).data).toEqual({ ready: 'yes' });
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
