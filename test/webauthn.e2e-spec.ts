import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Header } from '@nestjs/common';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { TypeOrmAdapter } from '../lib/adapters/typeorm/typeorm.adapter.js';
import { authEntities } from '../lib/adapters/typeorm/auth-entities.js';
import type { Adapter } from '../lib/adapters/adapter.interface.js';
import { Passkey, WebAuthn } from '../lib/methods/webauthn/webauthn.provider.js';
import type { WebAuthnUserConfig } from '../lib/methods/webauthn/webauthn.types.js';
import type { Provider } from '../lib/providers/provider.types.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { AuthService } from '../lib/guard/auth.service.js';
import { signInErrorMessage } from '../lib/pages/signin.page.js';
import { createTestApp, TEST_SECRET, type TestApp } from './setup/app.js';
import { resolveConfig } from '../lib/sign-in-methods.js';
import { TestClient, location } from './setup/http-client.js';
import { SoftAuthenticator } from './setup/soft-authenticator.js';
import { createDatabase, databaseTargets, dropDatabase } from './setup/databases.js';
import { CHROMIUM, chromiumAvailable, VIRTUAL_PLATFORM_AUTHENTICATOR } from './setup/ci.js';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--headless',
];
const SESSION_COOKIE = 'authjs.session-token';

type Json = Record<string, any>;

/**
 * An application's own passkey page, wired only by the documented data attributes: sign in with a
 * discoverable passkey (no email), or add a passkey when signed in.
 */
@Controller()
class PasskeyPageController {
  @Get('passkey-page')
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return `<!DOCTYPE html><html><head><script src="/auth/webauthn-client.js" defer></script></head><body>
<form data-webauthn-provider="passkey">
  <input type="hidden" name="callbackUrl" value="/me">
  <input name="email" type="email" autocomplete="username webauthn">
  <button type="submit">Sign in with a passkey</button>
  <button type="submit" data-webauthn-action="register">Add a passkey</button>
  <p data-webauthn-error hidden></p>
</form></body></html>`;
  }
}

/**
 * An app with Passkey() (and any `extra` providers) on `adapter`, reached as http://localhost:<port>
 * (a secure context).
 */
async function startApp(
  adapter: Adapter,
  passkey: WebAuthnUserConfig = {},
  extra: Provider[] = [],
): Promise<{ t: TestApp; origin: string }> {
  const t = await createTestApp({
    auth: { providers: [Passkey(passkey), ...extra], adapter, trustHost: true, session: { strategy: 'database' } },
    controllers: [PasskeyPageController],
  });
  return { t, origin: t.url.replace('127.0.0.1', 'localhost') };
}

/** Small limits for the rate-limit tests, each on its own provider so the counters stay apart. */
const BY_ADDRESS = { maxPerAddress: 2, maxPerIp: 1000, windowSeconds: 60 };
const BY_IP = { maxPerAddress: 1000, maxPerIp: 3, windowSeconds: 60 };
/** The HTTP suite makes many requests from 127.0.0.1: its own provider's limits stay out of the way. */
const GENEROUS = { maxPerAddress: 1000, maxPerIp: 10_000, windowSeconds: 60 };

/**
 * Everything a client sees of an options answer (status, headers, cookies, body), with what is
 * random per request masked: the challenge, a new user's handle (an HMAC of a fresh random id),
 * and the values derived from them (ETag, the sealed cookie's bytes; its length is kept).
 * Occurrences of `email`, the address the request itself named, become `<email>`.
 */
async function observable(res: Response, email: string): Promise<unknown> {
  const text = (await res.text()).split(email).join('<email>');
  let body: Json | string;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    body = text;
  }
  const options = typeof body === 'object' ? body?.options : undefined;
  if (typeof options?.challenge === 'string')
    options.challenge = `<random, ${Buffer.from(options.challenge, 'base64url').length} bytes>`;
  if (typeof options?.user?.id === 'string')
    options.user.id = `<random, ${Buffer.from(options.user.id, 'base64url').length} bytes>`;
  const headers = Object.fromEntries(
    [...res.headers].filter(([name]) => !['date', 'etag', 'set-cookie', 'keep-alive', 'connection'].includes(name)),
  );
  const cookies = res.headers.getSetCookie().map((line) => {
    const [pair, ...attrs] = line.split(';').map((part) => part.trim());
    const [name, ...value] = pair.split('=');
    return [
      `${name}=<${value.join('=').length} characters>`,
      ...attrs.map((a) => (/^expires=/i.test(a) ? 'Expires=<date>' : a)),
    ].join('; ');
  });
  return { status: res.status, headers, cookies, body };
}

/** What storage holds for these users (public adapter API only), to prove a refusal wrote nothing. */
async function snapshot(adapter: Adapter, emails: string[]): Promise<unknown> {
  const out: unknown[] = [];
  for (const email of emails) {
    const user = await adapter.getUserByEmail!(email);
    const authenticators = user ? await adapter.listAuthenticatorsByUserId!(user.id) : [];
    out.push({
      email,
      user,
      authenticators: authenticators.map((a) => ({ id: a.credentialID, counter: a.counter, userId: a.userId })),
    });
  }
  return out;
}

