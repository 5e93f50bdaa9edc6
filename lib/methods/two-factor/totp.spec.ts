import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { generateURI, ScureBase32Plugin } from 'otplib';
import { loadsOutside, packageLoads } from '../../util/fixtures/lazy-import.fixture.js';
import {
  createTotpSecret,
  TOTP_DEFAULTS,
  totpCode,
  totpUri,
  verifyTotp,
  type TotpAlgorithm,
  type TotpDigits,
} from './totp.js';

/** RFC 4648 base32, unpadded (the RFC's seeds are ASCII; an app's secret is base32). */
function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** "12345678901234567890" repeated to `length` bytes (RFC 6238, Appendix A). */
const seed = (length: number) => base32(Buffer.from('1234567890'.repeat(7).slice(0, length), 'ascii'));
const SEEDS: Record<TotpAlgorithm, string> = { sha1: seed(20), sha256: seed(32), sha512: seed(64) };

/** RFC 6238, Appendix B: time (s) → SHA-1, SHA-256, SHA-512 codes, 8 digits, 30-second steps. */
const VECTORS: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];
const CASES = VECTORS.flatMap(([time, ...codes]) =>
  (['sha1', 'sha256', 'sha512'] as const).map((algorithm, i) => [algorithm, time, codes[i]!] as const),
);

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const T = 1_700_000_000_000; // ms, mid-step: 1700000000 / 30 = 56666666.67
const STEP = Math.floor(T / 30_000);
const at = (step: number) => step * 30_000 + 10_000;

describe('RFC 6238 Appendix B', () => {
  it.each(CASES)('%s at %d s: %s', async (algorithm, time, expected) => {
    const secret = SEEDS[algorithm];
    const opts = { algorithm, digits: 8 as TotpDigits, now: time * 1000 };
    expect(await totpCode(secret, opts)).toBe(expected);
    expect(await verifyTotp(secret, expected, { ...opts, window: 0 })).toEqual({ step: Math.floor(time / 30) });
  });

  it('refuses the SHA-1 code under another algorithm or length', async () => {
    const now = 59_000;
    expect(await verifyTotp(SEEDS.sha1, '94287082', { now, digits: 8, algorithm: 'sha256' })).toBeNull();
    expect(await verifyTotp(SEEDS.sha1, '94287082', { now, digits: 6 })).toBeNull();
    // The 6-digit code is the last six digits of the 8-digit one (same truncation, mod 10^6).
    expect(await verifyTotp(SEEDS.sha1, '287082', { now, digits: 6 })).toEqual({ step: 1 });
  });
});

