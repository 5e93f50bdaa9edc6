/**
 * README promises that no other suite held (issue 24): each test names the promise it holds in its
 * title (checked by scripts/readme-promises.mjs). Real parts: SQLite through TypeORM, the
 * `oidc-provider` OpenID Provider, `smtp-server`, and real ES256 passkey signatures.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LoggerService } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import type { AuthModuleExtras, AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { location, TestClient } from './setup/http-client.js';
import { followToApp, startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { extractLink, startSmtpServer, type TestSmtpServer } from './setup/smtp.js';
import { SoftAuthenticator } from './setup/soft-authenticator.js';

type Json = Record<string, any>;
type AuthOptions = Partial<AuthModuleOptions> & AuthModuleExtras;

const SESSION_COOKIE = 'authjs.session-token';
const [sqlite] = await databaseTargets(['sqlite']);

const USERS: Record<string, { id: string; email: string; name: string }> = {
  alice: { id: 'user-alice', email: 'alice@example.test', name: 'Alice' },
};

function credentials() {
  return {
    id: 'credentials',
    name: 'Password',
    type: 'credentials' as const,
    credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c: Partial<Record<string, unknown>>) =>
      c.password === 'correct horse' ? (USERS[String(c.username)] ?? null) : null,
  };
}

async function passwordSignIn(client: TestClient, extra: Record<string, string> = {}): Promise<Response> {
  const csrfToken = await client.csrf();
  return client.post('/auth/callback/credentials', {
    csrfToken,
    username: 'alice',
    password: 'correct horse',
    ...extra,
  });
}

/** Opens a magic link and presses the confirmation page's button (a POST of its hidden fields). */
async function confirmLink(client: TestClient, link: URL): Promise<Response> {
  const page = await client.get(link.href);
  expect(page.status).toBe(200);
  const html = await page.text();
  const unescape = (v: string) =>
    v.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');
  const action = unescape(/<form method="post" action="([^"]+)"/.exec(html)![1]!);
  const fields = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, unescape(m[2]!)]),
  );
  return client.post(new URL(action, link).href, fields);
}

/** Collects what is sent to a logger, as text: messages, metadata and errors (with their messages). */
class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  private add(level: string, args: unknown[]): void {
    this.lines.push(
      `${level} ${args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}`,
    );
  }
  log = (...args: unknown[]) => this.add('log', args);
  error = (...args: unknown[]) => this.add('error', args);
  warn = (...args: unknown[]) => this.add('warn', args);
  debug = (...args: unknown[]) => this.add('debug', args);
  verbose = (...args: unknown[]) => this.add('verbose', args);
  /** The module's own logger option, into the same lines. */
  get auth() {
    return {
      error: (error: Error) => this.add('error', [error]),
      warn: (code: string) => this.add('warn', [code]),
      debug: (message: string, metadata?: unknown) =>
        this.add('debug', metadata === undefined ? [message] : [message, metadata]),
    };
  }
}

/** Waits for named events without sleeping: each handler call resolves the waiters of its name. */
class EventLog {
  readonly seen: Array<{ name: string; message: Json }> = [];
  private readonly waiters: Array<{ name: string; count: number; resolve: () => void }> = [];
  handler(name: string, fail = false) {
    return (message: Json) => {
      this.seen.push({ name, message });
      for (const w of [...this.waiters]) if (w.name === name && this.count(name) >= w.count) w.resolve();
      if (fail) throw new Error(`${name} handler failed on purpose`);
    };
  }
  count(name: string): number {
    return this.seen.filter((e) => e.name === name).length;
  }
  /** Resolves once `name` has fired `count` times in all. */
  until(name: string, count = 1): Promise<void> {
    if (this.count(name) >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ name, count, resolve }));
  }
  last(name: string): Json {
    return [...this.seen].reverse().find((e) => e.name === name)!.message;
  }
}

