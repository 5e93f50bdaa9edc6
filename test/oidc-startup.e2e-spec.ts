/**
 * OpenID discovery at bootstrap, against a real OpenID Provider: a reachable issuer is discovered
 * before the first sign-in; an unreachable one logs one warning with the cause, the app still
 * starts, and a later sign-in discovers it again (a failure is not cached).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp } from './setup/app.js';
import { TestClient } from './setup/http-client.js';
import { startOidcProvider, type TestOidcProvider } from './setup/oidc-provider.js';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';

describe('OpenID discovery at bootstrap', () => {
  let op: TestOidcProvider;
  let app: TestApp;
  const warnings: string[] = [];
  let flakyCalls = 0;

  beforeAll(async () => {
    op = await startOidcProvider();
    app = await createTestApp({
      auth: {
        adapter: new MemoryAdapter(),
        logger: { warn: (message: string) => warnings.push(message) },
        providers: [
          { id: 'up', name: 'Up', type: 'oidc', issuer: op.issuer, clientId: 'up', clientSecret: 'up-secret' },
          { id: 'down', name: 'Down', type: 'oidc', issuer: 'http://127.0.0.1:1', clientId: 'x', clientSecret: 'y' },
          {
            // Down at bootstrap only: its first discovery fails, later ones reach the provider.
            id: 'flaky',
            name: 'Flaky',
            type: 'oidc',
            issuer: op.issuer,
            clientId: 'flaky',
            clientSecret: 'flaky-secret',
            customFetch: (url: string, init: RequestInit) =>
              ++flakyCalls === 1 ? Promise.reject(new Error('the network is down')) : fetch(url, init),
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await op?.close();
  });

  it('discovers a reachable issuer before the first sign-in', () => {
    expect(op.requests.filter((r) => r === 'GET /.well-known/openid-configuration').length).toBeGreaterThanOrEqual(1);
  });

  it('warns once per unreachable issuer, with the cause, and starts anyway', async () => {
    expect(warnings.filter((w) => w.includes('"down"'))).toEqual([
      expect.stringMatching(/providers "down": OpenID discovery failed at bootstrap .*fetch failed.*bad port/),
    ]);
    expect(warnings.filter((w) => w.includes('"flaky"'))).toEqual([expect.stringContaining('the network is down')]);
    expect(warnings.filter((w) => w.includes('"up"'))).toEqual([]);
    expect((await fetch(`${app.url}/auth/providers`)).status).toBe(200);
  });

  it('tries discovery again at the next sign-in', async () => {
    const client = new TestClient(app.url);
    const csrfToken = await client.csrf();
    const res = await client.post('/auth/signin/flaky', { csrfToken });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${op.issuer}/`));
    expect(flakyCalls).toBe(2);
  });
});
