import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Controller,
  type FactoryProvider,
  Get,
  Global,
  type InjectionToken,
  type INestApplication,
  Module,
  type Provider,
  Req,
  UseGuards,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuthModule } from '../../lib/auth.module.js';
import { Adapter } from '../../lib/adapters/adapter.interface.js';
import type { SessionListingAdapter } from '../../lib/adapters/adapter-extensions.js';
import { AuthGuard } from '../../lib/guard/auth.guard.js';
import { AuthService } from '../../lib/guard/auth.service.js';
import { CurrentUser } from '../../lib/guard/current-user.decorator.js';
import { Credentials } from '../../lib/methods/credentials/credentials.provider.js';
import { hashPassword, verifyPassword } from '../../lib/methods/credentials/password.js';
import { listenTestApp, TEST_SECRET, type TestApp } from './app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './databases.js';
import { TestClient } from './http-client.js';
import { useOidcProvider } from './oidc-provider.js';
import { opProvider, signInThroughOp } from './oidc-sign-in.js';

// One suite for every first-party ORM adapter wired as an app wires it: the app's own (global)
// database module provides the ORM's client, and AuthModule.forRootAsync builds the adapter from it.
// Sign in with credentials and through a real OpenID Provider, then list the devices
// (AuthService.listSessions and the account API), with database and JWT sessions, on SQLite and
// PostgreSQL. Each ORM's spec says only how its client is provided and its adapter built.

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

/** An adapter the suite reads rows through, outside Nest. */
type InspectingAdapter = Adapter &
  Required<Pick<Adapter, 'createUser' | 'getUserByAccount' | 'getAccount'>> &
  Pick<SessionListingAdapter, 'listSessionsByUserId'>;

/** How one ORM is wired into the app, on one test database. */
export interface OrmWiring {
  /** The app's database module's providers (the ORM's client under the token `inject` names). */
  providers: Provider[];
  /** What `forRootAsync`'s `adapter` injects, and how it builds the adapter from it. */
  adapter: { inject: InjectionToken[]; useFactory: FactoryProvider<Adapter>['useFactory'] };
  /** An adapter on the same database built outside Nest, to seed the user and read rows. */
  direct(): InspectingAdapter;
  close(): Promise<void>;
}

/**
 * Describes the ORM adapter's suite (`await` it at the top of the spec: the databases it runs on are
 * known once the servers answered): `open` wires the ORM on each database the suite creates.
 */
export async function describeAdapterInNestApp(spec: {
  /** The adapter's class, e.g. `DrizzleAdapter`: what the app's module must resolve `Adapter` to. */
  adapterClass: abstract new (...args: never[]) => Adapter;
  /** Names the databases and OAuth clients (`drizzle`, `prisma`). */
  prefix: string;
  open(test: TestDatabase): Promise<OrmWiring>;
  /** More checks of the running app (e.g. that the app's own client class is what was injected). */
  checkApp?(app: INestApplication): void;
}): Promise<void> {
  const name = spec.adapterClass.name;
  const op = useOidcProvider();
  const targets = await databaseTargets(['sqlite', 'postgres']);
  const configurations = targets.flatMap((target) =>
    (['database', 'jwt'] as const).map((strategy) => ({ target, strategy, label: `${target.name}, ${strategy}` })),
  );

  describe.each(configurations)(`${name} in a Nest app ($label)`, ({ target, strategy }) => {
    target.describe(`on ${target.name}`, () => {
      let test: TestDatabase;
      let orm: OrmWiring;
      let t: TestApp;
      const clientId = `${spec.prefix}-${target.name}-${strategy}`;
      const person = { id: randomUUID(), email: `ada-${randomUUID()}@example.test`, hash: '' };

      beforeAll(async () => {
        test = await createDatabase(target, `${spec.prefix}_nest_${strategy}`);
        orm = await spec.open(test);
        person.hash = await hashPassword(PASSWORD);

        /** The app's own database module (global, as most apps make it). */
        @Global()
        @Module({ providers: orm.providers, exports: orm.adapter.inject })
        class DatabaseModule {}

        @Module({
          imports: [
            DatabaseModule,
            AuthModule.forRootAsync({
              adapter: orm.adapter,
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
          await orm.direct().createUser({ id: person.id, email: person.email, emailVerified: null });
      }, 60_000);

      afterAll(async () => {
        await t?.close();
        await orm?.close();
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

      it(`AuthModule.forRootAsync builds the ${name} from the app module’s provider`, () => {
        expect(t.app.get(Adapter, { strict: false })).toBeInstanceOf(spec.adapterClass);
        spec.checkApp?.(t.app);
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

      it(`signs in through an OpenID Provider: the user, its account and the device are in the ${spec.prefix} tables`, async () => {
        const sub = `op-${randomUUID()}`;
        op.signInAs({ sub, email: `${sub}@example.test`, email_verified: true, name: 'Grace Hopper' });
        const browser = new TestClient(t.url);
        const userId = await signInThroughOp(t, browser, 'idp');

        const adapter = orm.direct();
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
}
