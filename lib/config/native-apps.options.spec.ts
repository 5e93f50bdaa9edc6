import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { resolveAccessToken, withGlobalPrefix } from './access-token.options.js';
import {
  redirectMatches,
  registeredRedirect,
  resolveNativeApps,
  type ResolvedNativeClient,
} from './native-apps.options.js';

function client(...uris: string[]): ResolvedNativeClient {
  return {
    clientId: 'app',
    name: 'app',
    redirectUris: uris.map((u) => {
      const r = registeredRedirect(u);
      if (typeof r === 'string') throw new Error(`${u} ${r}`);
      return r;
    }),
  };
}

describe('registered redirect URIs (RFC 8252 section 7)', () => {
  it.each([
    ['https://app.example.com/oauth', 'https'],
    ['com.example.app:/oauth', 'scheme'],
    ['com.example.app:/oauth?x=1', 'scheme'],
    ['http://127.0.0.1/callback', 'loopback'],
    ['http://127.0.0.1:8080/callback', 'loopback'],
    ['http://[::1]/cb', 'loopback'],
  ])('accepts %s as %s', (uri, kind) => {
    expect(registeredRedirect(uri)).toMatchObject({ kind, uri });
  });

  it.each([
    ['http://localhost/cb', /localhost/],
    ['http://example.com/cb', /127\.0\.0\.1/],
    ['myapp:/cb', /reversed/],
    ['javascript:alert(1)', /scheme "javascript"/],
    ['data:text/html,x', /scheme "data"/],
    ['file:///etc/passwd', /scheme "file"/],
    ['https://app.example.com/cb#x', /fragment/],
    ['https://user:pw@app.example.com/cb', /credentials/],
    ['https://APP.example.com/cb', /as it is sent/],
    ['http://127.0.0.1:80/cb', /as it is sent/],
    ['http://127.0.0.1/a/../cb', /as it is sent/],
    ['/relative', /absolute/],
    ['', /URI/],
  ])('refuses %s', (uri, why) => {
    expect(registeredRedirect(uri)).toMatch(why);
  });
});

describe('matching a requested redirect URI: exact, but any port for loopback', () => {
  const table: Array<[string[], string, boolean]> = [
    [['com.example.app:/oauth'], 'com.example.app:/oauth', true],
    [['com.example.app:/oauth'], 'com.example.app:/oauth/', false],
    [['com.example.app:/oauth'], 'com.example.app:/OAUTH', false],
    [['com.example.app:/oauth'], 'com.example.app:/oauth?x=1', false],
    [['com.example.app:/oauth'], 'COM.EXAMPLE.APP:/oauth', false],
    [['https://app.example.com/oauth'], 'https://app.example.com/oauth', true],
    [['https://app.example.com/oauth'], 'https://app.example.com/oauth2', false],
    [['https://app.example.com/oauth'], 'https://app.example.com:443/oauth', false],
    [['https://app.example.com/oauth'], 'https://app.example.com/oauth/../oauth', false],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:51234/cb', true],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1/cb', true],
    [['http://127.0.0.1:7777/cb'], 'http://127.0.0.1:9999/cb', true],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:51234/cb/', false],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:51234/cb?x', false],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:51234/x/../cb', false],
    [['http://127.0.0.1/cb'], 'http://[::1]:51234/cb', false],
    [['http://127.0.0.1/cb'], 'http://localhost:51234/cb', false],
    [['http://127.0.0.1/cb'], 'https://127.0.0.1:51234/cb', false],
    [['http://127.0.0.1/cb'], 'http://user@127.0.0.1:51234/cb', false],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:51234/cb#x', false],
    // Loopback at any port only when a loopback URI is registered.
    [['com.example.app:/oauth'], 'http://127.0.0.1:51234/oauth', false],
    [['https://app.example.com/oauth'], 'http://127.0.0.1:443/oauth', false],
  ];
  it.each(table)('%j: %s → %s', (registered, requested, matches) => {
    expect(redirectMatches(client(...registered), requested)).toBe(matches);
  });

  it('refuses what is not a string, and very long URIs', () => {
    const c = client('com.example.app:/oauth');
    for (const v of [undefined, null, 1, ['com.example.app:/oauth'], {}]) expect(redirectMatches(c, v)).toBe(false);
    expect(redirectMatches(c, `com.example.app:/oauth${'a'.repeat(3000)}`)).toBe(false);
  });
});

