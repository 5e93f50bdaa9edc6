import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { ExpressAuth } from '@auth/express';
import PostgresAdapter from '@auth/pg-adapter';
import { DataSource } from 'typeorm';
import { Email } from '../lib/methods/email/email.provider.js';
import { TypeOrmAdapter } from '../lib/adapters/typeorm/typeorm.adapter.js';
import { authSchemaEntities } from '../lib/adapters/typeorm/schema-entities.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { TestClient } from './setup/http-client.js';
import { followToApp, startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { AUTHJS_DDL } from './setup/authjs-ddl.js';

// A real Auth.js app (@auth/express, @auth/pg-adapter, `strategy: "database"`) and our Nest app on
// one PostgreSQL database with the `authjs-pg` preset: a session made by either is the other's too.

const SESSION_COOKIE = 'authjs.session-token';
const authjsLinks: string[] = [];
const nestLinks: string[] = [];
const targets = await databaseTargets(['postgres']);
const pgTarget = targets[0]!;

interface Closeable {
  end(): Promise<void>;
}
const { default: pg } = (await import('pg' as string)) as { default: { Pool: new (options: object) => Closeable } };

pgTarget.describe('Auth.js (@auth/express) and nestjs-auth on one PostgreSQL database (authjs-pg)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let pool: Closeable;
  let op: TestOidcProvider;
  let authjs: { url: string; server: Server };
  let nest: TestApp;

  beforeAll(async () => {
    db = await createDatabase(pgTarget, 'authjs-express');
    ds = new DataSource({ ...db.options });
    await ds.initialize();
    for (const statement of AUTHJS_DDL['authjs-pg'].postgres!) await ds.query(statement);
    await ds.destroy();
    ds = new DataSource({ ...db.options, entities: authSchemaEntities('authjs-pg', 'postgres') });
    await ds.initialize();
    pool = new pg.Pool({ connectionString: (db.options as { url: string }).url, max: 4 });
    op = await startOidcProvider();

    // The Auth.js app, as its documentation sets it up (Express 5: a RegExp path gives it params[0]).
    const app = express();
    app.set('trust proxy', true);
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const authjsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    app.use(
      /^\/auth\/(.*)/,
      ExpressAuth({
        providers: [
          {
            id: 'idp',
            name: 'IdP',
            type: 'oidc',
            issuer: op.issuer,
            clientId: 'authjs',
            clientSecret: 'authjs-secret',
          },
          {
            id: 'email',
            name: 'Email',
            type: 'email',
            maxAge: 600,
            sendVerificationRequest: async ({ url }: { url: string }) => void authjsLinks.push(url),
          } as never,
        ],
        adapter: PostgresAdapter(pool as never),
        session: { strategy: 'database' },
        secret: TEST_SECRET,
        trustHost: true,
      }),
    );
    authjs = { url: authjsUrl, server };

    nest = await createTestApp({
      auth: {
        providers: [
          { id: 'idp', name: 'IdP', type: 'oidc', issuer: op.issuer, clientId: 'nest', clientSecret: 'nest-secret' },
          Email({ tokenHash: 'authjs', sendVerificationRequest: async ({ url }) => void nestLinks.push(url) }),
        ],
        adapter: new TypeOrmAdapter(ds, {}, { schema: 'authjs-pg' }),
        session: { strategy: 'database' },
      },
    });
    await op.addClient(
      { client_id: 'authjs', client_secret: 'authjs-secret', redirect_uris: [`${authjsUrl}/auth/callback/idp`] },
      { client_id: 'nest', client_secret: 'nest-secret', redirect_uris: [`${nest.url}/auth/callback/idp`] },
    );
  });

  afterAll(async () => {
    await nest?.close();
    await new Promise((resolve) => authjs?.server.close(resolve));
    await op?.close();
    await pool?.end();
    await ds?.destroy();
    await dropDatabase(db);
  });

  /** Signs in through the OAuth flow of the app at `base`, with a cookie-keeping client. */
  async function signIn(base: string, client: TestClient): Promise<void> {
    const csrfToken = await client.csrf(`${base}/auth`);
    const start = await client.post(`${base}/auth/signin/idp`, { csrfToken, callbackUrl: `${base}/` });
    expect(start.status).toBe(302);
    const back = await followToApp(client, start, base);
    const done =
      back.method === 'GET' ? await client.get(back.url.href) : await client.post(back.url.href, back.body ?? {});
    expect(done.status).toBe(302);
    expect(client.cookies.get(SESSION_COOKIE)).toBeTruthy();
  }

  async function authjsSession(client: TestClient): Promise<{ user?: { email?: string } } | null> {
    return (await (await client.get(`${authjs.url}/auth/session`)).json()) as { user?: { email?: string } } | null;
  }

  async function signOut(base: string, client: TestClient): Promise<void> {
    const csrfToken = await client.csrf(`${base}/auth`);
    const out = await client.post(`${base}/auth/signout`, { csrfToken, callbackUrl: `${base}/` });
    expect(out.status).toBe(302);
  }

  it('a session the Auth.js app creates through its OAuth flow is accepted by our guard', async () => {
    op.signInAs({ sub: 'authjs-first', email: 'first@example.com', name: 'First', email_verified: true });
    const client = new TestClient(authjs.url);
    await signIn(authjs.url, client);
    expect((await authjsSession(client))?.user?.email).toBe('first@example.com');
    const rows = (await ds.query(`SELECT "sessionToken", "userId" FROM sessions`)) as { userId: number }[];
    expect(rows).toHaveLength(1);
    expect(typeof rows[0]!.userId).toBe('number');

    const me = await client.get(`${nest.url}/me`);
    expect(me.status).toBe(200);
    const body = (await me.json()) as { user: { id: string; email: string } };
    expect(body.user.email).toBe('first@example.com');
    expect(body.user.id).toBe(String(rows[0]!.userId));
  });

  it('a session our app creates is accepted by the Auth.js app', async () => {
    op.signInAs({ sub: 'nest-first', email: 'second@example.com', name: 'Second', email_verified: true });
    const client = new TestClient(nest.url);
    await signIn(nest.url, client);
    expect((await client.get(`${nest.url}/me`)).status).toBe(200);
    expect((await authjsSession(client))?.user?.email).toBe('second@example.com');
  });

  it('the same provider account signs in to the same user on both', async () => {
    op.signInAs({ sub: 'both-apps', email: 'both@example.com', name: 'Both', email_verified: true });
    const viaAuthjs = new TestClient(authjs.url);
    await signIn(authjs.url, viaAuthjs);
    const viaNest = new TestClient(nest.url);
    await signIn(nest.url, viaNest);
    const a = (await (await viaAuthjs.get(`${nest.url}/me`)).json()) as { user: { id: string } };
    const b = (await (await viaNest.get(`${nest.url}/me`)).json()) as { user: { id: string } };
    expect(a.user.id).toBe(b.user.id);
  });

  it('signing out on the Auth.js app ends the session for our guard', async () => {
    op.signInAs({ sub: 'out-authjs', email: 'out1@example.com', name: 'Out', email_verified: true });
    const client = new TestClient(authjs.url);
    await signIn(authjs.url, client);
    const token = client.cookies.get(SESSION_COOKIE)!;
    expect((await client.get(`${nest.url}/me`)).status).toBe(200);
    await signOut(authjs.url, client);
    // The cookie the browser still had is refused: the row is gone.
    client.cookies.set(SESSION_COOKIE, token);
    expect((await client.get(`${nest.url}/me`)).status).toBe(401);
  });

  it('signing out on our app ends the session for the Auth.js app', async () => {
    op.signInAs({ sub: 'out-nest', email: 'out2@example.com', name: 'Out', email_verified: true });
    const client = new TestClient(nest.url);
    await signIn(nest.url, client);
    const token = client.cookies.get(SESSION_COOKIE)!;
    expect((await authjsSession(client))?.user?.email).toBe('out2@example.com');
    await signOut(nest.url, client);
    client.cookies.set(SESSION_COOKIE, token);
    expect((await authjsSession(client))?.user).toBeUndefined();
  });

  /** Asks the app at `base` for a magic link; returns the link it sent. */
  async function requestLink(base: string, email: string, links: string[]): Promise<URL> {
    const client = new TestClient(base);
    const csrfToken = await client.csrf(`${base}/auth`);
    const res = await client.post(`${base}/auth/signin/email`, { csrfToken, email });
    expect(res.status).toBe(302);
    return new URL(links.pop()!);
  }

  it('a magic link the Auth.js app sent is consumed by our app, once', async () => {
    const link = await requestLink(authjs.url, 'link-from-authjs@example.com', authjsLinks);
    const client = new TestClient(nest.url);
    // Our callback page shows a button that posts the link's fields back (mail scanners that GET
    // links do not use them up): that page, then that post.
    const ours = new URL(`${link.pathname}${link.search}`, nest.url);
    expect((await client.get(ours.href)).status).toBe(200);
    const signedIn = await client.post(`${nest.url}${link.pathname}`, Object.fromEntries(link.searchParams), {
      headers: { origin: nest.url },
    });
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get('location')).not.toMatch(/error=/);
    const me = (await (await client.get(`${nest.url}/me`)).json()) as { user: { email: string } };
    expect(me.user.email).toBe('link-from-authjs@example.com');
    // Used up: the Auth.js app refuses the same link.
    const again = await new TestClient(authjs.url).get(link.href);
    expect(again.headers.get('location')).toMatch(/error=Verification/);
    expect(await ds.query(`SELECT * FROM verification_token`)).toEqual([]);
  });

  it('a magic link our app sent is consumed by the Auth.js app, once', async () => {
    const link = await requestLink(nest.url, 'link-from-nest@example.com', nestLinks);
    const theirs = new URL(`${link.pathname}${link.search}`, authjs.url);
    const client = new TestClient(authjs.url);
    const signedIn = await client.get(theirs.href);
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get('location')).not.toMatch(/error=/);
    expect((await authjsSession(client))?.user?.email).toBe('link-from-nest@example.com');
    // Our guard accepts the session the Auth.js app started from our link.
    expect((await client.get(`${nest.url}/me`)).status).toBe(200);
    const again = await new TestClient(nest.url).post(
      `${nest.url}${link.pathname}`,
      Object.fromEntries(link.searchParams),
      { headers: { origin: nest.url } },
    );
    expect(again.headers.get('location')).toMatch(/error=Verification/);
  });
});
