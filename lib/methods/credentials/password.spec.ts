import { describe, expect, it } from '@jest/globals';
import { interleavedTimings, rankTestP, TIMING_ALPHA } from '../../../test/setup/rank-test.js';
import { scryptSync } from 'node:crypto';
import { hashPassword, needsRehash, PASSWORD_DEFAULTS, verifyPassword } from './password.js';

const PHC = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function parts(hash: string) {
  const m = PHC.exec(hash);
  if (!m) throw new Error(`not a PHC scrypt string: ${hash}`);
  return {
    ln: Number(m[1]),
    r: Number(m[2]),
    p: Number(m[3]),
    salt: Buffer.from(m[4], 'base64'),
    key: Buffer.from(m[5], 'base64'),
    saltB64: m[4],
    keyB64: m[5],
  };
}

/** A hash made with weaker, older parameters, the way a previous release could have stored it. */
function legacyHash(password: string, ln: number): string {
  const salt = Buffer.alloc(16, 7);
  const key = scryptSync(password.normalize('NFKC'), salt, 32, { N: 2 ** ln, r: 8, p: 1 });
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=${ln},r=8,p=1$${b64(salt)}$${b64(key)}`;
}

describe('hashPassword / verifyPassword', () => {
  it('stores scrypt at or above the OWASP minimum (p=1: N ≥ 2^17, r = 8) in a PHC string', async () => {
    const hash = await hashPassword('correct horse battery staple');
    const h = parts(hash);
    expect(h.ln).toBeGreaterThanOrEqual(17);
    expect(h.r).toBeGreaterThanOrEqual(8);
    expect(h.p).toBe(1);
    expect(h.salt.length).toBe(16);
    expect(h.key.length).toBeGreaterThanOrEqual(32);
    // Unpadded standard base64, as the PHC format says.
    expect(h.saltB64 + h.keyB64).not.toContain('=');
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
    expect(await verifyPassword('Correct horse battery staple', hash)).toBe(false);
  });

  it('salts every hash', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(parts(a).saltB64).not.toBe(parts(b).saltB64);
    expect(parts(a).keyB64).not.toBe(parts(b).keyB64);
  });

  it('verifies a passphrase typed as composed or decomposed Unicode (NFKC)', async () => {
    const composed = 'caf\u00e9 cr\u00e8me br\u00fbl\u00e9e';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    const hash = await hashPassword(composed);
    expect(await verifyPassword(decomposed, hash)).toBe(true);
  });

  it('accepts a 64-character passphrase and refuses a password over 1024 bytes before hashing', async () => {
    const long = 'x'.repeat(64);
    expect(await verifyPassword(long, await hashPassword(long))).toBe(true);
    const hash = await hashPassword('short enough');
    await expect(hashPassword('a'.repeat(1025))).rejects.toThrow(RangeError);
    // 400 three-byte characters: 400 UTF-16 units but 1200 bytes.
    await expect(hashPassword('\u20ac'.repeat(400))).rejects.toThrow(/1024 bytes/);
    // Refused before any derivation: no scrypt runs, so the answer comes before the event loop turns
    // once (a derivation finishes on the thread pool, after at least one turn). No clock involved.
    for (const overLong of ['a'.repeat(10 * 1024), '\u20ac'.repeat(400)]) {
      const answer = verifyPassword(overLong, hash).then((ok) => ({ ok }));
      const turn = new Promise<'turned'>((resolve) => setImmediate(() => resolve('turned')));
      expect(await Promise.race([answer, turn])).toEqual({ ok: false });
    }
    // The same race with a password of a fitting length: the derivation loses it, so the check can fail.
    const derived = verifyPassword('a'.repeat(1024), hash).then((ok) => ({ ok }));
    expect(await Promise.race([derived, new Promise((r) => setImmediate(() => r('turned')))])).toBe('turned');
    expect(await derived).toEqual({ ok: false });
    expect(PASSWORD_DEFAULTS.maxPasswordBytes).toBe(1024);
  });

  it('refuses empty passwords and parameters below the OWASP table', async () => {
    await expect(hashPassword('')).rejects.toThrow(RangeError);
    await expect(hashPassword(undefined as unknown as string)).rejects.toThrow(RangeError);
    await expect(hashPassword('pw', { ln: 16 })).rejects.toThrow(/OWASP/);
    await expect(hashPassword('pw', { r: 4 })).rejects.toThrow(/OWASP/);
    await expect(hashPassword('pw', { ln: 15, p: 2 })).rejects.toThrow(/OWASP/);
    await expect(hashPassword('pw', { keyLength: 8 })).rejects.toThrow(/keyLength/);
    await expect(hashPassword('pw', { ln: 30 })).rejects.toThrow(/MiB/);
    await expect(hashPassword('pw', { ln: 17.5 })).rejects.toThrow(/integer/);
  });

  it('answers false, never throws, for malformed hashes and inputs', async () => {
    const good = await hashPassword('pw-123456');
    const h = parts(good);
    const malformed: unknown[] = [
      '',
      'plaintext',
      '$scrypt$',
      '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g',
      '$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234',
      good.replace('$scrypt$', '$Scrypt$'),
      good.replace('ln=17', 'ln=abc'),
      good.replace('ln=17', 'ln=0'),
      good.replace('ln=17', 'ln=40'),
      good.replace('r=8', 'r=999'),
      good.replace('p=1', 'p=0'),
      good + '$',
      // (Not `good + 'A'`: that is a well-formed 33-byte key whose first 32 bytes match, so it verifies 1 time in 256.)
      good + 'AA',
      // (Not `slice(0, -1)`: 1 time in 16 that is a canonical 31-byte key, i.e. a well-formed hash that verifies.)
      good.slice(0, -2),
      `$scrypt$ln=17,r=8,p=1$${h.saltB64}`,
      `$scrypt$ln=17,r=8,p=1$$${h.keyB64}`,
      `$scrypt$ln=17,r=8,p=1$${h.saltB64}$${h.keyB64}==`,
      `$scrypt$ln=17,r=8,p=1$${h.saltB64.slice(0, 8)}$${h.keyB64}`,
      `$scrypt$ln=17,r=8,p=1$${h.saltB64}$${h.keyB64.slice(0, 10)}`,
      `$scrypt$ln=17,r=8,p=1$${h.saltB64}$${h.keyB64}${h.keyB64}${h.keyB64}`,
      `$scrypt$ln=17,r=8,p=1$${h.saltB64}$${h.keyB64.replace(/./, '-')}`,
      `$scrypt$ln=17,r=8,p=1$${h.saltB64}$${h.keyB64} `,
      `$scrypt$ln=24,r=32,p=16$${h.saltB64}$${h.keyB64}`,
      '$'.repeat(100_000),
      42,
      {},
      ['$scrypt$'],
    ];
    for (const hash of malformed) {
      await expect(verifyPassword('pw-123456', hash as string)).resolves.toBe(false);
      expect(needsRehash(hash as string)).toBe(true);
    }
    await expect(verifyPassword(undefined as unknown as string, good)).resolves.toBe(false);
    await expect(verifyPassword(123 as unknown as string, good)).resolves.toBe(false);
    await expect(verifyPassword({ toString: () => 'pw-123456' } as unknown as string, good)).resolves.toBe(false);
  });

  it('compares the whole key: a key differing only in its first or last byte is refused', async () => {
    const hash = await hashPassword('pw-abcdef');
    const h = parts(hash);
    for (const index of [0, h.key.length - 1]) {
      const key = Buffer.from(h.key);
      key[index] ^= 0x01;
      const tampered = `$scrypt$ln=${h.ln},r=${h.r},p=${h.p}$${h.saltB64}$${key.toString('base64').replace(/=+$/, '')}`;
      expect(await verifyPassword('pw-abcdef', tampered)).toBe(false);
    }
  });

  it('verifies hashes made with older parameters, and needsRehash says to upgrade them', async () => {
    const legacy = legacyHash('old password', 14);
    expect(await verifyPassword('old password', legacy)).toBe(true);
    expect(await verifyPassword('wrong password', legacy)).toBe(false);
    expect(needsRehash(legacy)).toBe(true);

    const current = await hashPassword('old password');
    expect(needsRehash(current)).toBe(false);
    expect(needsRehash(current, { ln: 18 })).toBe(true);
    expect(needsRehash(current, { keyLength: 64 })).toBe(true);
    expect(needsRehash(current, { ln: 17, r: 8, p: 1, keyLength: 32 })).toBe(false);
  });

  it('takes as long for an unknown user (null hash) as for a wrong password (rank test, alpha 0.001)', async () => {
    const hash = await hashPassword('the real password');
    await verifyPassword('warm-up', null); // the dummy hash is made once per process
    // 8 + 8 interleaved timings; the exact rank test fails a correct build once in a thousand runs at
    // most (test/setup/rank-test.ts), and fails for sure when one path skips the derivation (the
    // samples then separate completely: p = 0.00016).
    const t = await interleavedTimings(
      8,
      async () => expect(await verifyPassword('a wrong password', hash)).toBe(false),
      async () => expect(await verifyPassword('a wrong password', null)).toBe(false),
    );
    expect(rankTestP(t.first, t.second)).toBeGreaterThanOrEqual(TIMING_ALPHA);
    expect(await verifyPassword('a wrong password', undefined)).toBe(false);
  }, 300_000); // 16 derivations: the timeout only stops a hung run; nothing here bounds time

  it('does not block the event loop while hashing', async () => {
    // No clock: a hash that ran on the event loop would be settled before any other callback got
    // to run; scrypt on libuv's thread pool leaves the loop free, so a setImmediate callback runs
    // while the hash is still pending, and several rounds of them do.
    let settled = false;
    const hashing = hashPassword('event loop stays free').then((h) => {
      settled = true;
      return h;
    });
    let rounds = 0;
    while (!settled && rounds < 3) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!settled) rounds++;
    }
    expect(rounds).toBe(3);
    expect(await hashing).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/);
  });
});
