import { describe, expect, it } from '@jest/globals';
import { defaultRedirect } from './defaults.js';
import { resolveTrustedOrigins } from './trusted-origins.js';

describe('trustedOrigins', () => {
  it('keeps exact origins, normalised as browsers send them', () => {
    const problems: string[] = [];
    const origins = resolveTrustedOrigins(
      ['http://localhost:5173', 'HTTPS://SPA.Example:443', 'https://spa.example/', 'http://[::1]:8080'],
      problems,
    );
    expect(problems).toEqual([]);
    expect([...origins]).toEqual(['http://localhost:5173', 'https://spa.example', 'http://[::1]:8080']);
  });

  it.each([
    ['*'],
    ['https://*.example.com'],
    ['https://spa.example/app'],
    ['https://spa.example?x=1'],
    ['https://user:pw@spa.example'],
    ['null'],
    ['javascript:alert(1)'],
    ['spa.example'],
    [42],
  ])('refuses %p at bootstrap, saying how to write an origin', (entry) => {
    const problems: string[] = [];
    expect(resolveTrustedOrigins([entry], problems).size).toBe(0);
    expect(problems).toEqual([expect.stringContaining('scheme://host[:port]')]);
  });

  it('refuses a value that is not a list', () => {
    const problems: string[] = [];
    resolveTrustedOrigins('https://spa.example', problems);
    expect(problems).toEqual([expect.stringContaining('must be an array')]);
  });

  it('lets the default redirect send the user to a listed origin only', () => {
    const base = 'http://127.0.0.1:3000';
    const trusted = new Set(['http://localhost:5173']);
    expect(defaultRedirect('http://localhost:5173/home?x=1', base, trusted)).toBe('http://localhost:5173/home?x=1');
    expect(defaultRedirect('http://localhost:5174/home', base, trusted)).toBe(base);
    expect(defaultRedirect('https://localhost:5173/home', base, trusted)).toBe(base);
    expect(defaultRedirect('//localhost:5173/home', base, trusted)).toBe(base);
    expect(defaultRedirect('/account', base, trusted)).toBe(`${base}/account`);
    expect(defaultRedirect('http://localhost:5173/home', base)).toBe(base);
  });
});
