import { describe, expect, it, jest } from '@jest/globals';
import { Controller, Get, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { Test } from '@nestjs/testing';
import { TEST_SECRET } from '../../test/setup/app.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { AuthModule } from '../auth.module.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../config/auth-options.interface.js';
import { AUTH_CONFIG } from '../config/auth.constants.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import { RequireRecentSignIn } from '../core/public.decorator.js';
import { ReauthenticationRequired, type GuardRejection } from '../errors/auth.errors.js';
import { encode } from '../session/jwt.js';
import { SIGNED_IN_AT_CLAIM } from '../session/recent-sign-in.js';
import { SessionReader } from '../session/session-reader.js';
import { AuthGuard, type AuthenticatedRequest } from './auth.guard.js';
import { AuthService } from './auth.service.js';

const COOKIE = 'authjs.session-token';

@Controller()
class Routes {
  @Get('plain') plain() {}
  @Get('sensitive') @RequireRecentSignIn() sensitive() {}
  @Get('very') @RequireRecentSignIn(5) very() {}
}

@Controller()
@RequireRecentSignIn(30)
class SensitiveController {
  @Get('inherits') inherits() {}
}

async function moduleFor(options: Partial<AuthModuleOptions> = {}) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      AuthModule.forRoot({
        secret: TEST_SECRET,
        providers: [],
        adapter: new MemoryAdapter(),
        session: { strategy: 'jwt' },
        ...options,
      } as AuthModuleOptions & AuthModuleExtras),
    ],
  }).compile();
  return {
    guard: moduleRef.get(AuthGuard),
    auth: moduleRef.get(AuthService),
    sessions: moduleRef.get(SessionReader),
    reflector: moduleRef.get(Reflector),
    config: moduleRef.get<ResolvedAuthConfig>(AUTH_CONFIG),
  };
}

/** A session JWT whose user signed in `agoSeconds` ago (no claim at all for `null`). */
const signedInAgo = (agoSeconds: number | null) =>
  encode({
    token: {
      sub: 'u1',
      email: 'a@b.test',
      ...(agoSeconds === null ? {} : { [SIGNED_IN_AT_CLAIM]: Math.floor(Date.now() / 1000) - agoSeconds }),
    },
    secret: TEST_SECRET,
    salt: COOKIE,
  });

const request = (cookie?: string): AuthenticatedRequest =>
  ({ headers: cookie ? { cookie: `${COOKIE}=${cookie}` } : {} }) as AuthenticatedRequest;

const http = (req: object, handler: string, controller: Function = Routes) =>
  new ExecutionContextHost([req, undefined, undefined], controller as never, controller.prototype[handler]);

async function refusal(run: () => boolean | Promise<boolean>): Promise<GuardRejection | 'admitted'> {
  try {
    await run();
    return 'admitted';
  } catch (error) {
    expect(error).toBeInstanceOf(UnauthorizedException);
    return ((error as UnauthorizedException).getResponse() as { error: GuardRejection }).error;
  }
}