describe('events fire with their payloads; a throwing handler is logged and the request still succeeds', () => {
  sqlite!.describe('on SQLite', () => {
    let db: TestDatabase;
    let t: TestApp;
    let broken: TestApp;
    let links: string[];
    const events = new EventLog();
    const failing = new EventLog();
    const logger = new CapturingLogger();

    const emailProvider = () => Email({ rateLimit: false, sendVerificationRequest: ({ url }) => void links.push(url) });
    const names = ['signIn', 'signOut', 'createUser', 'updateUser', 'linkAccount', 'session'];

    beforeAll(async () => {
      links = [];
      db = await createDatabase(sqlite!, 'promises-events');
      const typeorm = TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true });
      t = await createTestApp({
        imports: [typeorm],
        auth: {
          providers: [credentials(), emailProvider()],
          session: { strategy: 'database' },
          events: Object.fromEntries(names.map((n) => [n, events.handler(n)])),
        },
      });
      broken = await createTestApp({
        auth: {
          providers: [credentials()],
          adapter: new MemoryAdapter(),
          session: { strategy: 'database' },
          events: Object.fromEntries(names.map((n) => [n, failing.handler(n, true)])),
          logger: logger.auth,
        },
      });
    });
    afterAll(async () => {
      await t?.close();
      await broken?.close();
      await dropDatabase(db);
    });

    async function emailSignIn(client: TestClient, email: string): Promise<Response> {
      const csrfToken = await client.csrf();
      expect((await client.post('/auth/signin/email', { csrfToken, email, callbackUrl: '/public' })).status).toBe(302);
      const link = new URL(links.pop()!);
      return confirmLink(client, link);
    }

    it('createUser, linkAccount and signIn on a first sign-in; session on GET /session; signOut with the ended session (promise: events.payloads)', async () => {
      const client = new TestClient(t.url);
      expect((await passwordSignIn(client)).status).toBe(302);
      await events.until('signIn');
      expect(events.last('createUser')).toEqual({
        user: expect.objectContaining({ id: 'user-alice', email: 'alice@example.test' }),
      });
      expect(events.last('linkAccount')).toMatchObject({
        user: { id: 'user-alice' },
        account: {
          provider: 'credentials',
          type: 'credentials',
          providerAccountId: 'user-alice',
          userId: 'user-alice',
        },
      });
      expect(events.last('signIn')).toMatchObject({
        user: { id: 'user-alice', email: 'alice@example.test' },
        account: { provider: 'credentials', providerAccountId: 'user-alice' },
        isNewUser: true,
      });

      const token = client.cookies.get(SESSION_COOKIE)!;
      const session = (await (await client.get('/auth/session')).json()) as Json;
      await events.until('session');
      expect(events.last('session')).toMatchObject({ session: { user: { email: 'alice@example.test' } } });
      expect(events.last('session').session.expires).toBe(session.expires);

      const csrfToken = await client.csrf();
      expect((await client.post('/auth/signout', { csrfToken, callbackUrl: '/public' })).status).toBe(302);
      await events.until('signOut');
      expect(events.last('signOut')).toMatchObject({ session: { sessionToken: token, userId: 'user-alice' } });

      // A returning user: signIn again, with isNewUser false and no createUser.
      expect((await passwordSignIn(new TestClient(t.url))).status).toBe(302);
      await events.until('signIn', 2);
      expect(events.last('signIn')).toMatchObject({ user: { id: 'user-alice' }, isNewUser: false });
      expect(events.count('createUser')).toBe(1);
    });

    it('updateUser when an email sign-in takes an unproven address from the user holding it (promise: events.payloads)', async () => {
      const ds = t.app.get(DataSource);
      await ds.query(
        `INSERT INTO users (id, name, email, "emailVerified") VALUES ('user-bob', 'Bob', 'bob@example.test', NULL)`,
      );
      const created0 = events.count('createUser');
      const res = await emailSignIn(new TestClient(t.url), 'bob@example.test');
      expect(res.status).toBe(302);
      await events.until('updateUser');
      // Nobody proved the address of user-bob: the link's owner gets a user of their own.
      expect(events.last('updateUser').user).toMatchObject({ id: 'user-bob', email: null, emailVerified: null });
      await events.until('createUser', created0 + 1);
      const created = events.last('createUser').user;
      expect(created).toMatchObject({ email: 'bob@example.test' });
      expect(created.id).not.toBe('user-bob');
      expect(created.emailVerified).toBeInstanceOf(Date);
    });

    it('handlers that throw are logged as EventError; sign-in, session and sign-out still succeed (promise: events.throwing-handler)', async () => {
      const client = new TestClient(broken.url);
      const signedIn = await passwordSignIn(client, { callbackUrl: '/public' });
      expect(signedIn.status).toBe(302);
      expect(location(signedIn).href).toBe(`${broken.url}/public`);
      expect((await client.get('/me')).status).toBe(200);
      const session = await client.get('/auth/session');
      expect(session.status).toBe(200);
      expect(((await session.json()) as Json).user.email).toBe('alice@example.test');
      const csrfToken = await client.csrf();
      const out = await client.post('/auth/signout', { csrfToken, callbackUrl: '/public' });
      expect(out.status).toBe(302);
      expect((await client.get('/me')).status).toBe(401);
      await Promise.all(['createUser', 'linkAccount', 'signIn', 'session', 'signOut'].map((n) => failing.until(n)));
      // Logged after the handler's promise rejects: wait for the five lines, without a timer.
      while (logger.lines.filter((l) => l.includes('EventError')).length < 5) await new Promise(setImmediate);
      for (const name of ['createUser', 'linkAccount', 'signIn', 'session', 'signOut'])
        expect(logger.lines).toContain(
          `error EventError: The ${name} event handler threw: ${name} handler failed on purpose`,
        );
    });
  });
});

describe('events with JWT sessions', () => {
  let t: TestApp;
  const events = new EventLog();
  beforeAll(async () => {
    t = await createTestApp({
      auth: {
        providers: [credentials()],
        session: { strategy: 'jwt' },
        events: Object.fromEntries(['signIn', 'signOut', 'session'].map((n) => [n, events.handler(n)])),
      },
    });
  });
  afterAll(() => t?.close());

  it('session gets the session and the decoded token; signOut gets the token it ends (promise: events.payloads)', async () => {
    const client = new TestClient(t.url);
    expect((await passwordSignIn(client)).status).toBe(302);
    await events.until('signIn');
    expect(events.last('signIn')).toMatchObject({ user: { id: 'user-alice' }, account: { provider: 'credentials' } });
    const session = (await (await client.get('/auth/session')).json()) as Json;
    await events.until('session');
    expect(events.last('session')).toMatchObject({
      session: { user: { email: 'alice@example.test' }, expires: session.expires },
      token: { sub: 'user-alice', email: 'alice@example.test' },
    });
    const csrfToken = await client.csrf();
    expect((await client.post('/auth/signout', { csrfToken, callbackUrl: '/public' })).status).toBe(302);
    await events.until('signOut');
    expect(events.last('signOut')).toMatchObject({ token: { sub: 'user-alice', email: 'alice@example.test' } });
  });
});

