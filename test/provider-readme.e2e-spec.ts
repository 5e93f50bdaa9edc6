/**
 * The README's "Calling the provider's API" and "Logging out everywhere" snippets, run as written
 * (only `from 'nestjs-auth'` is pointed at the sources), against a real OpenID Provider.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Type } from '@nestjs/common';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { TestClient } from './setup/http-client.js';
import { followToApp, startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { readmeSnippet } from './setup/readme.js';

const OUT = join(process.cwd(), 'test-output', 'readme-snippets');

/** Writes the snippet as a module next to the sources and imports it. */
async function importSnippet(name: string): Promise<Record<string, unknown>> {
  mkdirSync(OUT, { recursive: true });
  const code = readmeSnippet(name).code.replace(/from 'nestjs-auth'/g, "from '../../lib/index.js'");
  const file = join(OUT, `${name}.ts`);
  writeFileSync(file, code);
  return (await import(file)) as Record<string, unknown>;
}

let op: TestOidcProvider;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(async () => {
  await op?.close();
});

describe("README: Calling the provider's API", () => {
  let app: TestApp;
  const clientId = 'readme-google';

  beforeAll(async () => {
    const { ReposController } = await importSnippet('provider-access-token');
    app = await createTestApp({
      auth: {
        adapter: MemoryAdapter,
        // The snippet's `google`, played by the test OP.
        providers: [
          {
            id: 'google',
            name: 'Google',
            type: 'oidc',
            issuer: op.issuer,
            clientId,
            clientSecret: `${clientId}-secret`,
          },
        ],
      },
      controllers: [ReposController as Type<unknown>],
    });
    await op.addClient({
      client_id: clientId,
      client_secret: `${clientId}-secret`,
      redirect_uris: [`${app.url}/auth/callback/google`],
      grant_types: ['authorization_code', 'refresh_token'],
    });
  });
  afterAll(() => app?.close());

  it('the calendar route returns the token once signed in with the provider', async () => {
    const client = new TestClient(app.url);
    const csrfToken = await client.csrf();
    const start = await client.post('/auth/signin/google', { csrfToken, callbackUrl: `${app.url}/me` });
    const back = await followToApp(client, start, app.url);
    expect((await client.get(back.url.href)).status).toBe(302);
    const res = await client.get('/api/calendar');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token?: string };
    expect(body.token).toEqual(expect.any(String));
    const userinfo = await fetch(`${op.issuer}/me`, { headers: { authorization: `Bearer ${body.token}` } });
    expect(userinfo.status).toBe(200);
    // Without a session, the guard refuses.
    expect((await new TestClient(app.url).get('/api/calendar')).status).toBe(401);
  });
});

describe("README: Calling the provider's API with JWT sessions (session.tokens)", () => {
  let app: TestApp;
  const clientId = 'readme-corp-jwt';

  beforeAll(async () => {
    const { CorpController } = await importSnippet('session-tokens');
    app = await createTestApp({
      auth: {
        session: { strategy: 'jwt', tokens: true },
        providers: [
          { id: 'corp', name: 'Corp', type: 'oidc', issuer: op.issuer, clientId, clientSecret: `${clientId}-secret` },
        ],
      },
      controllers: [CorpController as Type<unknown>],
    });
    await op.addClient({
      client_id: clientId,
      client_secret: `${clientId}-secret`,
      redirect_uris: [`${app.url}/auth/callback/corp`],
      grant_types: ['authorization_code', 'refresh_token'],
    });
  });
  afterAll(() => app?.close());

  it('both routes hand out the token kept in the session, without a database', async () => {
    const client = new TestClient(app.url);
    const csrfToken = await client.csrf();
    const start = await client.post('/auth/signin/corp', { csrfToken, callbackUrl: `${app.url}/me` });
    const back = await followToApp(client, start, app.url);
    expect((await client.get(back.url.href)).status).toBe(302);
    const { token } = (await (await client.get('/api/token')).json()) as { token: string };
    expect(token).toEqual(expect.any(String));
    expect(await (await client.get('/api/token-from-service')).json()).toEqual({ token });
    const userinfo = await fetch(`${op.issuer}/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(userinfo.status).toBe(200);
    expect((await new TestClient(app.url).get('/api/token-from-service')).status).toBe(401);
  });
});

describe('README: Logging out everywhere', () => {
  it('the configuration runs as written, with both options on the provider', async () => {
    const before = { ...process.env };
    process.env.AUTH_SECRET = 'readme-secret-that-is-long-enough-0123456789';
    process.env.CORP_CLIENT_ID = 'corp';
    process.env.CORP_CLIENT_SECRET = 'corp-secret';
    try {
      const source = readmeSnippet('federated-logout').code;
      expect(source).toContain('federated: true');
      expect(source).toContain('backchannelLogout: true');
      // Evaluated as written (the same options run against oidc-provider in provider-logout.e2e-spec.ts).
      await expect(importSnippet('federated-logout')).resolves.toBeDefined();
    } finally {
      process.env = before;
    }
  });
});
