import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { assertSameOrigin, csrfRefusal, resolveCsrf } from './csrf.js';

const COOKIE = { name: 'authjs.csrf-token', options: { httpOnly: true, sameSite: 'lax' as const, path: '/' } };
const SECRETS = ['first-secret-0123456789abcdef0123', 'older-secret-0123456789abcdef0123'];

function mint(boundTo?: string, secrets = SECRETS) {
  const state = resolveCsrf(undefined, undefined, false, secrets, COOKIE, boundTo);
  return { token: state.token, cookie: state.cookie!.value };
}

describe('resolveCsrf', () => {
  it('mints Auth.js-format cookies: token|sha256(token + secret)', () => {
    const { token, cookie } = mint();
    expect(cookie).toBe(`${token}|${createHash('sha256').update(`${token}${SECRETS[0]}`).digest('hex')}`);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
  });
  it('verifies a POST whose body carries the cookie token; any secret of the list signs', () => {
    const { token, cookie } = mint(undefined, [SECRETS[1]]);
    expect(resolveCsrf(cookie, token, true, SECRETS, COOKIE)).toEqual({ token, verified: true });
    expect(resolveCsrf(cookie, 'other', true, SECRETS, COOKIE)).toEqual({ token, verified: false });
    expect(resolveCsrf(cookie, token, false, SECRETS, COOKIE)).toEqual({ token, verified: false });
  });
  it('mints a new token for a tampered cookie', () => {
    const { token, cookie } = mint();
    const state = resolveCsrf(`${token}|${'0'.repeat(64)}`, token, true, SECRETS, COOKIE);
    expect(state.verified).toBe(false);
    expect(state.token).not.toBe(token);
    expect(resolveCsrf(`${cookie}x`, token, true, SECRETS, COOKIE).verified).toBe(false);
  });
  it('binds the token to the signed-in user', () => {
    const alice = mint('user-alice');
    expect(alice.token).toMatch(/^[0-9a-f]{64}\.[0-9a-f]{64}$/);
    expect(resolveCsrf(alice.cookie, alice.token, true, SECRETS, COOKIE, 'user-alice')).toEqual({
      token: alice.token,
      verified: true,
    });
    // Another user, or an unbound token, does not verify for a signed-in request: a new bound token is minted.
    const asBob = resolveCsrf(alice.cookie, alice.token, true, SECRETS, COOKIE, 'user-bob');
    expect(asBob.verified).toBe(false);
    expect(asBob.token).not.toBe(alice.token);
    const unbound = mint();
    expect(resolveCsrf(unbound.cookie, unbound.token, true, SECRETS, COOKIE, 'user-alice').verified).toBe(false);
    // Signed out, any valid pair is a pair.
    expect(resolveCsrf(alice.cookie, alice.token, true, SECRETS, COOKIE).verified).toBe(true);
  });
  it('names a token fetched before the sign-in (refused all the same), and no other refusal', () => {
    const before = mint();
    // The browser still holds the pre-sign-in cookie: refused, named, a bound cookie minted.
    const stale = resolveCsrf(before.cookie, before.token, true, SECRETS, COOKIE, 'user-alice');
    expect(stale).toMatchObject({ verified: false, issuedBeforeSignIn: true });
    expect(stale.cookie).toBeDefined();
    // The cookie was replaced since (GET /csrf, a refused POST), the client kept the old token.
    const fresh = mint('user-alice');
    expect(resolveCsrf(fresh.cookie, before.token, true, SECRETS, COOKIE, 'user-alice')).toEqual({
      token: fresh.token,
      verified: false,
      issuedBeforeSignIn: true,
    });
    // Another user's token too; not a forged string, a missing token, the right token, or no session.
    expect(resolveCsrf(fresh.cookie, mint('user-bob').token, true, SECRETS, COOKIE, 'user-alice')).toMatchObject({
      issuedBeforeSignIn: true,
    });
    for (const body of ['forged', undefined, fresh.token])
      expect(resolveCsrf(fresh.cookie, body, true, SECRETS, COOKIE, 'user-alice')).not.toHaveProperty(
        'issuedBeforeSignIn',
      );
    expect(resolveCsrf(before.cookie, 'forged', true, SECRETS, COOKIE)).not.toHaveProperty('issuedBeforeSignIn');
  });
  it('csrfRefusal: MissingCSRF that says to fetch a new token after signing in, else the route hint', () => {
    const config = { basePath: '/auth' };
    const stale = csrfRefusal({ csrfIssuedBeforeSignIn: true, config }, 'hint');
    expect(stale).toMatchObject({ type: 'MissingCSRF' });
    expect(stale.message).toMatch(
      /issued before this sign-in.*fetch a new token after signing in \(GET \/auth\/csrf\)/,
    );
    expect(csrfRefusal({ config }, 'hint').message).toBe('hint');
  });
  it('keeps bindings across a secret rotation', () => {
    const old = mint('user-alice', [SECRETS[1]]);
    expect(resolveCsrf(old.cookie, old.token, true, SECRETS, COOKIE, 'user-alice').verified).toBe(true);
  });
});

describe('assertSameOrigin', () => {
  const origin = 'https://app.test';
  it.each([
    [{}],
    [{ origin }],
    [{ 'sec-fetch-site': 'same-origin' }],
    [{ 'sec-fetch-site': 'none' }],
    [{ origin: 'null', 'sec-fetch-site': 'same-origin' }],
  ])('lets %p through', (headers) => {
    expect(() => assertSameOrigin({ headers }, origin)).not.toThrow();
  });
  it.each([
    [{ origin: 'https://evil.example' }],
    [{ origin: 'http://app.test' }],
    [{ origin: 'null' }],
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'same-site' }],
    [{ origin, 'sec-fetch-site': 'cross-site' }],
  ])('refuses %p with MissingCSRF', (headers) => {
    expect(() => assertSameOrigin({ headers }, origin)).toThrow(expect.objectContaining({ type: 'MissingCSRF' }));
  });

  describe('with trustedOrigins', () => {
    const trusted = new Set(['http://localhost:5173', 'https://spa.example']);
    it.each([
      [{ origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' }],
      [{ origin: 'https://spa.example', 'sec-fetch-site': 'cross-site' }],
      [{ origin: 'https://spa.example' }],
      [{ origin, 'sec-fetch-site': 'same-origin' }],
    ])('lets a listed front end (and the app itself) through: %p', (headers) => {
      expect(() => assertSameOrigin({ headers }, origin, trusted)).not.toThrow();
    });
    it.each([
      // Exact origins: another port, scheme or subdomain is another origin.
      [{ origin: 'http://localhost:5174', 'sec-fetch-site': 'same-site' }],
      [{ origin: 'http://spa.example', 'sec-fetch-site': 'cross-site' }],
      [{ origin: 'https://evil.spa.example', 'sec-fetch-site': 'cross-site' }],
      [{ origin: 'null', 'sec-fetch-site': 'cross-site' }],
      // No Origin from another site: nothing names the front end, so nothing is trusted.
      [{ 'sec-fetch-site': 'same-site' }],
    ])('refuses anything else from another site: %p', (headers) => {
      expect(() => assertSameOrigin({ headers }, origin, trusted)).toThrow(
        expect.objectContaining({ type: 'MissingCSRF', message: expect.stringContaining('trustedOrigins') }),
      );
    });
  });
});
