import { describe, expect, it } from '@jest/globals';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import type { AuthModuleOptions } from '../config/auth-options.interface.js';
import type { JWT } from '../types/common.types.js';
import { COOKIE, SECRET, applyCookies, requestContext, sessionParts } from './fixtures/session.fixture.js';
import { decode } from './jwt.js';

const USER = { id: 'u1', email: 'a@b.test', name: 'A', image: null };
const flush = () => new Promise((r) => setImmediate(r));

/** Session parts recording every event. */
async function recorded(options: Partial<AuthModuleOptions>, adapter?: MemoryAdapter) {
  const events: Array<[string, unknown]> = [];
  const parts = await sessionParts(
    {
      ...options,
      events: { session: (m) => void events.push(['session', m]), signOut: (m) => void events.push(['signOut', m]) },
    },
    { adapter },
  );
  return { ...parts, events };
}

describe('SessionIssuer.create', () => {
  it('JWT: writes a cookie the reader accepts, with a sid under jwtRevocation, trigger signIn or signUp', async () => {
    const triggers: unknown[] = [];
    const { issuer, reader, config } = await sessionParts({
      session: { strategy: 'jwt', jwtRevocation: true },
      callbacks: { jwt: ({ token, trigger }) => (triggers.push(trigger), token) },
    });
    const cookies = await issuer.create(requestContext(config), USER, {});
    await issuer.create(requestContext(config), USER, { isNewUser: true });
    expect(triggers).toEqual(['signIn', 'signUp']);
    expect(cookies).toEqual([
      expect.objectContaining({
        name: COOKIE,
        options: expect.objectContaining({ httpOnly: true, expires: expect.any(Date) }),
      }),
    ]);
    const state = await reader.read({ cookies: applyCookies({}, cookies), secure: false });
    expect(state).toMatchObject({
      status: 'active',
      strategy: 'jwt',
      token: { sub: 'u1', email: 'a@b.test', sid: expect.any(String) },
    });
  });

  it('JWT: clears the cookie when the jwt callback ends the session', async () => {
    const { issuer, config } = await sessionParts({ session: { strategy: 'jwt' }, callbacks: { jwt: () => null } });
    const jar = { [COOKIE]: 'old' };
    expect(await issuer.create(requestContext(config, jar), USER, {})).toEqual([
      expect.objectContaining({ name: COOKIE, value: '', options: expect.objectContaining({ maxAge: 0 }) }),
    ]);
  });

  it('database: stores a new session per sign-in and writes its token; refuses a user without id', async () => {
    const { issuer, adapter, config } = await sessionParts({ session: { strategy: 'database' } });
    await adapter.createUser({ ...USER, emailVerified: null });
    const first = await issuer.create(requestContext(config), USER, {});
    const second = await issuer.create(requestContext(config), USER, {});
    expect(first[0].value).not.toBe(second[0].value);
    expect((await adapter.getSessionAndUser(first[0].value))?.user.id).toBe('u1');
    await expect(issuer.create(requestContext(config), { email: 'x@b.test' }, {})).rejects.toThrow(
      /needs a stored user/,
    );
  });
});

describe('SessionIssuer.sessionRoute', () => {
  it('answers null without a session, and null with the cookie cleared for a bad one', async () => {
    const { issuer, config } = await sessionParts({ session: { strategy: 'jwt' } });
    expect(await issuer.sessionRoute(requestContext(config))).toEqual({ json: null, cookies: [] });
    const bad = await issuer.sessionRoute(requestContext(config, { [COOKIE]: 'junk' }));
    expect(bad.json).toBeNull();
    expect(bad.cookies).toEqual([expect.objectContaining({ name: COOKIE, value: '' })]);
  });

  it('JWT: answers the session, re-issues the cookie, passes update data to the jwt callback, emits session', async () => {
    const { issuer, config, events } = await recorded({
      session: { strategy: 'jwt' },
      callbacks: {
        jwt: ({ token, trigger, session }) =>
          trigger === 'update' ? { ...token, name: (session as { name: string }).name } : token,
      },
    });
    const jar = applyCookies({}, await issuer.create(requestContext(config), USER, {}));
    const read = await issuer.sessionRoute(requestContext(config, jar));
    expect(read.json).toMatchObject({ user: { name: 'A', email: 'a@b.test' }, expires: expect.any(String) });
    expect(read.cookies).toEqual([expect.objectContaining({ name: COOKIE })]);
    const updated = await issuer.sessionRoute(requestContext(config, jar), { data: { name: 'B' } });
    expect(updated.json).toMatchObject({ user: { name: 'B' } });
    await flush();
    expect(events.map(([name]) => name)).toEqual(['session', 'session']);
  });

  it('JWT: an update a jwt callback merges into the token cannot raise what the sign-in proved, nor when it was', async () => {
    const { issuer, config } = await sessionParts({
      session: { strategy: 'jwt' },
      // A careless callback: every field the client sends lands in the token.
      callbacks: {
        jwt: ({ token, trigger, session }) => (trigger === 'update' ? { ...token, ...(session as object) } : token),
      },
    });
    const jar = applyCookies({}, await issuer.create(requestContext(config), USER, { amr: ['pwd'] }));
    const forged = { name: 'B', amr: ['pwd', 'otp', 'mfa'], acr: 'aal2', auth_time: 4_102_444_800 };
    const updated = await issuer.sessionRoute(requestContext(config, jar), { data: forged });
    const token = await decode({
      token: applyCookies(jar, updated.cookies ?? [])[COOKIE]!,
      secret: SECRET,
      salt: COOKIE,
    });
    expect(token).toMatchObject({ name: 'B', amr: ['pwd'], acr: 'aal1' });
    expect(token!.auth_time).toBeLessThan(4_102_444_800);
  });

  it('database: rolls the same token, runs the session callback with newSession on update; no cookie for a bearer', async () => {
    const seen: unknown[] = [];
    const { issuer, adapter, config } = await sessionParts({
      session: { strategy: 'database' },
      callbacks: {
        session: ({ session, newSession, trigger }) => (trigger === 'update' && seen.push(newSession), session),
      },
    });
    await adapter.createUser({ ...USER, emailVerified: null });
    const jar = applyCookies({}, await issuer.create(requestContext(config), USER, {}));
    const rolled = await issuer.sessionRoute(requestContext(config, jar), { data: { theme: 'dark' } });
    expect(rolled.json).toMatchObject({ user: { id: 'u1' } });
    expect(rolled.cookies).toEqual([expect.objectContaining({ name: COOKIE, value: jar[COOKIE] })]);
    expect(seen).toEqual([{ theme: 'dark' }]);
    const bearer = await issuer.sessionRoute(requestContext(config, {}, { authorization: `Bearer ${jar[COOKIE]}` }));
    expect(bearer).toMatchObject({ json: { user: { id: 'u1' } }, cookies: [] });
  });

  // promise: sessions.bearer-expiry
  it.each<[string, Partial<AuthModuleOptions>]>([
    ['the default callbacks', {}],
    ['a session callback', { callbacks: { session: ({ session }) => session } }],
  ])('JWT bearer (%s): answers the expiry of the token it was given, as nothing re-issues it', async (_name, extra) => {
    // A session JWT valid for an hour, while a re-issued cookie would live 30 days (session.maxAge).
    const { issuer, config } = await sessionParts({ session: { strategy: 'jwt' }, jwt: { maxAge: 3600 }, ...extra });
    const before = Date.now();
    const jar = applyCookies({}, await issuer.create(requestContext(config), USER, {}));
    const token = jar[COOKIE];
    const bearer = await issuer.sessionRoute(requestContext(config, {}, { authorization: `Bearer ${token}` }));
    expect(bearer.cookies).toEqual([]);
    const expires = Date.parse((bearer.json as { expires: string }).expires);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000);
    // The cookie is re-issued: its answer's expiry is the new cookie's.
    const cookie = await issuer.sessionRoute(requestContext(config, jar));
    expect(Date.parse((cookie.json as { expires: string }).expires)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });
});

