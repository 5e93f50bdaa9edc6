/**
 * Hostile values for the route fuzzer. Every markup payload carries `<` + the request's marker
 * (a string unique to the request), so a reflection is found by searching the answer for it; every
 * header-injection payload tries to add the `X-Fuzz-Injected` header or a `fzinj` cookie.
 */
import type { Rng } from './prng.js';

/** The header name the fuzzer tries to inject; it must never appear in an answer's head. */
export const INJECTED_HEADER = 'X-Fuzz-Injected';
/** The cookie name the fuzzer tries to inject. */
export const INJECTED_COOKIE = 'fzinj';
/** A host the fuzzer wants redirects to go to. */
export const EVIL_HOST = 'evil.example';

/** What the reflection check looks for: the opening of the marker tag. */
export function markupNeedle(marker: string): string {
  return `<${marker}`;
}

/** Markup that would run or render if reflected unescaped. */
export function markup(rng: Rng, m: string): string {
  return rng.pick([
    `<${m}>`,
    `"><${m} onerror=alert(1)>`,
    `'><${m}/onload=alert(1)>`,
    `</title></script><${m}>`,
    `<svg><${m} onload=alert(1)>`,
    `<${m}><script>alert(1)</script>`,
    `javascript:<${m}>`,
    `<!--<${m}>-->`,
    `\`}<${m}>\${alert(1)}`,
    `<${m} src=x onerror=alert(document.domain)>`,
  ]);
}

/** Attempts to end a header line and start another (raw, percent-encoding is applied later). */
export function injection(rng: Rng): string {
  return rng.pick([
    `\r\n${INJECTED_HEADER}: 1`,
    `\n${INJECTED_HEADER}: 1`,
    `\r${INJECTED_HEADER}: 1`,
    // U+560D U+560A: their low bytes are CR and LF (an old Node bug wrote header strings as latin1).
    `\u560d\u560a${INJECTED_HEADER}: 1`,
    `\r\nSet-Cookie: ${INJECTED_COOKIE}=1`,
    `;${INJECTED_COOKIE}=1; Domain=${EVIL_HOST}`,
    `\r\n\r\n<html>${INJECTED_HEADER}`,
    `%0d%0a${INJECTED_HEADER}:%201`,
  ]);
}

/** Values for `callbackUrl` (query, body or cookie) that try to leave the origin. */
export function callbackUrl(rng: Rng, origin: string, m: string): string {
  const host = new URL(origin).host;
  return rng.weighted<() => string>([
    [
      3,
      () =>
        rng.pick(['/me', '/public', '/me/fresh', `${origin}/me`, `${origin}/public?x=1`, '/auth/signin', `${origin}`]),
    ],
    [
      10,
      () =>
        rng.pick([
          `//${EVIL_HOST}`,
          `//${EVIL_HOST}/%2f..`,
          `/\\${EVIL_HOST}`,
          `\\\\${EVIL_HOST}`,
          `/\\/${EVIL_HOST}`,
          `https:${EVIL_HOST}`,
          `https:/${EVIL_HOST}`,
          `http:${EVIL_HOST}/x`,
          `http://${EVIL_HOST}`,
          `https://${EVIL_HOST}/`,
          `HTTP://${EVIL_HOST.toUpperCase()}`,
          `http://${host}@${EVIL_HOST}/`,
          `http://${EVIL_HOST}#@${host}`,
          `http://${EVIL_HOST}\\@${host}`,
          `http://${host}.${EVIL_HOST}/`,
          `http://${host}${EVIL_HOST}`,
          `http://${EVIL_HOST}?${origin}`,
          `http://${host}:80@${EVIL_HOST}`,
          'http://[::1]/',
          'http://0x7f.1/',
          ` //${EVIL_HOST}`,
          `\t//${EVIL_HOST}`,
          `/%09/${EVIL_HOST}`,
          `/%2F/${EVIL_HOST}`,
          `/%5C${EVIL_HOST}`,
          `///${EVIL_HOST}`,
          `////${EVIL_HOST}/x`,
          `http:\\\\${EVIL_HOST}`,
          `https://${EVIL_HOST}%2f@${host}`,
          `%2F%2F${EVIL_HOST}`,
          `http://${host}./x`,
          `https://${host}/`,
          `ws://${host}/`,
          `http://\u0430pp.test/`,
          `http://${EVIL_HOST}%00.${host}/`,
          `//${EVIL_HOST}%E3%80%82com`,
          `/.${EVIL_HOST}`,
          `http:/\\/${EVIL_HOST}`,
        ]),
    ],
    [
      4,
      () =>
        rng.pick([
          'javascript:alert(1)',
          'JaVaScRiPt:alert(document.domain)',
          'java\tscript:alert(1)',
          'javascript://%0aalert(1)',
          `data:text/html,<${m}>`,
          'vbscript:msgbox(1)',
          'file:///etc/passwd',
          `mailto:x@${EVIL_HOST}`,
          'about:blank',
        ]),
    ],
    [2, () => markup(rng, m)],
    [2, () => `/x${injection(rng)}`],
    [1, () => `${origin}/x${injection(rng)}`],
    [
      2,
      () => rng.pick(['', ' ', '?x', '#x', '/%', '/%zz', '/%c0%af', '.', '..', '/..', '/../../etc/passwd', '\u0000']),
    ],
    [1, () => `/${'a'.repeat(rng.pick([300, 3000, 9000]))}`],
  ])();
}