/** Runs `fn` with these environment variables (undefined: unset), then puts the old values back. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const old = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(vars);
  try {
    return await fn();
  } finally {
    set(old);
  }
}

/** An OAuth 2.0 provider with explicit endpoints: starting a sign-in needs no request to it. */
const OFFLINE_OAUTH = {
  id: 'idp',
  name: 'IdP',
  type: 'oauth' as const,
  clientId: 'client',
  clientSecret: 'client-secret',
  authorization: 'https://idp.example/authorize',
  token: 'https://idp.example/token',
  userinfo: 'https://idp.example/userinfo',
};

describe('pages: the built-in routes send users to the configured pages', () => {
  let t: TestApp;
  let links: string[];
  const pages = {
    signIn: '/login',
    signOut: '/logout',
    error: '/auth-error',
    verifyRequest: '/check-email',
    newUser: '/welcome',
  };
  beforeAll(async () => {
    links = [];
    t = await createTestApp({
      auth: {
        adapter: new MemoryAdapter(),
        session: { strategy: 'database' },
        pages,
        providers: [
          credentials(),
          Email({ rateLimit: false, sendVerificationRequest: ({ url }) => void links.push(url) }),
        ],
      },
    });
  });
  afterAll(() => t?.close());

  it('GET /signin, /signout, /error and /verify-request redirect to pages.* with their query (promise: pages.redirects)', async () => {
    const client = new TestClient(t.url);
    const signin = await client.get('/auth/signin?callbackUrl=%2Fpublic');
    expect(signin.status).toBe(302);
    expect(location(signin).pathname).toBe('/login');
    expect(location(signin).searchParams.get('callbackUrl')).toBe(`${t.url}/public`);
    const signout = await client.get('/auth/signout');
    expect(signout.status).toBe(302);
    expect(location(signout).pathname).toBe('/logout');
    const error = await client.get('/auth/error?error=AccessDenied');
    expect(error.status).toBe(302);
    expect(location(error).pathname).toBe('/auth-error');
    expect(location(error).searchParams.get('error')).toBe('AccessDenied');
    const verify = await client.get('/auth/verify-request?provider=email&type=email');
    expect(verify.status).toBe(302);
    expect(location(verify).pathname).toBe('/check-email');
  });

  it('sign-in errors land on pages.signIn, a sent link on pages.verifyRequest, a first sign-in on pages.newUser (promise: pages.redirects)', async () => {
    const client = new TestClient(t.url);
    const wrong = await passwordSignIn(client, { password: 'wrong', callbackUrl: '/public' });
    expect(location(wrong).pathname).toBe('/login');
    expect(location(wrong).searchParams.get('error')).toBe('CredentialsSignin');
    expect(location(wrong).searchParams.get('code')).toBe('credentials');

    const csrfToken = await client.csrf();
    const sent = await client.post('/auth/signin/email', {
      csrfToken,
      email: 'new@example.test',
      callbackUrl: '/public',
    });
    expect(location(sent).pathname).toBe('/check-email');
    expect(location(sent).searchParams.get('provider')).toBe('email');

    const first = await confirmLink(client, new URL(links.pop()!));
    expect(first.status).toBe(302);
    expect(location(first).pathname).toBe('/welcome');
    expect(location(first).searchParams.get('callbackUrl')).toBe(`${t.url}/public`);
    // The same user again: straight to the callback URL.
    await client.post('/auth/signin/email', {
      csrfToken: await client.csrf(),
      email: 'new@example.test',
      callbackUrl: '/public',
    });
    const again = await confirmLink(new TestClient(t.url), new URL(links.pop()!));
    expect(location(again).href).toBe(`${t.url}/public`);
  });
});

