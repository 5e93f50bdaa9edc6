import { describe, expect, it } from '@jest/globals';
import { encode } from './jwt.js';
import { COOKIE, SECRET, SECURE_COOKIE, sessionParts } from './fixtures/session.fixture.js';
import { writeSessionCookie } from './session-cookie.js';

const HOUR = 3600;

describe('SessionCodec: finding the token', () => {
  it('answers none without a cookie or an Authorization header, and for another scheme', async () => {
    const { codec } = await sessionParts();
    expect(codec.tokenOf({ cookies: {}, secure: false })).toEqual({ status: 'none' });
    expect(codec.tokenOf({ cookies: {}, authorization: 'Basic dXNlcjpwYXNz', secure: false })).toEqual({
      status: 'none',
    });
  });

  it('reads the plain cookie over HTTP and the __Secure- one over HTTPS, never the other', async () => {
    const { codec } = await sessionParts();
    const cookies = { [COOKIE]: 'plain-token', [SECURE_COOKIE]: 'secure-token' };
    expect(codec.tokenOf({ cookies, secure: false })).toEqual({ raw: 'plain-token', bearer: false });
    expect(codec.tokenOf({ cookies, secure: true })).toEqual({ raw: 'secure-token', bearer: false });
    expect(codec.tokenOf({ cookies: { [COOKIE]: 'plain-token' }, secure: true })).toEqual({ status: 'none' });
  });

  it('joins a chunked cookie', async () => {
    const { codec } = await sessionParts();
    const value = 'x'.repeat(9_000);
    const cookies = Object.fromEntries(writeSessionCookie({}, COOKIE, value, {}).map((c) => [c.name, c.value]));
    expect(Object.keys(cookies)).toEqual([`${COOKIE}.0`, `${COOKIE}.1`, `${COOKIE}.2`]);
    expect(codec.tokenOf({ cookies, secure: false })).toEqual({ raw: value, bearer: false });
  });

  it('takes a percent-decoded bearer token, the cookie first when both are sent', async () => {
    const { codec } = await sessionParts();
    expect(codec.tokenOf({ cookies: {}, authorization: 'bearer abc%2Fdef ', secure: false })).toEqual({
      raw: 'abc/def',
      bearer: true,
    });
    expect(codec.tokenOf({ cookies: { [COOKIE]: 'c' }, authorization: 'Bearer b', secure: false })).toEqual({
      raw: 'c',
      bearer: false,
    });
  });

  it.each([
    ['two tokens', 'Bearer a b'],
    ['no token', 'Bearer  '],
    ['bad percent-encoding', 'Bearer %E0%A4%A'],
    ['an oversized token', `Bearer ${'a'.repeat(16_385)}`],
  ])('refuses a malformed bearer header (%s) as invalid, with no cookie to clear', async (_label, authorization) => {
    const { codec } = await sessionParts();
    expect(codec.tokenOf({ cookies: {}, authorization, secure: false })).toEqual({
      status: 'invalid',
      clearCookies: [],
    });
  });

  it('refuses an oversized cookie unread and clears it', async () => {
    const { codec } = await sessionParts();
    const cookies = { [COOKIE]: 'a'.repeat(16_385) };
    const state = codec.tokenOf({ cookies, secure: false });
    expect(state).toMatchObject({ status: 'invalid' });
    expect('clearCookies' in state && state.clearCookies).toEqual([
      expect.objectContaining({ name: COOKIE, value: '', options: expect.objectContaining({ maxAge: 0 }) }),
    ]);
  });

  it('clears nothing for a bearer token; for a cookie, the cookie and every chunk', async () => {
    const { codec } = await sessionParts();
    const cookies = { [`${COOKIE}.0`]: 'a', [`${COOKIE}.1`]: 'b' };
    expect(codec.clearFor({ cookies, secure: false }, true)).toEqual([]);
    expect(
      codec
        .clearFor({ cookies, secure: false }, false)
        .map((c) => c.name)
        .sort(),
    ).toEqual([COOKIE, `${COOKIE}.0`, `${COOKIE}.1`]);
  });
});

