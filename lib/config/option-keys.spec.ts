import { describe, expect, it } from '@jest/globals';
import { AuthConfigurationError } from '../errors/auth.errors.js';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store.js';
import type { AuthModuleExtras, AuthModuleOptions } from './auth-options.interface.js';
import { optionKeyProblems } from './option-keys.js';
import { resolveConfig } from './resolve-config.js';

const SECRET = 'a-secret-that-is-long-enough-for-tests-000';

function problemsOf(options: object, extras: object = {}): string[] {
  try {
    resolveConfig(options as AuthModuleOptions, extras as AuthModuleExtras, null, {});
  } catch (error) {
    expect(error).toBeInstanceOf(AuthConfigurationError);
    return (error as AuthConfigurationError).problems;
  }
  return [];
}

describe('unknown option keys', () => {
  it('accepts every known option and setting', () => {
    expect(optionKeyProblems(
      { secret: SECRET, providers: [], session: {}, jwt: {}, callbacks: {}, events: {}, pages: {}, theme: {}, cookies: {}, useSecureCookies: true, trustHost: true, url: 'https://a.test', redirectProxyUrl: 'https://b.test', debug: false, logger: {}, rateLimit: {} },
      { isGlobal: true, basePath: '/auth', adapter: undefined, dataSource: 'db', globalGuard: true, rateLimitStore: undefined },
    )).toEqual([]);
  });

  it('reports each unknown key with the known key it is closest to, with the other problems', () => {
    const problems = problemsOf({ secret: 'short', providers: [], sesion: { strategy: 'jwt' }, globalGaurd: true, Debug: true });
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/unknown option `sesion`: did you mean `session`\?/),
      expect.stringMatching(/unknown option `globalGaurd`: did you mean `globalGuard`\?/),
      expect.stringMatching(/unknown option `Debug`: did you mean `debug`\?/),
      expect.stringMatching(/secret is too short/),
    ]));
    expect(problems).toHaveLength(4);
  });

  it('lists the known keys when nothing is close', () => {
    expect(problemsOf({ secret: SECRET, providers: [], frobnicate: 1 })).toEqual([
      expect.stringMatching(/unknown option `frobnicate`: use one of secret, providers, session, .*rateLimitStore\./),
    ]);
  });

  it('reports unknown settings next to the options (forRootAsync top level)', () => {
    expect(problemsOf({ secret: SECRET, providers: [] }, { basePath: '/auth', basPath: '/x' })).toEqual([
      expect.stringMatching(/unknown option `basPath`: did you mean `basePath`\?/),
    ]);
  });

  it('says where a key belongs when it is in the wrong place', () => {
    // An option next to useFactory, and a module setting returned by the factory: both would be ignored.
    expect(problemsOf({ secret: SECRET, providers: [], globalGuard: true }, { session: { strategy: 'jwt' } })).toEqual([
      expect.stringMatching(/`globalGuard` shapes the module.*top level of forRootAsync/),
      expect.stringMatching(/`session` is an option, not a module setting.*return it from the factory/),
    ]);
  });

  it('refuses a rate-limit store given both as an option and as a provider', () => {
    expect(problemsOf({ secret: SECRET, providers: [], rateLimit: { store: new MemoryRateLimitStore() } }, { rateLimitStore: MemoryRateLimitStore })).toEqual([
      expect.stringMatching(/`rateLimit.store` and `rateLimitStore` are both set/),
    ]);
  });
});