describe('createTotpSecret', () => {
  it('is 20 random bytes in unpadded upper-case base32 (32 characters), different each time', async () => {
    const a = createTotpSecret();
    const b = createTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(a).not.toBe(b);
    expect(new ScureBase32Plugin().decode(a)).toHaveLength(20);
    expect(await totpCode(a)).toMatch(/^\d{6}$/);
  });

  it('encodes as RFC 4648 does, whatever the bytes', () => {
    const codec = new ScureBase32Plugin();
    for (let i = 0; i < 50; i++) {
      const secret = createTotpSecret();
      expect(codec.encode(codec.decode(secret))).toBe(secret);
    }
    expect(seed(20)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'); // the spec's own encoder, on the RFC's seed
  });
});

describe('totpUri', () => {
  it('is the otpauth URI with issuer prefix and parameter, the defaults left out', () => {
    const uri = totpUri({ issuer: 'ACME Co', label: 'ada@example.com', secret: SECRET });
    expect(uri).toBe(`otpauth://totp/ACME%20Co:ada%40example.com?secret=${SECRET}&issuer=ACME%20Co`);
  });

  it.each([
    { issuer: 'ACME Co', label: 'ada@example.com', secret: SECRET },
    { issuer: 'Ünïcödé & Söns', label: 'jöhn+tag@exämple.com', secret: SECRET },
    { issuer: 'a/b?c#d', label: '100% "real" <user>', secret: SECRET, algorithm: 'sha256' as const },
    { issuer: 'X', label: 'y', secret: SECRET, algorithm: 'sha512' as const, digits: 8 as const, period: 60 },
    { issuer: 'X', label: 'y', secret: SECRET, algorithm: 'sha1' as const, digits: 6 as const, period: 30 },
  ])('is what otplib generateURI writes (%o)', (params) => {
    expect(totpUri(params)).toBe(generateURI(params));
  });

  it('names algorithm, digits and period when they differ; drops colons from issuer and label', () => {
    const text = totpUri({ issuer: 'A:B', label: 'x:y', secret: SECRET, algorithm: 'sha256', digits: 8, period: 60 });
    expect(text.startsWith('otpauth://totp/AB:xy?')).toBe(true);
    const uri = new URL(text);
    expect(uri.searchParams.get('secret')).toBe(SECRET);
    expect(uri.searchParams.get('issuer')).toBe('AB');
    expect(uri.searchParams.get('algorithm')).toBe('SHA256');
    expect(uri.searchParams.get('digits')).toBe('8');
    expect(uri.searchParams.get('period')).toBe('60');
  });

  it('refuses an empty issuer or label and a secret that is not base32', () => {
    expect(() => totpUri({ issuer: ' ', label: 'x', secret: SECRET })).toThrow(TypeError);
    expect(() => totpUri({ issuer: 'X', label: ':', secret: SECRET })).toThrow(TypeError);
    expect(() => totpUri({ issuer: 'X', label: 'x', secret: 'not&base32=1' })).toThrow(TypeError);
  });
});

describe('otplib is loaded lazily', () => {
  it('no file of lib/ imports otplib but two-factor/totp.ts, and that one only with import()', () => {
    const lib = fileURLToPath(new URL('../..', import.meta.url));
    const loader = 'methods/two-factor/totp.ts';
    expect(loadsOutside(lib, 'otplib', loader)).toEqual([]);
    expect(loadsOutside(lib, 'otplib/functional', loader)).toEqual([]);
    expect(packageLoads('otplib/functional', loader, readFileSync(join(lib, loader), 'utf8'))).toHaveLength(1);
  });
});

describe('verifyTotp', () => {
  it('accepts the current step and one either side, and returns the step matched', async () => {
    for (const offset of [-1, 0, 1]) {
      const code = await totpCode(SECRET, { now: at(STEP + offset) });
      expect(await verifyTotp(SECRET, code, { now: T })).toEqual({ step: STEP + offset });
    }
  });

  it('refuses two steps away (default window), accepts them with window 2, refuses all but now with 0', async () => {
    for (const offset of [-2, 2]) {
      const code = await totpCode(SECRET, { now: at(STEP + offset) });
      expect(await verifyTotp(SECRET, code, { now: T })).toBeNull();
      expect(await verifyTotp(SECRET, code, { now: T, window: 2 })).toEqual({ step: STEP + offset });
    }
    const previous = await totpCode(SECRET, { now: at(STEP - 1) });
    expect(await verifyTotp(SECRET, previous, { now: T, window: 0 })).toBeNull();
  });

  it('afterStep refuses a replay of the same step and codes of earlier steps, not later ones', async () => {
    const now = await totpCode(SECRET, { now: T });
    const first = await verifyTotp(SECRET, now, { now: T });
    expect(first).toEqual({ step: STEP });
    expect(await verifyTotp(SECRET, now, { now: T, afterStep: first!.step })).toBeNull();
    expect(await verifyTotp(SECRET, now, { now: T + 20_000, afterStep: first!.step })).toBeNull();
    const earlier = await totpCode(SECRET, { now: at(STEP - 1) });
    expect(await verifyTotp(SECRET, earlier, { now: T, afterStep: STEP })).toBeNull();
    expect(await verifyTotp(SECRET, earlier, { now: T, afterStep: STEP - 2 })).toEqual({ step: STEP - 1 });
    const next = await totpCode(SECRET, { now: at(STEP + 1) });
    expect(await verifyTotp(SECRET, next, { now: T, afterStep: STEP })).toEqual({ step: STEP + 1 });
    expect(await verifyTotp(SECRET, now, { now: T, afterStep: null })).toEqual({ step: STEP });
  });

  it('returns null, without throwing, when the last step used is ahead of the whole window (clock set back)', async () => {
    const code = await totpCode(SECRET, { now: T });
    expect(await verifyTotp(SECRET, code, { now: T, afterStep: STEP + 1 })).toBeNull();
    expect(await verifyTotp(SECRET, code, { now: T, afterStep: STEP + 1000 })).toBeNull();
    expect(await verifyTotp(SECRET, code, { now: T, afterStep: Number.NaN })).toBeNull();
    expect(await verifyTotp(SECRET, code, { now: T, afterStep: -5 })).toEqual({ step: STEP });
  });

  it('ignores spaces in the code ("123 456")', async () => {
    const code = await totpCode(SECRET, { now: T });
    const spaced = `${code.slice(0, 3)} ${code.slice(3)}`;
    expect(await verifyTotp(SECRET, spaced, { now: T })).toEqual({ step: STEP });
    expect(await verifyTotp(SECRET, ` ${code}\t`, { now: T })).toEqual({ step: STEP });
  });

  it('accepts a lower-case secret (base32 is case-insensitive)', async () => {
    const code = await totpCode(SECRET, { now: T });
    expect(await verifyTotp(SECRET.toLowerCase(), code, { now: T })).toEqual({ step: STEP });
  });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['spaces only', '      '],
    ['letters', 'abcdef'],
    ['a sign', '-12345'],
    ['a decimal', '12345.'],
    ['five digits', '12345'],
    ['seven digits', '1234567'],
    ['full-width digits', '１２３４５６'],
    ['a very long string', '1'.repeat(100_000)],
    ['a number', 123456],
    ['null', null],
    ['undefined', undefined],
    ['an object', { toString: () => '123456' }],
    ['an array', ['123456']],
  ])('a malformed code (%s) is null', async (_name, code) => {
    await expect(verifyTotp(SECRET, code, { now: T })).resolves.toBeNull();
  });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['not base32', 'JBSWY3DPEHPK3PXP!!!!JBSWY3DPEHPK'],
    ['base32 with 0, 1, 8, 9', 'JBSWY3DPEHPK3PXP0189JBSWY3DPEHPK'],
    ['too short (otplib wants 16 bytes)', 'JBSWY3DPEHPK3PXP'],
    ['too long', 'A'.repeat(200)],
    ['an impossible length', 'A'.repeat(33)],
    ['a number', 12345],
    ['null', null],
    ['bytes', new Uint8Array(20)],
  ])('a malformed secret (%s) is null', async (_name, secret) => {
    const code = await totpCode(SECRET, { now: T });
    await expect(verifyTotp(secret, code, { now: T })).resolves.toBeNull();
  });

  it('throws on options that cannot be right (a programming error, not input)', async () => {
    await expect(verifyTotp(SECRET, '123456', { window: -1 })).rejects.toThrow(RangeError);
    await expect(verifyTotp(SECRET, '123456', { window: 11 })).rejects.toThrow(RangeError);
    await expect(verifyTotp(SECRET, '123456', { window: 1.5 })).rejects.toThrow(RangeError);
    await expect(verifyTotp(SECRET, '123456', { digits: 9 as TotpDigits })).rejects.toThrow(RangeError);
    await expect(verifyTotp(SECRET, '123456', { period: 0 })).rejects.toThrow(RangeError);
    await expect(verifyTotp(SECRET, '123456', { algorithm: 'md5' as TotpAlgorithm })).rejects.toThrow(RangeError);
  });

  it('uses the defaults every authenticator app reads', async () => {
    expect(TOTP_DEFAULTS).toEqual({ algorithm: 'sha1', digits: 6, period: 30 });
    const code = await totpCode(SECRET, { now: T });
    expect(code).toMatch(/^\d{6}$/);
    expect(await totpCode(SECRET, { now: T, period: 60 })).toMatch(/^\d{6}$/);
    expect(await verifyTotp(SECRET, await totpCode(SECRET, { now: T, period: 60 }), { now: T, period: 60 })).toEqual({
      step: Math.floor(T / 60_000),
    });
  });
});
