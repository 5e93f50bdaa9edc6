import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { Adapter } from '../lib/adapters/adapter.interface.js';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { TypeOrmAdapter } from '../lib/adapters/typeorm/typeorm.adapter.js';
import { authEntities } from '../lib/adapters/typeorm/auth-entities.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import type { WebAuthnUserConfig } from '../lib/methods/webauthn/webauthn.types.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { createDatabase, databaseTargets, dropDatabase } from './setup/databases.js';
import { location, TestClient } from './setup/http-client.js';
import { extractLink, startSmtpServer, type TestSmtpServer } from './setup/smtp.js';
import { SoftAuthenticator } from './setup/soft-authenticator.js';

type Json = Record<string, any>;
const GENEROUS = { maxPerAddress: 1000, maxPerIp: 10_000, windowSeconds: 60 };

interface Storage {
  name: string;
  describe: typeof describe;
  open(): Promise<{ adapter: Adapter; close(): Promise<void> }>;
}

const storages: Storage[] = [
  { name: 'MemoryAdapter', describe, open: async () => ({ adapter: new MemoryAdapter(), close: async () => {} }) },
  ...(await databaseTargets()).map((target): Storage => ({
    name: `TypeOrmAdapter on ${target.name}`,
    describe: target.describe,
    open: async () => {
      const db = await createDatabase(target, 'account_api');
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
  storage.describe(`the account API (/auth/account/*) on ${storage.name}`, () => {
    let adapter: Adapter;
    let close: () => Promise<void>;
    let smtp: TestSmtpServer;
    let t: TestApp;
    /** The same module on the same storage, with a 1-second recent sign-in window. */
    let strict: TestApp;
    let origin: string;
    let strictOrigin: string;

    beforeAll(async () => {
      ({ adapter, close } = await storage.open());
      smtp = await startSmtpServer();
      const auth = (recentSignInMaxAge?: number) => ({
        providers: [
          Passkey({ rateLimit: GENEROUS } as WebAuthnUserConfig),
          Email({ server: smtp.url, from: 'auth@example.test', rateLimit: GENEROUS }),
        ],
        adapter,
        trustHost: true,
        session: { strategy: 'database' as const },
        ...(recentSignInMaxAge ? { account: { recentSignInMaxAge } } : {}),
      });
      t = await createTestApp({ auth: auth() });
      strict = await createTestApp({ auth: auth(1) });
      // localhost: a secure context, the relying party of the passkeys.
      origin = t.url.replace('127.0.0.1', 'localhost');
      strictOrigin = strict.url.replace('127.0.0.1', 'localhost');
    });
    afterAll(async () => {
      await t?.close();
      await strict?.close();
      await smtp?.close();
      await close?.();
    });

    async function ceremony(
      c: TestClient,
      action: string,
      device: SoftAuthenticator,
      email?: string,
    ): Promise<Response> {
      const query = `action=${action}${email ? `&email=${encodeURIComponent(email)}` : ''}`;
      const o = (await (await c.get(`/auth/webauthn-options/passkey?${query}`)).json()) as Json;
      const data =
        action === 'register' ? device.register(o.options, { origin }) : device.authenticate(o.options, { origin });
      return c.post('/auth/callback/passkey', { action, data, callbackUrl: `${origin}/me` }, { json: true });
    }

    /** A new user signed up with a passkey: the client, its device and the user id. */
    async function signUp(email: string): Promise<{ c: TestClient; device: SoftAuthenticator; userId: string }> {
      const c = new TestClient(origin);
      const device = new SoftAuthenticator();
      expect((await ceremony(c, 'register', device, email)).status).toBe(302);
      const me = (await (await c.get('/me')).json()) as Json;
      return { c, device, userId: me.user.id };
    }

    async function api(c: TestClient, path: string, body: Json = {}, csrf = true): Promise<Response> {
      const token = csrf ? { csrfToken: await c.csrf() } : {};
      return c.post(`/auth/account/${path}`, { ...token, ...body }, { json: true });
    }

    async function passkeys(c: TestClient): Promise<Json[]> {
      const res = await c.get('/auth/account/passkeys', { accept: 'application/json' });
      expect(res.status).toBe(200);
      return ((await res.json()) as Json).passkeys;
    }

    // promise: account.api
    it('answers 401 without a session, and refuses a state change without the CSRF token (nothing changes)', async () => {
      const anonymous = new TestClient(origin);
      const res = await anonymous.get('/auth/account', { accept: 'application/json' });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'SessionRequired' });

      const { c, device } = await signUp('csrf@example.test');
      const refused = await api(
        c,
        'passkeys/rename',
        { credentialID: device.credentialId.toString('base64'), name: 'X' },
        false,
      );
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'MissingCSRF' });
      expect((await passkeys(c))[0].name).toBeNull();
    });

    // promise: account.passkey-add
    // promise: account.passkey-names
    it('adds a passkey to the signed-in user, renames it, records its last use, deletes it, never the last one', async () => {
      const { c, device, userId } = await signUp('keys@example.test');
      const [first] = await passkeys(c);
      expect(first).toMatchObject({ provider: 'passkey', name: null, lastUsedAt: null });

      // Adding while signed in: the same user gets a second authenticator, no new user appears.
      const second = new SoftAuthenticator();
      const added = await ceremony(c, 'register', second);
      expect(added.status).toBe(302);
      expect(((await (await c.get('/me')).json()) as Json).user.id).toBe(userId);
      expect((await adapter.getUserByEmail!('keys@example.test'))?.id).toBe(userId);
      const both = await passkeys(c);
      expect(both).toHaveLength(2);

      const renamed = await api(c, 'passkeys/rename', { credentialID: first.credentialID, name: '  Work laptop ' });
      expect(renamed.status).toBe(200);
      expect(((await renamed.json()) as Json).passkey).toMatchObject({ name: 'Work laptop' });

      // Signing in with it records when.
      const other = new TestClient(origin);
      expect((await ceremony(other, 'authenticate', device)).status).toBe(302);
      const used = (await passkeys(c)).find((p) => p.credentialID === first.credentialID)!;
      expect(new Date(used.lastUsedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect(used.name).toBe('Work laptop');

      expect((await api(c, 'passkeys/delete', { credentialID: first.credentialID })).status).toBe(200);
      expect((await passkeys(c)).map((p) => p.credentialID)).toEqual([
        both.find((p) => p.credentialID !== first.credentialID)!.credentialID,
      ]);
      expect(await adapter.getAuthenticator!(first.credentialID)).toBeNull();

      // The last passkey of a user whose address was never verified is their only way in.
      const [last] = await passkeys(c);
      const refused = await api(c, 'passkeys/delete', { credentialID: last.credentialID });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'LastSignInMethod' });
      expect(await passkeys(c)).toHaveLength(1);
    });

    it('requires a recent sign-in for sensitive actions (403 for JSON; a form goes to sign in and back)', async () => {
      const { c } = await signUp('stale@example.test');
      const [key] = await passkeys(c);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const s = new TestClient(strictOrigin);
      for (const [name, value] of c.cookies) s.cookies.set(name, value);
      const json = await s.post(
        '/auth/account/passkeys/rename',
        { csrfToken: await s.csrf(), credentialID: key.credentialID, name: 'late' },
        { json: true },
      );
      expect(json.status).toBe(403);
      expect(await json.json()).toMatchObject({ error: 'ReauthenticationRequired' });
      const form = await s.post('/auth/account/passkeys/delete', {
        csrfToken: await s.csrf(),
        credentialID: key.credentialID,
      });
      expect(form.status).toBe(302);
      const target = location(form);
      expect(target.pathname).toBe('/auth/signin');
      expect(target.searchParams.get('callbackUrl')).toBe(`${strictOrigin}/auth/account`);
      expect((await passkeys(c))[0].name).toBeNull();
    });

    // promise: account.email-change
    it('changes the email through the real SMTP server: a link to the new address, a notice to the old one', async () => {
      const { c, userId } = await signUp('before@example.test');
      smtp.clear();
      const res = await api(c, 'email', { email: 'After@Example.test' });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ok: true, email: 'after@example.test' });
      const mail = await smtp.waitForMessage((m) => m.envelope.to.includes('after@example.test'));
      expect(mail.subject).toMatch(/Confirm your new email address/);
      const link = extractLink(mail, '/auth/account/email/confirm');
      expect((await adapter.getUser!(userId))?.email).toBe('before@example.test');

      // The link opens a confirmation page (a GET changes nothing); its form posts the token.
      const page = await c.get(link.href);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('action="' + `${origin}/auth/account/email/confirm"`);
      expect((await adapter.getUser!(userId))?.email).toBe('before@example.test');

      const body = {
        csrfToken: await c.csrf(),
        token: link.searchParams.get('token')!,
        email: link.searchParams.get('email')!,
      };
      const confirmed = await c.post('/auth/account/email/confirm', body);
      expect(confirmed.status).toBe(302);
      expect(location(confirmed).href).toBe(`${origin}/auth/account?notice=email-changed`);
      const user = await adapter.getUser!(userId);
      expect(user?.email).toBe('after@example.test');
      expect(user?.emailVerified).toBeInstanceOf(Date);
      const notice = await smtp.waitForMessage((m) => m.envelope.to.includes('before@example.test'));
      expect(notice.subject).toMatch(/Your email address was changed/);

      // Single use.
      const again = await c.post('/auth/account/email/confirm', { ...body, csrfToken: await c.csrf() }, { json: true });
      expect(again.status).toBe(400);
      expect(await again.json()).toMatchObject({ error: 'Verification' });
      // The verified address is now a way in: the only passkey can go.
      const [key] = await passkeys(c);
      expect((await api(c, 'passkeys/delete', { credentialID: key.credentialID })).status).toBe(200);
    });
  });
