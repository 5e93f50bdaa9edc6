/**
 * Back-channel logout by OP session (`sid`) and for JWT sessions (issue 22), against a real OpenID
 * Provider (oidc-provider). Two browsers sign in as the same provider user, each with its own OP
 * session (so its own `sid`); a logout token naming one `sid` ends only that browser's app session.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt } from 'jose';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import type { AuthModuleOptions } from '../lib/config/auth-options.interface.js';
import { createTestApp } from './setup/app.js';
import { TestClient } from './setup/http-client.js';
import { followToApp, useOidcProvider } from './setup/oidc-provider.js';
import { opProvider, signInThroughOp } from './setup/oidc-sign-in.js';

const op = useOidcProvider();
let seq = 0;

const EVENT = { 'http://schemas.openid.net/event/backchannel-logout': {} };

/** An app with a back-channel logout provider `bc` on the test OP, and how to drive it. */
async function logoutApp(session: AuthModuleOptions['session']) {
  const clientId = `bs${++seq}-bc`;
  const user = { sub: `bs-user-${seq}`, email: `bs${seq}@example.com`, email_verified: true, name: 'Sid' };
  /** The ID token of the latest sign-in (the stored account keeps its first one). */
  let lastIdToken: string | undefined;
  const app = await createTestApp({
    auth: {
      adapter: MemoryAdapter,
      session,
      events: { signIn: ({ account }) => void (lastIdToken = account?.id_token) },
      providers: [opProvider(op, 'bc', clientId, { federated: true, backchannelLogout: true })],
    },
  });
  await op.addClient({
    client_id: clientId,
    client_secret: `${clientId}-secret`,
    redirect_uris: [`${app.url}/auth/callback/bc`],
    post_logout_redirect_uris: [`${app.url}/bye`],
    backchannel_logout_uri: `${app.url}/auth/backchannel-logout/bc`,
    // The OP puts `sid` in ID tokens and logout tokens.
    backchannel_logout_session_required: true,
  });

  /** A new browser signed in as `user` (a new OP session); its OP `sid`, read from the ID token. */
  async function browser(): Promise<{ client: TestClient; sid: string }> {
    const previous = op.user;
    op.signInAs(user);
    try {
      const client = new TestClient(app.url);
      lastIdToken = undefined;
      await signInThroughOp(app, client, 'bc');
      const { sid } = decodeJwt(lastIdToken!);
      expect(sid).toEqual(expect.any(String));
      return { client, sid: sid as string };
    } finally {
      op.signInAs(previous);
    }
  }

  async function logout(claims: Record<string, unknown>): Promise<Response> {
    const token = await op.signJwt(
      {
        iss: op.issuer,
        aud: clientId,
        iat: Math.floor(Date.now() / 1000),
        jti: `jti-${Math.random().toString(36).slice(2)}`,
        events: EVENT,
        ...claims,
      },
      { typ: 'logout+jwt' },
    );
    return new TestClient(app.url).post('/auth/backchannel-logout/bc', { logout_token: token });
  }

  const signedIn = async (client: TestClient) => (await client.get('/me')).status === 200;
  return { app, user, browser, logout, signedIn };
}

describe.each([
  ['database sessions', { strategy: 'database' as const }],
  ['JWT sessions (jwtRevocation)', { strategy: 'jwt' as const, jwtRevocation: true }],
])('back-channel logout by sid: %s', (_label, session) => {
  let t: Awaited<ReturnType<typeof logoutApp>>;
  beforeAll(async () => {
    t = await logoutApp(session);
  });
  afterAll(() => t?.app.close());

  it('a logout token with only a sid ends exactly that OP session; the other session of the user stays', async () => {
    // promise: logout.backchannel-sid
    const a = await t.browser();
    const b = await t.browser();
    expect(a.sid).not.toBe(b.sid);
    const res = await t.logout({ sid: a.sid });
    expect(res.status).toBe(200);
    expect(await t.signedIn(a.client)).toBe(false);
    expect(await t.signedIn(b.client)).toBe(true);
  });

  it('sub and sid together end only that OP session too; an unknown sid or another user ends nothing', async () => {
    const a = await t.browser();
    const b = await t.browser();
    expect((await t.logout({ sid: 'no-such-op-session' })).status).toBe(200);
    expect((await t.logout({ sub: 'someone-else', sid: a.sid })).status).toBe(200);
    expect([await t.signedIn(a.client), await t.signedIn(b.client)]).toEqual([true, true]);
    expect((await t.logout({ sub: t.user.sub, sid: b.sid })).status).toBe(200);
    expect([await t.signedIn(a.client), await t.signedIn(b.client)]).toEqual([true, false]);
  });

  it('a logout token with only sub ends every session of the user', async () => {
    // promise: logout.backchannel-jwt
    const a = await t.browser();
    const b = await t.browser();
    expect((await t.logout({ sub: t.user.sub })).status).toBe(200);
    expect([await t.signedIn(a.client), await t.signedIn(b.client)]).toEqual([false, false]);
  });

  it("a sign-out at the provider reaches the app: that browser's session ends, the other's stays", async () => {
    const a = await t.browser();
    const b = await t.browser();
    const deliveries = op.backchannelDeliveries.length;
    const csrfToken = await a.client.csrf();
    const res = await a.client.post('/auth/signout', { csrfToken, callbackUrl: `${t.app.url}/bye` });
    await followToApp(a.client, res, t.app.url);
    expect(op.backchannelDeliveries.slice(deliveries)).toContain('success');
    expect(await t.signedIn(b.client)).toBe(true);
  });
});

describe('back-channel logout: JWT sessions without jwtRevocation', () => {
  it('is refused (nothing could end them) and the session stays', async () => {
    const t = await logoutApp({ strategy: 'jwt' });
    try {
      const a = await t.browser();
      const res = await t.logout({ sid: a.sid });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'SignOutError' });
      expect(await t.signedIn(a.client)).toBe(true);
    } finally {
      await t.app.close();
    }
  });
});
