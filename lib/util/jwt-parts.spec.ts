// The unverified JWT readers against the `jose` functions they replace: the same result for every
// well-formed token, a TypeError for every malformed one.
import { describe, expect, it } from '@jest/globals';
import { CompactEncrypt, SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { decodeJwtClaims, decodeJwtHeader } from './jwt-parts.js';

const b64u = (text: string) => Buffer.from(text).toString('base64url');
const HEADER = b64u('{"alg":"HS256","typ":"JWT"}');
const PAYLOAD = b64u('{"sub":"u"}');
const token = (header: string, payload: string) => `${header}.${payload}.sig`;

describe('decodeJwtHeader / decodeJwtClaims', () => {
  it('read well-formed tokens as jose decodeProtectedHeader / decodeJwt do', async () => {
    const claims = { sub: 'u1', sid: 's', aud: ['a', 'b'], nested: { é: '日本' }, n: 1.5, nil: null };
    const tokens = [
      new UnsecuredJWT(claims).encode(),
      await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: 'k1', typ: 'logout+jwt' })
        .sign(new Uint8Array(32).fill(7)),
      // A payload whose base64url has 2 and 3 characters in its last group.
      token(HEADER, b64u('{"a":1}')),
      token(HEADER, b64u('{"ab":1}')),
      token(HEADER, b64u('{}')),
    ];
    for (const t of tokens) {
      expect(decodeJwtHeader(t)).toEqual(decodeProtectedHeader(t));
      expect(decodeJwtClaims(t)).toEqual(decodeJwt(t));
    }
  });

  it('read the header of a JWE, and refuse its claims, as jose does', async () => {
    const jwe = await new CompactEncrypt(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'x' })
      .encrypt(new Uint8Array(32));
    expect(decodeJwtHeader(jwe)).toEqual({ alg: 'dir', enc: 'A256GCM', kid: 'x' });
    expect(() => decodeJwtClaims(jwe)).toThrow(TypeError);
    expect(() => decodeJwt(jwe)).toThrow();
  });

  const malformed: Array<[string, unknown]> = [
    ['not a string', 42],
    ['undefined', undefined],
    ['an empty string', ''],
    ['one part', PAYLOAD],
    ['two parts', `${HEADER}.${PAYLOAD}`],
    ['four parts', `${HEADER}.${PAYLOAD}.sig.x`],
    ['six parts', `${HEADER}.${PAYLOAD}.a.b.c.d`],
    ['an empty header and payload', '..sig'],
    ['characters outside base64url', token('e30+', 'e30/')],
    ['a length no bytes have (4n + 1)', token('e30xx', 'e30xx')],
    [
      'bytes that are not UTF-8',
      token(Buffer.from([0xff, 0xfe]).toString('base64url'), b64u('\u0000').replace('A', '_')),
    ],
    ['text that is not JSON', token(b64u('{alg}'), b64u('not json'))],
    ['JSON null', token(b64u('null'), b64u('null'))],
    ['a JSON array', token(b64u('[1]'), b64u('[{"sub":"u"}]'))],
    ['a JSON string', token(b64u('"x"'), b64u('"x"'))],
    ['a JSON number', token(b64u('1'), b64u('1'))],
  ];

  it.each(malformed)('throw a TypeError on %s, where jose throws too', (_, input) => {
    expect(() => decodeJwtHeader(input as string)).toThrow(TypeError);
    expect(() => decodeJwtClaims(input as string)).toThrow(TypeError);
    expect(() => decodeProtectedHeader(input as string)).toThrow();
    expect(() => decodeJwt(input as string)).toThrow();
  });

  it('say which part is broken and why', () => {
    expect(() => decodeJwtClaims(token(HEADER, b64u('[]')))).toThrow("The JWT's payload is not a JSON object.");
    expect(() => decodeJwtHeader(token('e3!', PAYLOAD))).toThrow("The JWT's header is not base64url.");
    expect(() => decodeJwtClaims(token(HEADER, b64u('{')))).toThrow("The JWT's payload is not UTF-8 JSON.");
    expect(() => decodeJwtClaims(`${HEADER}..sig`)).toThrow("The JWT's payload is not base64url.");
  });

  it('refuse padded or spaced parts, which RFC 7515 rules out (jose takes them)', () => {
    const padded = token(HEADER, `${b64u('{"a":1}')}==`);
    const spaced = token(HEADER, `${PAYLOAD.slice(0, 4)} ${PAYLOAD.slice(4)}`);
    const paddedHeader = token(`${b64u('{"a":1}')}==`, PAYLOAD);
    for (const t of [padded, spaced]) {
      expect(() => decodeJwtClaims(t)).toThrow(TypeError);
      expect(() => decodeJwt(t)).not.toThrow();
    }
    expect(() => decodeJwtHeader(paddedHeader)).toThrow(TypeError);
    expect(decodeProtectedHeader(paddedHeader)).toEqual({ a: 1 });
  });
});
