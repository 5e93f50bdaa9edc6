import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BadRequestException,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Req,
  UseGuards,
  type ExecutionContext,
  Injectable,
} from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RequireRecentSignIn } from '../lib/core/public.decorator.js';
import { AuthError, type GuardRejection } from '../lib/errors/auth.errors.js';
import { hashPassword, verifyPassword } from '../lib/methods/credentials/password.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { CurrentUser } from '../lib/guard/current-user.decorator.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { TypeOrmAdapter } from '../lib/adapters/typeorm/typeorm.adapter.js';
import { createTestApp, TEST_PLATFORM, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { TestClient, location } from './setup/http-client.js';

// Sessions as devices and recent sign-in, end to end on a real database, on both HTTP platforms:
// two browsers (cookie jars) of one user, the list, ending the other, ending all others, and a
// route that needs a sign-in within two seconds.

const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const PASSWORD = 'correct horse battery staple';
const STEP_UP_SECONDS = 2;
const people = new Map<string, { id: string; email: string; hash: string }>();

type Req = Parameters<AuthService['listSessions']>[1] & { originalUrl?: string; url?: string };

/** The app's routes over AuthService; an AuthError becomes `400 { error: type }`. */
@Controller('account')
@UseGuards(AuthGuard)
class AccountController {
  constructor(private readonly auth: AuthService) {}

  @Get('sessions')
  sessions(@CurrentUser('id') userId: string, @Req() req: Req) {
    return answer(() => this.auth.listSessions(userId, req));
  }

  @Post('sessions/:id/end')
  @HttpCode(200)
  end(@CurrentUser('id') userId: string, @Param('id') id: string) {
    return answer(async () => (await this.auth.endSession(userId, id), { ended: 1 }));
  }

  @Post('sessions/end-others')
  @HttpCode(200)
  endOthers(@Req() req: Req) {
    return answer(async () => ({ ended: await this.auth.endOtherSessions(req) }));
  }

  @Get('sensitive')
  @RequireRecentSignIn(STEP_UP_SECONDS)
  sensitive() {
    return { ok: true };
  }
}

/** As the README shows: browsers are sent to sign in again, back to the page they asked for. */
@Injectable()
class BrowserAuthGuard extends AuthGuard {
  protected override handleUnauthenticated(context: ExecutionContext, reason: GuardRejection): boolean {
    const req = context.switchToHttp().getRequest<Req>();
    const back = encodeURIComponent(req.originalUrl ?? req.url ?? '/');
    context.switchToHttp().getResponse().redirect(`/auth/signin?error=${reason}&callbackUrl=${back}`);
    return false;
  }
}

@Controller('pages')
@UseGuards(BrowserAuthGuard)
class PagesController {
  @Get('delete-account')
  @RequireRecentSignIn(STEP_UP_SECONDS)
  page() {
    return 'Delete your account?';
  }
}

async function answer<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AuthError) throw new BadRequestException({ error: error.type });
    throw error;
  }
}

const targets = await databaseTargets(TEST_PLATFORM === 'fastify' ? ['sqlite'] : ['sqlite', 'postgres']);
const configurations = targets.flatMap((target) =>
  (['database', 'jwt'] as const).map((strategy) => ({ target, strategy, label: `${target.name}, ${strategy}` })),
);

beforeAll(async () => {
  const hash = await hashPassword(PASSWORD);
  for (const name of ['alice', 'bob']) people.set(name, { id: randomUUID(), email: `${name}@example.test`, hash });
});

