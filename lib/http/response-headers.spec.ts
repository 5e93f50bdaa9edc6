import { describe, expect, it } from '@jest/globals';
import { isUnderPrefix } from './response-headers.js';

describe('isUnderPrefix', () => {
  it.each([
    ['/auth', true],
    ['/auth/csrf', true],
    ['/auth?x=1', true],
    ['/authx', false],
    ['/other/auth', false],
    ['http://app.test/auth/session', true],
    ['http://[::1]/auth/callback/%2e%2e/%2e%2e/me', true], // the raw path, as the router sees it
    ['https://app@evil.example/auth/signin', true],
    ['http://app.test/x/../auth', false],
    ['javascript:alert(1)', false],
    ['*', false],
  ])('%s → %s', (target, expected) => {
    expect(isUnderPrefix(target, '/auth')).toBe(expected);
  });
});