describe('resolveNativeApps', () => {
  const context = { adapter: new MemoryAdapter(), url: new URL('https://api.example.com'), basePath: '/auth' };
  /** Both options as resolve-config resolves them. */
  function resolve(
    native: unknown,
    token: unknown,
    ctx: typeof context | { adapter: null; url: undefined; basePath: string },
    problems: string[],
  ) {
    const accessToken = resolveAccessToken(token, { ...ctx, required: native !== undefined }, problems);
    return { accessToken, nativeApps: resolveNativeApps(native, accessToken, ctx, problems) };
  }

  it('resolves clients and defaults; the issuer comes from url and basePath', () => {
    const problems: string[] = [];
    const { nativeApps, accessToken } = resolve(
      { clients: [{ clientId: 'ios', name: 'Acme', redirectUris: ['com.acme.app:/cb'] }] },
      undefined,
      context,
      problems,
    );
    expect(problems).toEqual([]);
    expect(nativeApps).toMatchObject({ codeMaxAge: 60, refreshMaxAge: 2_592_000, reuseWindow: 30 });
    expect(nativeApps!.clients.get('ios')).toMatchObject({ name: 'Acme' });
    expect(accessToken).toMatchObject({
      enabled: true,
      keys: 'stored',
      maxAge: 600,
      issuer: 'https://api.example.com/auth',
      audience: 'https://api.example.com/auth',
    });
  });

  it('says what to write instead for each mistake', () => {
    const problems: string[] = [];
    resolve(
      {
        clients: [
          { clientId: 'a b', redirectUris: ['x'] },
          { clientId: 'ok', redirectUris: ['http://localhost/cb'], extra: 1 },
          { clientId: 'ok', redirectUris: [] },
        ],
        reuseWindow: -1,
        nope: true,
      },
      { maxAge: 2 },
      { adapter: null, url: undefined, basePath: '/auth' },
      problems,
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/clients\[0\]\.clientId must be/),
        expect.stringMatching(/clients\[1\]\.extra is not an option/),
        expect.stringMatching(/http:\/\/localhost\/cb" uses localhost/),
        expect.stringMatching(/clients\[2\]\.redirectUris must list/),
        expect.stringMatching(/"ok" is listed twice/),
        expect.stringMatching(/reuseWindow must be/),
        expect.stringMatching(/nativeApps\.nope is not an option/),
        expect.stringMatching(/accessToken\.maxAge must be/),
        expect.stringMatching(/stable issuer/),
        expect.stringMatching(/no adapter/),
      ]),
    );
  });

  it('needs an adapter with refresh-token families', () => {
    const problems: string[] = [];
    const bare = Object.assign(new MemoryAdapter(), { createRefreshFamily: undefined }) as never;
    resolve(
      { clients: [{ clientId: 'a', redirectUris: ['com.a.b:/c'] }] },
      undefined,
      { ...context, adapter: bare },
      problems,
    );
    expect(problems).toEqual([
      expect.stringMatching(/the adapter lacks createRefreshFamily \(MissingAdapterMethods\)/),
    ]);
  });
});

describe("access tokens' issuer under the app's global prefix (withGlobalPrefix)", () => {
  const url = new URL('https://api.example.com');
  const resolve = (option: unknown) =>
    resolveAccessToken(option, { adapter: null, url, basePath: '/auth', required: false }, []);

  it('moves a derived issuer and audience under the prefix', () => {
    const moved = withGlobalPrefix(resolve({}), url, '/api/auth');
    expect(moved).toMatchObject({
      issuer: 'https://api.example.com/api/auth',
      audience: 'https://api.example.com/api/auth',
    });
  });

  it('keeps what was given: the issuer, the audience, or both', () => {
    expect(withGlobalPrefix(resolve({ issuer: 'https://id.example.com' }), url, '/api/auth')).toMatchObject({
      issuer: 'https://id.example.com',
      audience: 'https://id.example.com',
    });
    expect(withGlobalPrefix(resolve({ audience: 'https://api.example.com' }), url, '/api/auth')).toMatchObject({
      issuer: 'https://api.example.com/api/auth',
      audience: 'https://api.example.com',
    });
  });
});