/** The `?error=` type of a refused callback (a redirect to the error page), and no session was set. */
function refusal(res: Response): string | null {
  expect(res.status).toBe(302);
  expect(res.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(c))).toBe(
    false,
  );
  return location(res).searchParams.get('error');
}

/** Where the suite stores users and passkeys: MemoryAdapter, and TypeOrmAdapter on each database. */
interface Storage {
  name: string;
  describe: typeof describe;
  open(): Promise<{ adapter: Adapter; close(): Promise<void> }>;
}

const storages: Storage[] = [
  {
    name: 'MemoryAdapter',
    describe,
    open: async () => ({ adapter: new MemoryAdapter(), close: async () => undefined }),
  },
  ...(await databaseTargets()).map((target): Storage => ({
    name: `TypeOrmAdapter on ${target.name}`,
    describe: target.describe,
    open: async () => {
      const db = await createDatabase(target, 'webauthn');
      const ds = await new DataSource({
        ...db.options,
        entities: [...authEntities],
        synchronize: true,
        logging: false,
      } as DataSourceOptions).initialize();
      return {
        adapter: new TypeOrmAdapter(ds),
        close: async () => {
          await ds.destroy();
          await dropDatabase(db);
        },
      };
    },
  })),
];

for (const storage of storages)
  storage.describe(`passkeys over HTTP on ${storage.name} (software authenticator, real ES256 signatures)`, () => {
    let adapter: Adapter & Required<Pick<Adapter, 'listAuthenticatorsByUserId'>>;
    let closeStorage: () => Promise<void>;
    let t: TestApp;
    let origin: string;

    beforeAll(async () => {
      const opened = await storage.open();
      adapter = opened.adapter as typeof adapter;
      closeStorage = opened.close;
      ({ t, origin } = await startApp(adapter, { rateLimit: GENEROUS } as WebAuthnUserConfig, [
        WebAuthn({
          id: 'by-address',
          name: 'By address',
          enableConditionalUI: false,
          rateLimit: BY_ADDRESS,
        } as WebAuthnUserConfig),
        WebAuthn({ id: 'by-ip', name: 'By IP', enableConditionalUI: false, rateLimit: BY_IP } as WebAuthnUserConfig),
      ]));
    });
    afterAll(async () => {
      await t?.close();
      await closeStorage?.();
    });

    const client = () => new TestClient(origin);

    async function options(c: TestClient, query: string): Promise<Json> {
      const res = await c.get(`/auth/webauthn-options/passkey?${query}`);
      expect(res.status).toBe(200);
      return (await res.json()) as Json;
    }

    async function callback(c: TestClient, action: string, data: unknown): Promise<Response> {
      return c.post('/auth/callback/passkey', { action, data, callbackUrl: `${origin}/me` }, { json: true });
    }

    /** Registers a new user with `email`; returns the signed-in client. */
    async function register(
      email: string,
      device = new SoftAuthenticator(),
    ): Promise<{ c: TestClient; device: SoftAuthenticator; userId: string }> {
      const c = client();
      const o = await options(c, `action=register&email=${encodeURIComponent(email)}`);
      expect(o.action).toBe('register');
      const res = await callback(c, 'register', device.register(o.options, { origin }));
      expect(res.status).toBe(302);
      expect(location(res).href).toBe(`${origin}/me`);
      const me = (await (await c.get('/me')).json()) as Json;
      expect(me.user.email).toBe(email);
      return { c, device, userId: me.user.id };
    }

    it('serves the browser script from the installed package', async () => {
      const res = await client().get('/auth/webauthn-client.js');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/javascript/);
      const body = await res.text();
      expect(body).toContain('SimpleWebAuthnBrowser');
      expect(body).toContain('data-webauthn-provider');
    });

    it('signs in (discoverable) unless registration is asked for, with or without an email, and refuses a bad action or address', async () => {
      await register('known@example.test');
      const c = client();
      for (const query of [
        '',
        'email=known%40example.test',
        'email=new%40example.test',
        'action=authenticate&email=known%40example.test',
      ]) {
        const o = await options(c, query);
        expect(o.action).toBe('authenticate');
        expect(o.options.rpId).toBe('localhost');
        expect(o.options.allowCredentials).toEqual([]);
      }
      const reg = await options(c, 'action=register&email=new%40example.test');
      expect(reg.action).toBe('register');
      expect(reg.options.rp.id).toBe('localhost');
      expect(reg.options.user).toMatchObject({ name: 'new@example.test', displayName: 'new@example.test' });
      expect(reg.options.authenticatorSelection).toMatchObject({
        residentKey: 'required',
        userVerification: 'required',
      });
      expect(reg.options.pubKeyCredParams.map((p: Json) => p.alg)).toEqual([-8, -7, -257]);

      for (const query of [
        'action=delete',
        'action=register',
        'action=register&email=not-an-address',
        'action=register&email=a%00b%40example.test',
        `email=${'a'.repeat(320)}%40example.test`,
      ]) {
        const bad = await c.get(`/auth/webauthn-options/passkey?${query}`);
        expect(bad.status).toBe(400);
        expect(((await bad.json()) as Json).error).toBe('InvalidRequest');
      }
    });

    // promise: passkeys.no-enumeration
    it('answers an options request naming an address the same whether it has passkeys, only an account, or nothing', async () => {
      // Addresses of one length, so even the byte counts (Content-Length, the sealed cookie) compare.
      const withPasskey = 'enum-pk1@example.test';
      const accountOnly = 'enum-ac1@example.test';
      const unknown = 'enum-no1@example.test';
      await register(withPasskey);
      await adapter.createUser!({ id: randomUUID(), email: accountOnly, emailVerified: null });

      for (const query of ['email=', 'action=authenticate&email=', 'action=register&email=']) {
        const seen = async (email: string) =>
          observable(await client().get(`/auth/webauthn-options/passkey?${query}${encodeURIComponent(email)}`), email);
        const reference = await seen(unknown);
        expect(reference).toMatchObject({ status: 200 });
        expect(await seen(withPasskey)).toEqual(reference);
        expect(await seen(accountOnly)).toEqual(reference);
      }
    });

    it('lets anyone ask to register any address; an address that has an account fails at verification, writing nothing', async () => {
      const { device } = await register('taken@example.test');
      const before = await snapshot(adapter, ['taken@example.test']);
      const c = client();
      const o = await options(c, 'action=register&email=taken%40example.test');
      expect(o.action).toBe('register');
      expect(o.options.excludeCredentials).toEqual([]);
      expect(refusal(await callback(c, 'register', new SoftAuthenticator().register(o.options, { origin })))).toBe(
        'AccountNotLinked',
      );
      expect(await snapshot(adapter, ['taken@example.test'])).toEqual(before);
      // The owner still signs in with their passkey.
      const owner = client();
      const a = await options(owner, 'action=authenticate');
      expect((await callback(owner, 'authenticate', device.authenticate(a.options, { origin }))).status).toBe(302);
    });

    it('refuses to register a credential the browser says is not discoverable (it could never sign in), writing nothing', async () => {
      const email = 'not-discoverable@example.test';
      const c = client();
      const o = await options(c, `action=register&email=${encodeURIComponent(email)}`);
      expect(
        refusal(
          await callback(c, 'register', new SoftAuthenticator({ discoverable: false }).register(o.options, { origin })),
        ),
      ).toBe('WebAuthnVerificationError');
      expect(await snapshot(adapter, [email])).toEqual([{ email, user: null, authenticators: [] }]);
      // Reported as discoverable: registered.
      await register(email, new SoftAuthenticator({ discoverable: true }));
    });

    // promise: passkeys.rate-limits
    it('limits options requests per address: 429 RateLimited with Retry-After, alike for every address', async () => {
      await register('limit-pk@example.test');
      const ask = (query: string) => client().get(`/auth/webauthn-options/by-address?${query}`);
      const refusals: unknown[] = [];
      for (const email of ['limit-no@example.test', 'limit-pk@example.test']) {
        // The address counts however it is written and whichever ceremony is asked for.
        expect((await ask(`email=${email}`)).status).toBe(200);
        expect((await ask(`action=register&email=${encodeURIComponent(` ${email.toUpperCase()} `)}`)).status).toBe(200);
        const refused = await ask(`action=authenticate&email=${email}`);
        expect(refused.status).toBe(429);
        expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(BY_ADDRESS.windowSeconds);
        const seen = (await observable(refused, email)) as Json;
        expect(seen.body).toMatchObject({ error: 'RateLimited' });
        expect(seen.cookies.some((c: string) => c.startsWith('authjs.challenge='))).toBe(false);
        delete seen.headers['retry-after'];
        refusals.push(seen);
      }
      expect(refusals[1]).toEqual(refusals[0]);
      // Other addresses, and requests naming none, are not held back.
      expect((await ask('email=limit-other@example.test')).status).toBe(200);
      expect((await ask('action=authenticate')).status).toBe(200);
    });

    // promise: passkeys.rate-limits
    it('limits options requests per client IP, with or without an address', async () => {
      const ask = (query: string) => client().get(`/auth/webauthn-options/by-ip?${query}`);
      expect((await ask('action=authenticate')).status).toBe(200);
      expect((await ask('email=ip-1@example.test')).status).toBe(200);
      expect((await ask('action=register&email=ip-2@example.test')).status).toBe(200);
      for (const query of ['action=authenticate', 'email=ip-3@example.test']) {
        const refused = await ask(query);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(((await refused.json()) as Json).error).toBe('RateLimited');
      }
      // The other providers count on their own.
      expect((await client().get('/auth/webauthn-options/passkey?action=authenticate')).status).toBe(200);
    });

    it('registers, signs in with a discoverable credential, moves the counter (compare-and-set)', async () => {
      const { device, userId } = await register('dora@example.test');
      const [stored] = await adapter.listAuthenticatorsByUserId(userId);
      expect(stored).toMatchObject({
        counter: 0,
        credentialID: device.credentialId.toString('base64'),
        credentialDeviceType: 'singleDevice',
      });

      const c = client();
      const o = await options(c, 'action=authenticate');
      const res = await callback(c, 'authenticate', device.authenticate(o.options, { origin }));
      expect(res.status).toBe(302);
      expect(((await (await c.get('/me')).json()) as Json).user.id).toBe(userId);
      const [after] = await adapter.listAuthenticatorsByUserId(userId);
      expect(after.counter).toBe(1);
    });

    // promise: passkeys.extra-checks
    it('refuses a replayed challenge (same response, same cookie), even for a counter that stays 0', async () => {
      const { device, userId } = await register('replay@example.test', new SoftAuthenticator({ counterStep: 0 }));
      const c = client();
      const o = await options(c, 'action=authenticate');
      const challengeCookies = new Map(c.cookies);
      const response = device.authenticate(o.options, { origin });
      expect((await callback(c, 'authenticate', response)).status).toBe(302);

      const before = await snapshot(adapter, ['replay@example.test']);
      const replay = client();
      for (const [k, v] of challengeCookies) replay.cookies.set(k, v);
      expect(refusal(await callback(replay, 'authenticate', response))).toBe('WebAuthnVerificationError');
      expect(await snapshot(adapter, ['replay@example.test'])).toEqual(before);
      // The same challenge cannot register either.
      expect(
        refusal(
          await callback(
            replay,
            'register',
            device.register(
              { challenge: o.options.challenge, rp: { id: 'localhost' }, user: { id: device.userHandle! } },
              { origin },
            ),
          ),
        ),
      ).toBe('WebAuthnVerificationError');
      expect((await adapter.listAuthenticatorsByUserId(userId)).map((a) => a.counter)).toEqual([0]);
    });

    // promise: passkeys.extra-checks
    it('refuses a wrong origin, a wrong RP ID, a cross-origin frame and a missing UP or UV flag, writing nothing', async () => {
      const { device } = await register('origin@example.test');
      const cases: Array<Record<string, unknown>> = [
        { origin: 'http://evil.example' },
        { origin, rpId: 'evil.example' },
        { origin, crossOrigin: true },
        { origin, uv: false },
        { origin, up: false },
      ];
      for (const override of cases) {
        const before = await snapshot(adapter, ['origin@example.test']);
        const c = client();
        const o = await options(c, 'action=authenticate');
        expect(refusal(await callback(c, 'authenticate', device.authenticate(o.options, override as never)))).toBe(
          'WebAuthnVerificationError',
        );
        expect(await snapshot(adapter, ['origin@example.test'])).toEqual(before);
      }
      // Registration with the wrong origin or RP ID, without user verification (Passkey requires it) or presence.
      for (const override of [
        { origin: 'http://evil.example' },
        { origin, rpId: 'evil.example' },
        { origin, uv: false },
        { origin, up: false },
      ]) {
        const c = client();
        const o = await options(c, 'action=register&email=nobody@example.test');
        expect(refusal(await callback(c, 'register', new SoftAuthenticator().register(o.options, override)))).toBe(
          'WebAuthnVerificationError',
        );
        expect(await snapshot(adapter, ['nobody@example.test'])).toEqual([
          { email: 'nobody@example.test', user: null, authenticators: [] },
        ]);
      }
    });

    // promise: passkeys.extra-checks
    it("refuses another user's credential: outside the offered list, or with another user's handle", async () => {
      const alice = await register('alice@example.test');
      const bob = await register('bob@example.test');
      const emails = ['alice@example.test', 'bob@example.test'];

      // Bob signed in re-authenticates (allowCredentials = Bob's), answered with Alice's passkey (WA-A1).
      let before = await snapshot(adapter, emails);
      let o = await options(bob.c, 'action=authenticate');
      expect(o.options.allowCredentials.map((a: Json) => a.id)).toEqual([bob.device.id]);
      expect(refusal(await callback(bob.c, 'authenticate', alice.device.authenticate(o.options, { origin })))).toBe(
        'WebAuthnVerificationError',
      );
      expect(await snapshot(adapter, emails)).toEqual(before);
      let c: TestClient;

      // Discoverable sign-in with Alice's credential claiming Bob's user handle (WA-A2).
      before = await snapshot(adapter, emails);
      c = client();
      o = await options(c, 'action=authenticate');
      expect(
        refusal(
          await callback(
            c,
            'authenticate',
            alice.device.authenticate(o.options, { origin, userHandle: bob.device.userHandle }),
          ),
        ),
      ).toBe('WebAuthnVerificationError');
      expect(await snapshot(adapter, emails)).toEqual(before);

      // A discoverable sign-in must carry a user handle.
      c = client();
      o = await options(c, 'action=authenticate');
      expect(
        refusal(await callback(c, 'authenticate', alice.device.authenticate(o.options, { origin, userHandle: null }))),
      ).toBe('WebAuthnVerificationError');

      // Bob (signed in) registering Alice's credential id: the id is taken (WA-R12).
      before = await snapshot(adapter, emails);
      o = await options(bob.c, 'action=register');
      expect(refusal(await callback(bob.c, 'register', alice.device.register(o.options, { origin })))).toBe(
        'WebAuthnVerificationError',
      );
      expect(await snapshot(adapter, emails)).toEqual(before);
    });

    it('refuses a tampered signature', async () => {
      const { device } = await register('tamper@example.test');
      const before = await snapshot(adapter, ['tamper@example.test']);
      const c = client();
      const o = await options(c, 'action=authenticate');
      expect(refusal(await callback(c, 'authenticate', device.authenticate(o.options, { origin, tamper: true })))).toBe(
        'WebAuthnVerificationError',
      );
      expect(await snapshot(adapter, ['tamper@example.test'])).toEqual(before);
    });

    // promise: passkeys.extra-checks
    it('refuses a passkey whose backup eligibility changed since registration (another authenticator)', async () => {
      for (const [email, registeredEligible] of [
        ['be-off@example.test', false],
        ['be-on@example.test', true],
      ] as const) {
        const { device } = await register(email, new SoftAuthenticator({ backupEligible: registeredEligible }));
        device.options.backupEligible = !registeredEligible;
        const before = await snapshot(adapter, [email]);
        const c = client();
        const o = await options(c, 'action=authenticate');
        expect(refusal(await callback(c, 'authenticate', device.authenticate(o.options, { origin })))).toBe(
          'WebAuthnVerificationError',
        );
        expect(await snapshot(adapter, [email])).toEqual(before);
        // Back as registered: accepted.
        device.options.backupEligible = registeredEligible;
        const ok = client();
        const again = await options(ok, 'action=authenticate');
        expect((await callback(ok, 'authenticate', device.authenticate(again.options, { origin }))).status).toBe(302);
        expect((await ok.get('/me')).status).toBe(200);
      }
    });

    // promise: passkeys.extra-checks
    it('refuses a counter that goes backwards or stands still, accepts 0/0', async () => {
      const { device, userId } = await register('counter@example.test');
      const signIn = async (counter: number) => {
        const c = client();
        const o = await options(c, 'action=authenticate');
        return callback(c, 'authenticate', device.authenticate(o.options, { origin, counter }));
      };
      expect((await signIn(5)).status).toBe(302);
      const before = await snapshot(adapter, ['counter@example.test']);
      expect(refusal(await signIn(3))).toBe('WebAuthnVerificationError');
      expect(refusal(await signIn(5))).toBe('WebAuthnVerificationError');
      expect(await snapshot(adapter, ['counter@example.test'])).toEqual(before);
      expect((await signIn(6)).status).toBe(302);
      expect((await adapter.listAuthenticatorsByUserId(userId))[0].counter).toBe(6);

      // A passkey that always reports 0 (synced passkeys) keeps signing in.
      const zero = await register('zero@example.test', new SoftAuthenticator({ counterStep: 0 }));
      for (let i = 0; i < 2; i++) {
        const c = client();
        const o = await options(c, 'action=authenticate');
        expect((await callback(c, 'authenticate', zero.device.authenticate(o.options, { origin }))).status).toBe(302);
      }
    });

    // promise: passkeys.extra-checks
    it('lets only one of two concurrent sign-ins with the same counter through', async () => {
      const { device, userId } = await register('race@example.test');
      const clients = [client(), client()];
      const opts = await Promise.all(clients.map((c) => options(c, 'action=authenticate')));
      const responses = opts.map((o) => device.authenticate(o.options, { origin, counter: 7 }));
      const results = await Promise.all(clients.map((c, i) => callback(c, 'authenticate', responses[i])));
      const errors = results.map((r) => location(r).searchParams.get('error'));
      expect(errors.filter((e) => e === null)).toHaveLength(1);
      expect(errors.filter((e) => e === 'WebAuthnVerificationError')).toHaveLength(1);
      expect((await adapter.listAuthenticatorsByUserId(userId))[0].counter).toBe(7);
    });

    // promise: passkeys.extra-checks
    it('refuses a credential id over 1023 bytes and malformed bodies without a 500', async () => {
      const c = client();
      const o = await options(c, 'action=register&email=long@example.test');
      const long = new SoftAuthenticator({ credentialIdBytes: 1024 });
      expect(refusal(await callback(c, 'register', long.register(o.options, { origin })))).toBe(
        'WebAuthnVerificationError',
      );
      expect(await snapshot(adapter, ['long@example.test'])).toEqual([
        { email: 'long@example.test', user: null, authenticators: [] },
      ]);

      for (const body of [
        {},
        { action: 'authenticate' },
        { action: 'authenticate', data: 'not json' },
        { action: 'register', data: { id: 1 } },
        { action: 'x', data: {} },
      ]) {
        const res = await client().post('/auth/callback/passkey', body, { json: true });
        expect(res.status).toBe(302);
        expect(location(res).searchParams.get('error')).toBe('WebAuthnVerificationError');
      }
      // No challenge cookie at all.
      const d = new SoftAuthenticator();
      expect(
        refusal(
          await callback(
            client(),
            'register',
            d.register({ challenge: 'abc', rp: { id: 'localhost' }, user: { id: 'AAAA' } }, { origin }),
          ),
        ),
      ).toBe('WebAuthnVerificationError');
    });

    // promise: passkeys.manage
    it('lists passkeys and deletes one, never the last', async () => {
      const { c, userId, device } = await register('many@example.test');
      const o = await options(c, 'action=register');
      expect(o.options.excludeCredentials).toHaveLength(1);
      const second = new SoftAuthenticator();
      expect((await callback(c, 'register', second.register(o.options, { origin }))).status).toBe(302);
      const auth = t.app.get(AuthService);
      const passkeys = await auth.listPasskeys(userId);
      expect(passkeys).toHaveLength(2);
      expect(passkeys[0]).toMatchObject({ provider: 'passkey', transports: ['internal'] });
      await auth.deletePasskey(userId, passkeys[0].credentialID);
      expect((await auth.listPasskeys(userId)).map((p) => p.credentialID)).toEqual([passkeys[1].credentialID]);
      // The deleted passkey no longer signs in; the other one does.
      const deleted = [device, second].find((d) => d.credentialId.toString('base64') === passkeys[0].credentialID)!;
      const kept = deleted === device ? second : device;
      let s = client();
      let a = await options(s, 'action=authenticate');
      expect(refusal(await callback(s, 'authenticate', deleted.authenticate(a.options, { origin })))).toBe(
        'WebAuthnVerificationError',
      );
      s = client();
      a = await options(s, 'action=authenticate');
      expect((await callback(s, 'authenticate', kept.authenticate(a.options, { origin }))).status).toBe(302);
      expect(((await (await s.get('/me')).json()) as Json).user.id).toBe(userId);
      await expect(auth.deletePasskey(userId, passkeys[1].credentialID)).rejects.toMatchObject({
        type: 'LastSignInMethod',
      });
      await expect(auth.deletePasskey('someone-else', passkeys[1].credentialID)).rejects.toMatchObject({
        type: 'InvalidRequest',
      });
      expect(await auth.listPasskeys(userId)).toHaveLength(1);
    });
  });