describe('useSecureCookies and the trustHost defaults', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close())));
  async function start(auth: AuthOptions): Promise<TestApp> {
    const t = await createTestApp({ auth: { providers: [credentials()], ...auth } });
    apps.push(t);
    return t;
  }
  const cookieNames = (res: Response) => res.headers.getSetCookie().map((c) => c.split('=')[0]);

  it('default: secure cookie names and Secure exactly when the request came over https (promise: options.use-secure-cookies)', async () => {
    const t = await start({ trustHost: true });
    const plain = await fetch(`${t.url}/auth/csrf`);
    expect(cookieNames(plain)).toEqual(['authjs.csrf-token']);
    expect(plain.headers.getSetCookie()[0]).not.toMatch(/;\s*secure/i);
    const https = await fetch(`${t.url}/auth/csrf`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(cookieNames(https)).toEqual(['__Host-authjs.csrf-token']);
    expect(https.headers.getSetCookie()[0]).toMatch(/;\s*secure/i);
  });

  it('useSecureCookies: true forces them over http; false keeps plain names over https (promise: options.use-secure-cookies)', async () => {
    const forced = await start({ trustHost: true, useSecureCookies: true });
    const res = await fetch(`${forced.url}/auth/csrf`);
    expect(cookieNames(res)).toEqual(['__Host-authjs.csrf-token']);
    expect(res.headers.getSetCookie()[0]).toMatch(/;\s*secure/i);
    const off = await start({ trustHost: true, useSecureCookies: false });
    const over = await fetch(`${off.url}/auth/csrf`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(cookieNames(over)).toEqual(['authjs.csrf-token']);
  });

  it('with NODE_ENV=production and neither AUTH_URL nor AUTH_TRUST_HOST, requests are refused with UntrustedHost (promise: options.trust-host-defaults)', async () => {
    const t = await withEnv({ NODE_ENV: 'production', AUTH_URL: undefined, AUTH_TRUST_HOST: undefined }, () =>
      start({}),
    );
    const res = await fetch(`${t.url}/auth/csrf`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toBe('UntrustedHost');
    // Outside production the Host is trusted by default.
    const dev = await withEnv({ NODE_ENV: 'development', AUTH_URL: undefined, AUTH_TRUST_HOST: undefined }, () =>
      start({}),
    );
    expect((await fetch(`${dev.url}/auth/csrf`)).status).toBe(200);
  });

  it('AUTH_TRUST_HOST=true (or 1), an AUTH_URL or the option turns trust on in production; AUTH_URL is then the origin (promise: options.trust-host-defaults)', async () => {
    const trusted = await withEnv({ NODE_ENV: 'production', AUTH_URL: undefined, AUTH_TRUST_HOST: 'true' }, () =>
      start({}),
    );
    const csrf = await fetch(`${trusted.url}/auth/csrf`);
    expect(csrf.status).toBe(200);
    const one = await withEnv({ NODE_ENV: 'production', AUTH_URL: undefined, AUTH_TRUST_HOST: '1' }, () => start({}));
    expect((await fetch(`${one.url}/auth/csrf`)).status).toBe(200);
    // Any other value is no: still refused.
    const no = await withEnv({ NODE_ENV: 'production', AUTH_URL: undefined, AUTH_TRUST_HOST: 'false' }, () =>
      start({}),
    );
    expect((await fetch(`${no.url}/auth/csrf`)).status).toBe(400);
    // The option wins over the environment.
    const option = await withEnv({ NODE_ENV: 'production', AUTH_URL: undefined, AUTH_TRUST_HOST: undefined }, () =>
      start({ trustHost: true }),
    );
    expect((await fetch(`${option.url}/auth/csrf`)).status).toBe(200);
    const withUrl = await withEnv(
      { NODE_ENV: 'production', AUTH_URL: 'https://app.example.test', AUTH_TRUST_HOST: undefined },
      () => start({}),
    );
    const client = new TestClient(withUrl.url);
    const out = await client.get('/auth/signin?callbackUrl=%2Fpublic');
    expect(out.status).toBe(200);
    // AUTH_URL is https: secure cookie names, and the remembered callback URL is on that origin.
    // Cookie values are percent-encoded, as Auth.js writes them.
    expect(out.headers.getSetCookie().find((c) => c.startsWith('__Secure-authjs.callback-url='))).toContain(
      `=${encodeURIComponent('https://app.example.test/public')};`,
    );
  });
});

describe('AUTH_REDIRECT_PROXY_URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await withEnv({ AUTH_REDIRECT_PROXY_URL: 'https://auth.example.test/auth' }, () =>
      createTestApp({ auth: { providers: [OFFLINE_OAUTH] } }),
    );
  });
  afterAll(() => t?.close());

  it('sends the proxy as redirect_uri, with a state carrying this deployment (promise: oauth.redirect-proxy-env)', async () => {
    const client = new TestClient(t.url);
    const res = await client.post('/auth/signin/idp', { csrfToken: await client.csrf(), callbackUrl: '/public' });
    expect(res.status).toBe(302);
    const target = location(res);
    expect(target.origin + target.pathname).toBe('https://idp.example/authorize');
    expect(target.searchParams.get('redirect_uri')).toBe('https://auth.example.test/auth/callback/idp');
    const state = target.searchParams.get('state');
    expect(state).toBeTruthy();
    expect(state).not.toContain(t.url);
    expect(target.searchParams.get('code_challenge_method')).toBe('S256');
  });
});

describe('session.hashTokens and AuthService.unlinkAccount on SQLite', () => {
  sqlite!.describe('SQLite', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createDatabase(sqlite!, 'promises-hash');
    });
    afterAll(() => dropDatabase(db));
    const typeorm = () => TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true, synchronize: true });

    it('turning hashTokens on ends the sessions that exist (promise: sessions.hash-tokens-ends-sessions)', async () => {
      const before = await createTestApp({
        imports: [typeorm()],
        auth: { providers: [credentials()], session: { strategy: 'database' } },
      });
      const client = new TestClient(before.url);
      try {
        expect((await passwordSignIn(client)).status).toBe(302);
        expect((await client.get('/me')).status).toBe(200);
      } finally {
        await before.close();
      }
      const after = await createTestApp({
        imports: [typeorm()],
        auth: { providers: [credentials()], session: { strategy: 'database', hashTokens: true } },
      });
      try {
        const old = await fetch(`${after.url}/me`, { headers: { cookie: client.cookieHeader() } });
        expect(old.status).toBe(401);
        expect(((await old.json()) as Json).error).toBe('InvalidSession');
        // A new sign-in works, and what is stored is the hash of the new cookie.
        const fresh = new TestClient(after.url);
        expect((await passwordSignIn(fresh)).status).toBe(302);
        expect((await fresh.get('/me')).status).toBe(200);
        const token = fresh.cookies.get(SESSION_COOKIE)!;
        const rows = (await after.app.get(DataSource).query('SELECT "sessionToken" FROM sessions')) as Json[];
        expect(rows.map((r) => r.sessionToken)).toContain(createHash('sha256').update(token).digest('hex'));
        expect(rows.map((r) => r.sessionToken)).not.toContain(token);
      } finally {
        await after.close();
      }
    });

    it('unlinkAccount removes the linked account row; the user stays (promise: auth-service.unlink-account)', async () => {
      const t = await createTestApp({
        imports: [typeorm()],
        auth: { providers: [credentials()], session: { strategy: 'database' } },
      });
      try {
        expect((await passwordSignIn(new TestClient(t.url))).status).toBe(302);
        const ds = t.app.get(DataSource);
        const accounts = () =>
          ds.query(`SELECT provider, "providerAccountId" FROM accounts WHERE "userId" = 'user-alice'`);
        expect(await accounts()).toEqual([{ provider: 'credentials', providerAccountId: 'user-alice' }]);
        await t.app.get(AuthService).unlinkAccount({ provider: 'credentials', providerAccountId: 'user-alice' });
        expect(await accounts()).toEqual([]);
        expect(await ds.query(`SELECT id FROM users WHERE id = 'user-alice'`)).toEqual([{ id: 'user-alice' }]);
      } finally {
        await t.close();
      }
    });
  });
});

