import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { RpcException } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { WsException } from '@nestjs/websockets';
import { createTestApp, TEST_SECRET, type TestApp } from '../../test/setup/app.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { AuthModule } from '../auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions, LoggerInstance } from '../config/auth-options.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { Public, SkipSessionCache } from '../core/public.decorator.js';
import type { GuardRejection } from '../errors/auth.errors.js';
import { encode } from '../session/jwt.js';
import { SessionReader } from '../session/session-reader.js';
import { AuthGuard, requestSession, type AuthenticatedRequest } from './auth.guard.js';
import { UnsupportedContextError } from '../errors/auth.errors.js';

const COOKIE = 'authjs.session-token';

@Controller()
class Routes {
  @Get('open') @Public() open() {}
  @Get('guarded') guarded() {}
  @Get('fresh') @SkipSessionCache() fresh() {}
}

@Controller()
@Public()
class PublicRoutes {
  @Get('inherits') inherits() {}
  @Get('closed') @Public(false) closed() {}
}

/** AuthModule over a MemoryAdapter, as an app gets it; logs kept. */
async function guardFor(options: Partial<AuthModuleOptions> = {}) {
  const errors: string[] = [];
  const logger: LoggerInstance = {
    error: (e) => errors.push(`${e.name}: ${e.message}`),
    warn: () => undefined,
    debug: () => undefined,
  };
  const adapter = new MemoryAdapter();
  const moduleRef = await Test.createTestingModule({
    imports: [
      AuthModule.forRoot({ secret: TEST_SECRET, providers: [], adapter, logger, ...options } as AuthModuleOptions &
        AuthModuleExtras),
    ],
  }).compile();
  return {
    guard: moduleRef.get(AuthGuard),
    sessions: moduleRef.get(SessionReader),
    reflector: moduleRef.get(Reflector),
    config: moduleRef.get<ResolvedAuthConfig>(AUTH_CONFIG),
    adapter,
    errors,
  };
}

/** An HTTP request as Express gives it to the guard. */
const request = (cookie?: string): AuthenticatedRequest =>
  ({ headers: cookie ? { cookie: `${COOKIE}=${cookie}` } : {} }) as AuthenticatedRequest;

function http(req: object, controller: Function = Routes, handler: string = 'guarded') {
  return new ExecutionContextHost(
    [req, undefined, undefined],
    controller as never,
    (controller.prototype as Record<string, Function>)[handler],
  );
}

const jwtCookie = (claims: Record<string, unknown> = {}) =>
  encode({ token: { sub: 'u1', email: 'a@b.test', name: 'A', ...claims }, secret: TEST_SECRET, salt: COOKIE });

/** The guard's refusal reason, from what it threw (synchronously or not). */
async function refusal(run: () => boolean | Promise<boolean>): Promise<GuardRejection> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(UnauthorizedException);
    expect((error as UnauthorizedException).getStatus()).toBe(401);
    return ((error as UnauthorizedException).getResponse() as { error: GuardRejection }).error;
  }
  throw new Error('the guard let the request through');
}

describe('AuthGuard: route metadata', () => {
  it('lets @Public() routes through without a session, on a handler or its controller', async () => {
    const { guard } = await guardFor({ session: { strategy: 'jwt' } });
    expect(guard.canActivate(http(request(), Routes, 'open'))).toBe(true);
    expect(guard.canActivate(http(request(), PublicRoutes, 'inherits'))).toBe(true);
  });

  it("lets @Public(false) on a handler undo its controller's @Public()", async () => {
    const { guard } = await guardFor({ session: { strategy: 'jwt' } });
    expect(await refusal(() => guard.canActivate(http(request(), PublicRoutes, 'closed')))).toBe('SessionRequired');
  });

  it('decides per (handler, controller): an inherited handler follows each controller', async () => {
    class Base {
      @Get('shared') shared() {}
    }
    @Controller()
    @Public()
    class OpenSub extends Base {}
    @Controller()
    class ClosedSub extends Base {}
    const { guard } = await guardFor({ session: { strategy: 'jwt' } });
    for (let i = 0; i < 2; i++) {
      expect(guard.canActivate(http(request(), OpenSub, 'shared'))).toBe(true);
      expect(await refusal(() => guard.canActivate(http(request(), ClosedSub, 'shared')))).toBe('SessionRequired');
    }
  });
});