describe('SessionIssuer.signOut and revoke', () => {
  it('database: deletes the row, emits signOut with it, clears the cookie', async () => {
    const { issuer, adapter, config, events } = await recorded({ session: { strategy: 'database', cacheTtl: 60 } });
    await adapter.createUser({ ...USER, emailVerified: null });
    const jar = applyCookies({}, await issuer.create(requestContext(config), USER, {}));
    expect(await issuer.signOut(requestContext(config, jar))).toEqual([
      expect.objectContaining({ name: COOKIE, value: '' }),
    ]);
    expect(await adapter.getSessionAndUser(jar[COOKIE])).toBeNull();
    await flush();
    expect(events).toEqual([['signOut', { session: expect.objectContaining({ sessionToken: jar[COOKIE] }) }]]);
  });

  it('JWT with jwtRevocation: revokes every copy of the session and emits signOut with the token', async () => {
    const { issuer, reader, config, events } = await recorded({ session: { strategy: 'jwt', jwtRevocation: true } });
    const jar = applyCookies({}, await issuer.create(requestContext(config), USER, {}));
    const copy = applyCookies({}, (await issuer.sessionRoute(requestContext(config, jar))).cookies!);
    await issuer.signOut(requestContext(config, jar));
    expect(await reader.read({ cookies: jar, secure: false })).toMatchObject({ status: 'invalid' });
    expect(await reader.read({ cookies: copy, secure: false })).toMatchObject({ status: 'invalid' });
    await flush();
    expect(events.at(-1)).toEqual(['signOut', { token: expect.objectContaining({ sub: 'u1' }) }]);
  });

  it('clears the cookie even when the adapter fails, logging SignOutError', async () => {
    class Down extends MemoryAdapter {
      override async deleteSession(): Promise<null> {
        throw new Error('down');
      }
    }
    const { issuer, config, logs } = await sessionParts({ session: { strategy: 'database' } }, { adapter: new Down() });
    expect(await issuer.signOut(requestContext(config, { [COOKIE]: 'tok' }))).toEqual([
      expect.objectContaining({ name: COOKIE, value: '' }),
    ]);
    expect(logs.error).toEqual(['SignOutError: Signing out on the server failed; the cookie was cleared anyway.']);
  });

  it('revoke ends a cached database session at once, and a JWT read just before (with jwtRevocation)', async () => {
    const db = await sessionParts({ session: { strategy: 'database', cacheTtl: 60 } });
    await db.adapter.createUser({ ...USER, emailVerified: null });
    const dbJar = applyCookies({}, await db.issuer.create(requestContext(db.config), USER, {}));
    expect(await db.reader.read({ cookies: dbJar, secure: false })).toMatchObject({ status: 'active' });
    await db.issuer.revoke(dbJar[COOKIE]);
    expect(await db.reader.read({ cookies: dbJar, secure: false })).toMatchObject({ status: 'invalid' });

    const jwt = await sessionParts({ session: { strategy: 'jwt', jwtRevocation: true } });
    const jwtJar = applyCookies({}, await jwt.issuer.create(requestContext(jwt.config), USER, {}));
    const state = await jwt.reader.read({ cookies: jwtJar, secure: false });
    await jwt.issuer.revoke(jwtJar[COOKIE]);
    expect(await jwt.revocation.isRevoked((state as { token: JWT }).token, Date.now())).toBe(true);
  });
});
