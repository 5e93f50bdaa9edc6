import { describe, expect, it } from '@jest/globals';
import { AuthConfigurationError } from '../errors/auth.errors.js';
import { resolveConfig } from '../sign-in-methods.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { defaultRedirect } from './defaults.js';
import type { AuthModuleExtras, AuthModuleOptions } from './auth-options.interface.js';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store.js';
import { optionKeyProblems } from './option-keys.js';

const SECRET = 'a-secret-that-is-long-enough-for-tests-000';

function problemsOf(
  options: AuthModuleOptions,
  env: NodeJS.ProcessEnv = {},
  adapter: object | null = null,
  extras: AuthModuleExtras = {},
): string[] {
  try {
    resolveConfig(options, extras, adapter, env);
  } catch (error) {
    expect(error).toBeInstanceOf(AuthConfigurationError);
    return (error as AuthConfigurationError).problems;
  }
  return [];
}

describe('resolveConfig', () => {
  it('reports every problem at once, each saying what to do', () => {
    const problems = problemsOf({
      secret: 'short',
      session: { strategy: 'database', maxAge: -1 },
      providers: [
        { id: 'a b', name: 'A', type: 'oauth' } as never,
        { id: 'dup', name: 'One', type: 'oidc', issuer: 'https://idp.test', clientId: 'x' },
        { id: 'dup', name: 'Two', type: 'oidc', issuer: 'https://idp.test', clientId: 'x' },
        { id: 'weird', name: 'W', type: 'saml' } as never,
        { id: 'bare', name: 'Bare', type: 'oauth', clientId: 'x' },
        { id: 'email', name: 'Email', type: 'email', sendVerificationRequest: () => undefined },
        { id: 'creds', name: 'Creds', type: 'credentials', credentials: {} } as never,
      ],
    });
    const text = problems.join('\n');
    expect(text).toMatch(/secret is too short/);
    expect(text).toMatch(/session.maxAge must be a positive number/);
    expect(text).toMatch(/URL-safe/);
    expect(text).toMatch(/used by another provider/);
    expect(text).toMatch(/unknown type "saml"/);
    expect(text).toMatch(/"bare".*issuer.*authorization.*token.*userinfo/);
    expect(text).toMatch(/"email".*needs storage/);
    expect(text).toMatch(/MissingAuthorize/);
    expect(text).toMatch(/session.strategy is 'database' but no adapter/);
    expect(problems.length).toBeGreaterThanOrEqual(9);
  });

  it('falls back to AUTH_SECRET and rotates with AUTH_SECRET_1..3', () => {
    const config = resolveConfig({ providers: [] }, {}, null, { AUTH_SECRET: SECRET, AUTH_SECRET_1: `${SECRET}-old` });
    expect(config.secrets).toEqual([`${SECRET}-old`, SECRET]);
    expect(problemsOf({ providers: [] }, {})).toEqual([expect.stringMatching(/No secret: set the AUTH_SECRET/)]);
  });

  it('lists the adapter methods a feature needs but the adapter lacks', () => {
    const problems = problemsOf(
      { secret: SECRET, session: { strategy: 'database' }, providers: [] },
      {},
      { createUser: () => null, getUser: () => null },
    );
    expect(problems.join()).toMatch(
      /lacks getUserByEmail, getUserByAccount, updateUser, linkAccount, createSession, getSessionAndUser, updateSession, deleteSession \(MissingAdapterMethods\)/,
    );
  });

  it("merges a factory's options over its defaults and reads AUTH_<ID>_* env vars", () => {
    const config = resolveConfig(
      {
        secret: SECRET,
        providers: [
          {
            id: 'my-idp',
            name: 'IdP',
            type: 'oidc',
            issuer: 'https://default.test',
            style: { brandColor: '#111', logo: 'x' },
            options: { style: { brandColor: '#222' } },
          } as never,
        ],
      },
      {},
      null,
      { AUTH_MY_IDP_ID: 'client-id', AUTH_MY_IDP_SECRET: 'client-secret' },
    );
    const p = config.providerById.get('my-idp')!.config;
    expect(p.clientId).toBe('client-id');
    expect(p.clientSecret).toBe('client-secret');
    expect(p.style).toEqual({ brandColor: '#222', logo: 'x' });
  });

  it('session.jwtRevocation and session.hashTokens are booleans', () => {
    expect(
      problemsOf({ secret: SECRET, providers: [], session: { jwtRevocation: 'yes' as never, hashTokens: 1 as never } }),
    ).toEqual([
      'session.jwtRevocation must be true or false, not "yes".',
      'session.hashTokens must be true or false, not 1.',
    ]);
    expect(
      resolveConfig({ secret: SECRET, providers: [], session: { jwtRevocation: true } }, {}, null, {}).session
        .jwtRevocation,
    ).toBe(true);
  });

  it('session.tokens: only with the JWT strategy, and only true or false', () => {
    expect(
      resolveConfig({ secret: SECRET, providers: [], session: { tokens: true } }, {}, null, {}).session.tokens,
    ).toBe(true);
    expect(resolveConfig({ secret: SECRET, providers: [] }, {}, null, {}).session.tokens).toBe(false);
    expect(() =>
      resolveConfig(
        { secret: SECRET, providers: [], session: { strategy: 'database', tokens: true } },
        {},
        new MemoryAdapter(),
        {},
      ),
    ).toThrow(/session\.tokens keeps provider tokens in the JWT session/);
    expect(() =>
      resolveConfig({ secret: SECRET, providers: [], session: { tokens: 'yes' as never } }, {}, null, {}),
    ).toThrow(/session\.tokens must be true or false/);
  });

  it('takes the session cache bounds as whole numbers, refusing anything else at bootstrap', () => {
    const session = (extra: object) =>
      resolveConfig({ secret: SECRET, providers: [], session: { strategy: 'jwt', ...extra } }, {}, null, {}).session;
    expect(session({})).toMatchObject({ cacheMaxEntries: 10_000, cacheMaxBytes: 3 * 1024 * 1024 });
    expect(session({ cacheMaxEntries: 0, cacheMaxBytes: 16 * 1024 * 1024 })).toMatchObject({
      cacheMaxEntries: 0,
      cacheMaxBytes: 16 * 1024 * 1024,
    });
    for (const bad of [-1, 1.5, '4mb', Number.NaN, 2 ** 40, null]) {
      expect(() => session({ cacheMaxBytes: bad })).toThrow(
        `session.cacheMaxBytes must be a whole number of bytes from 0 to 4294967296 (e.g. 8 * 1024 * 1024), not ${JSON.stringify(bad)}.`,
      );
      expect(() => session({ cacheMaxEntries: bad })).toThrow(
        `session.cacheMaxEntries must be a whole number of sessions from 0 to 10000000, not ${JSON.stringify(bad)}.`,
      );
    }
  });

  it('applies the documented defaults', () => {
    const config = resolveConfig({ secret: SECRET, providers: [] }, {}, null, {});
    expect(config.basePath).toBe('/auth');
    expect(config.session).toMatchObject({
      strategy: 'jwt',
      maxAge: 2592000,
      updateAge: 86400,
      cacheTtl: 0,
      jwtRevocation: false,
      hashTokens: false,
    });
    expect(config.cookies.plain.sessionToken.name).toBe('authjs.session-token');
    expect(config.cookies.secure.sessionToken.name).toBe('__Secure-authjs.session-token');
    expect(config.cookies.secure.csrfToken.name).toBe('__Host-authjs.csrf-token');
    expect(config.session.generateSessionToken()).toMatch(/^[0-9a-f]{64}$/);
    // With an adapter the default strategy is 'database', so an incomplete adapter is reported.
    expect(() => resolveConfig({ secret: SECRET, providers: [] }, {}, {}, {})).toThrow(
      /database sessions: the adapter lacks/,
    );
  });

  it('refuses a malformed basePath, url and pages', () => {
    const problems = problemsOf({ secret: SECRET, providers: [], url: 'ftp://x', pages: { signIn: 'login' } }, {});
    expect(problems.join()).toMatch(/url "ftp:\/\/x"/);
    expect(problems.join()).toMatch(/pages.signIn must be a path/);
    expect(() => resolveConfig({ secret: SECRET, providers: [] }, { basePath: '/a b' }, null, {})).toThrow(/basePath/);
  });
});

