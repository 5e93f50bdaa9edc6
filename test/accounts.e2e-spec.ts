/**
 * Linked accounts and account deletion (issue 21) end to end: a real OpenID Provider
 * (oidc-provider), a real database (SQLite, PostgreSQL, MariaDB through TypeORM) and the app on the
 * platform of the run (Express, or Fastify with AUTH_TEST_PLATFORM=fastify).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type ObjectLiteral } from 'typeorm';
import { AccountEntity } from '../lib/adapters/typeorm/account.entity.js';
import { AuthenticatorEntity } from '../lib/adapters/typeorm/authenticator.entity.js';
import { SessionEntity } from '../lib/adapters/typeorm/session.entity.js';
import { UserEntity } from '../lib/adapters/typeorm/user.entity.js';
import { VerificationTokenEntity } from '../lib/adapters/typeorm/verification-token.entity.js';
import { Adapter } from '../lib/adapters/adapter.interface.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { location, TestClient } from './setup/http-client.js';
import { followToApp, useOidcProvider } from './setup/oidc-provider.js';
import { opProvider, signInThroughOp } from './setup/oidc-sign-in.js';

/** Local users of the credentials provider (password "right"); ids are what authorize returns. */
const LOCAL: Record<string, string> = {
  alice: '11111111-1111-4111-8111-111111111111',
  bob: '22222222-2222-4222-8222-222222222222',
};
const ALICE_OP = { sub: 'alice-at-op', email: 'alice@op.example', name: 'Alice (OP)', email_verified: true };

const op = useOidcProvider();
let seq = 0;

const targets = await databaseTargets();

