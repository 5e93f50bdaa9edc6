import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Global, Injectable, Module, Req, UseGuards, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuthModule } from '../lib/auth.module.js';
import { Adapter } from '../lib/adapters/adapter.interface.js';
import { AuthGuard } from '../lib/guard/auth.guard.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { CurrentUser } from '../lib/guard/current-user.decorator.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { hashPassword, verifyPassword } from '../lib/methods/credentials/password.js';
import { PrismaAdapter } from '../lib/prisma.js';
import { listenTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { TestClient } from './setup/http-client.js';
import { useOidcProvider } from './setup/oidc-provider.js';
import { opProvider, signInThroughOp } from './setup/oidc-sign-in.js';
import { openPrisma, type PrismaTestDb } from './setup/prisma-db.js';

// PrismaAdapter wired as an app does it: the app's own module provides its PrismaService (a class
// extending the generated PrismaClient), and AuthModule.forRootAsync builds the adapter from it. Sign in with credentials and
// through a real OpenID Provider, then list the devices (AuthService.listSessions and the account
// API), with database and JWT sessions, on SQLite and PostgreSQL.

const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const PASSWORD = 'correct horse battery staple';

type Req = Parameters<AuthService['listSessions']>[1];

@Controller()
class AppController {
  constructor(private readonly auth: AuthService) {}

  @Get('me')
  @UseGuards(AuthGuard)
  me(@CurrentUser() user: unknown) {
    return { user };
  }

  @Get('devices')
  @UseGuards(AuthGuard)
  devices(@CurrentUser('id') userId: string, @Req() req: Req) {
    return this.auth.listSessions(userId, req);
  }
}

const op = useOidcProvider();
const targets = await databaseTargets(['sqlite', 'postgres']);
const configurations = targets.flatMap((target) =>
  (['database', 'jwt'] as const).map((strategy) => ({ target, strategy, label: `${target.name}, ${strategy}` })),
);

describe.each(configurations)('PrismaAdapter in a Nest app ($label)', ({ target, strategy }) => {
  target.describe(`on ${target.name}`, () => {
    let test: TestDatabase;
    let prisma: PrismaTestDb;
    let t: TestApp;
    const clientId = `prisma-${target.name}-${strategy}`;
    const services: { PrismaService?: new () => unknown } = {};
    const person = { id: randomUUID(), email: `ada-${randomUUID()}@example.test`, hash: '' };

    beforeAll(async () => {
      test = await createDatabase(target, `prisma_nest_${strategy}`);
      prisma = await openPrisma(test);
      person.hash = await hashPassword(PASSWORD);

      const { PrismaClient, driverAdapter } = prisma;

      /** The app's PrismaService, as Nest's Prisma recipe makes it (Prisma 7: with a driver adapter). */
      @Injectable()
      class PrismaService extends PrismaClient implements OnModuleDestroy {
        constructor() {
          super({ adapter: driverAdapter() });
        }
        async onModuleDestroy(): Promise<void> {
          await this.$disconnect();
        }
      }
      services.PrismaService = PrismaService;

      /** The app's own database module (global, as most apps make it). */
      @Global()
      @Module({ providers: [PrismaService], exports: [PrismaService] })
      class DatabaseModule {}

      @Module({
        imports: [
          DatabaseModule,
          AuthModule.forRootAsync({
            adapter: { inject: [PrismaService], useFactory: (client: PrismaService) => new PrismaAdapter(client) },
            useFactory: () => ({
              secret: TEST_SECRET,
              session: { strategy, jwtRevocation: strategy === 'jwt' },
              providers: [
                Credentials({
                  credentials: { email: {}, password: {} },
                  async authorize(credentials) {
                    const ok =
                      credentials.email === person.email &&
                      (await verifyPassword(String(credentials.password ?? ''), person.hash));
                    return ok ? { id: person.id, email: person.email } : null;
                  },
                }),
                opProvider(op, 'idp', clientId),
              ],
            }),
          }),
        ],
        controllers: [AppController],
      })
      class AppModule {}

      // As createTestApp starts its app (it builds one with AuthModule.forRoot; this one is the app's own).
      t = await listenTestApp(AppModule);
      await op.addClient({
        client_id: clientId,
        client_secret: `${clientId}-secret`,
        redirect_uris: [`${t.url}/auth/callback/idp`],
      });
      // JWT sessions store no user at credentials sign-in: the app's users live in the users table already.
      if (strategy === 'jwt')
        await new PrismaAdapter(prisma.prisma).createUser({
          id: person.id,
          email: person.email,
          emailVerified: null,
        });
    }, 60_000);

    afterAll(async () => {
      await t?.close();
      await prisma?.close();
      await dropDatabase(test);
    });

    async function signInWithPassword(ua: string): Promise<TestClient> {
      const c = new TestClient(t.url);
      const csrfToken = await c.csrf();
      const res = await c.post(
        '/auth/callback/credentials',
        { csrfToken, email: person.email, password: PASSWORD, callbackUrl: '/me' },
        { headers: { 'user-agent': ua } },
      );
      expect(res.status).toBe(302);
      return c;
    }

    it('AuthModule.forRootAsync builds the PrismaAdapter from the app module’s PrismaService', () => {
      expect(t.app.get(Adapter, { strict: false })).toBeInstanceOf(PrismaAdapter);
      const service = t.app.get(services.PrismaService!, { strict: false }) as { user?: { findFirst?: unknown } };
      expect(service.constructor.name).toBe('PrismaService');
      expect(typeof service.user?.findFirst).toBe('function');
    });

    it('signs in with credentials on two devices; each lists both, its own marked (AuthService and the account API)', async () => {
      const laptop = await signInWithPassword(CHROME_MAC);
      const phone = await signInWithPassword(FIREFOX_LINUX);
      const me = await laptop.get('/me');
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ user: { id: person.id, email: person.email } });

      const devices = await laptop.get('/devices');
      expect(devices.status).toBe(200);
      const listed = (await devices.json()) as Array<Record<string, unknown>>;
      expect(listed).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ current: true, userAgent: 'Chrome on macOS', ip: '127.0.0.0/24' }),
          expect.objectContaining({ current: false, userAgent: 'Firefox on Linux', ip: '127.0.0.0/24' }),
        ]),
      );
      expect(listed).toHaveLength(2);
      expect(listed.find((s) => s.current)).toMatchObject({
        createdAt: expect.any(String),
        expires: expect.any(String),
      });

      const api = await phone.get('/auth/account/sessions', { accept: 'application/json' });
      expect(api.status).toBe(200);
      const body = (await api.json()) as { sessions: Array<Record<string, unknown>> };
      expect(body.sessions.map((s) => [s.current, s.userAgent]).sort()).toEqual([
        [false, 'Chrome on macOS'],
        [true, 'Firefox on Linux'],
      ]);
    });

    it('signs in through an OpenID Provider: the user, its account and the device are in the Prisma tables', async () => {
      const sub = `op-${randomUUID()}`;
      op.signInAs({ sub, email: `${sub}@example.test`, email_verified: true, name: 'Grace Hopper' });
      const browser = new TestClient(t.url);
      const userId = await signInThroughOp(t, browser, 'idp');

      const adapter = new PrismaAdapter(prisma.prisma);
      expect(await adapter.getUserByAccount({ provider: 'idp', providerAccountId: sub })).toMatchObject({
        id: userId,
        email: `${sub}@example.test`,
        name: 'Grace Hopper',
      });
      const account = await adapter.getAccount(sub, 'idp');
      expect(account).toMatchObject({ userId, type: 'oidc', provider: 'idp' });

      const devices = (await (await browser.get('/devices')).json()) as Array<Record<string, unknown>>;
      expect(devices).toEqual([expect.objectContaining({ current: true })]);
      const rows = await adapter.listSessionsByUserId(userId);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.createdAt).toBeInstanceOf(Date);
    });
  });
});
