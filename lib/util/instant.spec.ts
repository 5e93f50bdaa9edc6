import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import {
  checkTimeClaims,
  dateMs,
  isExpiredDate,
  isExpiredNumericDate,
  isoStringOfMs,
  MAX_INSTANT_MS,
  numericDateMs,
  safeDurationMs,
} from './instant.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const S = Math.floor(NOW / 1000);

describe('dateMs', () => {
  it('reads valid Dates only', () => {
    expect(dateMs(new Date(NOW))).toBe(NOW);
    expect(dateMs(new Date(-1))).toBe(-1);
    expect(dateMs(new Date(MAX_INSTANT_MS))).toBe(MAX_INSTANT_MS);
  });
  it.each([
    ['NaN Date', new Date(Number.NaN)],
    ['string', '2999-01-01T00:00:00Z'],
    ['number', NOW],
    ['null', null],
    ['undefined', undefined],
    ['object', { getTime: () => NOW }],
  ])('is undefined for %s', (_l, value) => {
    expect(dateMs(value)).toBeUndefined();
  });
});

describe('numericDateMs', () => {
  it('reads finite seconds a Date can hold', () => {
    expect(numericDateMs(S)).toBe(S * 1000);
    expect(numericDateMs(0)).toBe(0);
    expect(numericDateMs(8.64e12)).toBe(8.64e15);
  });
  it.each([[1e20], [8.64e12 + 1], [Number.NaN], [Infinity], [-Infinity], ['1700000000'], [null], [undefined], [[S]]])(
    'is undefined for %p',
    (value) => {
      expect(numericDateMs(value)).toBeUndefined();
    },
  );
});

describe('expiry checks fail closed', () => {
  it('isExpiredDate: only a valid future Date is live', () => {
    expect(isExpiredDate(new Date(NOW + 1), NOW)).toBe(false);
    expect(isExpiredDate(new Date(NOW), NOW)).toBe(true);
    expect(isExpiredDate(new Date(NOW - 1), NOW)).toBe(true);
    for (const bad of [new Date(Number.NaN), '2999-01-01', NOW + 1e9, null, undefined, {}])
      expect(isExpiredDate(bad, NOW)).toBe(true);
  });
  it('isExpiredNumericDate: only a valid future NumericDate is live', () => {
    expect(isExpiredNumericDate(S + 1, NOW)).toBe(false);
    expect(isExpiredNumericDate(S, NOW)).toBe(true);
    for (const bad of [Number.NaN, 1e20, String(S + 100), null, undefined])
      expect(isExpiredNumericDate(bad, NOW)).toBe(true);
  });
});

describe('checkTimeClaims', () => {
  it('accepts sane claims and reports exp in ms', () => {
    expect(checkTimeClaims({ exp: S + 60, iat: S - 5, nbf: S - 5 }, NOW)).toEqual({
      status: 'valid',
      expMs: (S + 60) * 1000,
    });
    expect(checkTimeClaims({ exp: S + 60 }, NOW)).toEqual({ status: 'valid', expMs: (S + 60) * 1000 });
  });
  it('says expired for a past exp, tolerance applied', () => {
    expect(checkTimeClaims({ exp: S }, NOW)).toEqual({ status: 'expired' });
    expect(checkTimeClaims({ exp: S - 10 }, NOW, 15_000)).toMatchObject({ status: 'valid' });
    expect(checkTimeClaims({ exp: S - 20 }, NOW, 15_000)).toEqual({ status: 'expired' });
  });
  it.each([
    ['no exp', {}],
    ['exp out of range', { exp: 1e20 }],
    ['exp a string', { exp: String(S + 60) }],
    ['iat in the future beyond the skew', { exp: S + 3600, iat: S + 16 }],
    ['nbf in the future beyond the skew', { exp: S + 3600, nbf: S + 16 }],
    ['iat out of range', { exp: S + 3600, iat: 1e20 }],
    ['iat NaN', { exp: S + 3600, iat: Number.NaN }],
    ['nbf a string', { exp: S + 3600, nbf: '0' }],
  ])('is invalid with %s', (_l, claims) => {
    expect(checkTimeClaims(claims, NOW)).toEqual({ status: 'invalid' });
  });
  it('tolerates the clock skew on iat and nbf', () => {
    expect(checkTimeClaims({ exp: S + 3600, iat: S + 15, nbf: S + 15 }, NOW)).toMatchObject({ status: 'valid' });
  });
});

describe('safeDurationMs', () => {
  it('keeps sane durations and falls back for the rest', () => {
    expect(safeDurationMs(500, 60_000)).toBe(500);
    expect(safeDurationMs(0, 60_000)).toBe(0);
    for (const bad of [Number.NaN, -1, Infinity, '5', null, undefined])
      expect(safeDurationMs(bad, 60_000)).toBe(60_000);
    expect(safeDurationMs(120_000, 60_000, 60_000)).toBe(60_000);
  });
});

describe('isoStringOfMs', () => {
  it('writes what Date#toISOString writes, at the calendar edges and over random instants', () => {
    const edges = [
      0,
      1,
      999,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999), // a leap day of a year divisible by 400
      Date.UTC(2100, 1, 28, 12), // 2100 is not a leap year
      Date.UTC(2100, 2, 1),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(2025, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      NOW,
    ];
    for (const ms of edges) expect(isoStringOfMs(ms)).toBe(new Date(ms).toISOString());
    for (let i = 0; i < 20_000; i++) {
      const ms = Math.floor(Math.random() * 253_402_300_800_000);
      expect([ms, isoStringOfMs(ms)]).toEqual([ms, new Date(ms).toISOString()]);
    }
  });

  it('leaves instants outside 1970-9999 to Date, which refuses invalid ones as before', () => {
    for (const ms of [-1, -62_198_755_200_000, 253_402_300_800_000, MAX_INSTANT_MS, 1.5])
      expect(isoStringOfMs(ms)).toBe(new Date(ms).toISOString());
    for (const bad of [Number.NaN, Infinity, MAX_INSTANT_MS + 1]) expect(() => isoStringOfMs(bad)).toThrow(RangeError);
  });
});

describe('one helper owns date comparisons', () => {
  // The storage layer (adapters/) converts dates for the database; everything else asks instant.ts.
  const LIB = join(import.meta.dirname, '..');
  const ALLOWED = new Set(['util/instant.ts']);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'adapters' && name !== 'catalog') walk(path);
      } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) {
        files.push(path);
      }
    }
  };
  walk(LIB);

  it('finds no getTime(), valueOf() or Date.parse outside instant.ts', () => {
    const offenders: string[] = [];
    for (const file of files) {
      const rel = relative(LIB, file).split('\\').join('/');
      if (ALLOWED.has(rel)) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/\.getTime\(\)|\.valueOf\(\)|Date\.parse\(/.test(line)) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
    expect(files.length).toBeGreaterThan(40);
  });
});
