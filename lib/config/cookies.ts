import type { CookieOption, CookiesOptions } from './auth-options.interface.js';
import { AUTH_DEFAULTS } from './defaults.js';

/**
 * The cookies Auth.js sets, with its names and attributes, so sessions and in-flight sign-ins
 * carry over between the two.
 *
 * With `secure`, names get the `__Secure-` prefix (the CSRF cookie gets `__Host-`, which also pins
 * it to the host and path `/`) and every cookie is `Secure`. No cookie has a `Domain` attribute.
 * Every cookie is `HttpOnly`, `SameSite=Lax`, `Path=/`. The session cookie has no `maxAge`: its
 * `expires` is set on every write from the session's lifetime. Check cookies live 900 seconds.
 *
 * The session cookie's name is also the HKDF salt of the JWT session key, so renaming it
 * invalidates every existing JWT session.
 *
 * @param secure whether the request is served over https (or `useSecureCookies` forces it)
 */
export function defaultCookies(secure: boolean): CookiesOptions {
  const prefix = secure ? '__Secure-' : '';
  const base = (): CookieOption['options'] => ({ httpOnly: true, sameSite: 'lax', path: '/', secure });
  const check = (name: string): CookieOption => ({
    name: `${prefix}${name}`,
    options: { ...base(), maxAge: AUTH_DEFAULTS.checkMaxAge },
  });
  return {
    sessionToken: { name: `${prefix}authjs.session-token`, options: base() },
    callbackUrl: { name: `${prefix}authjs.callback-url`, options: base() },
    csrfToken: { name: secure ? '__Host-authjs.csrf-token' : 'authjs.csrf-token', options: base() },
    pkceCodeVerifier: check('authjs.pkce.code_verifier'),
    state: check('authjs.state'),
    // Auth.js leaves maxAge off the nonce (it only sets `expires` when sealing); giving it the same
    // 900 seconds as the other checks is harmless and keeps a stale nonce from lingering.
    nonce: check('authjs.nonce'),
    webauthnChallenge: check('authjs.challenge'),
    // Ours (Auth.js has no second factor): the sign-in waiting for one, sealed like a check.
    twoFactor: check('authjs.two-factor'),
    nativeAuthorize: check('authjs.native-authorize'),
    // Long-lived: its lifetime (`twoFactor.rememberDevice` days) is set when it is written.
    twoFactorDevice: { name: `${prefix}authjs.two-factor-device`, options: base() },
  };
}

/**
 * Merges user cookie settings over defaults, per cookie: a given `name` replaces the default name,
 * given `options` are merged attribute by attribute over the default options. Cookies the user
 * does not mention keep their defaults. Neither argument is modified.
 *
 * @param defaults usually `defaultCookies(secure)`
 * @param user the `cookies` option; `undefined` returns a copy of the defaults
 */
export function mergeCookies(defaults: CookiesOptions, user?: Partial<CookiesOptions>): CookiesOptions {
  const merged = {} as CookiesOptions;
  for (const key of Object.keys(defaults) as (keyof CookiesOptions)[]) {
    const fallback = defaults[key];
    const override: Partial<CookieOption> | undefined = user?.[key];
    merged[key] = {
      name: typeof override?.name === 'string' && override.name.length > 0 ? override.name : fallback.name,
      options: { ...fallback.options, ...(override?.options ?? {}) },
    };
  }
  return merged;
}
