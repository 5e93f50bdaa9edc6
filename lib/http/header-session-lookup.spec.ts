import { describe, expect, it } from '@jest/globals';
import { randomInt } from 'node:crypto';
import { readSessionCookie, sessionCookieInHeader } from '../session/session-cookie.js';
import { HeaderSessionLookup, requestCookies, sessionLookupOf } from './auth-request.factory.js';
import type { ResolvedAuthConfig } from '../config/resolved-config.js';
import type { SessionLookup } from '../session/session.types.js';

const NAME = 'authjs.session-token';
/** What the session cookie is by definition: every cookie parsed, then the session cookie (chunks first) read. */
const parsed = (header: string, name = NAME) => readSessionCookie(requestCookies(header), name);

/** Pieces a Cookie header is made of, the awkward ones included. */
const PIECES = [
  NAME,
  `__Secure-${NAME}`,
  `${NAME}.0`,
  `${NAME}.1`,
  `${NAME}.01`,
  `${NAME}x`,
  `x${NAME}`,
  'authjs.csrf-token',
  'a',
  '=',
  '==',
  ';',
  '; ',
  ' ',
  '\t',
  'eyJhbGciOiJkaXIifQ..abc.def.ghi',
  'v',
  '%7C',
  '%E0%A4%A',
  '%',
  '"quoted"',
  '',
];

const pick = (list: readonly string[]) => list[randomInt(list.length)]!;
const NAMES = [NAME, NAME, NAME, `${NAME}.0`, `${NAME}.1`, `__Secure-${NAME}`, 'authjs.csrf-token', 'theme', 'a'];
const VALUES = ['eyJhbGciOiJkaXIifQ..abc.def.ghi', 'v', '%7C', 'a%20b', '%E0%A4%A', '"quoted"', '', 'x=y', NAME];
const BLANKS = ['', '', ' ', '\t', '  '];
const SEPARATORS = [';', '; ', ';\t', ' ;', ';;'];

/** A header of well-formed pairs, broken ones and random pieces, in any order. */
function randomHeader(): string {
  const segments: string[] = [];
  for (let n = randomInt(1, 6); n > 0; n--) {
    if (randomInt(4) === 0) {
      let chaos = '';
      for (let k = randomInt(1, 4); k > 0; k--) chaos += pick(PIECES);
      segments.push(chaos);
    } else {
      segments.push(`${pick(BLANKS)}${pick(NAMES)}${pick(BLANKS)}=${pick(BLANKS)}${pick(VALUES)}${pick(BLANKS)}`);
    }
  }
  let header = segments[0]!;
  for (const segment of segments.slice(1)) header += pick(SEPARATORS) + segment;
  return header;
}

describe('sessionCookieInHeader', () => {
  // promise: sessions.cookie-from-header
  it('answers only what parsing every cookie answers, over random headers', () => {
    let answered = 0;
    let values = 0;
    for (let i = 0; i < 100_000; i++) {
      const header = randomHeader();
      const fast = sessionCookieInHeader(header, NAME);
      if (fast === null) continue;
      answered++;
      if (fast !== undefined) values++;
      expect([header, fast]).toEqual([header, parsed(header)]);
    }
    // Both answers are compared often: the name absent, and a value read (most pieces hold the name).
    expect(answered).toBeGreaterThan(10_000);
    expect(values).toBeGreaterThan(1_000);
  });

  it('reads the usual headers itself: the cookie alone, beside URL-encoded ones, with blanks', () => {
    const token = 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..iv.ciphertext.tag';
    const headers = [
      `${NAME}=${token}`,
      `authjs.csrf-token=abc%7Cdef; authjs.callback-url=http%3A%2F%2Flocalhost%3A3000; ${NAME}=${token}; theme=dark`,
      `theme=dark;${NAME} = ${token} ;other=1`,
      `\t${NAME}=\t${token}`,
    ];
    for (const header of headers) {
      expect(sessionCookieInHeader(header, NAME)).toBe(token);
      expect(parsed(header)).toBe(token);
    }
    expect(sessionCookieInHeader(`${NAME}=a%20b`, NAME)).toBe('a b');
    expect(sessionCookieInHeader(`${NAME}=a%E0%A4%A`, NAME)).toBe('a%E0%A4%A'); // kept as sent, as the parser does
    expect(sessionCookieInHeader(`${NAME}=; a=1`, NAME)).toBeUndefined();
    expect(sessionCookieInHeader('a=1; b=2', NAME)).toBeUndefined();
  });

  it('leaves to the parser what it cannot be sure of', () => {
    const undecided = [
      `${NAME}.0=a; ${NAME}.1=b`, // chunks
      `${NAME}=a; ${NAME}=b`, // twice: the first wins in the parser
      `x=${NAME}=a`, // inside another cookie's value
      `__Secure-${NAME}=a`, // inside another name
      `${NAME}x=a`,
      `${NAME}`, // no value
      `${NAME}=${'a'.repeat(40_000)}`, // over the header limit: no cookies at all
    ];
    for (const header of undecided) expect([header, sessionCookieInHeader(header, NAME)]).toEqual([header, null]);
    expect(parsed(`${NAME}.0=a; ${NAME}.1=b`)).toBe('ab');
    expect(parsed(`${NAME}=${'a'.repeat(40_000)}`)).toBeUndefined();
  });
});

describe('HeaderSessionLookup', () => {
  const config = { trustHost: false } as ResolvedAuthConfig;

  it('parses the other cookies only when asked, once', () => {
    const lookup = sessionLookupOf({ headers: { cookie: `a=1; ${NAME}=t`, authorization: 'Bearer x' } }, config);
    expect(lookup).toBeInstanceOf(HeaderSessionLookup);
    expect(lookup.cookieHeader).toBe(`a=1; ${NAME}=t`);
    expect(lookup.authorization).toBe('Bearer x');
    expect(lookup.secure).toBe(false);
    expect(lookup.cookies).toEqual({ a: '1', [NAME]: 't' });
    expect(lookup.cookies).toBe(lookup.cookies);
  });

  it('is copied without its header or cookies, so a copy with new cookies reads those', () => {
    const lookup = sessionLookupOf({ headers: { cookie: `${NAME}=old` } }, config);
    const copy = { ...lookup, cookies: { [NAME]: 'new' } } as SessionLookup;
    expect(copy.cookieHeader).toBeUndefined();
    expect(copy).toEqual({ authorization: undefined, secure: false, cookies: { [NAME]: 'new' } });
  });

  it('reads no cookie from a header that is not a string', () => {
    const lookup = sessionLookupOf({ headers: { cookie: ['a=1'] as unknown as string } }, config);
    expect(lookup.cookieHeader).toBeUndefined();
    expect(lookup.cookies).toEqual({});
  });
});
