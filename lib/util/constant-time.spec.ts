import { describe, expect, it } from '@jest/globals';
import { randomInt, timingSafeEqual } from 'node:crypto';
import { constantTimeEqual, equalStrings } from './constant-time.js';

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

describe('equalStrings', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['xbc', 'abc', false],
    ['abc', 'abcd', false],
    ['', '', true],
    // A character above U+00FF whose low byte is another's: the whole code unit is compared.
    ['a\u015D', 'a]', false],
    ['\u{1F511}', '\u{1F511}', true],
    ['\u{1F511}', '\u{1F512}', false],
  ])('%o vs %o: %o', (a, b, expected) => {
    expect(equalStrings(a, b)).toBe(expected);
  });

  // Differential: the same verdict as node:crypto's timingSafeEqual over the strings' UTF-16 code
  // units, for strings that differ nowhere, in one place (first, last, anywhere) or everywhere.
  it('agrees with timingSafeEqual on 20,000 random pairs of equal length', () => {
    const alphabet = ['0', '9', 'A', 'z', '_', '\u00E9', '\u00FF', '\u0100', '\u015D', '\uD83D', '\uDD11', '\uFFFF'];
    const pick = (): string => alphabet[randomInt(alphabet.length)]!;
    let equal = 0;
    for (let n = 0; n < 20_000; n++) {
      const length = randomInt(1, 70);
      const a = Array.from({ length }, pick).join('');
      let b: string;
      const kind = n % 4;
      if (kind === 0) b = a;
      else if (kind === 3) b = Array.from({ length }, pick).join('');
      else {
        const at = kind === 1 ? (n % 8 === 1 ? 0 : length - 1) : randomInt(length);
        const chars = a.split('');
        chars[at] = chars[at] === '0' ? '9' : '0';
        b = chars.join('');
      }
      const expected = timingSafeEqual(Buffer.from(a, 'utf16le'), Buffer.from(b, 'utf16le'));
      expect(equalStrings(a, b)).toBe(expected);
      if (expected) equal++;
    }
    // Both verdicts occurred (a quarter of the pairs are the same string).
    expect(equal).toBeGreaterThanOrEqual(5_000);
    expect(equal).toBeLessThan(20_000);
  });
});