const hasChromium = chromiumAvailable('passkeys in Chromium');

// The registration and authentication matrix runs through Chromium's own WebAuthn stack (DevTools'
// virtual authenticator) on every storage, not only through the software authenticator above, which
// stays for what a browser would never send (malformed responses).
for (const storage of storages)
  (hasChromium ? storage.describe : describe.skip)(
    `passkeys in Chromium on ${storage.name} (DevTools virtual authenticator)`,
    () => {
      let adapter: Adapter & Required<Pick<Adapter, 'listAuthenticatorsByUserId'>>;
      let closeStorage: () => Promise<void>;
      let t: TestApp;
      let origin: string;
      let browser: Browser;
      let context: BrowserContext;
      let page: Page;
      let cdp: CDPSession;
      let authenticatorId: string;

      async function addAuthenticator(): Promise<string> {
        const { authenticatorId: id } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
          options: VIRTUAL_PLATFORM_AUTHENTICATOR,
        });
        return id;
      }

      async function signOut(): Promise<void> {
        await page.goto(`${origin}/auth/signout`);
        await Promise.all([
          page.waitForURL((url) => !url.pathname.endsWith('/signout')),
          page.locator('form button[type="submit"], form input[type="submit"]').first().click(),
        ]);
        expect((await me()).status).toBe(401);
      }

      async function me(): Promise<{ status: number; body: Json }> {
        const res = await page.goto(`${origin}/me`);
        return { status: res!.status(), body: JSON.parse((await page.textContent('body')) ?? 'null') as Json };
      }

      beforeAll(async () => {
        const opened = await storage.open();
        adapter = opened.adapter as typeof adapter;
        closeStorage = opened.close;
        ({ t, origin } = await startApp(adapter));
        browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
        context = await browser.newContext();
        page = await context.newPage();
        page.on('console', (m) => process.env.DEBUG_WEBAUTHN && console.log('[browser]', m.type(), m.text()));
        page.on('pageerror', (e) => console.log('[browser error]', e.message));
        cdp = await context.newCDPSession(page);
        await cdp.send('WebAuthn.enable');
        authenticatorId = await addAuthenticator();
      }, 60_000);
      afterAll(async () => {
        await browser?.close();
        await t?.close();
        await closeStorage?.();
      });

      it('registers a new user, signs out, signs in with the passkey (discoverable), adds a second passkey', async () => {
        // 1. Register from the built-in sign-in page: type an email, press "Create a passkey".
        await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/me`)}`);
        const form = page.locator('form[data-webauthn-provider="passkey"]');
        await form.locator('input[name="email"]').fill('chromium@example.test');
        await Promise.all([
          page.waitForURL(`${origin}/me`),
          form.getByRole('button', { name: 'Create a passkey' }).click(),
        ]);
        const first = await me();
        expect(first.status).toBe(200);
        expect(first.body.user.email).toBe('chromium@example.test');
        const userId = first.body.user.id as string;
        const [registered] = await adapter.listAuthenticatorsByUserId(userId);
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
        expect(credentials).toHaveLength(1);
        expect(credentials[0].isResidentCredential).toBe(true);
        expect(Buffer.from(credentials[0].credentialId, 'base64').toString('base64')).toBe(registered.credentialID);

        // 2. Sign out through the sign-out page.
        await signOut();

        // 3. Sign in with the passkey button: a discoverable credential (an app's own page, wired by
        //    the documented data attributes, without conditional UI). The email typed is not sent: a
        //    sign-in does not use it, and it would count against the address's rate limit.
        await page.goto(`${origin}/passkey-page`);
        const asked: URL[] = [];
        page.on('request', (r) => void (r.url().includes('/webauthn-options/') && asked.push(new URL(r.url()))));
        await page.locator('input[name="email"]').fill('chromium@example.test');
        await Promise.all([
          page.waitForURL(`${origin}/me`),
          page.getByRole('button', { name: 'Sign in with a passkey' }).click(),
        ]);
        expect(asked.map((u) => [...u.searchParams])).toEqual([[]]);
        const second = await me();
        expect(second.status).toBe(200);
        expect(second.body.user.id).toBe(userId);
        const [afterSignIn] = await adapter.listAuthenticatorsByUserId(userId);
        expect(afterSignIn.counter).toBeGreaterThan(registered.counter);

        // 4. Signed out again, the built-in sign-in page offers the passkey in the email field's
        //    autofill (conditional UI); the virtual authenticator accepts at once.
        //    The wait is set up before the page loads and has no timeout of its own (the test's applies):
        //    the autofill may finish before `goto` would report the page loaded, and a slow machine only
        //    makes it later, never wrong. `goto` returns at commit, so the navigation the autofill starts
        //    cannot interrupt it.
        await signOut();
        await page.goto('about:blank'); // signOut() ends on /me (401): leave it, so the wait below is for a new visit
        const autofilled = page.waitForURL(`${origin}/me`, { timeout: 0 });
        await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/me`)}`, {
          waitUntil: 'commit',
        });
        await autofilled;
        expect((await me()).body.user.id).toBe(userId);
        const [afterAutofill] = await adapter.listAuthenticatorsByUserId(userId);
        expect(afterAutofill.counter).toBeGreaterThan(afterSignIn.counter);

        // 5. Signed in, add a second passkey (on a second device: the first is in excludeCredentials).
        await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
        authenticatorId = await addAuthenticator();
        await page.goto(`${origin}/passkey-page`);
        await Promise.all([
          page.waitForURL(`${origin}/me`),
          page.locator('button[data-webauthn-action="register"]').click(),
        ]);
        const third = await me();
        expect(third.status).toBe(200);
        expect(third.body.user.id).toBe(userId);
        const all = await adapter.listAuthenticatorsByUserId(userId);
        expect(all).toHaveLength(2);
        expect(new Set(all.map((a) => a.userId))).toEqual(new Set([userId]));
      }, 120_000);

      // promise: pages.every-error-type-human
      it('a refused passkey registration shows the human sentence in the passkey form, not the raw type', async () => {
        // Another browser, with its own authenticator, tries to create a passkey for a taken address.
        const other = await browser.newContext();
        try {
          const p = await other.newPage();
          const otherCdp = await other.newCDPSession(p);
          await otherCdp.send('WebAuthn.enable');
          await otherCdp.send('WebAuthn.addVirtualAuthenticator', { options: VIRTUAL_PLATFORM_AUTHENTICATOR });
          await p.goto(`${origin}/auth/signin`);
          const form = p.locator('form[data-webauthn-provider="passkey"]');
          await form.locator('input[name="email"]').fill('chromium@example.test');
          await form.getByRole('button', { name: 'Create a passkey' }).click();
          const message = form.locator('[data-webauthn-error]:not([hidden])');
          await message.waitFor();
          expect(await message.textContent()).toBe(signInErrorMessage('AccountNotLinked'));
          expect(await message.getAttribute('data-error')).toBe('AccountNotLinked');
          expect(new URL(p.url()).pathname).toBe('/auth/signin');
        } finally {
          await other.close();
        }
      }, 60_000);
    },
  );

