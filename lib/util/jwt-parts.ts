// Reading a compact JWT's header or claims without verifying anything: for a header that chooses
// the verification key, or claims of a token whose signature is checked elsewhere. A JOSE library
// is not needed for that, and not loading one at start-up is the point (see util/jose.ts).
//
// Parts must be base64url as RFC 7515 section 2 writes it (no padding, no whitespace): stricter than
// `jose`'s decoders, which also take padded or spaced parts no conforming issuer sends.

/** Only base64url characters; a length of 4n + 1 cannot come from whole bytes. */
const B64U = /^[A-Za-z0-9_-]*$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The protected header of a JWS (three parts) or JWE (five parts) in compact serialization.
 *
 * @throws TypeError when `token` is not such a token or its header is not a base64url JSON object
 */
export function decodeJwtHeader(token: string): Record<string, unknown> {
  const parts = typeof token === 'string' ? token.split('.') : [];
  if (parts.length !== 3 && parts.length !== 5) throw new TypeError('Not a compact JWS or JWE.');
  return decodePart(parts[0], 'header');
}

/**
 * The claims of a JWT in compact JWS serialization (three parts). An encrypted JWT (five parts) has
 * no readable claims.
 *
 * @throws TypeError when `token` is not such a JWT or its payload is not a base64url JSON object
 */
export function decodeJwtClaims(token: string): Record<string, unknown> {
  const parts = typeof token === 'string' ? token.split('.') : [];
  if (parts.length === 5) throw new TypeError('An encrypted JWT has no readable claims.');
  if (parts.length !== 3) throw new TypeError('Not a JWT in compact JWS serialization.');
  return decodePart(parts[1], 'payload');
}

function decodePart(part: string, what: string): Record<string, unknown> {
  if (!part || !B64U.test(part) || part.length % 4 === 1) throw new TypeError(`The JWT's ${what} is not base64url.`);
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8.decode(Buffer.from(part, 'base64url')));
  } catch (cause) {
    throw new TypeError(`The JWT's ${what} is not UTF-8 JSON.`, { cause });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError(`The JWT's ${what} is not a JSON object.`);
  return value as Record<string, unknown>;
}
