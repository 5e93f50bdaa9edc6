import { describe, expect, it } from '@jest/globals';
import { ReauthenticationRequired } from '../errors/auth.errors.js';
import { COOKIE, applyCookies, requestContext, sessionParts } from './fixtures/session.fixture.js';
import { SIGNED_IN_AT_CLAIM, assertRecentSignIn, isRecentSignIn, signedInAtOfToken } from './recent-sign-in.js';

const NOW = Date.UTC(2026, 0, 1, 12);
const USER = { id: 'u1', email: 'a@b.test', name: 'A', image: null };

describe('assertRecentSignIn', () => {
  it('allows a sign-in within the window, up to its edge', () => {
    expect(() => assertRecentSignIn(new Date(NOW - 60_000), 600, NOW)).not.toThrow();
    expect(() => assertRecentSignIn(new Date(NOW - 600_000), 600, NOW)).not.toThrow();
  });

  it('refuses a sign-in older than the window with ReauthenticationRequired (stable type, the window)', () => {
    let thrown: unknown;
    try {
      assertRecentSignIn(new Date(NOW - 600_001), 600, NOW);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ReauthenticationRequired);
    expect((thrown as ReauthenticationRequired).type).toBe('ReauthenticationRequired');
    expect((thrown as ReauthenticationRequired).maxAge).toBe(600);
  });

  it('treats an unknown sign-in time as not recent (fails closed)', () => {
    for (const unknown of [null, undefined, new Date(NaN), '2026-01-01' as unknown as Date, 0 as unknown as Date])
      expect(() => assertRecentSignIn(unknown, 600, NOW)).toThrow(ReauthenticationRequired);
  });

  it('refuses a sign-in time in the future beyond the clock skew, and a broken window', () => {
    expect(isRecentSignIn(new Date(NOW + 10_000), 600, NOW)).toBe(true);
    expect(isRecentSignIn(new Date(NOW + 60_000), 600, NOW)).toBe(false);
    expect(isRecentSignIn(new Date(NOW), NaN, NOW)).toBe(false);
    expect(isRecentSignIn(new Date(NOW), -1, NOW)).toBe(false);
  });

  it('reads the JWT claim as a Date, and null when it is missing or not a number', () => {
    expect(signedInAtOfToken({ [SIGNED_IN_AT_CLAIM]: NOW / 1000 })?.getTime()).toBe(NOW);
    expect(signedInAtOfToken({})).toBeNull();
    expect(signedInAtOfToken({ [SIGNED_IN_AT_CLAIM]: '1700000000' })).toBeNull();
    expect(signedInAtOfToken(undefined)).toBeNull();
  });
});

describe('signedInAt of JWT sessions', () => {
  it('is set at sign-in and kept when the cookie is re-issued (GET /session, update)', async () => {
    const { issuer, reader, config } = await sessionParts({ session: { strategy: 'jwt' } });
    const before = Math.floor(Date.now() / 1000) * 1000;
    const jar = applyCookies({}, await issuer.create(requestContext(config), USER, {}));
    const state = await reader.read({ cookies: jar, secure: false });
    if (state.status !== 'active') throw new Error('no session');
    const signedInAt = state.signedInAt!;
    expect(signedInAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(reader.signedInAt(state)).toBe(signedInAt);

    // Re-issued later (a second on): a new cookie value, the same sign-in time.
    await new Promise((r) => setTimeout(r, 1100));
    const rolled = await issuer.sessionRoute(requestContext(config, jar), { data: { x: 1 } });
    const next = applyCookies(jar, rolled.cookies ?? []);
    expect(next[COOKIE]).not.toBe(jar[COOKIE]);
    const again = await reader.read({ cookies: next, secure: false });
    expect(again.status === 'active' && again.signedInAt?.getTime()).toBe(signedInAt.getTime());
  });

  it('is null for a JWT without the claim (a token minted before it existed)', async () => {
    const { issuer, reader, config } = await sessionParts({
      session: { strategy: 'jwt' },
      callbacks: { jwt: ({ token }) => ({ ...token, [SIGNED_IN_AT_CLAIM]: undefined }) },
    });
    const jar = applyCookies({}, await issuer.create(requestContext(config), USER, {}));
    const state = await reader.read({ cookies: jar, secure: false });
    expect(state).toMatchObject({ status: 'active', signedInAt: null });
  });
});