describe('OAuth against a real OpenID Provider (oidc-provider)', () => {
  let op: TestOidcProvider;
  let t: TestApp;
  let adapter: MemoryAdapter;
  let noS256Fetches: string[];
  const capture = new CapturingLogger();
  const ids = ['jwt', 'nos256', 'oauth-nos256', 'plain'];
  const secret = (id: string) => `${id}-client-secret-${'x'.repeat(40)}`;

  /** Hides S256 from the provider's metadata, as a provider without PKCE support would publish it. */
  const withoutS256 = async (url: string, init: RequestInit): Promise<Response> => {
    noS256Fetches.push(new URL(url).pathname);
    const res = await fetch(url, init);
    if (!new URL(url).pathname.endsWith('/.well-known/openid-configuration')) return res;
    const metadata = (await res.json()) as Json;
    return Response.json({ ...metadata, code_challenge_methods_supported: ['plain'] });
  };

  beforeAll(async () => {
    op = await startOidcProvider();
    adapter = new MemoryAdapter();
    noS256Fetches = [];
    const common = (id: string) => ({ id, name: id, issuer: op.issuer, clientId: `c-${id}`, clientSecret: secret(id) });
    t = await createTestApp({
      auth: {
        adapter,
        debug: true,
        providers: [
          { ...common('jwt'), type: 'oidc', client: { token_endpoint_auth_method: 'client_secret_jwt' } },
          { ...common('nos256'), type: 'oidc', customFetch: withoutS256 },
          {
            ...common('oauth-nos256'),
            type: 'oauth',
            issuer: undefined,
            wellKnown: `${op.issuer}/.well-known/openid-configuration`,
            authorization: { params: { scope: 'openid email profile' } },
            customFetch: withoutS256,
          },
          { ...common('plain'), type: 'oidc' },
        ] as never,
      },
    });
    // The module's default logger (Nest's Logger('AuthModule')), debug lines included, into `capture`.
    t.app.useLogger(capture);
    for (const id of ids)
      await op.addClient({
        client_id: `c-${id}`,
        client_secret: secret(id),
        redirect_uris: [`${t.url}/auth/callback/${id}`],
        ...(id === 'jwt' ? { token_endpoint_auth_method: 'client_secret_jwt' as const } : {}),
      });
  });
  afterAll(async () => {
    await t?.close();
    await op?.close();
  });

  let users = 0;
  /** Starts a sign-in as a new user of the OP (an address no other account has), up to the callback. */
  async function start(client: TestClient, provider: string, body: Record<string, string> = {}) {
    users++;
    op.signInAs({
      sub: `promises-${users}`,
      email: `promises-${users}@example.test`,
      name: `User ${users}`,
      email_verified: true,
    });
    const res = await client.post(`/auth/signin/${provider}`, { csrfToken: await client.csrf(), ...body });
    expect(res.status).toBe(302);
    return { authorize: location(res), back: await followToApp(client, res, t.url) };
  }

  it('client_secret_jwt: the client authenticates with an HS256 assertion keyed by its secret (promise: oauth.client-secret-jwt)', async () => {
    const client = new TestClient(t.url);
    const { back } = await start(client, 'jwt', { callbackUrl: '/public' });
    const res = await client.get(back.url.href);
    expect(res.status).toBe(302);
    expect(location(res).href).toBe(`${t.url}/public`);
    expect((await client.get('/me')).status).toBe(200);
    // The OP registered this client for client_secret_jwt only: a Basic or post secret would have been refused.
    expect(op.requests).toContain('POST /token');
  });

  it('PKCE falls back to nonce (OIDC) or state (OAuth 2.0) when the metadata lacks S256, and the sign-in completes (promise: oauth.pkce-fallback)', async () => {
    const oidc = new TestClient(t.url);
    const a = await start(oidc, 'nos256');
    expect(a.authorize.searchParams.get('code_challenge')).toBeNull();
    expect(a.authorize.searchParams.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect([...oidc.cookies.keys()]).toContain('authjs.nonce');
    expect([...oidc.cookies.keys()]).not.toContain('authjs.pkce.code_verifier');
    expect((await oidc.get(a.back.url.href)).status).toBe(302);
    expect((await oidc.get('/me')).status).toBe(200);

    const oauth = new TestClient(t.url);
    const b = await start(oauth, 'oauth-nos256');
    expect(b.authorize.searchParams.get('code_challenge')).toBeNull();
    expect(b.authorize.searchParams.get('state')).toMatch(/\S{20,}/);
    expect([...oauth.cookies.keys()]).toContain('authjs.state');
    expect((await oauth.get(b.back.url.href)).status).toBe(302);
    expect((await oauth.get('/me')).status).toBe(200);
    expect(noS256Fetches).toContain('/.well-known/openid-configuration');
    // The provider that publishes S256 keeps PKCE.
    const plain = await start(new TestClient(t.url), 'plain');
    expect(plain.authorize.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('callbackUrl: same-origin is kept, another origin becomes the base URL, and the callback-url cookie carries it (promise: callback-url.oauth) (promise: callback-url.cookie)', async () => {
    const kept = new TestClient(t.url);
    const { back } = await start(kept, 'plain', { callbackUrl: `${t.url}/public?from=oauth` });
    expect(location(await kept.get(back.url.href)).href).toBe(`${t.url}/public?from=oauth`);

    const foreign = new TestClient(t.url);
    const off = await start(foreign, 'plain', { callbackUrl: 'https://evil.example/steal' });
    expect(location(await foreign.get(off.back.url.href)).href).toBe(`${t.url}/`);

    // The sign-in page remembers callbackUrl in the cookie; a sign-in without one goes there.
    const remembered = new TestClient(t.url);
    const page = await remembered.get('/auth/signin?callbackUrl=%2Fpublic%3Fvia%3Dcookie');
    expect(page.status).toBe(200);
    expect(decodeURIComponent(remembered.cookies.get('authjs.callback-url')!)).toBe(`${t.url}/public?via=cookie`);
    const viaCookie = await start(remembered, 'plain');
    expect(location(await remembered.get(viaCookie.back.url.href)).href).toBe(`${t.url}/public?via=cookie`);
  });

  it('codes, tokens, check values, cookies and secrets appear in no log line, debug included, and in no error URL (promise: oauth.no-secrets-in-logs) (promise: options.debug-redaction)', async () => {
    capture.lines.length = 0;
    const client = new TestClient(t.url);
    const { back } = await start(client, 'plain', { callbackUrl: '/public' });
    const checkCookies = [...client.cookies].filter(([name]) => /pkce|state|nonce/.test(name)).map(([, v]) => v);
    const ok = await client.get(back.url.href);
    expect(ok.status).toBe(302);
    const code = back.url.searchParams.get('code')!;
    const state = back.url.searchParams.get('state');
    // Replayed (InvalidCheck) and with a forged code (the token request fails): both logged, both refused.
    const replay = await client.get(back.url.href);
    const forgedClient = new TestClient(t.url);
    const forgedStart = await start(forgedClient, 'plain');
    const forgedUrl = new URL(forgedStart.back.url);
    forgedUrl.searchParams.set('code', 'forged-code-value-0123456789');
    const forged = await forgedClient.get(forgedUrl.href);
    const errorUrls = [location(replay).href, location(forged).href];
    expect(errorUrls.map((u) => new URL(u).searchParams.get('error'))).toEqual(['InvalidCheck', 'OAuthCallbackError']);

    const account = [...(adapter as unknown as { accounts: Map<string, Json> }).accounts.values()].find(
      (a) => a.provider === 'plain',
    )!;
    const secrets = [
      code,
      'forged-code-value-0123456789',
      ...(state ? [state] : []),
      ...checkCookies,
      client.cookies.get(SESSION_COOKIE)!,
      client.cookies.get('authjs.csrf-token')!,
      account.access_token as string,
      account.id_token as string,
      secret('plain'),
      TEST_SECRET,
    ];
    expect(secrets.every((s) => typeof s === 'string' && s.length >= 16)).toBe(true);
    // Debug was on: the flow was logged (its steps, the provider), and the failures were logged too.
    expect(capture.lines.some((l) => l.startsWith('debug') && l.includes('oauth_callback'))).toBe(true);
    expect(capture.lines.some((l) => /^(warn|error)/.test(l))).toBe(true);
    for (const text of [...capture.lines, ...errorUrls])
      for (const value of secrets) expect({ text, leaks: text.includes(value) }).toEqual({ text, leaks: false });
  });
});

describe('discovery limits: no redirects, a size cap, a timeout, a cache', () => {
  let op: TestOidcProvider;
  let server: Server;
  let base: string;
  let t: TestApp;
  const discoveries: string[] = [];
  const held: Array<() => void> = [];

  beforeAll(async () => {
    op = await startOidcProvider();
    // A provider front: its discovery redirects, is too large, or never answers.
    server = createServer((req, res) => {
      const path = req.url ?? '';
      if (path.startsWith('/moved/')) {
        res.writeHead(302, { location: `${op.issuer}/.well-known/openid-configuration` }).end();
      } else if (path.startsWith('/large/')) {
        const issuer = `${base}/large`;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, padding: 'x'.repeat(600 * 1024) }));
      } else if (path.startsWith('/silent/')) {
        held.push(() => res.destroy());
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const provider = (id: string, issuer: string) => ({
      id,
      name: id,
      type: 'oidc',
      issuer,
      clientId: id,
      clientSecret: 'secret',
    });
    t = await createTestApp({
      auth: {
        providers: [
          provider('moved', `${base}/moved`),
          provider('large', `${base}/large`),
          provider('silent', `${base}/silent`),
          {
            ...provider('cached', op.issuer),
            customFetch: (url: string, init: RequestInit) => {
              discoveries.push(new URL(url).pathname);
              return fetch(url, init);
            },
          },
        ] as never,
      },
    });
  });
  afterAll(async () => {
    for (const release of held) release();
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
    await op?.close();
  });

  async function signInStart(provider: string): Promise<Response> {
    const client = new TestClient(t.url);
    return client.post(`/auth/signin/${provider}`, { csrfToken: await client.csrf() });
  }
  const expectSignInError = (res: Response) => {
    expect(res.status).toBe(302);
    expect(location(res).pathname).toBe('/auth/signin');
    expect(location(res).searchParams.get('error')).toBe('OAuthSignInError');
  };

  it('a discovery document behind a redirect is refused, not followed (promise: oauth.discovery-limits)', async () => {
    // Only what this sign-in sent counts (the module discovers every issuer at bootstrap too).
    const before = op.requests.length;
    expectSignInError(await signInStart('moved'));
    expect(op.requests.slice(before)).not.toContain('GET /.well-known/openid-configuration');
  });

  it('a discovery document over 512 KB is refused (promise: oauth.discovery-limits)', async () => {
    expectSignInError(await signInStart('large'));
  });

  it('a provider that never answers ends as OAuthSignInError once the 10 s limit passes (promise: oauth.discovery-limits)', async () => {
    const before = held.length; // the bootstrap discovery may have been held too
    expectSignInError(await signInStart('silent'));
    expect(held.length - before).toBe(1);
  });

  it('the discovered metadata is cached: one discovery for several sign-ins (promise: oauth.discovery-limits)', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await signInStart('cached');
      expect(location(res).origin).toBe(op.issuer);
    }
    expect(discoveries.filter((p) => p.endsWith('/.well-known/openid-configuration'))).toEqual([
      '/.well-known/openid-configuration',
    ]);
  });
});

describe('email links through a real SMTP server', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  const generated: string[] = [];
  const from = 'Promises <no-reply@example.test>';

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp({
      auth: {
        adapter: new MemoryAdapter(),
        providers: [
          Email({ server: smtp.url, from, rateLimit: false }),
          Email({
            id: 'custom-token',
            server: smtp.url,
            from,
            rateLimit: false,
            generateVerificationToken: () => {
              const token = `custom-${randomBytes(12).toString('hex')}`;
              generated.push(token);
              return token;
            },
          }),
          Email({
            id: 'too-long',
            server: smtp.url,
            from,
            rateLimit: false,
            generateVerificationToken: () => 'x'.repeat(513),
          }),
          Email({
            id: 'at-cap',
            server: smtp.url,
            from,
            rateLimit: false,
            generateVerificationToken: () => 'y'.repeat(512),
          }),
        ],
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  async function requestLink(client: TestClient, provider: string, email: string, callbackUrl?: string) {
    const csrfToken = await client.csrf();
    const res = await client.post(`/auth/signin/${provider}`, {
      csrfToken,
      email,
      ...(callbackUrl ? { callbackUrl } : {}),
    });
    return res;
  }
  const mailTo = async (email: string) =>
    extractLink(await smtp.waitForMessage((m) => m.envelope.to.includes(email)), '/callback/');

  it('generateVerificationToken: its token is the one in the link, and it signs in (promise: email.generate-verification-token)', async () => {
    const client = new TestClient(t.url);
    expect(location(await requestLink(client, 'custom-token', 'gen@example.test', '/public')).pathname).toBe(
      '/auth/verify-request',
    );
    const link = await mailTo('gen@example.test');
    expect(link.searchParams.get('token')).toBe(generated.at(-1));
    const res = await confirmLink(client, link);
    expect(location(res).href).toBe(`${t.url}/public`);
    expect((await client.get('/me')).status).toBe(200);
  });

  it('a generated token over 512 characters is refused and nothing is sent; 512 works (promise: email.generate-verification-token)', async () => {
    const client = new TestClient(t.url);
    const refused = await requestLink(client, 'too-long', 'long@example.test');
    expect(refused.status).toBe(302);
    expect(`${location(refused).pathname}?${location(refused).searchParams}`).toBe('/auth/error?error=Configuration');
    expect(smtp.messagesTo('long@example.test')).toEqual([]);
    expect(location(await requestLink(client, 'at-cap', 'cap@example.test')).pathname).toBe('/auth/verify-request');
    expect((await mailTo('cap@example.test')).searchParams.get('token')).toBe('y'.repeat(512));
  });

  it('callbackUrl: kept through the link on this origin; another origin becomes the base URL (promise: callback-url.email)', async () => {
    const kept = new TestClient(t.url);
    await requestLink(kept, 'email', 'kept@example.test', `${t.url}/public?from=email`);
    const keptLink = await mailTo('kept@example.test');
    expect(keptLink.searchParams.get('callbackUrl')).toBe(`${t.url}/public?from=email`);
    expect(location(await confirmLink(kept, keptLink)).href).toBe(`${t.url}/public?from=email`);

    const foreign = new TestClient(t.url);
    await requestLink(foreign, 'email', 'foreign@example.test', 'https://evil.example/steal');
    const foreignLink = await mailTo('foreign@example.test');
    expect(foreignLink.href).not.toContain('evil.example');
    expect(location(await confirmLink(foreign, foreignLink)).href).toBe(`${t.url}/`);
  });
});

describe('callbackUrl with credentials', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: { providers: [credentials()] } });
  });
  afterAll(() => t?.close());

  it('keeps a same-origin URL, turns another origin into the base URL, and falls back to the cookie (promise: callback-url.credentials)', async () => {
    const kept = await passwordSignIn(new TestClient(t.url), { callbackUrl: '/public?from=password' });
    expect(location(kept).href).toBe(`${t.url}/public?from=password`);
    const foreign = await passwordSignIn(new TestClient(t.url), { callbackUrl: 'https://evil.example/steal' });
    expect(location(foreign).href).toBe(`${t.url}/`);
    const remembered = new TestClient(t.url);
    await remembered.get('/auth/signin?callbackUrl=%2Fpublic%3Fvia%3Dcookie');
    expect(location(await passwordSignIn(remembered)).href).toBe(`${t.url}/public?via=cookie`);
  });
});