describe('accessToken.algorithm', () => {
  const url = new URL('https://api.example.com');
  const stored = { adapter: new MemoryAdapter(), url, basePath: '/auth', required: false };
  const bare = { adapter: null, url, basePath: '/auth', required: false };
  function resolve(option: unknown, context: typeof stored | typeof bare = stored) {
    const problems: string[] = [];
    return { resolved: resolveAccessToken(option, context, problems), problems };
  }
  const rsaJwk = (modulusLength = 2048) =>
    generateKeyPairSync('rsa', { modulusLength }).privateKey.export({ format: 'jwk' }) as Record<string, string>;
  const edJwk = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });

  it("is 'EdDSA' by default; 'RS256' with stored keys", () => {
    expect(resolve({})).toMatchObject({ problems: [], resolved: { algorithm: 'EdDSA', keys: 'stored' } });
    expect(resolve({ algorithm: 'RS256' })).toMatchObject({
      problems: [],
      resolved: { algorithm: 'RS256', keys: 'stored' },
    });
    expect(resolve({ algorithm: 'RS256', keys: 'stored' }).problems).toEqual([]);
  });

  it('says which algorithms there are for any other value', () => {
    for (const value of ['HS256', 'rs256', 'ES256', 1, null])
      expect(resolve({ algorithm: value }).problems).toEqual([
        expect.stringMatching(/^accessToken\.algorithm must be 'EdDSA' or 'RS256' .*not /),
      ]);
  });

  it("refuses 'RS256' with derived keys, given or the default without storage, saying what to do", () => {
    const said = [
      expect.stringMatching(
        /'RS256' needs stored or given keys: derived keys are Ed25519 only.*keys 'stored'.*RSA private JWKs/,
      ),
    ];
    expect(resolve({ algorithm: 'RS256', keys: 'derived' }).problems).toEqual(said);
    expect(resolve({ algorithm: 'RS256' }, bare).problems).toEqual(said);
    expect(resolve({ algorithm: 'EdDSA', keys: 'derived' }).problems).toEqual([]);
    // keys 'stored' without storage: that one problem, not a second.
    expect(resolve({ algorithm: 'RS256', keys: 'stored' }, bare).problems).toEqual([
      expect.stringMatching(/accessToken\.keys 'stored' needs an adapter/),
    ]);
  });

  it('takes RSA private JWKs as keys (each key its own alg); an explicit algorithm must agree with every key', () => {
    const rsa = rsaJwk();
    expect(resolve({ keys: [rsa] })).toMatchObject({ problems: [], resolved: { keys: [{ alg: 'RS256' }] } });
    expect(resolve({ keys: [{ ...rsa, alg: 'RS256' }], algorithm: 'RS256' }, bare).problems).toEqual([]);
    expect(resolve({ keys: [edJwk(), rsa] })).toMatchObject({
      problems: [],
      resolved: { keys: [{ alg: 'EdDSA' }, { alg: 'RS256' }] },
    });
    expect(resolve({ keys: [rsa], algorithm: 'EdDSA' }).problems).toEqual([
      expect.stringMatching(
        /accessToken\.keys\[0\] is an RS256 key but accessToken\.algorithm is 'EdDSA': leave algorithm out/,
      ),
    ]);
    expect(resolve({ keys: [rsa, edJwk()], algorithm: 'RS256' }).problems).toEqual([
      expect.stringMatching(/accessToken\.keys\[1\] is an EdDSA key but accessToken\.algorithm is 'RS256'/),
    ]);
  });

  it('refuses an RSA key that is weak, for another alg, incomplete, or whose parts do not agree', () => {
    const other = rsaJwk();
    const cases: Array<[unknown, RegExp]> = [
      [rsaJwk(1024), /keys\[0\] is an RSA key of 1024 bits: RS256 keys must have 2048 to 4096 bits/],
      [{ ...rsaJwk(), alg: 'PS256' }, /keys\[0\] is an RSA key with alg "PS256": RSA keys sign RS256 only/],
      [
        { ...rsaJwk(), p: undefined, qi: '' },
        /keys\[0\] is an RSA private JWK without p, qi: give the whole private key/,
      ],
      [{ ...rsaJwk(), n: other.n }, /keys\[0\] is not a valid RSA private key: its parts do not agree/],
      [{ ...rsaJwk(), d: undefined }, /keys\[0\] must be a private JWK: .*\{ kty: 'RSA', n, e, d, p, q, dp, dq, qi \}/],
    ];
    for (const [jwk, said] of cases) expect(resolve({ keys: [jwk] }).problems).toEqual([expect.stringMatching(said)]);
  });
});