describe.each(targets)('linked accounts and account deletion on $name', (target) => {
  target.describe(`on ${target.name}`, () => {
    let db: TestDatabase;
    let t: TestApp;
    let ds: DataSource;
    let auth: AuthService;
    const events: string[] = [];

    beforeAll(async () => {
      db = await createDatabase(target, 'accounts');
      const clientId = `acc-${++seq}-${target.name}`;
      t = await createTestApp({
        imports: [TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true })],
        auth: {
          session: { strategy: 'database' },
          providers: [
            Credentials({
              credentials: { username: {}, password: {} },
              authorize: async (c) => {
                const id = LOCAL[String(c.username)];
                return id && c.password === 'right' ? { id, name: String(c.username) } : null;
              },
            }),
            opProvider(op, 'idp', clientId),
          ],
          events: {
            linkAccount: (m) => void events.push(`link ${m.user.id} ${m.account.provider}`),
            unlinkAccount: (m) => void events.push(`unlink ${m.user.id} ${m.account.provider}`),
            deleteUser: (m) => void events.push(`delete ${m.user.id}`),
          },
        },
      });
      await op.addClient({
        client_id: clientId,
        client_secret: `${clientId}-secret`,
        redirect_uris: [`${t.url}/auth/callback/idp`],
      });
      ds = t.app.get(DataSource);
      auth = t.app.get(AuthService);
    }, 60_000);

    afterAll(async () => {
      await t?.close();
      await dropDatabase(db);
    });

    /** Rows per table: all of them, and those of `userId` (`email` for verification tokens). */
    async function rows(userId?: string, email?: string): Promise<Record<string, number>> {
      const count = (entity: { new (): ObjectLiteral }, where?: ObjectLiteral) =>
        where ? ds.getRepository(entity).countBy(where) : ds.getRepository(entity).count();
      return {
        users: await count(UserEntity, userId ? { id: userId } : undefined),
        accounts: await count(AccountEntity, userId ? { userId } : undefined),
        sessions: await count(SessionEntity, userId ? { userId } : undefined),
        authenticators: await count(AuthenticatorEntity, userId ? { userId } : undefined),
        verification_tokens: await count(VerificationTokenEntity, userId ? { identifier: email ?? '' } : undefined),
      };
    }

    async function signInLocal(name: string): Promise<TestClient> {
      const client = new TestClient(t.url);
      const csrfToken = await client.csrf();
      const res = await client.post('/auth/callback/credentials', { csrfToken, username: name, password: 'right' });
      expect(res.status).toBe(302);
      return client;
    }

    /** `POST /auth/link/idp`, through the OP, back to the callback; returns the callback's answer. */
    async function link(client: TestClient): Promise<Response> {
      const csrfToken = await client.csrf();
      const start = await client.post('/auth/link/idp', { csrfToken, callbackUrl: `${t.url}/me` });
      expect(start.status).toBe(302);
      expect(location(start).origin).toBe(op.issuer);
      const back = await followToApp(client, start, t.url);
      return back.method === 'GET' ? client.get(back.url.href) : client.post(back.url.href, back.body);
    }

    const meOf = async (client: TestClient) =>
      ((await (await client.get('/me')).json()) as { user: { id: string } }).user.id;
    const request = (client: TestClient) => ({ headers: { cookie: client.cookieHeader() } });
    // The acting request: signed in as that user, recently (its session row's createdAt).
    const proof = (client: TestClient) => ({ request: request(client) });

    // promise: accounts.link
    it('a credentials user links an OIDC account, then signs in with it as the same user', async () => {
      op.signInAs(ALICE_OP);
      const alice = await signInLocal('alice');
      const session = alice.cookies.get('authjs.session-token');
      const done = await link(alice);
      expect(done.status).toBe(302);
      expect(location(done).href).toBe(`${t.url}/me`);
      // Still the same user and the same session: a link signs nobody in.
      expect(alice.cookies.get('authjs.session-token')).toBe(session);
      expect(await meOf(alice)).toBe(LOCAL.alice);
      expect(await auth.listAccounts(LOCAL.alice!)).toEqual([
        { provider: 'credentials', providerAccountId: LOCAL.alice, type: 'credentials', name: 'Credentials' },
        { provider: 'idp', providerAccountId: ALICE_OP.sub, type: 'oidc', name: 'idp' },
      ]);
      expect(events).toContain(`link ${LOCAL.alice} idp`);

      const elsewhere = new TestClient(t.url);
      expect(await signInThroughOp(t, elsewhere, 'idp')).toBe(LOCAL.alice);
    });

    // promise: accounts.link-refused
    it("user B cannot link A's OIDC account: refused, nothing written, B still B", async () => {
      op.signInAs(ALICE_OP);
      const bob = await signInLocal('bob');
      const before = await rows();
      const refused = await link(bob);
      expect(refused.status).toBe(302);
      expect(location(refused).pathname).toBe('/auth/error');
      expect(location(refused).searchParams.get('error')).toBe('AccountAlreadyLinked');
      expect(await rows()).toEqual(before);
      expect(await meOf(bob)).toBe(LOCAL.bob);
      expect((await auth.listAccounts(LOCAL.bob!)).map((a) => a.provider)).toEqual(['credentials']);
    });

    it('refuses a link without the CSRF token or without a session', async () => {
      const bob = await signInLocal('bob');
      const noCsrf = await bob.post('/auth/link/idp', {});
      expect(location(noCsrf).searchParams.get('error')).toBe('MissingCSRF');
      const anonymous = new TestClient(t.url);
      const noSession = await anonymous.post('/auth/link/idp', { csrfToken: await anonymous.csrf() });
      expect(location(noSession).searchParams.get('error')).toBe('SessionRequired');
    });

    // promise: accounts.unlink-last
    it('unlinks an account, but never the last way to sign in', async () => {
      const alice = await signInLocal('alice');
      await auth.unlinkAccount(LOCAL.alice!, { provider: 'idp', providerAccountId: ALICE_OP.sub }, proof(alice));
      expect(events).toContain(`unlink ${LOCAL.alice} idp`);
      const bob = await signInLocal('bob');
      const before = await rows();
      await expect(
        auth.unlinkAccount(LOCAL.alice!, { provider: 'credentials', providerAccountId: LOCAL.alice! }, proof(alice)),
      ).rejects.toMatchObject({ type: 'LastSignInMethod' });
      // Bob's request cannot act for Alice.
      await expect(
        auth.unlinkAccount(
          LOCAL.alice!,
          { provider: 'credentials', providerAccountId: LOCAL.alice! },
          { request: request(bob) },
        ),
      ).rejects.toMatchObject({ type: 'InvalidRequest' });
      expect(await rows()).toEqual(before);
    });

    // promise: accounts.delete
    it('deletes an account: every row of the user goes, in every table; other users keep theirs', async () => {
      op.signInAs(ALICE_OP);
      const alice = await signInLocal('alice');
      expect((await link(alice)).status).toBe(302);
      // A passkey and a pending magic link of Alice's, written as the flows would.
      const adapter = t.app.get<Adapter>(Adapter);
      await ds.getRepository(UserEntity).update({ id: LOCAL.alice }, { email: 'alice@local.example' });
      await adapter.createAuthenticator!({
        credentialID: `cred-${target.name}`,
        credentialPublicKey: 'cGs=',
        providerAccountId: `cred-${target.name}`,
        counter: 0,
        credentialDeviceType: 'multiDevice',
        credentialBackedUp: true,
        userId: LOCAL.alice!,
      });
      await adapter.createVerificationToken!({
        identifier: 'alice@local.example',
        token: 'hashed-token',
        expires: new Date(Date.now() + 60_000),
      });
      const bob = await signInLocal('bob');
      const mine = await rows(LOCAL.alice, 'alice@local.example');
      expect(mine).toMatchObject({ users: 1, accounts: 2, authenticators: 1, verification_tokens: 1 });
      expect(mine.sessions).toBeGreaterThan(0);
      const bobs = await rows(LOCAL.bob);

      // A sign-in that is not recent is refused, and nothing is deleted.
      await expect(auth.deleteAccount(LOCAL.alice!, { request: request(alice), maxAge: 0 })).rejects.toMatchObject({
        type: 'ReauthenticationRequired',
      });
      expect(await rows(LOCAL.alice, 'alice@local.example')).toEqual(mine);

      await auth.deleteAccount(LOCAL.alice!, proof(alice));
      expect(await rows(LOCAL.alice, 'alice@local.example')).toEqual({
        users: 0,
        accounts: 0,
        sessions: 0,
        authenticators: 0,
        verification_tokens: 0,
      });
      expect(await rows(LOCAL.bob)).toEqual(bobs);
      expect(events).toContain(`delete ${LOCAL.alice}`);
      // Her session is gone at once; the OIDC account signs in as a new user now.
      expect((await alice.get('/me')).status).toBe(401);
      expect(await meOf(bob)).toBe(LOCAL.bob);
      expect(await signInThroughOp(t, new TestClient(t.url), 'idp')).not.toBe(LOCAL.alice);
    });

    /** Installs (or removes) a trigger that makes deleting a user row fail, on this database. */
    async function failUserDeletes(on: boolean): Promise<void> {
      const sql: Record<string, [string, string]> = {
        sqlite: [
          `CREATE TRIGGER no_user_delete BEFORE DELETE ON users BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END`,
          'DROP TRIGGER no_user_delete',
        ],
        postgres: [
          `CREATE FUNCTION no_user_delete() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by trigger'; END $$ LANGUAGE plpgsql;
           CREATE TRIGGER no_user_delete BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION no_user_delete()`,
          'DROP TRIGGER no_user_delete ON users; DROP FUNCTION no_user_delete()',
        ],
        mariadb: [
          `CREATE TRIGGER no_user_delete BEFORE DELETE ON users FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by trigger'`,
          'DROP TRIGGER no_user_delete',
        ],
      };
      await ds.query(sql[target.name]![on ? 0 : 1]);
    }

    it('deleting is all or nothing: when the last step fails, every row of the user is still there', async () => {
      const adapter = t.app.get<Adapter>(Adapter);
      const carol = await adapter.createUser!({
        id: '33333333-3333-4333-8333-333333333333',
        email: 'carol@local.example',
        emailVerified: null,
      });
      await adapter.linkAccount!({ provider: 'idp', providerAccountId: 'carol-op', type: 'oidc', userId: carol.id });
      await adapter.createSession!({
        sessionToken: `carol-${target.name}`,
        userId: carol.id,
        expires: new Date(Date.now() + 60_000),
      });
      await adapter.createVerificationToken!({
        identifier: carol.email,
        token: 'carol-token',
        expires: new Date(Date.now() + 60_000),
      });
      const before = await rows(carol.id, carol.email);
      expect(before).toMatchObject({ users: 1, accounts: 1, sessions: 1, verification_tokens: 1 });
      await failUserDeletes(true);
      try {
        await expect(auth.deleteAccount(carol.id, { recentSignIn: false })).rejects.toMatchObject({
          type: 'AdapterError',
        });
      } finally {
        await failUserDeletes(false);
      }
      expect(await rows(carol.id, carol.email)).toEqual(before);
      expect(events).not.toContain(`delete ${carol.id}`);
      await auth.deleteAccount(carol.id, { recentSignIn: false });
      expect(await rows(carol.id, carol.email)).toEqual({
        users: 0,
        accounts: 0,
        sessions: 0,
        authenticators: 0,
        verification_tokens: 0,
      });
    });
  });
});