describe('WebAuthn provider configuration at bootstrap', () => {
  it('boots WebAuthn() next to Passkey() with conditional UI on one of them', async () => {
    const t = await createTestApp({
      auth: {
        providers: [WebAuthn({ enableConditionalUI: false }), Passkey()],
        adapter: new MemoryAdapter(),
        trustHost: true,
      },
    });
    const res = await fetch(`${t.url}/auth/providers`);
    expect(Object.keys((await res.json()) as Json)).toEqual(['webauthn', 'passkey']);
    await t.close();
  });

  it('refuses an RP ID that does not fit an origin and two providers with conditional UI, naming both problems', () => {
    const resolve = () =>
      resolveConfig(
        {
          secret: TEST_SECRET,
          providers: [
            WebAuthn(),
            Passkey({ relyingParty: { id: 'example.com', origin: ['https://example.com', 'https://evil.com'] } }),
          ],
        },
        {},
        new MemoryAdapter(),
        {},
      );
    expect(resolve).toThrow(expect.objectContaining({ type: 'Configuration' }));
    let problems: string[] = [];
    try {
      resolve();
    } catch (error) {
      problems = (error as { problems: string[] }).problems;
    }
    expect(problems.some((p) => /"example.com" does not fit origin "https:\/\/evil.com"/.test(p))).toBe(true);
    expect(problems.some((p) => /DuplicateConditionalUI/.test(p))).toBe(true);
  });
});

