/**
 * A sign-in method of the app's own, through the registry (issue 37): the demo "email code" method
 * in test/fixtures/email-code/ is a folder built only on the public API and one line, `methods:
 * [EmailCodeMethod]`. These tests run it end to end in a real app (Express or Fastify): its option
 * checks at bootstrap, its form on the built-in sign-in page, its routes through the router, the
 * one sign-in pipeline (ways-in rules, a new session) and a pipeline step it adds that runs for
 * every method, the built-in credentials included.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { AuthConfigurationError } from '../lib/errors/configuration.errors.js';
import { EmailCode } from './fixtures/email-code/email-code.provider.js';
import { EmailCodeMethod } from './fixtures/email-code/email-code.method.js';
import { LockedAccountStep } from './fixtures/email-code/locked-account.step.js';
import { NestFactory } from '@nestjs/core';
import { AuthModule } from '../lib/auth.module.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';

const SESSION_COOKIE = 'authjs.session-token';

// promise: architecture.sign-in-method
describe('a sign-in method of the app’s own (the email-code fixture), through the registry', () => {
  let t: TestApp;
  let adapter: MemoryAdapter;
  const sent: Array<{ email: string; code: string }> = [];
  const created: string[] = [];
  const credentials = {
    id: 'password',
    name: 'Password',
    type: 'credentials' as const,
    credentials: { email: { type: 'email' }, password: { type: 'password' } },
    // The app's own check: the stored user of that address, with the one password of this test.
    authorize: async (c: Partial<Record<string, unknown>>) =>
      c.password === 'correct horse' ? await adapter.getUserByEmail(String(c.email)) : null,
  };

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    t = await createTestApp({
      auth: {
        adapter,
        session: { strategy: 'database' },
        providers: [EmailCode({ sendCode: async ({ email, code }) => void sent.push({ email, code }) }), credentials],
        methods: [EmailCodeMethod],
        events: { createUser: ({ user }) => void created.push(String(user.email)) },
      },
    });
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    sent.length = 0;
    LockedAccountStep.locked.clear();
    LockedAccountStep.refused.clear();
    LockedAccountStep.seen.length = 0;
    created.length = 0;
  });

  async function requestCode(client: TestClient, email: string): Promise<string> {
    const csrfToken = await client.csrf();
    const res = await client.post('/auth/signin/email-code', { csrfToken, email, callbackUrl: `${t.url}/home` });
    expect(res.status).toBe(302);
    expect(location(res).pathname).toBe('/auth/signin');
    expect(sent.at(-1)?.email).toBe(email);
    return sent.at(-1)!.code;
  }

  async function submitCode(client: TestClient, email: string, code: string): Promise<Response> {
    const csrfToken = await client.csrf();
    return client.post('/auth/callback/email-code', { csrfToken, email, code, callbackUrl: `${t.url}/home` });
  }

  it('shows its form on the built-in sign-in page, beside the built-in methods', async () => {
    const html = await (await new TestClient(t.url).get('/auth/signin')).text();
    expect(html).toContain(`action="${t.url}/auth/signin/email-code"`);
    expect(html).toContain(`action="${t.url}/auth/callback/email-code"`);
    expect(html).toContain('autocomplete="one-time-code"');
    expect(html).toContain(`action="${t.url}/auth/callback/password"`);
    const providers = (await (await new TestClient(t.url).get('/auth/providers')).json()) as Record<string, unknown>;
    expect(providers['email-code']).toMatchObject({ id: 'email-code', type: 'email-code' });
  });

  it('signs in end to end: a code by email, then a session of a new verified user', async () => {
    const client = new TestClient(t.url);
    const code = await requestCode(client, 'ada@example.test');
    const res = await submitCode(client, 'ada@example.test', code);
    expect(res.status).toBe(302);
    expect(location(res).href).toBe(`${t.url}/home`);
    expect(client.cookies.get(SESSION_COOKIE)).toBeTruthy();
    const me = (await (await client.get('/me')).json()) as { user: { email: string } };
    expect(me.user.email).toBe('ada@example.test');
    const user = await adapter.getUserByEmail('ada@example.test');
    expect(user?.emailVerified).toBeInstanceOf(Date);
    expect(LockedAccountStep.seen).toEqual([{ method: 'email-code', email: 'ada@example.test' }]);
  });

  it('refuses a code used once, a wrong code and a code of another address, creating no session', async () => {
    const first = new TestClient(t.url);
    const code = await requestCode(first, 'grace@example.test');
    expect(client302(await submitCode(first, 'grace@example.test', code))).toBe('/home');

    for (const [email, guess] of [
      ['grace@example.test', code],
      ['grace@example.test', code === '000000' ? '000001' : '000000'],
      ['other@example.test', code],
    ] as const) {
      const client = new TestClient(t.url);
      const res = await submitCode(client, email, guess);
      expect(res.status).toBe(302);
      expect(location(res).searchParams.get('error')).toBe('Verification');
      expect(client.cookies.get(SESSION_COOKIE)).toBeUndefined();
    }
  });

  it('answers hostile input with a typed client error and writes nothing', async () => {
    const client = new TestClient(t.url);
    const csrfToken = await client.csrf();
    for (const body of [{ email: 'not an address' }, { email: '@example.test' }, { email: 'a@b c' }, {}]) {
      const res = await client.post('/auth/signin/email-code', { csrfToken, ...body });
      expect(res.status).toBe(302);
      expect(location(res).searchParams.get('error')).toBe('InvalidRequest');
    }
    const res = await submitCode(client, 'ada@example.test', '12<script>');
    expect(location(res).searchParams.get('error')).toBe('InvalidRequest');
    // The code route is a form post: a GET is refused, and a POST needs the CSRF token.
    expect((await client.get('/auth/callback/email-code?email=a@b.c&code=123456')).status).toBe(400);
    const noCsrf = await client.post('/auth/callback/email-code', { email: 'ada@example.test', code: '123456' });
    expect(location(noCsrf).searchParams.get('error')).toBe('MissingCSRF');
    expect(sent).toEqual([]);
  });

  it('goes through the pipeline’s rules: an address that is an existing user signs in as that user', async () => {
    const existing = await adapter.createUser({ id: 'u-lin', email: 'lin@example.test', emailVerified: new Date() });
    const client = new TestClient(t.url);
    expect(client302(await submitCode(client, 'lin@example.test', await requestCode(client, 'lin@example.test')))).toBe(
      '/home',
    );
    const me = (await (await client.get('/me')).json()) as { user: { id: string } };
    expect(me.user.id).toBe(existing.id);
  });

  it('counts the ways in it gives (`waysIn`) in the one "last way to sign in" rule', async () => {
    const auth = t.app.get(AuthService);
    // A password account and an address: the email-code method's way in remains, so the password goes.
    await adapter.createUser({ id: 'u-wan', email: 'wan@example.test', emailVerified: null });
    await adapter.linkAccount({
      provider: 'password',
      providerAccountId: 'wan',
      type: 'credentials' as never,
      userId: 'u-wan',
    });
    expect((await auth.listAccounts('u-wan')).map((a) => a.provider)).toEqual(['password']);
    await auth.unlinkAccount('u-wan', { provider: 'password', providerAccountId: 'wan' }, { recentSignIn: false });
    expect(await auth.listAccounts('u-wan')).toEqual([]);
    // No address: the password is the only way in, and stays.
    await adapter.createUser({ id: 'u-ono', email: null as never, emailVerified: null });
    await adapter.linkAccount({
      provider: 'password',
      providerAccountId: 'ono',
      type: 'credentials' as never,
      userId: 'u-ono',
    });
    await expect(
      auth.unlinkAccount('u-ono', { provider: 'password', providerAccountId: 'ono' }, { recentSignIn: false }),
    ).rejects.toMatchObject({
      type: 'LastSignInMethod',
    });
    expect((await auth.listAccounts('u-ono')).map((a) => a.provider)).toEqual(['password']);
  });

  it('adds a pipeline step that every method passes, the built-in credentials included: it can end a sign-in before any session', async () => {
    LockedAccountStep.locked.add('locked@example.test');
    const byCode = new TestClient(t.url);
    const code = await requestCode(byCode, 'locked@example.test');
    const res = await submitCode(byCode, 'locked@example.test', code);
    expect(location(res).href).toBe(`${t.url}/locked`);
    expect(byCode.cookies.get(SESSION_COOKIE)).toBeUndefined();
    // What the sign-in wrote before the step ended it is announced; the session is not.
    expect(created).toEqual(['locked@example.test']);

    const byPassword = new TestClient(t.url);
    const csrfToken = await byPassword.csrf();
    const refused = await byPassword.post('/auth/callback/password', {
      csrfToken,
      email: 'locked@example.test',
      password: 'correct horse',
    });
    expect(location(refused).href).toBe(`${t.url}/locked`);
    expect(byPassword.cookies.get(SESSION_COOKIE)).toBeUndefined();
    expect(LockedAccountStep.seen.map((s) => s.method)).toEqual(['email-code', 'credentials']);

    LockedAccountStep.locked.clear();
    const again = await byPassword.post('/auth/callback/password', {
      csrfToken: await byPassword.csrf(),
      email: 'locked@example.test',
      password: 'correct horse',
    });
    expect(location(again).href).toBe(`${t.url}/`);
    expect(byPassword.cookies.get(SESSION_COOKIE)).toBeTruthy();
  });

  it('a step that refuses (throws) undoes the user the sign-in created, and no session starts', async () => {
    LockedAccountStep.refused.add('refused@example.test');
    const client = new TestClient(t.url);
    const res = await submitCode(client, 'refused@example.test', await requestCode(client, 'refused@example.test'));
    expect(location(res).searchParams.get('error')).toBe('AccessDenied');
    expect(client.cookies.get(SESSION_COOKIE)).toBeUndefined();
    expect(await adapter.getUserByEmail('refused@example.test')).toBeNull();
    expect(created).toEqual([]);
  });

  it('shows a failed submission’s error inside its own form', async () => {
    const html = await (await new TestClient(t.url).get('/auth/signin?error=Verification&provider=email-code')).text();
    const own = html.slice(html.indexOf('data-method="email-code-check"'));
    expect(own.slice(0, own.indexOf('</form>'))).toContain('data-error="Verification"');
  });

  function client302(res: Response): string {
    expect(res.status).toBe(302);
    return location(res).pathname;
  }
});

describe('registering a method', () => {
  const provider = () => EmailCode({ sendCode: async () => undefined });
  /** Bootstraps AuthModule alone with these options and settings; resolves to what it threw. */
  const bootstrap = async (options: Record<string, unknown>): Promise<unknown> => {
    try {
      const app = await NestFactory.create(
        AuthModule.forRoot({ secret: TEST_SECRET, providers: [], ...options } as never),
        {
          logger: false,
          abortOnError: false,
        },
      );
      await app.close();
      return undefined;
    } catch (error) {
      return error;
    }
  };

  it('without `methods`, a provider of its type is an unknown type at bootstrap', async () => {
    expect(String(await bootstrap({ adapter: new MemoryAdapter(), providers: [provider()] }))).toMatch(
      /unknown type "email-code"; use one of oauth, oidc, email, credentials, webauthn\./,
    );
  });

  it('its own option checks run at bootstrap, with every other problem', async () => {
    const error = await bootstrap({
      adapter: new MemoryAdapter(),
      methods: [EmailCodeMethod],
      providers: [EmailCode({ sendCode: 'no' as never, maxAge: 3600 })],
    });
    expect(error).toBeInstanceOf(AuthConfigurationError);
    expect(String((error as Error).message)).toMatch(
      /\("email-code"\): `sendCode\(\{ email, code, expires \}\)` is required/,
    );
    expect(String((error as Error).message)).toMatch(/`maxAge` must be a number of seconds between 1 and 900/);
  });

  it('a malformed method, or one claiming a built-in type, fails when the module is defined', async () => {
    expect(() => AuthModule.forRoot({ secret: TEST_SECRET, providers: [], methods: [{ name: 'x' }] as never })).toThrow(
      /methods\[0\] \("x"\): `types` must list[\s\S]*`flow` must be the injectable/,
    );
    expect(() =>
      AuthModule.forRoot({ secret: TEST_SECRET, providers: [], methods: [{ ...EmailCodeMethod, types: ['email'] }] }),
    ).toThrow(/type "email" is already served by the email method/);
    expect(() =>
      AuthModule.forRoot({ secret: TEST_SECRET, providers: [], methods: [{ ...EmailCodeMethod, providers: [] }] }),
    ).toThrow(/list its flow \(EmailCodeFlow\) in `providers`[\s\S]*list its step LockedAccountStep in `providers`/);
    expect(() =>
      AuthModule.forRoot({
        secret: TEST_SECRET,
        providers: [],
        methods: [{ ...EmailCodeMethod, waysIn: 'email' }] as never,
      }),
    ).toThrow(/`waysIn`, when given, must be a function/);
  });
});