describe.each(configurations)('sessions as devices ($label)', ({ target, strategy }) => {
  target.describe(`on ${target.name}`, () => {
    let db: TestDatabase;
    let t: TestApp;

    beforeAll(async () => {
      db = await createDatabase(target, `devices_${strategy}`);
      t = await createTestApp({
        imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })],
        controllers: [AccountController, PagesController],
        providers: [BrowserAuthGuard],
        auth: {
          session: { strategy, jwtRevocation: strategy === 'jwt' },
          providers: [
            Credentials({
              credentials: { email: {}, password: {} },
              async authorize(credentials) {
                const person = [...people.values()].find((p) => p.email === credentials.email);
                const ok = await verifyPassword(String(credentials.password ?? ''), person?.hash ?? null);
                return ok && person ? { id: person.id, email: person.email } : null;
              },
            }),
          ],
        },
      });
      // JWT sessions store no user at sign-in: the app's users live in the users table already.
      if (strategy === 'jwt') {
        const adapter = new TypeOrmAdapter(t.app.get(DataSource));
        for (const p of people.values()) await adapter.createUser({ id: p.id, email: p.email, emailVerified: null });
      }
    }, 60_000);

    afterAll(async () => {
      await t?.close();
      await dropDatabase(db);
    });

    async function browser(
      name: string,
      ua: string,
      callbackUrl = '/public',
    ): Promise<{ c: TestClient; res: Response }> {
      const c = new TestClient(t.url);
      const res = await signIn(c, name, ua, callbackUrl);
      return { c, res };
    }

    async function signIn(c: TestClient, name: string, ua: string, callbackUrl = '/public') {
      const csrfToken = await c.csrf();
      const res = await c.post(
        '/auth/callback/credentials',
        { csrfToken, email: people.get(name)!.email, password: PASSWORD, callbackUrl },
        { headers: { 'user-agent': ua } },
      );
      expect(res.status).toBe(302);
      return res;
    }

    const list = async (c: TestClient) => {
      const res = await c.get('/account/sessions');
      expect(res.status).toBe(200);
      return (await res.json()) as Array<Record<string, unknown> & { id: string; current: boolean }>;
    };

    // promise: account.sessions
    it('two browsers: each lists both (its own marked), ends the other, which is refused on its next request', async () => {
      const { c: laptop } = await browser('alice', CHROME_MAC);
      const { c: phone } = await browser('alice', FIREFOX_LINUX);
      const seen = await list(laptop);
      expect(seen).toEqual([
        expect.objectContaining({ current: true, userAgent: 'Chrome on macOS', ip: '127.0.0.0/24' }),
        expect.objectContaining({ current: false, userAgent: 'Firefox on Linux', ip: '127.0.0.0/24' }),
      ]);
      expect(seen[0]).toEqual({
        id: expect.stringMatching(/^[\w-]{22}$/),
        current: true,
        createdAt: expect.any(String),
        lastSeenAt: expect.any(String),
        expires: expect.any(String),
        userAgent: 'Chrome on macOS',
        ip: '127.0.0.0/24',
        // A browser's session, not a native app's sign-in.
        app: null,
      });
      for (const token of [laptop, phone].map((c) => c.cookies.get('authjs.session-token')!))
        expect(JSON.stringify(seen)).not.toContain(token);
      expect((await list(phone)).map((s) => s.current)).toEqual([true, false]);

      const ended = await laptop.post(`/account/sessions/${seen[1]!.id}/end`);
      expect(await ended.json()).toEqual({ ended: 1 });
      const refused = await phone.get('/me');
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: 'InvalidSession' });
      expect((await laptop.get('/me')).status).toBe(200);
      expect((await list(laptop)).map((s) => s.current)).toEqual([true]);
    });

    it("another user cannot end alice's session, even with its id", async () => {
      const { c: alice } = await browser('alice', CHROME_MAC);
      const { c: bob } = await browser('bob', FIREFOX_LINUX);
      const aliceId = (await list(alice)).find((s) => s.current)!.id;
      const res = await bob.post(`/account/sessions/${aliceId}/end`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'InvalidRequest' });
      expect((await alice.get('/me')).status).toBe(200);
    });

    it('ends every other session (a recent sign-in), not the current one nor another user’s', async () => {
      const { c: here } = await browser('alice', CHROME_MAC);
      const { c: there } = await browser('alice', FIREFOX_LINUX);
      const { c: bob } = await browser('bob', FIREFOX_LINUX);
      const res = await here.post('/account/sessions/end-others');
      expect((await res.json()) as { ended: number }).toMatchObject({ ended: expect.any(Number) });
      expect((await there.get('/me')).status).toBe(401);
      expect((await here.get('/me')).status).toBe(200);
      expect((await bob.get('/me')).status).toBe(200);
      expect(await list(here)).toHaveLength(1);
    });

    // promise: account.recent-sign-in
    it('a route that needs a recent sign-in: allowed, refused with ReauthenticationRequired once the window passed, allowed after signing in again', async () => {
      const { c } = await browser('alice', CHROME_MAC);
      expect((await c.get('/account/sensitive')).status).toBe(200);
      await new Promise((r) => setTimeout(r, STEP_UP_SECONDS * 1000 + 300));
      const refused = await c.get('/account/sensitive');
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({
        statusCode: 401,
        error: 'ReauthenticationRequired',
        message: expect.any(String),
      });
      expect((await c.get('/me')).status).toBe(200);

      // A page: sent to sign in again, and back to the page after.
      const page = await c.get('/pages/delete-account');
      expect(page.status).toBe(302);
      const signInUrl = new URL(page.headers.get('location')!, t.url);
      expect(signInUrl.pathname).toBe('/auth/signin');
      expect(signInUrl.searchParams.get('error')).toBe('ReauthenticationRequired');
      expect(signInUrl.searchParams.get('callbackUrl')).toBe('/pages/delete-account');
      const back = await signIn(c, 'alice', CHROME_MAC, signInUrl.searchParams.get('callbackUrl')!);
      expect(location(back).href).toBe(`${t.url}/pages/delete-account`);
      const again = await c.get('/pages/delete-account');
      expect(again.status).toBe(200);
      expect(await again.text()).toBe('Delete your account?');
      expect((await c.get('/account/sensitive')).status).toBe(200);
    });
  });
});
