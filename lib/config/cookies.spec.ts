import { describe, expect, it } from '@jest/globals';
import type { CookiesOptions } from './auth-options.interface.js';
import { defaultCookies, mergeCookies } from './cookies.js';

describe('defaultCookies', () => {
  it('uses Auth.js names and attributes over plain http', () => {
    const base = { httpOnly: true, sameSite: 'lax', path: '/', secure: false };
    expect(defaultCookies(false)).toEqual({
      sessionToken: { name: 'authjs.session-token', options: base },
      callbackUrl: { name: 'authjs.callback-url', options: base },
      csrfToken: { name: 'authjs.csrf-token', options: base },
      pkceCodeVerifier: { name: 'authjs.pkce.code_verifier', options: { ...base, maxAge: 900 } },
      state: { name: 'authjs.state', options: { ...base, maxAge: 900 } },
      nonce: { name: 'authjs.nonce', options: { ...base, maxAge: 900 } },
      webauthnChallenge: { name: 'authjs.challenge', options: { ...base, maxAge: 900 } },
      // Ours, beyond Auth.js: a sign-in waiting for its second factor.
      twoFactor: { name: 'authjs.two-factor', options: { ...base, maxAge: 900 } },
      twoFactorDevice: { name: 'authjs.two-factor-device', options: base },
      // A native app's authorization request waiting for the sign-in.
      nativeAuthorize: { name: 'authjs.native-authorize', options: { ...base, maxAge: 900 } },
    });
  });

  it('prefixes names with __Secure- (the CSRF cookie with __Host-) and sets Secure over https', () => {
    const cookies = defaultCookies(true);
    expect(Object.fromEntries(Object.entries(cookies).map(([key, c]) => [key, c.name]))).toEqual({
      sessionToken: '__Secure-authjs.session-token',
      callbackUrl: '__Secure-authjs.callback-url',
      csrfToken: '__Host-authjs.csrf-token',
      pkceCodeVerifier: '__Secure-authjs.pkce.code_verifier',
      state: '__Secure-authjs.state',
      nonce: '__Secure-authjs.nonce',
      webauthnChallenge: '__Secure-authjs.challenge',
      twoFactor: '__Secure-authjs.two-factor',
      twoFactorDevice: '__Secure-authjs.two-factor-device',
      nativeAuthorize: '__Secure-authjs.native-authorize',
    });
    for (const cookie of Object.values(cookies)) {
      expect(cookie.options).toMatchObject({ secure: true, httpOnly: true, sameSite: 'lax', path: '/' });
      // __Host- requires no Domain; no cookie gets one by default.
      expect(cookie.options.domain).toBeUndefined();
    }
    expect(cookies.sessionToken.options.maxAge).toBeUndefined();
  });

  it('returns fresh objects each call (callers may not corrupt the defaults)', () => {
    const a = defaultCookies(false);
    a.sessionToken.options.path = '/x';
    expect(defaultCookies(false).sessionToken.options.path).toBe('/');
    expect(a.state.options).not.toBe(a.nonce.options);
  });
});

describe('mergeCookies', () => {
  it('returns the defaults when the user gives nothing', () => {
    expect(mergeCookies(defaultCookies(true))).toEqual(defaultCookies(true));
    expect(mergeCookies(defaultCookies(true), {})).toEqual(defaultCookies(true));
  });

  it('replaces names and merges options attribute by attribute, without touching its inputs', () => {
    const defaults = defaultCookies(true);
    const snapshot = structuredClone(defaults);
    const user: Partial<CookiesOptions> = {
      sessionToken: { name: 'my-session', options: { domain: 'example.com' } },
      state: { options: { sameSite: 'none' } } as CookiesOptions['state'],
    };
    const userSnapshot = structuredClone(user);
    const merged = mergeCookies(defaults, user);
    expect(merged.sessionToken).toEqual({
      name: 'my-session',
      options: { httpOnly: true, sameSite: 'lax', path: '/', secure: true, domain: 'example.com' },
    });
    expect(merged.state).toEqual({
      name: '__Secure-authjs.state',
      options: { ...defaults.state.options, sameSite: 'none' },
    });
    expect(merged.csrfToken).toEqual(defaults.csrfToken);
    expect(defaults).toEqual(snapshot);
    expect(user).toEqual(userSnapshot);
    expect(merged.csrfToken.options).not.toBe(defaults.csrfToken.options);
  });

  it('ignores an empty name', () => {
    const merged = mergeCookies(defaultCookies(false), { nonce: { name: '', options: {} } });
    expect(merged.nonce.name).toBe('authjs.nonce');
  });
});