describe('passkeys: verifyUserHandle: false, getUserInfo, callbackUrl', () => {
  let t: TestApp;
  let origin: string;
  let adapter: MemoryAdapter;
  const infoCalls: string[] = [];

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    t = await createTestApp({
      auth: {
        adapter,
        trustHost: true,
        providers: [
          Passkey(),
          Passkey({
            id: 'lenient',
            name: 'Lenient',
            enableConditionalUI: false,
            verifyUserHandle: false,
            // The address comes from the app (here: a header its sign-up form sets), not from `?email=`.
            getUserInfo: async (request, lookup) => {
              const email = request.headers['x-signup-email'];
              infoCalls.push(String(email));
              return email ? { user: { email }, exists: (await lookup(email)) !== null } : null;
            },
          }),
        ],
      },
    });
    origin = t.url.replace('127.0.0.1', 'localhost');
  });
  afterAll(() => t?.close());

  async function options(c: TestClient, provider: string, query: string, headers: Record<string, string> = {}) {
    const res = await c.get(`/auth/webauthn-options/${provider}?${query}`, headers);
    expect(res.status).toBe(200);
    return ((await res.json()) as Json).options;
  }
  const callback = (c: TestClient, provider: string, action: string, data: unknown, callbackUrl = `${origin}/me`) =>
    c.post(`/auth/callback/${provider}`, { action, data, callbackUrl }, { json: true });
  /** A discoverable sign-in whose assertion carries `userHandle` (a stranger's, for the user-handle check). */
  const authenticate = async (c: TestClient, provider: string, device: SoftAuthenticator, userHandle: string) =>
    callback(
      c,
      provider,
      'authenticate',
      device.authenticate(await options(c, provider, 'action=authenticate'), { origin, userHandle }),
    );

  it('getUserInfo names the address a registration is for; the email query parameter is not used (promise: passkeys.get-user-info)', async () => {
    const c = new TestClient(origin);
    const device = new SoftAuthenticator();
    const o = await options(c, 'lenient', 'action=register&email=ignored%40example.test', {
      'x-signup-email': 'info@example.test',
    });
    expect(o.user.name).toBe('info@example.test');
    expect(infoCalls).toContain('info@example.test');
    expect((await callback(c, 'lenient', 'register', device.register(o, { origin }))).status).toBe(302);
    expect(((await (await c.get('/me')).json()) as Json).user.email).toBe('info@example.test');
    expect(await adapter.getUserByEmail('ignored@example.test')).toBeNull();
    // getUserInfo answering null refuses the registration.
    const refused = await new TestClient(origin).get(
      '/auth/webauthn-options/lenient?action=register&email=x%40example.test',
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'InvalidRequest' });
  });

  it('verifyUserHandle: false accepts an assertion whose user handle is not ours (an Auth.js passkey); the default refuses it (promise: passkeys.verify-user-handle)', async () => {
    const strangerHandle = randomBytes(32).toString('base64url');
    const lenientDevice = new SoftAuthenticator();
    const signup = new TestClient(origin);
    const o = await options(signup, 'lenient', 'action=register', { 'x-signup-email': 'handle@example.test' });
    expect((await callback(signup, 'lenient', 'register', lenientDevice.register(o, { origin }))).status).toBe(302);
    const c = new TestClient(origin);
    const signIn = await authenticate(c, 'lenient', lenientDevice, strangerHandle);
    expect(location(signIn).href).toBe(`${origin}/me`);
    expect(((await (await c.get('/me')).json()) as Json).user.email).toBe('handle@example.test');

    const strictDevice = new SoftAuthenticator();
    const strictSignup = new TestClient(origin);
    const so = await options(strictSignup, 'passkey', 'action=register&email=strict%40example.test');
    expect((await callback(strictSignup, 'passkey', 'register', strictDevice.register(so, { origin }))).status).toBe(
      302,
    );
    const d = new TestClient(origin);
    const refused = await authenticate(d, 'passkey', strictDevice, strangerHandle);
    expect(location(refused).searchParams.get('error')).toBe('WebAuthnVerificationError');
    expect((await d.get('/me')).status).toBe(401);
  });

  it('callbackUrl: a same-origin URL is kept, another origin becomes the base URL (promise: callback-url.passkey)', async () => {
    const device = new SoftAuthenticator();
    const c = new TestClient(origin);
    const o = await options(c, 'passkey', 'action=register&email=cb%40example.test');
    const registered = await callback(
      c,
      'passkey',
      'register',
      device.register(o, { origin }),
      `${origin}/public?from=passkey`,
    );
    expect(location(registered).href).toBe(`${origin}/public?from=passkey`);
    const d = new TestClient(origin);
    const foreign = await callback(
      d,
      'passkey',
      'authenticate',
      device.authenticate(await options(d, 'passkey', 'action=authenticate'), { origin }),
      'https://evil.example/steal',
    );
    expect(location(foreign).href).toBe(`${origin}/`);
  });
});
