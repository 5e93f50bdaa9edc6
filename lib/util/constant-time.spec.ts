import { describe, expect, it } from '@jest/globals';
import { constantTimeEqual } from './constant-time.js';

describe('constantTimeEqual', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['abc', 'abcd', false],
    ['', '', true],
    ['', 'a', false],
    ['é', 'e\u0301', false],
  ])('%o vs %o: %o', (a, b, expected) => {
    expect(constantTimeEqual(a, b)).toBe(expected);
  });
});
