import { describe, expect, it } from '@jest/globals';
import { stringifySetCookie } from 'cookie';
import { applyCookies } from './fixtures/session.fixture.js';
import {
  ALLOWED_COOKIE_SIZE,
  CHUNK_SIZE,
  clearSessionCookie,
  readSessionCookie,
  writeSessionCookie,
} from './session-cookie.js';

const NAME = '__Secure-authjs.session-token';
const OPTIONS = { httpOnly: true, sameSite: 'lax', path: '/', secure: true } as const;

const apply = applyCookies;

const long = (n: number) =>
  Array.from({ length: n }, (_, i) => 'abcdefghijklmnopqrstuvwxyz0123456789-_.'[i % 39]).join('');

describe('writeSessionCookie', () => {
  it('writes one cookie with the plain name up to the chunk size (3936)', () => {
    expect(CHUNK_SIZE).toBe(3936);
    const set = writeSessionCookie({}, NAME, long(CHUNK_SIZE), OPTIONS);
    expect(set).toEqual([{ name: NAME, value: long(CHUNK_SIZE), options: OPTIONS }]);
  });

  it('chunks a larger value into <name>.0, <name>.1, ... that read back to the value', () => {
    const value = long(10_000);
    const set = writeSessionCookie({}, NAME, value, OPTIONS);
    expect(set.map((c) => c.name)).toEqual([`${NAME}.0`, `${NAME}.1`, `${NAME}.2`]);
    expect(set.map((c) => c.value.length)).toEqual([3936, 3936, 2128]);
    expect(readSessionCookie(apply({}, set), NAME)).toBe(value);
  });

  it('splits at 3937 characters into two chunks', () => {
    const set = writeSessionCookie({}, NAME, long(CHUNK_SIZE + 1), OPTIONS);
    expect(set.map((c) => [c.name, c.value.length])).toEqual([
      [`${NAME}.0`, 3936],
      [`${NAME}.1`, 1],
    ]);
  });

  it('keeps every serialized chunk within 4096 bytes, with every attribute set', () => {
    const options = { ...OPTIONS, expires: new Date('2030-01-01T00:00:00Z'), domain: 'sub.example.com' };
    for (const c of writeSessionCookie({}, NAME, long(20_000), options)) {
      expect(Buffer.byteLength(stringifySetCookie({ name: c.name, value: c.value, ...c.options }))).toBeLessThanOrEqual(
        ALLOWED_COOKIE_SIZE,
      );
    }
  });

  it('deletes every chunk when the value shrinks to one cookie', () => {
    const jar = apply({}, writeSessionCookie({}, NAME, long(9_000), OPTIONS));
    const set = writeSessionCookie(jar, NAME, 'small', { ...OPTIONS, expires: new Date(Date.now() + 1000) });
    const deleted = set.filter((c) => c.options.maxAge === 0);
    expect(deleted.map((c) => c.name).sort()).toEqual([`${NAME}.0`, `${NAME}.1`, `${NAME}.2`]);
    for (const c of deleted) {
      expect(c.value).toBe('');
      expect(c.options.expires).toBeUndefined();
      expect(c.options).toMatchObject({ path: '/', secure: true });
    }
    const after = apply(jar, set);
    expect(after).toEqual({ [NAME]: 'small' });
    expect(readSessionCookie(after, NAME)).toBe('small');
  });

  it('deletes the plain cookie when the value grows into chunks, and surplus chunks when it shrinks', () => {
    let jar = apply({ other: 'x' }, writeSessionCookie({}, NAME, 'small', OPTIONS));
    const grow = writeSessionCookie(jar, NAME, long(8_000), OPTIONS);
    expect(grow.find((c) => c.name === NAME)?.options.maxAge).toBe(0);
    jar = apply(jar, grow);
    expect(Object.keys(jar).sort()).toEqual([`${NAME}.0`, `${NAME}.1`, `${NAME}.2`, 'other']);

    const shrink = writeSessionCookie(jar, NAME, long(5_000), OPTIONS);
    // Each name once: a rewritten chunk is not also deleted.
    expect(new Set(shrink.map((c) => c.name)).size).toBe(shrink.length);
    jar = apply(jar, shrink);
    expect(Object.keys(jar).sort()).toEqual([`${NAME}.0`, `${NAME}.1`, 'other']);
    expect(readSessionCookie(jar, NAME)).toBe(long(5_000));
  });

  it('leaves cookies that only share a prefix alone', () => {
    const jar = { [`${NAME}x`]: 'a', [`${NAME}.a`]: 'b', [`${NAME}-2`]: 'c', [`${NAME}.01`]: 'd' };
    expect(writeSessionCookie(jar, NAME, 'v', OPTIONS)).toEqual([{ name: NAME, value: 'v', options: OPTIONS }]);
  });
});

