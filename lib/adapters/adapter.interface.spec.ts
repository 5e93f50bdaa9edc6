import { describe, expect, it } from '@jest/globals';
import { isDate } from './adapter.interface.js';

describe('isDate', () => {
  it('accepts ISO date strings and valid dates', () => {
    expect(isDate('2026-11-21T00:00:00.000Z')).toBe(true);
    expect(isDate(new Date())).toBe(true);
  });
  it('refuses other values', () => {
    for (const value of ['hello', '12', 42, null, undefined, {}, new Date('x'), '2026-13-45T00:00:00Z']) {
      expect(isDate(value)).toBe(false);
    }
  });
});