describe('passkeys with JWT sessions', () => {
  it('registers, signs in and adds a passkey while signed in with a JWT session', async () => {
    const adapter = new MemoryAdapter();
    const t = await createTestApp({
      auth: { providers: [Passkey()], adapter, trustHost: true, session: { strategy: 'jwt' } },
    });
    const origin = t.url.replace('127.0.0.1', 'localhost');
    try {
      const post = (c: TestClient, action: string, data: unknown) =>
        c.post('/auth/callback/passkey', { action, data, callbackUrl: `${origin}/me` }, { json: true });
      const opts = async (c: TestClient, q: string) =>
        ((await (await c.get(`/auth/webauthn-options/passkey?${q}`)).json()) as Json).options;
      const device = new SoftAuthenticator();
      const c = new TestClient(origin);
      expect(
        (
          await post(
            c,
            'register',
            device.register(await opts(c, 'action=register&email=jwt@example.test'), { origin }),
          )
        ).status,
      ).toBe(302);
      const userId = ((await (await c.get('/me')).json()) as Json).user.id as string;
      expect(
        (await post(c, 'register', new SoftAuthenticator().register(await opts(c, 'action=register'), { origin })))
          .status,
      ).toBe(302);
      expect(await adapter.listAuthenticatorsByUserId(userId)).toHaveLength(2);
      const fresh = new TestClient(origin);
      expect(
        (await post(fresh, 'authenticate', device.authenticate(await opts(fresh, 'action=authenticate'), { origin })))
          .status,
      ).toBe(302);
      expect(((await (await fresh.get('/me')).json()) as Json).user.id).toBe(userId);
    } finally {
      await t.close();
    }
  });
});

