/**
 * The README's account controllers ("Sessions and devices", "Linked accounts"), run as written (only
 * `from 'nestjs-auth'` is pointed at the sources): their documented errors answer as HTTP, without a
 * filter, with the stable type in the body.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger, type Type } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { createTestApp, TEST_PLATFORM, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';
import { readmeSnippet } from './setup/readme.js';

const OUT = join(process.cwd(), 'test-output', 'readme-snippets');

async function importSnippet(name: string): Promise<Record<string, Type>> {
  mkdirSync(OUT, { recursive: true });
  const file = join(OUT, `${name}-${TEST_PLATFORM}.ts`);
  writeFileSync(file, readmeSnippet(name).code.replace(/from 'nestjs-auth'/g, "from '../../lib/index.js'"));
  return (await import(file)) as Record<string, Type>;
}

// promise: account.errors-as-http
describe("README: the account controllers' documented errors, as HTTP", () => {
  let t: TestApp;
  let c: TestClient;
  const errorLog = jest.spyOn((BaseExceptionFilter as unknown as { logger: Logger }).logger, 'error');

  beforeAll(async () => {
    const { SessionsController } = await importSnippet('account-sessions');
    const { LinksController } = await importSnippet('account-links');
    t = await createTestApp({
      controllers: [SessionsController!, LinksController!],
      auth: {
        adapter: MemoryAdapter,
        session: { strategy: 'database' },
        providers: [
          Credentials({
            credentials: { email: { type: 'email' }, password: { type: 'password' } },
            authorize: ({ email, password }) =>
              password === 'right password' ? { id: 'ada', email: String(email) } : null,
          }),
        ],
      },
    });
    c = new TestClient(t.url);
    const res = await c.post('/auth/callback/credentials', {
      csrfToken: await c.csrf(),
      email: 'ada@example.test',
      password: 'right password',
      callbackUrl: `${t.url}/me`,
    });
    expect(location(res).pathname).toBe('/me');
  }, 30_000);
  afterAll(async () => {
    errorLog.mockRestore();
    await t?.close();
  });

  it('lists the sessions; ending an unknown one is 400 InvalidRequest, not 500', async () => {
    const sessions = (await (await c.get('/account/sessions')).json()) as Array<{ id: string; current: boolean }>;
    expect(sessions).toEqual([expect.objectContaining({ current: true })]);
    const res = await c.post('/account/sessions/no-such-session/end');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ statusCode: 400, error: 'InvalidRequest', message: expect.any(String) });
  });

  it("refuses to unlink the user's last way to sign in: 409 LastSignInMethod, nothing removed", async () => {
    const accounts = (await (await c.get('/account/links')).json()) as Array<{
      provider: string;
      providerAccountId: string;
    }>;
    expect(accounts).toEqual([expect.objectContaining({ provider: 'credentials' })]);
    const [only] = accounts;
    const res = await c.request('DELETE', `/account/links/${only!.provider}/${only!.providerAccountId}`);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      statusCode: 409,
      error: 'LastSignInMethod',
      message: expect.stringMatching(/.+/),
    });
    expect(await (await c.get('/account/links')).json()).toEqual(accounts);
    // Unknown account: 400 InvalidRequest.
    expect((await c.request('DELETE', '/account/links/credentials/someone-else')).status).toBe(400);
  });

  it('logs none of these client mistakes as errors', () => {
    expect(errorLog).not.toHaveBeenCalled();
  });
});