describe('defaultRedirect', () => {
  const base = 'https://app.test';
  it.each([
    ['/dashboard?x=1', 'https://app.test/dashboard?x=1'],
    ['https://app.test/ok', 'https://app.test/ok'],
    ['https://evil.test/', base],
    ['//evil.test/x', base],
    ['/\\evil.test', base],
    ['javascript:alert(1)', base],
    ['https://app.test.evil.test/', base],
    ['%zz', base],
    ['', base],
  ])('%s → %s', (url, expected) => {
    expect(defaultRedirect(url, base)).toBe(expected);
  });
});

/** Problems of options and extras as a user may write them (typos included). */
function problemsWith(options: object, extras: object = {}): string[] {
  return problemsOf(options as AuthModuleOptions, {}, null, extras as AuthModuleExtras);
}

describe('unknown option keys', () => {
  it('accepts every known option and setting', () => {
    expect(
      optionKeyProblems(
        {
          secret: SECRET,
          providers: [],
          session: {},
          jwt: {},
          callbacks: {},
          events: {},
          pages: {},
          theme: {},
          cookies: {},
          useSecureCookies: true,
          trustHost: true,
          url: 'https://a.test',
          redirectProxyUrl: 'https://b.test',
          debug: false,
          logger: {},
        },
        {
          isGlobal: true,
          basePath: '/auth',
          adapter: undefined,
          dataSource: 'db',
          globalGuard: true,
          rateLimitStore: undefined,
          revocationBus: undefined,
        },
      ),
    ).toEqual([]);
  });

  it('reports each unknown key with the known key it is closest to, with the other problems', () => {
    const problems = problemsWith({
      secret: 'short',
      providers: [],
      sesion: { strategy: 'jwt' },
      globalGaurd: true,
      Debug: true,
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/unknown option `sesion`: did you mean `session`\?/),
        expect.stringMatching(/unknown option `globalGaurd`: did you mean `globalGuard`\?/),
        expect.stringMatching(/unknown option `Debug`: did you mean `debug`\?/),
        expect.stringMatching(/secret is too short/),
      ]),
    );
    expect(problems).toHaveLength(4);
  });

  it('lists the known keys when nothing is close', () => {
    expect(problemsWith({ secret: SECRET, providers: [], frobnicate: 1 })).toEqual([
      expect.stringMatching(
        /unknown option `frobnicate`: use one of secret, providers, session, .*rateLimitStore, revocationBus, methods\./,
      ),
    ]);
  });

  it('reports unknown settings next to the options (forRootAsync top level)', () => {
    expect(problemsWith({ secret: SECRET, providers: [] }, { basePath: '/auth', basPath: '/x' })).toEqual([
      expect.stringMatching(/unknown option `basPath`: did you mean `basePath`\?/),
    ]);
  });

  it('says where a key belongs when it is in the wrong place', () => {
    // An option next to useFactory, and a module setting returned by the factory: both would be ignored.
    expect(
      problemsWith({ secret: SECRET, providers: [], globalGuard: true }, { session: { strategy: 'jwt' } }),
    ).toEqual([
      expect.stringMatching(/`globalGuard` shapes the module.*top level of forRootAsync/),
      expect.stringMatching(/`session` is an option, not a module setting.*return it from the factory/),
    ]);
  });

  it('says where a moved option went (breaking: one place per setting)', () => {
    const bus = { publish: async () => undefined, subscribe: async () => undefined, close: async () => undefined };
    expect(
      problemsWith({
        secret: SECRET,
        providers: [],
        rateLimit: { store: new MemoryRateLimitStore() },
        session: { revocationBus: bus },
      }),
    ).toEqual([
      expect.stringMatching(
        /^`rateLimit.store` moved to the `rateLimitStore` module setting: write `rateLimitStore: store`/,
      ),
      expect.stringMatching(/^`session.revocationBus` moved to the `revocationBus` module setting/),
    ]);
    // Also when given next to useFactory (forRootAsync's top level), where a setting belongs.
    expect(
      problemsWith({ secret: SECRET, providers: [] }, { rateLimit: { store: new MemoryRateLimitStore() } }),
    ).toEqual([expect.stringMatching(/^`rateLimit.store` moved to the `rateLimitStore` module setting/)]);
  });
});