/** Email addresses: plausible, hostile, list-like, with CRLF, unicode, too long. */
export function emailAddress(rng: Rng, m: string): string {
  return rng.weighted<() => string>([
    [4, () => `fz${rng.chars(6)}@example.test`],
    [1, () => rng.pick(['FZ@Example.TEST', 'fz+tag@example.test', 'fz@example.test '])],
    [
      6,
      () =>
        rng.pick([
          'a@b',
          '@',
          'a@',
          '',
          ' ',
          `a@b.test,c@${EVIL_HOST}`,
          `a@b.test;c@${EVIL_HOST}`,
          '"a"@b.test',
          `a@b.test\r\nBcc: x@${EVIL_HOST}`,
          'a b@c.test',
          `${'a'.repeat(300)}@example.test`,
          'a@xn--80ak6aa92e.com',
          'a@\u043f\u0440\u0438\u043c\u0435\u0440.test',
          '\u00e4@example.test',
          'a@[127.0.0.1]',
          'a@localhost',
          'a\u0000@b.test',
          `Mallory <a@${EVIL_HOST}>`,
          `a@${EVIL_HOST} (x)`,
          '__proto__@example.test',
          'a@b.test\u202e',
          '\uff41@example.test',
          'a@@b.test',
          'a@b..test',
          `a@${'b'.repeat(260)}.test`,
        ]),
    ],
    [1, () => `${markup(rng, m)}@example.test`],
    [1, () => `a@example.test${injection(rng)}`],
  ])();
}

/** General hostile strings for any field. */
export function junk(rng: Rng, m: string): string {
  return rng.weighted<() => string>([
    [3, () => markup(rng, m)],
    [2, () => injection(rng)],
    [
      2,
      () =>
        rng.pick([
          '',
          ' ',
          '0',
          '-1',
          'null',
          'undefined',
          'true',
          'NaN',
          '[]',
          '{}',
          '%s%s%n',
          '${7*7}',
          '{{7*7}}',
          '../../etc/passwd',
          '\u0000',
          '\uffff',
          '\ud800',
        ]),
    ],
    [
      2,
      () =>
        rng.pick([
          '\u202e\u0645\u0631\u062d\u0628\u0627',
          '\ud83d\ude00\ud83d\udd25',
          'Z\u0351\u0352\u0353a\u0354\u0355l\u0356g\u0357o',
          '\ufeffx',
          'x\u200by',
          '\u0130\u0131',
        ]),
    ],
    [2, () => rng.b64url(rng.between(1, 64))],
    [1, () => 'A'.repeat(rng.pick([1025, 4097, 17_000]))],
    [1, () => `__proto__`],
  ])();
}

/** Bad percent-encoding to splice into a target or body. */
export function badPercent(rng: Rng): string {
  return rng.pick([
    '%',
    '%z',
    '%zz',
    '%0',
    '%%',
    '%c0%af',
    '%e0%80%af',
    '%ed%a0%80',
    '%ff%fe',
    '%u003c',
    '%25%',
    '%0d%0a',
    '%00',
    '%2e%2e%2f',
  ]);
}

/** Provider ids that are not configured: traversal, NUL, unicode, prototype names, very long. */
export function oddProviderId(rng: Rng, m: string): string {
  return rng.pick([
    '..%2f..%2fcsrf',
    '..%2fsession',
    '%2e%2e',
    '..',
    '.',
    '%00',
    'oauth%00',
    'credentials%00.js',
    '%ff',
    '%F0%9F%98%80',
    '\ud83d\ude00',
    'OAUTH',
    'Credentials',
    'oauth%20',
    'oauth%09',
    '%20oauth',
    `${'p'.repeat(300)}`,
    `${'%41'.repeat(120)}`,
    '__proto__',
    'constructor',
    'hasOwnProperty',
    'toString',
    'prototype',
    encodeURIComponent(`<${m}>`),
    encodeURIComponent(markup(rng, m)),
    'oauth%2fx',
    'oauth;x=1',
    'oauth.json',
    'oauth%3Fx',
    'oauth%23',
    '%',
    '%zz',
    '%c0%ae%c0%ae',
    '%D0%BEauth',
    '\u043eauth',
    '%EF%BC%AFauth',
    'credentials%2F..%2Femail',
    'email%0d%0aX-Fuzz-Injected:%201',
    'passkey%E5%98%8D%E5%98%8AX-Fuzz-Injected:1',
    'nope',
    'webauthn',
    'oidc',
    'github',
  ]);
}

/** Percent-encodes `value` the way a sloppy or hostile client might. */
export function encodeValue(rng: Rng, value: string): string {
  return rng.weighted<() => string>([
    [14, () => encodeURIComponent(safeForEncoding(value))],
    [2, () => safeForEncoding(value).replace(/[&#%+ ]/g, (c) => encodeURIComponent(c))],
    [1, () => encodeURIComponent(encodeURIComponent(safeForEncoding(value)))],
    [1, () => `${encodeURIComponent(safeForEncoding(value))}${badPercent(rng)}`],
    [1, () => value],
  ])();
}

/** Lone surrogates make encodeURIComponent throw; a client would send replacement bytes instead. */
function safeForEncoding(value: string): string {
  return value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