describe('@RequireRecentSignIn() in AuthGuard', () => {
  it('admits a recent sign-in synchronously (JWT), with the user set', async () => {
    const { guard } = await moduleFor();
    const req = request(await signedInAgo(10));
    expect(guard.canActivate(http(req, 'sensitive'))).toBe(true);
    expect(req.user).toMatchObject({ id: 'u1' });
  });

  it('refuses a sign-in older than the window as ReauthenticationRequired (401, same body shape)', async () => {
    const { guard } = await moduleFor();
    const req = request(await signedInAgo(601));
    let thrown: unknown;
    try {
      void guard.canActivate(http(req, 'sensitive'));
    } catch (error) {
      thrown = error;
    }
    expect((thrown as UnauthorizedException).getStatus()).toBe(401);
    expect((thrown as UnauthorizedException).getResponse()).toEqual({
      statusCode: 401,
      error: 'ReauthenticationRequired',
      message: 'This action needs a recent sign-in. Sign in again, then retry.',
    });
    expect(req.user).toBeUndefined();
  });

  it('refuses an unknown sign-in time (a JWT without the claim)', async () => {
    const { guard } = await moduleFor();
    const cookie = await signedInAgo(null);
    expect(await refusal(() => guard.canActivate(http(request(cookie), 'sensitive')))).toBe('ReauthenticationRequired');
    // The same session is fine where no recent sign-in is asked for.
    expect(await refusal(() => guard.canActivate(http(request(cookie), 'plain')))).toBe('admitted');
  });

  it('uses the seconds of the decorator, of its controller, else account.recentSignInMaxAge', async () => {
    const { guard } = await moduleFor({ account: { recentSignInMaxAge: 60 } });
    const at = async (ago: number, handler: string, controller?: Function) => {
      const cookie = await signedInAgo(ago);
      return refusal(() => guard.canActivate(http(request(cookie), handler, controller)));
    };
    expect(await at(50, 'sensitive')).toBe('admitted');
    expect(await at(70, 'sensitive')).toBe('ReauthenticationRequired');
    expect(await at(3, 'very')).toBe('admitted');
    expect(await at(10, 'very')).toBe('ReauthenticationRequired');
    expect(await at(20, 'inherits', SensitiveController)).toBe('admitted');
    expect(await at(40, 'inherits', SensitiveController)).toBe('ReauthenticationRequired');
    expect(await at(100_000, 'plain')).toBe('admitted');
  });

  it('asks the same in a GraphQL context: refused with the reason, admitted when recent', async () => {
    const { guard } = await moduleFor();
    const graphql = (cookie: string) => {
      const host = new ExecutionContextHost(
        [undefined, {}, { req: request(cookie) }, {}],
        Routes,
        Routes.prototype.sensitive,
      );
      host.setType('graphql');
      return host;
    };
    const old = graphql(await signedInAgo(700));
    const refused = await Promise.resolve()
      .then(() => guard.canActivate(old))
      .catch((error: unknown) => error);
    expect((refused as { extensions?: unknown }).extensions).toEqual({
      code: 'UNAUTHENTICATED',
      reason: 'ReauthenticationRequired',
    });
    expect(await guard.canActivate(graphql(await signedInAgo(5)))).toBe(true);
  });

  it('still refuses a request without a session as SessionRequired', async () => {
    const { guard } = await moduleFor();
    expect(await refusal(() => guard.canActivate(http(request(), 'sensitive')))).toBe('SessionRequired');
  });

  it('reads the metadata once per route, not per request', async () => {
    const { guard, reflector } = await moduleFor();
    const spy = jest.spyOn(reflector, 'getAllAndOverride');
    const cookie = await signedInAgo(1);
    for (let i = 0; i < 5; i++) void guard.canActivate(http(request(cookie), 'sensitive'));
    // @Public, @SkipSessionCache, @RequireRecentSignIn, @RequireAal, @Auth: once each.
    expect(spy.mock.calls.length).toBe(5);
  });

  it('hands the reason to a subclass (handleUnauthenticated), e.g. to redirect browsers', async () => {
    const { sessions, reflector, config } = await moduleFor();
    class Browser extends AuthGuard {
      reasons: GuardRejection[] = [];
      protected override handleUnauthenticated(_context: unknown, reason: GuardRejection): boolean {
        this.reasons.push(reason);
        return false;
      }
    }
    const guard = new Browser(reflector, sessions, config);
    expect(guard.canActivate(http(request(await signedInAgo(700)), 'sensitive'))).toBe(false);
    expect(guard.reasons).toEqual(['ReauthenticationRequired']);
  });

  it("database sessions: the row's createdAt decides, looked up once per session", async () => {
    const adapter = new MemoryAdapter();
    const { guard } = await moduleFor({ session: { strategy: 'database', cacheTtl: 60 }, adapter } as never);
    await adapter.createUser({ id: 'u1', email: 'a@b.test', emailVerified: null });
    const expires = new Date(Date.now() + 3_600_000);
    await adapter.createSession({ sessionToken: 'new', userId: 'u1', expires, createdAt: new Date() } as never);
    const old = new Date(Date.now() - 601_000);
    await adapter.createSession({ sessionToken: 'old', userId: 'u1', expires, createdAt: old } as never);
    const lists = jest.spyOn(adapter, 'listSessionsByUserId');
    expect(await refusal(() => guard.canActivate(http(request('new'), 'sensitive')))).toBe('admitted');
    expect(await refusal(() => guard.canActivate(http(request('new'), 'sensitive')))).toBe('admitted');
    expect(lists).toHaveBeenCalledTimes(1);
    expect(await refusal(() => guard.canActivate(http(request('old'), 'sensitive')))).toBe('ReauthenticationRequired');
    expect(await refusal(() => guard.canActivate(http(request('old'), 'plain')))).toBe('admitted');
  });

  it('database sessions: refused when the adapter cannot tell when the session began', async () => {
    const adapter = new MemoryAdapter();
    // An adapter without listSessionsByUserId (as an Auth.js-only adapter): the time is unknown.
    (adapter as unknown as Record<string, unknown>).listSessionsByUserId = undefined;
    const { guard } = await moduleFor({ session: { strategy: 'database' }, adapter } as never);
    await adapter.createUser({ id: 'u1', email: 'a@b.test', emailVerified: null });
    await adapter.createSession({ sessionToken: 'tok', userId: 'u1', expires: new Date(Date.now() + 60_000) });
    expect(await refusal(() => guard.canActivate(http(request('tok'), 'plain')))).toBe('admitted');
    expect(await refusal(() => guard.canActivate(http(request('tok'), 'sensitive')))).toBe('ReauthenticationRequired');
  });
});

describe('AuthService.requireRecentSignIn', () => {
  it('resolves for a recent sign-in; throws ReauthenticationRequired for an old, unknown or missing one', async () => {
    const { auth } = await moduleFor();
    const req = async (ago: number | null) => ({ headers: { cookie: `${COOKIE}=${await signedInAgo(ago)}` } });
    await expect(auth.requireRecentSignIn(await req(5))).resolves.toBeUndefined();
    await expect(auth.requireRecentSignIn(await req(700))).rejects.toBeInstanceOf(ReauthenticationRequired);
    await expect(auth.requireRecentSignIn(await req(null))).rejects.toBeInstanceOf(ReauthenticationRequired);
    await expect(auth.requireRecentSignIn({ headers: {} })).rejects.toBeInstanceOf(ReauthenticationRequired);
    // Ending the other sessions asks for it too (account.recentSignInMaxAge).
    await expect(auth.endOtherSessions(await req(700))).rejects.toBeInstanceOf(ReauthenticationRequired);
    await expect(auth.endOtherSessions({ headers: {} })).rejects.toBeInstanceOf(ReauthenticationRequired);
    await expect(auth.requireRecentSignIn(await req(30), 10)).rejects.toMatchObject({
      type: 'ReauthenticationRequired',
      maxAge: 10,
    });
  });
});

describe('account.recentSignInMaxAge', () => {
  it('defaults to 600 seconds and refuses a value that is not a positive number', async () => {
    expect((await moduleFor()).config.account.recentSignInMaxAge).toBe(600);
    await expect(moduleFor({ account: { recentSignInMaxAge: -5 } })).rejects.toThrow(
      /account\.recentSignInMaxAge must be a positive number/,
    );
  });

  it('the decorator refuses a window that is not a positive number', () => {
    expect(() => RequireRecentSignIn(0)).toThrow(/positive number/);
  });
});
