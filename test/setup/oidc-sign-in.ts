import { expect } from '@jest/globals';
import type { TestApp } from './app.js';
import type { TestClient } from './http-client.js';
import { followToApp, type TestOidcProvider } from './oidc-provider.js';

/** An `oidc` provider of the test OP (`clientSecret` is `<clientId>-secret`), with extra options. */
export function opProvider(op: TestOidcProvider, id: string, clientId: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    type: 'oidc' as const,
    issuer: op.issuer,
    clientId,
    clientSecret: `${clientId}-secret`,
    ...extra,
  };
}

/** Signs in through the OP as its current user, following every redirect; returns the app's user id. */
export async function signInThroughOp(app: TestApp, client: TestClient, providerId: string): Promise<string> {
  const csrfToken = await client.csrf();
  const start = await client.post(`/auth/signin/${providerId}`, { csrfToken, callbackUrl: `${app.url}/me` });
  expect(start.status).toBe(302);
  const back = await followToApp(client, start, app.url);
  const done = back.method === 'GET' ? await client.get(back.url.href) : await client.post(back.url.href, back.body);
  expect(done.status).toBe(302);
  const me = await client.get('/me');
  expect(me.status).toBe(200);
  return ((await me.json()) as { user: { id: string } }).user.id;
}