// promise: passkeys.no-takeover
describe("a passkey sign-up cannot claim someone else's email address (pre-registration takeover)", () => {
  const adapter = new MemoryAdapter();
  const links = new Map<string, string>();
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await createTestApp({
      auth: {
        providers: [
          Passkey(),
          Email({
            consumeOnGet: true,
            rateLimit: false,
            sendVerificationRequest: ({ identifier, url }) => void links.set(identifier, url),
          }),
        ],
        adapter,
        trustHost: true,
        session: { strategy: 'database' },
      },
    });
    origin = t.url.replace('127.0.0.1', 'localhost');
  });
  afterAll(() => t?.close());

  /** Signs `c` up with a new passkey under `email` (nothing about the address is checked). */
  async function passkeySignUp(c: TestClient, email: string): Promise<string> {
    const o = (await (
      await c.get(`/auth/webauthn-options/passkey?action=register&email=${encodeURIComponent(email)}`)
    ).json()) as Json;
    const res = await c.post(
      '/auth/callback/passkey',
      {
        action: 'register',
        data: new SoftAuthenticator().register(o.options, { origin }),
        callbackUrl: `${origin}/me`,
      },
      { json: true },
    );
    expect(res.status).toBe(302);
    return ((await (await c.get('/me')).json()) as Json).user.id;
  }

  /** Requests a magic link for `email` and follows it in `c`; returns the final response. */
  async function emailSignIn(c: TestClient, email: string): Promise<Response> {
    const csrfToken = await c.csrf();
    expect((await c.post('/auth/signin/email', { csrfToken, email, callbackUrl: `${origin}/me` })).status).toBe(302);
    const link = new URL(links.get(email)!);
    return c.get(`${link.pathname}${link.search}`);
  }

  it('the owner of the address gets a user of their own, never the account someone made with it; the address moves to them', async () => {
    const squatter = new TestClient(origin);
    const squatted = await passkeySignUp(squatter, 'victim@example.test');
    const victim = new TestClient(origin);
    const res = await emailSignIn(victim, 'victim@example.test');
    expect(location(res).href).toBe(`${origin}/me`);
    const own = ((await (await victim.get('/me')).json()) as Json).user.id;
    expect(own).not.toBe(squatted);
    expect((await adapter.getUserByEmail('victim@example.test'))?.id).toBe(own);
    // The passkey's user keeps its passkey and sessions, without the address it never proved.
    expect(await adapter.getUser(squatted)).toMatchObject({ email: null, emailVerified: null });
    expect(((await (await squatter.get('/me')).json()) as Json).user.id).toBe(squatted);
  });

  it("the passkey's owner confirms the address by an email sign-in while signed in; then it works anywhere", async () => {
    const owner = new TestClient(origin);
    const userId = await passkeySignUp(owner, 'owner@example.test');
    const confirmed = await emailSignIn(owner, 'owner@example.test');
    expect(location(confirmed).href).toBe(`${origin}/me`);
    expect(((await (await owner.get('/me')).json()) as Json).user.id).toBe(userId);
    expect((await adapter.getUser(userId))?.emailVerified).toBeInstanceOf(Date);

    const elsewhere = new TestClient(origin);
    expect(location(await emailSignIn(elsewhere, 'owner@example.test')).href).toBe(`${origin}/me`);
    expect(((await (await elsewhere.get('/me')).json()) as Json).user.id).toBe(userId);
  });
});