describe('AuthGuard: JWT sessions', () => {
  it('refuses a request without a session as SessionRequired, synchronously', async () => {
    const { guard } = await guardFor({ session: { strategy: 'jwt' } });
    expect(() => guard.canActivate(http(request()))).toThrow(UnauthorizedException);
    expect(await refusal(() => guard.canActivate(http(request())))).toBe('SessionRequired');
  });

  it('refuses a tampered or junk cookie as InvalidSession', async () => {
    const { guard } = await guardFor({ session: { strategy: 'jwt' } });
    const raw = await jwtCookie();
    expect(await refusal(() => guard.canActivate(http(request(`${raw.slice(0, -3)}abc`))))).toBe('InvalidSession');
    expect(await refusal(() => guard.canActivate(http(request('junk'))))).toBe('InvalidSession');
  });

  it('lets a valid session in with req.user and the session set, answering a plain true (decrypted or cached)', async () => {
    const { guard } = await guardFor({ session: { strategy: 'jwt' } });
    const raw = await jwtCookie();
    const first = request(raw);
    // The default decoder decrypts synchronously: even the first request needs no promise.
    expect(guard.canActivate(http(first))).toBe(true);
    expect(first.user).toEqual({ id: 'u1', email: 'a@b.test', name: 'A', image: null });
    expect(requestSession(first)).toMatchObject({ user: first.user, expires: expect.any(String) });
    const second = request(raw);
    expect(guard.canActivate(http(second))).toBe(true);
    expect(second.user).toEqual(first.user);
    expect(second.user).not.toBe(first.user);
  });

  it('refuses with InvalidSession, logged as a server error, when the session callback throws', async () => {
    const { guard, errors } = await guardFor({
      session: { strategy: 'jwt' },
      callbacks: {
        session: () => {
          throw new RangeError('callback bug');
        },
      },
    });
    const decision = guard.canActivate(http(request(await jwtCookie())));
    expect(decision).toBeInstanceOf(Promise);
    expect(await refusal(() => decision)).toBe('InvalidSession');
    expect(errors).toEqual(['SessionTokenError: Reading the session failed; the request was refused.']);
  });
});

describe('AuthGuard: database sessions', () => {
  async function withSession(options: { cacheTtl?: number } = {}, expires = new Date(Date.now() + 3_600_000)) {
    const parts = await guardFor({ session: { strategy: 'database', ...options } });
    await parts.adapter.createUser({ id: 'u1', email: 'a@b.test', emailVerified: null });
    await parts.adapter.createSession({ sessionToken: 'tok-1', userId: 'u1', expires });
    return parts;
  }

  it('refuses an expired session as SessionExpired and an unknown token as InvalidSession', async () => {
    const { guard } = await withSession({}, new Date(Date.now() - 1_000));
    expect(await refusal(() => guard.canActivate(http(request('tok-1'))))).toBe('SessionExpired');
    expect(await refusal(() => guard.canActivate(http(request('tok-2'))))).toBe('InvalidSession');
  });

  it('answers a plain true within cacheTtl; @SkipSessionCache() asks the database every time', async () => {
    const { guard, adapter } = await withSession({ cacheTtl: 60 });
    expect(await guard.canActivate(http(request('tok-1')))).toBe(true);
    expect(guard.canActivate(http(request('tok-1')))).toBe(true);
    const fresh = guard.canActivate(http(request('tok-1'), Routes, 'fresh'));
    expect(fresh).toBeInstanceOf(Promise);
    expect(await fresh).toBe(true);
    await adapter.deleteSession('tok-1');
    expect(guard.canActivate(http(request('tok-1')))).toBe(true);
    expect(await refusal(() => guard.canActivate(http(request('tok-1'), Routes, 'fresh')))).toBe('InvalidSession');
    // The fresh answer replaced the cache entry: the cached route now refuses too.
    expect(await refusal(() => guard.canActivate(http(request('tok-1'))))).toBe('InvalidSession');
  });

  it('without cacheTtl, never answers synchronously', async () => {
    const { guard } = await withSession();
    expect(await guard.canActivate(http(request('tok-1')))).toBe(true);
    expect(guard.canActivate(http(request('tok-1')))).toBeInstanceOf(Promise);
  });
});

