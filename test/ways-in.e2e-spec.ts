/**
 * One gate for every way into an account (issue 35), end to end on the platform of the run
 * (Express, or Fastify in the e2e-fastify project), with both session strategies, a real OpenID
 * Provider (oidc-provider), real passkey ceremonies (a software authenticator) and magic links.
 *
 * Each finding of the red-team run is reproduced as an attacker would: a session cookie older than
 * `account.recentSignInMaxAge` (a stolen one) tries to add a way in, and an identity provider claims
 * an address it does not vouch for. On the code before the gate, the first three tests below wrote a
 * way in (the IdP account linked, the passkey stored) and the magic link landed in the squatter's
 * user. The last test walks every account action `AccountRoutes.list()` declares: a new action is
 * held to its declared check the day it exists.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountRoutes } from '../lib/account/account-routes.js';
import { MemoryAdapter } from '../lib/adapters/memory.adapter.js';
import { Credentials } from '../lib/methods/credentials/credentials.provider.js';
import { Email } from '../lib/methods/email/email.provider.js';
import { Passkey } from '../lib/methods/webauthn/webauthn.provider.js';
import type { WebAuthnUserConfig } from '../lib/methods/webauthn/webauthn.types.js';
import { createTestApp, type TestApp } from './setup/app.js';
import { location, TestClient } from './setup/http-client.js';
import { followToApp, useOidcProvider, type TestOidcUser } from './setup/oidc-provider.js';
import { opProvider } from './setup/oidc-sign-in.js';
import { SoftAuthenticator } from './setup/soft-authenticator.js';

type Json = any;

/** The window of a recent sign-in in these apps (seconds); {@link staleAfter} waits it out. */
const RECENT = 2;
const staleAfter = () => new Promise((resolve) => setTimeout(resolve, RECENT * 1000 + 1100));
const GENEROUS = { windowSeconds: 60, maxPerIp: 1000, maxPerAddress: 1000 };
const ATTACKER: TestOidcUser = { sub: 'attacker-sub', email: 'attacker@evil.example', email_verified: true };

const op = useOidcProvider();
let seq = 0;

