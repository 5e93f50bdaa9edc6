/**
 * The most common Nest layout: AppModule imports AuthModule.forRoot(...) once and feature modules
 * use AuthGuard, AuthService and the decorators without importing anything from AuthModule.
 */
import { Controller, Get, Injectable, type INestApplication, Module, Req, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import {
  AuthGuard,
  AuthModule,
  AuthService,
  AuthSession,
  Credentials,
  CurrentUser,
  Public,
  requestSession,
  type Session,
} from '../lib/index.js';
import { TEST_SECRET } from './setup/app.js';

const credentials = () =>
  Credentials({
    credentials: { username: {}, password: {} },
    authorize: async (c) =>
      c.password === 'right' ? { id: `u-${String(c.username)}`, name: String(c.username) } : null,
  });

@Controller('users')
@UseGuards(AuthGuard)
class UsersController {
  @Get('me') me(@CurrentUser() user: { id: string }) {
    return { id: user.id };
  }
}
@Module({ controllers: [UsersController] })
class UsersModule {}

@Injectable()
class NotesService {
  constructor(private readonly auth: AuthService) {}
  owner(session: Session | null) {
    return session?.user?.name ?? null;
  }
  get hasAuth() {
    return this.auth instanceof AuthService;
  }
}
@Controller('notes')
class NotesController {
  constructor(private readonly notes: NotesService) {}
  @Get() @UseGuards(AuthGuard) list(@AuthSession() session: Session) {
    return { owner: this.notes.owner(session), hasAuth: this.notes.hasAuth };
  }
  @Get('public') @Public() open() {
    return { ok: true };
  }
  // What the module leaves on an Express request: `user` and the session slot, given as it arrived.
  @Get('slots') @Public() slots(@Req() req: Record<PropertyKey, unknown>) {
    return { ownUser: Object.hasOwn(req, 'user'), user: req.user ?? 'undefined' };
  }
  @Get('slots/guarded') @UseGuards(AuthGuard) guardedSlots(
    @Req() req: Record<PropertyKey, unknown>,
    @AuthSession() session: Session,
  ) {
    const slot = Object.getOwnPropertySymbols(req).find((symbol) => req[symbol] === session);
    return {
      same: requestSession(req) === session,
      inSlot: slot !== undefined,
      userKey: Object.keys(req).includes('user'),
    };
  }
}
@Module({ controllers: [NotesController], providers: [NotesService] })
class NotesModule {}

@Controller('admin')
class AdminController {
  @Get() @UseGuards(AuthGuard) admin(@CurrentUser('name') name: string) {
    return { name };
  }
}
@Module({ controllers: [AdminController] })
class AdminModule {}

async function start(module: object): Promise<{ app: INestApplication; url: string }> {
  const app = await NestFactory.create(module as never, { logger: false });
  await app.listen(0, '127.0.0.1');
  return { app, url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
}

async function signIn(url: string): Promise<string> {
  const csrf = await fetch(`${url}/auth/csrf`);
  const cookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${url}/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: url },
    body: new URLSearchParams({ csrfToken, username: 'ada', password: 'right' }),
  });
  expect(res.status).toBe(302);
  const session = res.headers.getSetCookie().find((c) => c.startsWith('authjs.session-token='));
  expect(session).toBeDefined();
  return session!.split(';')[0]!;
}

describe('feature modules (AuthModule imported once, global by default)', () => {
  let app: INestApplication;
  let url: string;
  beforeAll(async () => {
    @Module({
      imports: [
        AuthModule.forRoot({ secret: TEST_SECRET, providers: [credentials()], session: { strategy: 'jwt' } }),
        UsersModule,
        NotesModule,
        AdminModule,
      ],
    })
    class AppModule {}
    ({ app, url } = await start(AppModule));
  });
  afterAll(() => app?.close());

  // promise: module.global
  it('guards routes in every feature module: 401 without a session', async () => {
    for (const path of ['/users/me', '/notes', '/admin']) {
      const res = await fetch(`${url}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
    expect((await fetch(`${url}/notes/public`)).status).toBe(200);
  });

  it('lets the signed-in user through, with @CurrentUser(), @AuthSession() and AuthService injected', async () => {
    const cookie = await signIn(url);
    const get = async (path: string) => (await fetch(`${url}${path}`, { headers: { cookie } })).json();
    expect(await get('/users/me')).toEqual({ id: 'u-ada' });
    expect(await get('/notes')).toEqual({ owner: 'ada', hasAuth: true });
    expect(await get('/admin')).toEqual({ name: 'ada' });
  });

  it('gives Express requests `user` and a session slot as they arrive; the guard fills them', async () => {
    expect(await (await fetch(`${url}/notes/slots`)).json()).toEqual({ ownUser: true, user: 'undefined' });
    const cookie = await signIn(url);
    const guarded = await (await fetch(`${url}/notes/slots/guarded`, { headers: { cookie } })).json();
    expect(guarded).toEqual({ same: true, inSlot: true, userKey: true });
  });
});

describe('isGlobal: false', () => {
  // promise: module.global
  it('keeps AuthModule to the module that imports it: a feature module using AuthGuard fails at bootstrap', async () => {
    @Module({
      imports: [AuthModule.forRoot({ secret: TEST_SECRET, providers: [credentials()], isGlobal: false }), UsersModule],
    })
    class AppModule {}
    await expect(NestFactory.create(AppModule, { logger: false, abortOnError: false })).rejects.toThrow(
      /AuthGuard|dependencies/,
    );
  });

  // promise: module.global
  it('works through a module that imports and re-exports it, as the README shows', async () => {
    const configured = AuthModule.forRoot({ secret: TEST_SECRET, providers: [credentials()], isGlobal: false });
    @Module({ imports: [configured], exports: [configured] })
    class AuthSharedModule {}
    @Module({ imports: [AuthSharedModule], controllers: [UsersController] })
    class ScopedUsersModule {}
    @Module({ imports: [AuthSharedModule, ScopedUsersModule] })
    class AppModule {}
    const { app, url } = await start(AppModule);
    try {
      expect((await fetch(`${url}/users/me`)).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});