describe('AuthGuard: extending and other contexts', () => {
  it('lets a subclass answer instead of throwing (handleUnauthenticated)', async () => {
    const { sessions, reflector, config } = await guardFor({ session: { strategy: 'jwt' } });
    class Lenient extends AuthGuard {
      reasons: GuardRejection[] = [];
      protected override handleUnauthenticated(_context: unknown, reason: GuardRejection): boolean {
        this.reasons.push(reason);
        return false;
      }
    }
    const guard = new Lenient(reflector, sessions, config);
    expect(guard.canActivate(http(request()))).toBe(false);
    expect(await guard.canActivate(http(request('junk')))).toBe(false);
    expect(guard.reasons).toEqual(['SessionRequired', 'InvalidSession']);
  });

  // GraphQL, WebSocket and RPC calls are read from their own arguments; the e2e suites run them for real.
  it.each([
    ['rpc', (c?: string) => [c ? { authorization: `Bearer ${c}` } : { pattern: 'sum' }, {}], RpcException],
    ['ws', (c?: string) => [{ id: 'socket-1', request: request(c) }, { event: 'message' }], WsException],
    ['graphql', (c?: string) => [undefined, {}, { req: request(c) }, {}], UnauthorizedException],
  ] as const)('reads a %s context: refuses without a session, admits with one', async (type, args, Refusal) => {
    const { guard } = await guardFor({ session: { strategy: 'jwt' } });
    const context = (a: unknown[], handler: Function) => {
      const host = new ExecutionContextHost(a, Routes, handler);
      host.setType(type);
      return host;
    };
    let thrown: unknown;
    try {
      await guard.canActivate(context(args(), Routes.prototype.guarded));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Refusal);
    const body = thrown instanceof RpcException || thrown instanceof WsException ? thrown.getError() : thrown;
    expect(JSON.stringify(body instanceof UnauthorizedException ? body.getResponse() : body)).toContain(
      '"error":"SessionRequired"',
    );
    const extensions = type === 'graphql' ? { code: 'UNAUTHENTICATED', reason: 'SessionRequired' } : undefined;
    expect((thrown as { extensions?: unknown }).extensions).toEqual(extensions);
    const signedIn = args(await jwtCookie());
    expect(await guard.canActivate(context(signedIn, Routes.prototype.guarded))).toBe(true);
    expect(guard.canActivate(context(args(), Routes.prototype.open))).toBe(true);
  });

  it('fails with an error naming an unknown context type, not a TypeError', async () => {
    const { guard } = await guardFor({ session: { strategy: 'jwt' } });
    const context = new ExecutionContextHost([undefined], Routes, Routes.prototype.guarded);
    context.setType('kafka-streams');
    expect(() => guard.canActivate(context)).toThrow(UnsupportedContextError);
    expect(() => guard.canActivate(context)).toThrow(/"kafka-streams" context/);
  });
});

describe('AuthGuard over HTTP: global or per route', () => {
  let global: TestApp;
  let perRoute: TestApp;
  let cookie: string;

  beforeAll(async () => {
    cookie = `${COOKIE}=${await jwtCookie()}`;
    global = await createTestApp({ auth: { session: { strategy: 'jwt' }, globalGuard: true } });
    perRoute = await createTestApp({ auth: { session: { strategy: 'jwt' } } });
  });

  afterAll(async () => {
    await Promise.all([global?.close(), perRoute?.close()]);
  });

  it('as a global guard protects unmarked routes; per route, only the @UseGuards ones', async () => {
    expect((await fetch(`${global.url}/public`)).status).toBe(401);
    expect((await fetch(`${global.url}/public`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${perRoute.url}/public`)).status).toBe(200);
    const res = await fetch(`${perRoute.url}/me`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      statusCode: 401,
      error: 'SessionRequired',
      message: 'Sign in to access this resource.',
    });
  });

  it('gives the handler @CurrentUser() and @AuthSession()', async () => {
    const res = await fetch(`${perRoute.url}/me`, { headers: { cookie } });
    expect(await res.json()).toMatchObject({
      user: { id: 'u1', email: 'a@b.test' },
      session: { user: { id: 'u1' }, expires: expect.any(String) },
    });
  });

  it('clears a bad session cookie on the 401 InvalidSession', async () => {
    const res = await fetch(`${perRoute.url}/me`, { headers: { cookie: `${COOKIE}=junk` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'InvalidSession' });
    expect(res.headers.getSetCookie()).toEqual([
      expect.stringMatching(new RegExp(`^${COOKIE.replace('.', '\\.')}=; Max-Age=0`)),
    ]);
  });
});
