import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Type } from '@nestjs/common';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { hashPassword, verifyPassword } from '../lib/methods/credentials/password.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { createTestApp, TEST_PLATFORM, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';
import { readmeSnippet } from './setup/readme.js';
import { extractLink, startSmtpServer, type TestSmtpServer } from './setup/smtp.js';

/** The README's "forgot password" route, written as a module next to the sources and imported. */
async function forgotPasswordController(): Promise<Type> {
  const dir = join(process.cwd(), 'test-output', 'readme-snippets');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `forgot-password-${TEST_PLATFORM}.ts`);
  writeFileSync(
    file,
    readmeSnippet('forgot-password').code.replace(/from 'nestjs-auth'/g, "from '../../lib/index.js'"),
  );
  return ((await import(file)) as { ForgotPasswordController: Type }).ForgotPasswordController;
}

// promise: account.forgot-password
describe('README recipe: forgot password (a magic link, then a new password)', () => {
  const adapter = new MemoryAdapter();
  const hashes = new Map<string, string>();
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    await adapter.createUser({ id: 'ada', email: 'ada@example.test', emailVerified: new Date() });
    hashes.set('ada', await hashPassword('old password 1'));
    t = await createTestApp({
      controllers: [await forgotPasswordController()],
      auth: {
        adapter,
        session: { strategy: 'database' },
        providers: [
          Email({ server: smtp.url, from: 'auth@example.test' }),
          Credentials({
            credentials: { email: { type: 'email' }, password: { type: 'password' } },
            async authorize({ email, password }) {
              const user = await adapter.getUserByEmail(String(email));
              const ok = await verifyPassword(String(password), user ? (hashes.get(user.id) ?? null) : null);
              return ok ? user : null;
            },
            passwordStore: {
              getPasswordHash: (id) => hashes.get(id) ?? null,
              setPasswordHash: (id, hash) => void hashes.set(id, hash),
            },
          }),
        ],
      },
    });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  async function passwordSignIn(password: string): Promise<string | null> {
    const c = new TestClient(t.url);
    const res = await c.post('/auth/callback/credentials', {
      csrfToken: await c.csrf(),
      email: 'ada@example.test',
      password,
      callbackUrl: `${t.url}/me`,
    });
    return location(res).searchParams.get('error') ?? location(res).pathname;
  }

  it('signs in with the emailed link, sets a new password without the old one; the old one stops working', async () => {
    expect(await passwordSignIn('old password 1')).toBe('/me');
    const c = new TestClient(t.url);
    // Not signed in: the route refuses.
    expect((await c.post('/forgot-password', { newPassword: 'new password 2' }, { json: true })).status).toBe(401);

    await c.post('/auth/signin/email', {
      csrfToken: await c.csrf(),
      email: 'ada@example.test',
      callbackUrl: `${t.url}/me`,
    });
    const mail = await smtp.waitForMessage((m) => m.envelope.to.includes('ada@example.test'));
    const link = extractLink(mail, '/auth/callback/email');
    const signedIn = await c.post('/auth/callback/email', {
      ...Object.fromEntries(link.searchParams),
      csrfToken: await c.csrf(),
    });
    expect(location(signedIn).pathname).toBe('/me');

    // A form post (what another site could send) is refused; JSON is accepted.
    expect((await c.post('/forgot-password', { newPassword: 'new password 2' })).status).toBe(415);
    expect(hashes.get('ada') && (await verifyPassword('old password 1', hashes.get('ada')!))).toBe(true);
    const reset = await c.post('/forgot-password', { newPassword: 'new password 2' }, { json: true });
    expect(reset.status).toBe(201);
    expect(await passwordSignIn('new password 2')).toBe('/me');
    expect(await passwordSignIn('old password 1')).toBe('CredentialsSignin');
  }, 30_000);
});
