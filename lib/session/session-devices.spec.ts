import { describe, expect, it } from '@jest/globals';
import type { AuthModuleOptions } from '../config/auth-options.interface.js';
import { AuthConfigurationError, InvalidRequest, MissingAdapterMethods } from '../errors/auth.errors.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { COOKIE, applyCookies, requestContext, sessionParts } from './fixtures/session.fixture.js';
import type { SessionState } from './session.types.js';

const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const USERS = [
  { id: 'u1', email: 'a@b.test', name: 'A', image: null },
  { id: 'u2', email: 'c@d.test', name: 'C', image: null },
];
type Active = Extract<SessionState, { status: 'active' }>;

/** Session parts over a MemoryAdapter holding two users, and a sign-in helper (one browser each). */
async function signedIn(options: Partial<AuthModuleOptions> = { session: { strategy: 'database' } }) {
  const parts = await sessionParts(options);
  for (const user of USERS) await parts.adapter.createUser({ ...user, emailVerified: null });
  const signIn = async (userIndex: number, ua: string, ip: string) => {
    const ctx = requestContext(parts.config, {}, { 'user-agent': ua });
    ctx.request.ip = ip;
    const jar = applyCookies({}, await parts.issuer.create(ctx, USERS[userIndex]!, {}));
    const state = await parts.reader.read({ cookies: jar, secure: false });
    if (state.status !== 'active') throw new Error('not signed in');
    return { jar, state: state as Active, token: jar[COOKIE]! };
  };
  const read = (jar: Record<string, string>) => parts.reader.read({ cookies: jar, secure: false }, { fresh: true });
  return { ...parts, signIn, read };
}

describe('sessions as devices: what a sign-in records', () => {
  it('a database session records when, a browser label and a coarse address; the list marks the current one', async () => {
    const { signIn, list: sessions } = await signedIn();
    const before = Date.now();
    const laptop = await signIn(0, CHROME_MAC, '203.0.113.7');
    const phone = await signIn(0, FIREFOX_LINUX, '2001:db8:85a3:1234::9');
    const list = await sessions.list('u1', laptop.state);
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ current: true, userAgent: 'Chrome on macOS', ip: '203.0.113.0/24' });
    expect(list[1]).toMatchObject({ current: false, userAgent: 'Firefox on Linux', ip: '2001:db8:85a3::/48' });
    expect(list[0]!.createdAt!.getTime()).toBeGreaterThanOrEqual(before);
    expect(list[0]!.lastSeenAt).toEqual(list[0]!.createdAt);
    expect(list[0]!.expires).toBeInstanceOf(Date);
    // Marked from the other browser, the other one is current.
    expect((await sessions.list('u1', phone.state)).map((s) => s.current)).toEqual([true, false]);
  });

  it("keeps the full address only with storeIp: 'full', and none with false", async () => {
    const full = await signedIn({ session: { strategy: 'database', storeIp: 'full' } });
    await full.signIn(0, CHROME_MAC, '203.0.113.7');
    expect((await full.list.list('u1'))[0]!.ip).toBe('203.0.113.7');
    const none = await signedIn({ session: { strategy: 'database', storeIp: false } });
    await none.signIn(0, CHROME_MAC, '203.0.113.7');
    expect((await none.list.list('u1'))[0]!.ip).toBeNull();
  });

  it('refuses a storeIp that is not coarse, full, none or false', async () => {
    await expect(sessionParts({ session: { storeIp: 'half' as never } })).rejects.toThrow(
      /session\.storeIp must be 'coarse', 'full', 'none' or false/,
    );
  });

  it('ids are derived from the token, never the token: not equal, not contained, stable, distinct', async () => {
    const { signIn, list: sessions } = await signedIn();
    const a = await signIn(0, CHROME_MAC, '203.0.113.7');
    const b = await signIn(0, CHROME_MAC, '203.0.113.7');
    const ids = (await sessions.list('u1')).map((s) => s.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      for (const token of [a.token, b.token]) {
        expect(id).not.toBe(token);
        expect(token).not.toContain(id);
        expect(id).not.toContain(token.slice(0, 8));
      }
    }
    expect((await sessions.list('u1')).map((s) => s.id)).toEqual(ids);
  });

  it('an adapter that does not list sessions gets no extra fields, and listing says what is missing', async () => {
    const adapter = new MemoryAdapter();
    const written: object[] = [];
    const createSession = adapter.createSession.bind(adapter);
    Object.assign(adapter, {
      listSessionsByUserId: undefined,
      createSession: (s: object) => (written.push(s), createSession(s as never)),
    });
    const parts = await sessionParts({ session: { strategy: 'database' } }, { adapter });
    await adapter.createUser({ ...USERS[0]!, emailVerified: null });
    await parts.issuer.create(requestContext(parts.config, {}, { 'user-agent': CHROME_MAC }), USERS[0]!, {});
    expect(Object.keys(written[0]!).sort()).toEqual(['expires', 'sessionToken', 'userId']);
    await expect(parts.list.list('u1')).rejects.toBeInstanceOf(MissingAdapterMethods);
  });
});

