import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import {
  decodeMessage,
  encodeMessage,
  keyedHash,
  MAX_MESSAGE_LENGTH,
  messageKey,
  type RevocationMessage,
} from './revocation-message.js';

const key = messageKey('a-secret-that-is-long-enough-0123456789');
const origin = randomBytes(16).toString('base64url');
const token = 'f0e1d2c3b4a5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f';

describe('revocation messages', () => {
  it('round-trip every kind', () => {
    const now = Date.now();
    const messages: RevocationMessage[] = [
      { origin, kind: 's', key: keyedHash(key, 's', token) },
      { origin, kind: 'u', key: keyedHash(key, 'u', 'user-1') },
      { origin, kind: 'j', key: keyedHash(key, 'j', 'sid:abc'), until: now + 3_600_000 },
    ];
    for (const m of messages) expect(decodeMessage(encodeMessage(m), now)).toEqual(m);
  });

  it('carry a keyed hash, never the token or the id, and the hash depends on the secret and the kind', () => {
    const payload = encodeMessage({ origin, kind: 's', key: keyedHash(key, 's', token) });
    expect(payload).not.toContain(token);
    expect(payload).not.toContain(token.slice(0, 16));
    expect(payload.length).toBeLessThan(80);
    const other = messageKey('another-secret-that-is-long-enough-01234567');
    expect(keyedHash(other, 's', token)).not.toBe(keyedHash(key, 's', token));
    expect(keyedHash(key, 'u', token)).not.toBe(keyedHash(key, 's', token));
    expect(keyedHash(key, 's', token)).toBe(
      keyedHash(messageKey('a-secret-that-is-long-enough-0123456789'), 's', token),
    );
  });

  it('are malformed when anything is off', () => {
    const now = Date.now();
    const h = keyedHash(key, 's', token);
    const good = `1.${origin}.s.${h}`;
    expect(decodeMessage(good, now)).toBeDefined();
    for (const bad of [
      undefined,
      42,
      '',
      'hello',
      `2.${origin}.s.${h}`,
      `1.${origin}.x.${h}`,
      `1.${origin}.s.${h}.5`,
      `1.${origin}.s.${h.slice(1)}`,
      `1.${origin}.s.${h}!`.replace(/.$/, '+'),
      `1.short.s.${h}`,
      `1.${origin}.j.${h}`,
      `1.${origin}.j.${h}.0`,
      `1.${origin}.j.${h}.-5`,
      `1.${origin}.j.${h}.1e12`,
      `1.${origin}.j.${h}.${now + 11 * 366 * 86_400_000}`,
      `1.${origin}.u.${h}.${now}`,
      `${good}.`,
      good + 'x'.repeat(MAX_MESSAGE_LENGTH),
      JSON.stringify({ origin, kind: 's', key: h }),
    ])
      expect(decodeMessage(bad, now)).toBeUndefined();
  });
});
