import { createHmac, hkdfSync } from 'node:crypto';

/**
 * What a revocation message says: `s` a database session (by token), `u` every session of a user
 * (by user id), `j` a revoked JWT session (by its `sid:`/`jti:` id, until `until`), `k` an API key
 * (by its id) revoked or changed.
 */
export type RevocationKind = 's' | 'u' | 'j' | 'k';

/** A revocation as it travels between instances: never a token or id, only a keyed hash of it. */
export interface RevocationMessage {
  /** The publishing instance (random per process): an instance ignores its own messages. */
  origin: string;
  kind: RevocationKind;
  /** HMAC-SHA-256 of the token, user id or JWT id under a key derived from the secret (base64url). */
  key: string;
  /** `j` only: when the revoked JWT (every copy of it) expires, epoch milliseconds. */
  until?: number;
}

/** Longest message read; anything longer is malformed. */
export const MAX_MESSAGE_LENGTH = 256;
const ORIGIN = /^[A-Za-z0-9_-]{22}$/;
const KEY = /^[A-Za-z0-9_-]{43}$/;
/** A JWT revocation lasting longer than this (ten years from now) is malformed. */
const MAX_UNTIL_MS = 10 * 366 * 86_400_000;

/** The HMAC key of the messages, derived from the (first) secret: every instance derives the same. */
export function messageKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'nestjs-auth', 'revocation bus v1', 32));
}

/** The keyed hash a message carries for `value` (a session token, a user id, a JWT id). */
export function keyedHash(key: Buffer, kind: RevocationKind, value: string): string {
  return createHmac('sha256', key).update(`${kind}\0${value}`, 'utf8').digest('base64url');
}

/** The message as sent: `1.<origin>.<kind>.<key>[.<until>]`. */
export function encodeMessage(message: RevocationMessage): string {
  const base = `1.${message.origin}.${message.kind}.${message.key}`;
  return message.kind === 'j' ? `${base}.${message.until}` : base;
}

/**
 * The message read from the bus, or `undefined` when it is malformed: wrong version, origin, kind
 * or key shape, a `j` without a plausible `until` (or another kind with one), or too long.
 */
export function decodeMessage(payload: unknown, now = Date.now()): RevocationMessage | undefined {
  if (typeof payload !== 'string' || payload.length > MAX_MESSAGE_LENGTH) return undefined;
  const parts = payload.split('.');
  const [version, origin, kind, key, until] = parts;
  if (version !== '1' || !ORIGIN.test(origin ?? '') || !KEY.test(key ?? '')) return undefined;
  if (kind === 's' || kind === 'u' || kind === 'k')
    return parts.length === 4 ? { origin: origin!, kind, key: key! } : undefined;
  if (kind !== 'j' || parts.length !== 5 || !/^[1-9][0-9]{0,15}$/.test(until ?? '')) return undefined;
  const untilMs = Number(until);
  if (untilMs > now + MAX_UNTIL_MS) return undefined;
  return { origin: origin!, kind, key: key!, until: untilMs };
}