describe('SessionCodec: encoding and decoding session JWTs', () => {
  it('round-trips a token, expiring after jwt.maxAge', async () => {
    const { codec } = await sessionParts({ jwt: { maxAge: HOUR } });
    const before = Date.now();
    const raw = await codec.encode(false, { sub: 'u1', email: 'a@b.test' });
    const now = Date.now();
    const decoded = await codec.decode(raw, false, now);
    expect(decoded).toMatchObject({ status: 'valid', token: { sub: 'u1', email: 'a@b.test' } });
    const expMs = decoded.status === 'valid' ? decoded.expMs : 0;
    // exp is in whole seconds, maxAge after the encoding instant (bracketed by the clock, no slack).
    expect(expMs).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + HOUR * 1000);
    expect(expMs).toBeLessThanOrEqual(now + HOUR * 1000);
    expect(await codec.decode(raw, false, expMs - 1)).toMatchObject({ status: 'valid' });
    expect(await codec.decode(raw, false, expMs + 60_000)).toEqual({ status: 'expired' });
  });

  it('binds a token to its cookie name: a plain-cookie token does not decode as a secure one', async () => {
    const { codec } = await sessionParts();
    const raw = await codec.encode(false, { sub: 'u1' });
    expect(await codec.decode(raw, true, Date.now())).toEqual({ status: 'invalid' });
    expect(await codec.decode(await codec.encode(true, { sub: 'u1' }), true, Date.now())).toMatchObject({
      status: 'valid',
    });
  });

  it('refuses a tampered token and junk as invalid', async () => {
    const { codec } = await sessionParts();
    const raw = await codec.encode(false, { sub: 'u1' });
    const tampered = `${raw.slice(0, -4)}${raw.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    expect(await codec.decode(tampered, false, Date.now())).toEqual({ status: 'invalid' });
    expect(await codec.decode('junk', false, Date.now())).toEqual({ status: 'invalid' });
  });

  it('refuses a token minted with the secret whose nbf lies in the future', async () => {
    const { codec } = await sessionParts();
    const raw = await encode({
      token: { sub: 'u1', nbf: Math.floor(Date.now() / 1000) + HOUR },
      secret: SECRET,
      salt: COOKIE,
    });
    expect(await codec.decode(raw, false, Date.now())).toEqual({ status: 'invalid' });
  });

  it('uses a custom jwt.encode/jwt.decode with the cookie name as salt, and checks what decode returns', async () => {
    const seen: string[] = [];
    const exp = Math.floor(Date.now() / 1000) + HOUR;
    const { codec } = await sessionParts({
      jwt: {
        encode: ({ token, salt }) => {
          seen.push(`encode:${salt}`);
          return `custom.${String(token?.sub)}`;
        },
        decode: ({ token, salt }) => {
          seen.push(`decode:${salt}`);
          if (token === 'custom.throws') throw new Error('bad token');
          if (token === 'custom.string') return 'not an object' as never;
          if (token === 'custom.no-exp') return { sub: 'x' };
          return { sub: token?.slice('custom.'.length), exp };
        },
      },
    });
    expect(await codec.encode(true, { sub: 'u1' })).toBe('custom.u1');
    expect(await codec.decode('custom.u1', true, Date.now())).toEqual({
      status: 'valid',
      token: { sub: 'u1', exp },
      expMs: exp * 1000,
    });
    expect(seen).toEqual([`encode:${SECURE_COOKIE}`, `decode:${SECURE_COOKIE}`]);
    for (const raw of ['custom.throws', 'custom.string', 'custom.no-exp'])
      expect(await codec.decode(raw, false, Date.now())).toEqual({ status: 'invalid' });
  });

  it('logs a custom jwt.decode that throws at debug level, without the token', async () => {
    const { codec, logs } = await sessionParts({
      jwt: {
        decode: () => {
          throw new Error('boom');
        },
      },
    });
    expect(await codec.decode('secret-token-value', false, Date.now())).toEqual({ status: 'invalid' });
    expect(logs.debug).toEqual(['JWTSessionError: the session cookie could not be decoded']);
    expect(logs.error).toEqual([]);
  });
});
