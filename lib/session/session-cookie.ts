import type { SerializeOptions } from 'cookie';
import type { ResponseCookie } from '../types/http.types.js';

/** Bytes a browser accepts per cookie (RFC 6265 minimum that every browser honours). */
export const ALLOWED_COOKIE_SIZE = 4096;
/** Bytes the name and attributes of a chunk take when serialized (measured by Auth.js). */
const ESTIMATED_EMPTY_COOKIE_SIZE = 160;
/** Characters of session value per cookie: 3936, as in Auth.js, so chunks are interchangeable. */
export const CHUNK_SIZE = ALLOWED_COOKIE_SIZE - ESTIMATED_EMPTY_COOKIE_SIZE;
/** A chunk's suffix: `.0`, `.1`, ... (three digits at most: more would not fit in any browser). */
const CHUNK_SUFFIX = /^\.(0|[1-9]\d{0,2})$/;

/**
 * The index of `cookieName` as a chunk of the session cookie `name`: -1 for the unchunked cookie,
 * the chunk number for `<name>.<n>`, undefined for any other cookie.
 */
function chunkIndex(cookieName: string, name: string): number | undefined {
  if (!cookieName.startsWith(name)) return undefined;
  if (cookieName.length === name.length) return -1;
  const match = CHUNK_SUFFIX.exec(cookieName.slice(name.length));
  return match ? Number(match[1]) : undefined;
}

/** Orders chunks by their index (one function, not a closure per request). */
const byIndex = (a: [number, string], b: [number, string]) => a[0] - b[0];

/** The names of every session cookie (plain and chunks) the request carries. */
function existingNames(cookies: Record<string, string>, name: string): string[] {
  const names: string[] = [];
  for (const cookieName in cookies) {
    if (chunkIndex(cookieName, name) !== undefined) names.push(cookieName);
  }
  return names;
}

function deletion(cookieName: string, options: SerializeOptions): ResponseCookie {
  const { expires: _expires, ...rest } = options;
  return { name: cookieName, value: '', options: { ...rest, maxAge: 0 } };
}

/**
 * The session token of a request, reassembled from chunks when it was too large for one cookie.
 * Chunks are the cookies named `<name>.0`, `<name>.1`, ... (non-empty), joined in index order;
 * when there are none, the cookie named `<name>` is used. Returns `undefined` when neither exists.
 *
 * @param cookies the request's cookies
 * @param name the session cookie's name, e.g. `authjs.session-token`
 */
export function readSessionCookie(cookies: Record<string, string>, name: string): string | undefined {
  let chunks: [number, string][] | undefined;
  for (const cookieName in cookies) {
    const value = cookies[cookieName];
    if (!value) continue;
    const index = chunkIndex(cookieName, name);
    if (index === undefined || index < 0) continue;
    (chunks ??= []).push([index, value]);
  }
  if (!chunks) return cookies[name] || undefined;
  if (chunks.length === 1) return chunks[0][1];
  chunks.sort(byIndex);
  let joined = '';
  for (const [, value] of chunks) joined += value;
  return joined;
}

/** Characters of a Cookie header read at most; a longer header carries no cookies (`requestCookies`). */
export const MAX_COOKIE_HEADER = 32_768;
const SPACE = 0x20;
const TAB = 0x09;
const isBlank = (code: number) => code === SPACE || code === TAB;

/**
 * The session cookie read straight from a Cookie header, without parsing the other cookies (the
 * CSRF and callback-URL cookies beside it are URL-encoded, and decoding them cost more than a
 * session cache hit). It answers only when the answer is certain to be what
 * `readSessionCookie(requestCookies(header), name)` gives: the name is absent (`undefined`), or it
 * occurs once, as the whole name of a `name=value` pair (its value, trimmed and percent-decoded as
 * the parser does, `undefined` when empty). Anything else (the name twice, chunks, the name inside
 * another cookie's name or value, an oversized header) is `null`: parse the header.
 */
export function sessionCookieInHeader(header: string, name: string): string | undefined | null {
  if (header.length > MAX_COOKIE_HEADER || name.length === 0) return null;
  const at = header.indexOf(name);
  if (at === -1) return undefined;
  if (header.indexOf(name, at + 1) !== -1) return null;
  if (name.includes('=') || name.includes(';') || isBlank(name.charCodeAt(0))) return null;
  if (isBlank(name.charCodeAt(name.length - 1))) return null;
  // The pair starts the header or follows a `;`, blanks aside.
  let start = at;
  while (start > 0 && isBlank(header.charCodeAt(start - 1))) start--;
  if (start > 0 && header.charCodeAt(start - 1) !== 0x3b) return null;
  let eq = at + name.length;
  while (eq < header.length && isBlank(header.charCodeAt(eq))) eq++;
  if (header.charCodeAt(eq) !== 0x3d) return null;
  let end = header.indexOf(';', eq + 1);
  if (end === -1) end = header.length;
  let from = eq + 1;
  while (from < end && isBlank(header.charCodeAt(from))) from++;
  while (end > from && isBlank(header.charCodeAt(end - 1))) end--;
  const value = header.slice(from, end);
  if (!value.includes('%')) return value || undefined;
  try {
    return decodeURIComponent(value) || undefined;
  } catch {
    return value;
  }
}

/**
 * The cookies that store `value` as the session cookie: one cookie named `<name>` when the value
 * fits in {@link CHUNK_SIZE} characters, else `<name>.0`, `<name>.1`, ... Every session cookie the
 * request carries that is not rewritten gets a deletion cookie, so growing, shrinking or switching
 * between chunked and unchunked leaves no stale chunk behind. Each name appears once.
 *
 * @param cookies the request's cookies (to find the chunks to delete)
 * @param name the session cookie's name
 * @param value the session token (a JWE or a database session token)
 * @param options the cookie attributes, usually with `expires` set to the session's expiry
 */
export function writeSessionCookie(
  cookies: Record<string, string>,
  name: string,
  value: string,
  options: SerializeOptions,
): ResponseCookie[] {
  const written = new Map<string, ResponseCookie>();
  for (const cookieName of existingNames(cookies, name)) written.set(cookieName, deletion(cookieName, options));
  if (value.length <= CHUNK_SIZE) {
    written.set(name, { name, value, options });
  } else {
    for (let i = 0, offset = 0; offset < value.length; i++, offset += CHUNK_SIZE) {
      const chunkName = `${name}.${i}`;
      written.set(chunkName, { name: chunkName, value: value.slice(offset, offset + CHUNK_SIZE), options });
    }
  }
  return [...written.values()];
}

/**
 * Deletion cookies (empty value, `maxAge: 0`) for the session cookie and every chunk of it the
 * request carries. The unchunked name is always included, so a sign-out clears the cookie even
 * when the request did not send it (e.g. a bearer-authenticated call from a browser).
 *
 * @param cookies the request's cookies
 * @param name the session cookie's name
 * @param options the attributes the cookie was set with (path, domain, secure, sameSite)
 */
export function clearSessionCookie(
  cookies: Record<string, string>,
  name: string,
  options: SerializeOptions,
): ResponseCookie[] {
  const names = existingNames(cookies, name);
  if (!names.includes(name)) names.unshift(name);
  return names.map((cookieName) => deletion(cookieName, options));
}