describe('sessions as devices: last seen', () => {
  it('is written with the expiry extension, no more often than updateAge, never on other lookups', async () => {
    const adapter = new MemoryAdapter();
    const updates: Date[] = [];
    const updateSession = adapter.updateSession.bind(adapter);
    adapter.updateSession = (s) => (updates.push(new Date()), updateSession(s));
    const parts = await sessionParts({ session: { strategy: 'database', updateAge: 3600 } }, { adapter });
    await adapter.createUser({ ...USERS[0]!, emailVerified: null });
    const ctx = requestContext(parts.config, {}, { 'user-agent': CHROME_MAC });
    const jar = applyCookies({}, await parts.issuer.create(ctx, USERS[0]!, {}));
    const t0 = Date.now();
    const lastSeen = async () => (await parts.list.list('u1'))[0]!.lastSeenAt!.getTime();
    const created = await lastSeen();
    for (const later of [1_000, 60_000, 3_599_000]) await parts.store.find(jar[COOKIE]!, t0 + later);
    expect(updates).toHaveLength(0);
    expect(await lastSeen()).toBe(created);
    await parts.store.find(jar[COOKIE]!, t0 + 3_601_000);
    expect(updates).toHaveLength(1);
    expect(await lastSeen()).toBe(t0 + 3_601_000);
    // Extended at t0 + 3601 s: the next write is due an updateAge later.
    await parts.store.find(jar[COOKIE]!, t0 + 3_700_000);
    expect(updates).toHaveLength(1);
  });
});

describe('sessions as devices: ending them', () => {
  it('ends one session by id: the next request with it is refused, the other goes on', async () => {
    const {
      signIn,
      reader,
      list: sessions,
      read,
    } = await signedIn({ session: { strategy: 'database', cacheTtl: 60 } });
    const laptop = await signIn(0, CHROME_MAC, '203.0.113.7');
    const phone = await signIn(0, FIREFOX_LINUX, '198.51.100.2');
    // Cached on this instance: ending it must forget the cached copy too.
    expect((await reader.read({ cookies: phone.jar, secure: false })).status).toBe('active');
    const other = (await sessions.list('u1', laptop.state)).find((s) => !s.current)!;
    await sessions.end('u1', other.id);
    expect((await reader.read({ cookies: phone.jar, secure: false })).status).toBe('invalid');
    expect((await read(laptop.jar)).status).toBe('active');
    await expect(sessions.end('u1', other.id)).rejects.toBeInstanceOf(InvalidRequest);
  });

  it("a user cannot end another user's session, even knowing its id", async () => {
    const { signIn, list: sessions, read } = await signedIn();
    const mine = await signIn(0, CHROME_MAC, '203.0.113.7');
    const theirs = await signIn(1, FIREFOX_LINUX, '198.51.100.2');
    const theirId = (await sessions.list('u2'))[0]!.id;
    await expect(sessions.end('u1', theirId)).rejects.toBeInstanceOf(InvalidRequest);
    for (const bad of ['', 'x'.repeat(22), theirs.token, mine.token, 42 as unknown as string])
      await expect(sessions.end('u1', bad)).rejects.toBeInstanceOf(InvalidRequest);
    expect((await read(theirs.jar)).status).toBe('active');
    expect((await read(mine.jar)).status).toBe('active');
    // Listing another user's sessions never marks the request's own as current.
    expect((await sessions.list('u2', mine.state)).every((s) => !s.current)).toBe(true);
  });

  it("ends every other session of the user, and no one else's", async () => {
    const { signIn, list: sessions, read } = await signedIn({ session: { strategy: 'database', hashTokens: true } });
    const here = await signIn(0, CHROME_MAC, '203.0.113.7');
    const others = [await signIn(0, FIREFOX_LINUX, '198.51.100.2'), await signIn(0, CHROME_MAC, '198.51.100.3')];
    const stranger = await signIn(1, CHROME_MAC, '192.0.2.1');
    expect(await sessions.endOthers(here.state)).toBe(2);
    for (const o of others) expect((await read(o.jar)).status).toBe('invalid');
    expect((await read(here.jar)).status).toBe('active');
    expect((await read(stranger.jar)).status).toBe('active');
    expect((await sessions.list('u1', here.state)).map((s) => s.current)).toEqual([true]);
  });
});

