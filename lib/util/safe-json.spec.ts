import { describe, expect, it } from '@jest/globals';
import { safeJson } from './safe-json.js';

describe('safeJson', () => {
  it('writes no markup characters, and parses back to the same value', () => {
    const value = {
      message: 'There is no provider with id "<script>&</script>".',
      name: '<fz>@example.test',
      sep: '\u2028\u2029',
    };
    const text = safeJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(text).toContain('\\u003cscript\\u003e\\u0026');
    expect(JSON.parse(text)).toEqual(value);
  });

  it('leaves other text as JSON.stringify writes it', () => {
    const value = { url: 'https://app.example/a?b=c', n: 1, list: [true, null], unicode: 'é✓' };
    expect(safeJson(value)).toBe(JSON.stringify(value));
  });
});
