// Base64url (RFC 4648 section 5, unpadded) as the JWE reader checks it, character by character.

/** The value of each base64url character (-1 for any other). */
export const B64U_VALUE = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  .split('')
  .forEach((c, i) => (B64U_VALUE[c.charCodeAt(0)] = i));

/**
 * True when `s[start, end)` (already known to hold base64url characters only) is the canonical
 * unpadded encoding of some bytes: no length that leaves one character over, and the bits the last
 * character carries beyond the data are zero. Anything else is refused rather than read leniently,
 * so that a changed character can never decode to the same bytes.
 */
export function canonicalB64u(s: string, start: number, end: number): boolean {
  const rest = (end - start) % 4;
  if (rest === 0) return true;
  if (rest === 1) return false;
  const last = B64U_VALUE[s.charCodeAt(end - 1)];
  return rest === 2 ? (last & 0x0f) === 0 : (last & 0x03) === 0;
}