describe('sessions as devices: JWT sessions', () => {
  it('without jwtRevocation, listing and ending throw an AuthConfigurationError naming the option', async () => {
    const { list: sessions } = await signedIn({ session: { strategy: 'jwt' } });
    await expect(sessions.list('u1')).rejects.toBeInstanceOf(AuthConfigurationError);
    await expect(sessions.end('u1', 'a'.repeat(22))).rejects.toThrow(/session\.jwtRevocation: true/);
  });

  it('with jwtRevocation, a server-side index lists them; ending one revokes every copy of it', async () => {
    const {
      signIn,
      list: sessions,
      read,
      adapter,
    } = await signedIn({ session: { strategy: 'jwt', jwtRevocation: true } });
    const laptop = await signIn(0, CHROME_MAC, '203.0.113.7');
    const phone = await signIn(0, FIREFOX_LINUX, '198.51.100.2');
    const list = await sessions.list('u1', laptop.state);
    expect(list.map((s) => [s.current, s.userAgent, s.ip])).toEqual([
      [true, 'Chrome on macOS', '203.0.113.0/24'],
      [false, 'Firefox on Linux', '198.51.100.0/24'],
    ]);
    // The index holds the sid, never the cookie.
    const rows = await adapter.listSessionsByUserId('u1');
    expect(rows.map((r) => r.sessionToken)).toEqual([
      `jwt:${laptop.state.token!.sid}`,
      `jwt:${phone.state.token!.sid}`,
    ]);
    await sessions.end('u1', list[1]!.id);
    expect((await read(phone.jar)).status).toBe('invalid');
    expect((await read(laptop.jar)).status).toBe('active');
    expect(await sessions.list('u1', laptop.state)).toHaveLength(1);
    await signIn(0, FIREFOX_LINUX, '198.51.100.2');
    expect(await sessions.endOthers(laptop.state)).toBe(1);
    expect((await read(laptop.jar)).status).toBe('active');
  });

  it('touches the index row at most once per updateAge', async () => {
    const adapter = new MemoryAdapter();
    let touches = 0;
    const updateSession = adapter.updateSession.bind(adapter);
    adapter.updateSession = (s) => (touches++, updateSession(s));
    const parts = await sessionParts(
      { session: { strategy: 'jwt', jwtRevocation: true, updateAge: 600 } },
      { adapter },
    );
    await adapter.createUser({ ...USERS[0]!, emailVerified: null });
    const jar = applyCookies({}, await parts.issuer.create(requestContext(parts.config), USERS[0]!, {}));
    const state = (await parts.reader.read({ cookies: jar, secure: false })) as Active;
    const devices = (parts.issuer as unknown as { devices: { touchJwt(t: object, now: number): void } }).devices;
    const t0 = Date.now();
    for (const later of [0, 1_000, 599_000]) devices.touchJwt(state.token!, t0 + later);
    await new Promise((r) => setImmediate(r));
    expect(touches).toBe(0);
    devices.touchJwt(state.token!, t0 + 601_000);
    devices.touchJwt(state.token!, t0 + 602_000);
    await new Promise((r) => setImmediate(r));
    expect(touches).toBe(1);
    expect((await parts.list.list('u1'))[0]!.lastSeenAt!.getTime()).toBe(t0 + 601_000);
  });
});