describe('readSessionCookie', () => {
  it('returns the plain cookie, or undefined when there is none (or it is empty)', () => {
    expect(readSessionCookie({ [NAME]: 'token', other: 'x' }, NAME)).toBe('token');
    expect(readSessionCookie({ other: 'x' }, NAME)).toBeUndefined();
    expect(readSessionCookie({ [NAME]: '' }, NAME)).toBeUndefined();
    expect(readSessionCookie({}, NAME)).toBeUndefined();
  });

  it('joins chunks in numeric order (.10 after .9), skipping empty ones', () => {
    const jar: Record<string, string> = {};
    for (let i = 11; i >= 0; i--) jar[`${NAME}.${i}`] = String.fromCharCode(65 + i);
    jar[`${NAME}.12`] = '';
    expect(readSessionCookie(jar, NAME)).toBe('ABCDEFGHIJKL');
  });

  it('prefers chunks over a stale plain cookie', () => {
    expect(readSessionCookie({ [NAME]: 'stale', [`${NAME}.0`]: 'a', [`${NAME}.1`]: 'b' }, NAME)).toBe('ab');
  });

  it('ignores cookies that are not <name> or <name>.<int>', () => {
    const jar = {
      [`${NAME}x`]: 'a',
      [`${NAME}.a`]: 'b',
      [`${NAME}.01`]: 'c',
      [`${NAME}.0.1`]: 'd',
      [`${NAME}.-1`]: 'e',
      [`x${NAME}`]: 'f',
    };
    expect(readSessionCookie(jar, NAME)).toBeUndefined();
    expect(readSessionCookie({ ...jar, [`${NAME}.0`]: 'ok' }, NAME)).toBe('ok');
  });

  it('does not confuse the plain-http and secure names', () => {
    expect(readSessionCookie({ 'authjs.session-token': 'plain' }, NAME)).toBeUndefined();
    expect(readSessionCookie({ [NAME]: 'secure' }, 'authjs.session-token')).toBeUndefined();
  });
});

describe('clearSessionCookie', () => {
  it('deletes the plain cookie and every chunk the request carries, with the same attributes', () => {
    const jar = { [`${NAME}.0`]: 'a', [`${NAME}.1`]: 'b', other: 'x' };
    const set = clearSessionCookie(jar, NAME, { ...OPTIONS, expires: new Date(Date.now() + 1000) });
    expect(set.map((c) => c.name).sort()).toEqual([NAME, `${NAME}.0`, `${NAME}.1`]);
    for (const c of set) expect(c).toEqual({ name: c.name, value: '', options: { ...OPTIONS, maxAge: 0 } });
    expect(apply(jar, set)).toEqual({ other: 'x' });
  });

  it('deletes the plain name even when the request has no session cookie', () => {
    expect(clearSessionCookie({}, NAME, OPTIONS)).toEqual([
      { name: NAME, value: '', options: { ...OPTIONS, maxAge: 0 } },
    ]);
  });
});
