const UNSAFE = /[<>&\u2028\u2029]/g;

/**
 * `JSON.stringify` for answers: `<`, `>`, `&`, U+2028 and U+2029 are written as `\uXXXX` escapes, so
 * text a client sent and the module echoes (an id, an address) is never markup in the bytes of an
 * answer, whatever a browser or a proxy sniffs. The JSON value a client parses is unchanged.
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