describe.each(['database', 'jwt'] as const)('the ways-in gate with %s sessions', (strategy) => {
  const adapter = new MemoryAdapter();
  const links = new Map<string, string>();
  const hashes = new Map<string, string>();
  let t: TestApp;
  let origin: string;

  beforeAll(async () => {
    const clientId = `ways-in-${++seq}-${strategy}`;
    t = await createTestApp({
      auth: {
        // On, so their account actions (second factors, API keys) are walked too.
        twoFactor: {},
        apiKeys: {},
        providers: [
          Passkey({ rateLimit: GENEROUS } as WebAuthnUserConfig),
          Email({
            consumeOnGet: true,
            rateLimit: false,
            sendVerificationRequest: ({ identifier, url }) => void links.set(identifier, url),
          }),
          Credentials({
            credentials: { email: {}, password: {} },
            authorize: async () => null,
            passwordStore: {
              getPasswordHash: (id) => hashes.get(id) ?? null,
              setPasswordHash: (id, hash) => void hashes.set(id, hash),
            },
          }),
          opProvider(op, 'idp', clientId),
        ],
        adapter,
        trustHost: true,
        // JWT sessions with revocation: the account API's session actions exist for both strategies.
        session: { strategy, ...(strategy === 'jwt' ? { jwtRevocation: true } : {}) },
        account: { recentSignInMaxAge: RECENT },
      },
    });
    // localhost: a secure context, the passkeys' relying party.
    origin = t.url.replace('127.0.0.1', 'localhost');
    await op.addClient({
      client_id: clientId,
      client_secret: `${clientId}-secret`,
      redirect_uris: [`${origin}/auth/callback/idp`],
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  /** Follows a magic link for `email` in `c`; returns the user id it signed in as. */
  async function emailSignIn(c: TestClient, email: string): Promise<string> {
    const csrfToken = await c.csrf();
    expect((await c.post('/auth/signin/email', { csrfToken, email, callbackUrl: `${origin}/me` })).status).toBe(302);
    const link = new URL(links.get(email)!);
    const res = await c.get(`${link.pathname}${link.search}`);
    expect(location(res).href).toBe(`${origin}/me`);
    return me(c);
  }

  const me = async (c: TestClient): Promise<string> => ((await (await c.get('/me')).json()) as Json).user.id;

  /** `POST /auth/{route}/idp` through the OP (as its current user) back to the callback: the callback's answer. */
  async function throughOp(c: TestClient, route: 'signin' | 'link'): Promise<Response> {
    const csrfToken = await c.csrf();
    const start = await c.post(`/auth/${route}/idp`, { csrfToken, callbackUrl: `${origin}/me` });
    if (location(start).origin !== op.issuer) return start;
    const back = await followToApp(c, start, origin);
    return back.method === 'GET' ? c.get(back.url.href) : c.post(back.url.href, back.body);
  }

  const options = async (c: TestClient, query: string) => c.get(`/auth/webauthn-options/passkey?${query}`);
  const register = (c: TestClient, o: Json, device = new SoftAuthenticator()) =>
    c.post(
      '/auth/callback/passkey',
      { action: 'register', data: device.register(o.options, { origin }), callbackUrl: `${origin}/me` },
      { json: true },
    );
  const ways = async (userId: string) => ({
    accounts: (await adapter.listAccountsByUserId(userId)).map((a) => `${a.provider}:${a.providerAccountId}`),
    authenticators: (await adapter.listAuthenticatorsByUserId(userId)).length,
    user: await adapter.getUser(userId),
    password: hashes.get(userId) ?? null,
    apiKeys: (await adapter.listApiKeysByUserId(userId)).length,
  });

  // promise: security.ways-in-gate
  it('a stale session cannot link an IdP account by a plain sign-in; a recent one links it like the explicit link', async () => {
    const victim = new TestClient(origin);
    const victimId = await emailSignIn(victim, `victim-${strategy}@example.test`);
    const before = await ways(victimId);
    await staleAfter();

    // The thief's copy of the cookie, completed with the thief's own IdP account.
    const thief = new TestClient(origin);
    for (const [name, value] of victim.cookies) thief.cookies.set(name, value);
    op.signInAs({ ...ATTACKER, sub: `attacker-${strategy}` });
    const refused = await throughOp(thief, 'signin');
    expect(location(refused).searchParams.get('error')).toBe('ReauthenticationRequired');
    expect(await ways(victimId)).toEqual(before);
    expect(await adapter.getUserByAccount({ provider: 'idp', providerAccountId: `attacker-${strategy}` })).toBeNull();
    // The explicit link says the same.
    expect(location(await throughOp(thief, 'link')).searchParams.get('error')).toBe('ReauthenticationRequired');
    expect(await ways(victimId)).toEqual(before);

    // From a fresh browser the attacker's IdP account is a user of its own, not the victim.
    const fresh = new TestClient(origin);
    expect(location(await throughOp(fresh, 'signin')).href).toBe(`${origin}/me`);
    expect(await me(fresh)).not.toBe(victimId);

    // The victim, signed in again (recently), links an account with a plain sign-in: the same checks
    // as the explicit link, and the same user afterwards.
    const again = new TestClient(origin);
    expect(await emailSignIn(again, `victim-${strategy}@example.test`)).toBe(victimId);
    op.signInAs({ sub: `victim-idp-${strategy}`, email: `victim-${strategy}@idp.example`, email_verified: true });
    expect(location(await throughOp(again, 'signin')).href).toBe(`${origin}/me`);
    expect(await me(again)).toBe(victimId);
    expect((await ways(victimId)).accounts).toContain(`idp:victim-idp-${strategy}`);
  });

  it('a stale session cannot register a passkey: neither the options nor the registration callback', async () => {
    const victim = new TestClient(origin);
    const victimId = await emailSignIn(victim, `passkey-${strategy}@example.test`);
    // Options taken while the sign-in was recent, used once it is not.
    const early = (await (await options(victim, 'action=register')).json()) as Json;
    expect(early.action).toBe('register');
    await staleAfter();

    const late = await options(victim, 'action=register');
    expect(late.status).toBe(403);
    expect(((await late.json()) as Json).error).toBe('ReauthenticationRequired');
    const refused = await register(victim, early);
    expect(location(refused).searchParams.get('error')).toBe('ReauthenticationRequired');
    expect((await ways(victimId)).authenticators).toBe(0);

    // Signed in again: the passkey is added, and opens the account from another browser.
    const again = new TestClient(origin);
    expect(await emailSignIn(again, `passkey-${strategy}@example.test`)).toBe(victimId);
    const o = (await (await options(again, 'action=register')).json()) as Json;
    expect(location(await register(again, o)).href).toBe(`${origin}/me`);
    expect((await ways(victimId)).authenticators).toBe(1);
  });

  // promise: security.unverified-address
  it("an address an IdP does not vouch for never merges: the mailbox's owner gets a user of their own", async () => {
    const address = `future-${strategy}@example.test`;
    const squatter = new TestClient(origin);
    op.signInAs({ sub: `squatter-${strategy}`, email: address, email_verified: false });
    expect(location(await throughOp(squatter, 'signin')).href).toBe(`${origin}/me`);
    const squatted = await me(squatter);
    expect(await adapter.getUser(squatted)).toMatchObject({ email: address, emailVerified: null });

    const owner = new TestClient(origin);
    const ownerId = await emailSignIn(owner, address);
    expect(ownerId).not.toBe(squatted);
    expect(await adapter.getUser(ownerId)).toMatchObject({ email: address, emailVerified: expect.any(Date) });
    expect(await adapter.getUser(squatted)).toMatchObject({ email: null });
    // The IdP account still opens the squatter's user, never the owner's.
    const later = new TestClient(origin);
    expect(location(await throughOp(later, 'signin')).href).toBe(`${origin}/me`);
    expect(await me(later)).toBe(squatted);
    expect((await ways(ownerId)).accounts).toEqual([]);
  });

  it('an address the IdP vouches for (email_verified: true) is proven: a magic link lands in that user', async () => {
    const address = `vouched-${strategy}@example.test`;
    op.signInAs({ sub: `vouched-${strategy}`, email: address, email_verified: true });
    const c = new TestClient(origin);
    expect(location(await throughOp(c, 'signin')).href).toBe(`${origin}/me`);
    const userId = await me(c);
    expect((await adapter.getUser(userId))?.emailVerified).toBeInstanceOf(Date);
    expect(await emailSignIn(new TestClient(origin), address)).toBe(userId);
  });

  it('every account action is refused from a stale session, as its declared check says, writing nothing', async () => {
    const owner = new TestClient(origin);
    const userId = await emailSignIn(owner, `actions-${strategy}@example.test`);
    const o = (await (await options(owner, 'action=register')).json()) as Json;
    expect(location(await register(owner, o)).href).toBe(`${origin}/me`);
    const before = await ways(userId);
    await staleAfter();

    const actions = t.app.get(AccountRoutes).list();
    expect(actions.map((a) => a.path)).toEqual(
      expect.arrayContaining(['email', 'password', 'passkeys/delete', 'accounts/unlink', 'api-keys/create']),
    );
    for (const { path, check } of actions) {
      const csrfToken = await owner.csrf();
      const res = await owner.post(
        `/auth/account/${path}`,
        { csrfToken, email: `new-${strategy}@example.test`, newPassword: 'a long new password', confirm: true },
        { json: true },
      );
      const body = (await res.json()) as Json;
      if (check === 'link') {
        // Proven by the single-use link it carries (here: none), never by the session alone.
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(body.error).not.toBe('ReauthenticationRequired');
      } else {
        expect([path, res.status, body.error]).toEqual([path, 403, 'ReauthenticationRequired']);
      }
    }
    expect(await ways(userId)).toEqual(before);
    expect(links.has(`new-${strategy}@example.test`)).toBe(false);
  });
});
