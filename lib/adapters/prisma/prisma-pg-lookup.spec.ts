import { describe, expect, it } from '@jest/globals';
import { pgDateTime } from './prisma-pg-lookup.js';

describe('pgDateTime (the pool path reads DateTimes as Prisma does)', () => {
  it('reads a timestamp without time zone as UTC, whatever the process time zone', () => {
    expect(pgDateTime('2026-11-28 07:48:17.123').toISOString()).toBe('2026-11-28T07:48:17.123Z');
    expect(pgDateTime('2026-11-28 07:48:17').toISOString()).toBe('2026-11-28T07:48:17.000Z');
  });

  it('keeps milliseconds exactly and drops finer digits', () => {
    expect(pgDateTime('2026-11-28 07:48:17.1').getUTCMilliseconds()).toBe(100);
    expect(pgDateTime('2026-11-28 07:48:17.007').getUTCMilliseconds()).toBe(7);
    expect(pgDateTime('2026-11-28 07:48:17.999999').toISOString()).toBe('2026-11-28T07:48:17.999Z');
  });

  it('applies the offset of a timestamptz, hours, minutes and seconds', () => {
    expect(pgDateTime('2026-11-28 07:48:17.123+00').toISOString()).toBe('2026-11-28T07:48:17.123Z');
    expect(pgDateTime('2026-11-28 07:48:17+05:30').toISOString()).toBe('2026-11-28T02:18:17.000Z');
    expect(pgDateTime('1850-01-01 00:00:00-00:17:30').toISOString()).toBe('1850-01-01T00:17:30.000Z');
  });

  it('reads a date as midnight UTC; years below 100 stay themselves', () => {
    expect(pgDateTime('2026-11-28').toISOString()).toBe('2026-11-28T00:00:00.000Z');
    expect(pgDateTime('0042-03-04 05:06:07').getUTCFullYear()).toBe(42);
  });

  it('is an invalid Date for what it cannot read', () => {
    for (const text of ['infinity', '-infinity', '2026-11-28 07:48:17 BC', ''])
      expect(Number.isNaN(pgDateTime(text).getTime())).toBe(true);
  });
});
