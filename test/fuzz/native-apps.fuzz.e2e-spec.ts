/**
 * The route fuzzer, native apps (RFC 8252, `nativeApps`): a bounded, seeded run of hostile requests
 * at `GET|POST {basePath}/authorize`, `POST {basePath}/token`, `POST {basePath}/revoke`, `GET
 * {basePath}/jwks` (and the guarded routes an access token opens), in both session strategies, on a
 * real socket. The fixtures are real, fetched anew every {@link REFRESH_EVERY} requests through the
 * app's own flow: a browser signed in with a password, a check cookie of an authorization request, a
 * fresh one-time code and a spent one (each with its PKCE verifier and redirect URI), an access
 * token, the current refresh token of its family and a spent one. The fuzzer sends those (as they
 * are, tampered, truncated, with another client or verifier, with a MAC under another secret, of a
 * family that does not exist, of a generation that does not) next to junk: malformed and oversized
 * parameters, unknown clients, redirect URIs that are nearly registered ones, PKCE challenges of the
 * wrong shape, arrays and objects where strings are expected, other scripts, markup and CRLF, form
 * and JSON bodies and broken ones, odd methods and paths, hostile Host and forwarding headers, an
 * embedded web view's User-Agent, oversized heads.
 *
 * Every answer must satisfy the route fuzzer's checks (test/fuzz/checks.ts: below 500, nothing
 * reflected or injected, nosniff under basePath, no session shown or set without credentials), send
 * the browser nowhere but the origin or a redirect URI the request named that is registered for a
 * client it named (RFC 8252 section 7: exactly, a loopback one at any port), carrying `iss`, in a
 * Location of at most 8 KiB (what the module bounds, a `state` of 512 characters, stays far below);
 * no error may be logged and nothing thrown uncaught. A code goes to the app only for a request that
 * carried the signed-in browser's session; tokens only for a request that carried a real code or
 * refresh token, with `Cache-Control: no-store`; no answer but a token response carries the
 * fixtures' codes or tokens; the JWKS holds public keys only. Storage (users, accounts, sessions,
 * verification tokens, refresh-token families, passkeys, second factors) is compared before and
 * after every request: a refused request writes nothing. The only rows an answer may add are the
 * verification token of a code it sends to the app, and the session row and family of a code it
 * exchanged; rows change only under a token response (a rotation); rows go only for a request that
 * carried a real code, refresh or access token (a revocation, or a replay that ends its sign-in, as
 * RFC 6749 section 4.1.2 and RFC 9700 ask), and never a browser's session. Afterwards, a native app
 * still signs in, its token opens a guarded route, and its revocation closes it again.
 *
 * FUZZ_SEED (default: a fixed seed, {@link FIXED_SEED}; `random` for a new one) and FUZZ_COUNT
 * (default 2400, split over both strategies) replay a run, as for the other fuzz suites (this suite
 * draws its own stream for a seed); FUZZ_MAX_FAILURES and FUZZ_VERBOSE=1 too.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Credentials, MemoryAdapter } from '../../lib/index.js';
import { createTestApp, TEST_SECRET, type TestApp } from '../setup/app.js';
import { checkAnswer, type AnswerRules } from './checks.js';
import { anonymousCsrf, call, credentialsSignIn, setCookiePairs, type FixtureTarget } from './fixtures.js';
import type { CookiePair, Fixtures, FuzzRequest, SignedIn } from './generator.js';
import { badPercent, encodeValue, EVIL_HOST, injection, junk, markup } from './payloads.js';
import { mixSeed, Rng } from './prng.js';
import { fuzzLog, getGc, heapAfterGc, parseCount, parseSeed, showRequest, strategyRequests } from './run.js';
import { buildRequest, finish, sendRaw, type HeaderLine, type WireResponse } from './wire.js';

const ORIGIN = 'http://app.test';
/** The access tokens' issuer: the module's default for `url` and basePath. */
const ISSUER = `${ORIGIN}/auth`;
/** This suite's default seed: the same run every time unless FUZZ_SEED says otherwise. */
const FIXED_SEED = 20261125;
const SEED = process.env.FUZZ_SEED ? parseSeed(process.env.FUZZ_SEED) : FIXED_SEED;
const COUNT = parseCount(process.env.FUZZ_COUNT);
const REPLAY = `FUZZ_SEED=${SEED} FUZZ_COUNT=${COUNT}`;
/** This suite's stream of requests, apart from the other suites' for the same seed. */
const STREAM = 0x4a7;
/** Fixtures (a session, codes, a token family) are fetched anew this often. */
const REFRESH_EVERY = 50;
/** Failures reported before a run stops. */
const MAX_FAILURES = Number(process.env.FUZZ_MAX_FAILURES) || 25;
const VERBOSE = process.env.FUZZ_VERBOSE === '1';
/** Allowed growth of the heap after GC between the end of the warm-up and the end of the run. */
const MAX_HEAP_GROWTH = 10 * 1024 * 1024;
/** `nativeApps.reuseWindow`: a spent refresh token is answered with the newest pair this long. */
const REUSE_WINDOW = 2;

const SCHEME_REDIRECT = 'com.example.app:/oauth';
const LOOPBACK_REDIRECT = 'http://127.0.0.1/callback';
const LINK_REDIRECT = 'https://app.example.test/oauth/cb';
const DESKTOP_REDIRECT = 'http://127.0.0.1:7777/cb';
/** The registered apps, as the module is configured with them (and as this suite matches redirects, on its own). */
const CLIENTS = [
  { clientId: 'ios', name: 'Acme for iOS', redirectUris: [SCHEME_REDIRECT, LOOPBACK_REDIRECT, LINK_REDIRECT] },
  { clientId: 'desktop', redirectUris: [DESKTOP_REDIRECT] },
];
const CHECK_COOKIE = 'authjs.native-authorize';

/** Credentials users: `fixture` signs the browser in; `final` signs in after the run. The fuzzer names neither. */
const USERS = new Map([
  ['fixture', { id: 'user-fixture', email: 'fixture@example.test', password: 'fixture-password-1' }],
  ['final', { id: 'user-final', email: 'final@example.test', password: 'final-password-2' }],
]);

// ---- fixtures ------------------------------------------------------------------------------------

/** A one-time code and what its exchange needs. */
interface CodeFixture {
  code: string;
  verifier: string;
  redirectUri: string;
}

/** Real material from the app's own flow, refreshed every {@link REFRESH_EVERY} requests. */
interface NativeFixtures {
  anon: Fixtures['anon'];
  /** The browser signed in with a password: its session and CSRF pair. */
  user: SignedIn;
  /** The check cookie of an authorization request the browser started before signing in (`params`). */
  check: CookiePair;
  /** That authorization request: a valid one, for the client `ios`. */
  params: Record<string, string>;
  /** A code not exchanged yet (of `params`), and one already exchanged. */
  code: CodeFixture;
  spentCode: CodeFixture;
  /** The family's access token and current refresh token, and the one it was rotated from. */
  access: string;
  refresh: string;
  spentRefresh: string;
}

/** The material a request can carry, as it was handed out (matched exactly). */
type Material = 'session' | 'code' | 'spentCode' | 'access' | 'refresh' | 'spentRefresh' | 'minted';

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizationParams(redirectUri: string, challenge: string): Record<string, string> {
  return {
    response_type: 'code',
    client_id: 'ios',
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: randomBytes(12).toString('base64url'),
  };
}

function expectAnswer(res: WireResponse, status: number, what: string): void {
  if (res.status !== status)
    throw new Error(
      `${what}: expected ${status}, got ${res.status} ${res.headers.location ?? ''} ${res.body.slice(0, 200)}`,
    );
}

/** The code on a redirect to the app, or an error naming the answer. */
function codeOf(res: WireResponse, redirectUri: string, what: string): string {
  expectAnswer(res, 302, what);
  const to = res.headers.location ?? '';
  if (!to.startsWith(`${redirectUri}?`)) throw new Error(`${what} went to ${to}`);
  const code = new URL(to).searchParams.get('code');
  if (!code) throw new Error(`${what} sent no code: ${to}`);
  return code;
}

function tokenPair(res: WireResponse, what: string): { access_token: string; refresh_token: string } {
  expectAnswer(res, 200, what);
  return JSON.parse(res.body) as { access_token: string; refresh_token: string };
}

/**
 * The fixtures, through the app's own flow over the raw socket: an authorization request that
 * sends the browser to sign in (and sets the check cookie), the password sign-in, the same request
 * again (a code, `code`); a second request confirmed with "Continue" (a POST with the session's CSRF
 * token) whose code is exchanged (`spentCode`) for a pair, and the pair refreshed once.
 */
async function nativeFixtures(target: FixtureTarget, n: number): Promise<NativeFixtures> {
  const anon = await anonymousCsrf(target);
  const first = pkce();
  const params = authorizationParams(SCHEME_REDIRECT, first.challenge);
  const started = await call(target, 'GET', `/auth/authorize?${new URLSearchParams(params)}`, {
    cookies: [anon.cookie],
  });
  expectAnswer(started, 302, 'GET /auth/authorize before signing in');
  if (!(started.headers.location ?? '').startsWith(`${ORIGIN}/auth/signin?`))
    throw new Error(`GET /auth/authorize before signing in went to ${started.headers.location}`);
  const check = setCookiePairs(started).find(([name]) => name === CHECK_COOKIE);
  if (!check) throw new Error(`GET /auth/authorize before signing in set no ${CHECK_COOKIE} cookie`);
  const user = await credentialsSignIn(target, target.user, anon);
  const back = await call(target, 'GET', `/auth/authorize?${new URLSearchParams(params)}`, {
    cookies: [...user.session, check],
  });
  const code: CodeFixture = {
    code: codeOf(back, SCHEME_REDIRECT, 'GET /auth/authorize after signing in'),
    verifier: first.verifier,
    redirectUri: SCHEME_REDIRECT,
  };

  const second = pkce();
  const loopback = `http://127.0.0.1:${50_000 + (n % 10_000)}/callback`;
  const params2 = authorizationParams(loopback, second.challenge);
  const continued = await call(target, 'POST', '/auth/authorize', {
    cookies: [...user.session, user.csrf],
    form: { ...params2, csrfToken: user.token },
  });
  const spentCode: CodeFixture = {
    code: codeOf(continued, loopback, 'POST /auth/authorize ("Continue")'),
    verifier: second.verifier,
    redirectUri: loopback,
  };
  const pair = tokenPair(
    await call(target, 'POST', '/auth/token', {
      form: {
        grant_type: 'authorization_code',
        client_id: 'ios',
        code: spentCode.code,
        redirect_uri: loopback,
        code_verifier: second.verifier,
      },
    }),
    'POST /auth/token (authorization_code)',
  );
  const next = tokenPair(
    await call(target, 'POST', '/auth/token', {
      form: { grant_type: 'refresh_token', client_id: 'ios', refresh_token: pair.refresh_token },
    }),
    'POST /auth/token (refresh_token)',
  );
  return {
    anon,
    user,
    check,
    params,
    code,
    spentCode,
    access: next.access_token,
    refresh: next.refresh_token,
    spentRefresh: pair.refresh_token,
  };
}

// ---- requests ------------------------------------------------------------------------------------

type FieldValue = string | number | boolean | null | FieldValue[] | { [key: string]: FieldValue };
type Fields = Array<[string, FieldValue]>;

/** The routes of native apps (the action table's rows for them) and the guarded routes a token opens. */
type RouteKind = 'authorize' | 'token' | 'revoke' | 'jwks' | 'guarded';
interface NativeRoute {
  kind: RouteKind;
  method: 'GET' | 'POST';
  path: string;
}
const NATIVE_ROUTES: readonly NativeRoute[] = [
  { kind: 'authorize', method: 'GET', path: '/auth/authorize' },
  { kind: 'authorize', method: 'POST', path: '/auth/authorize' },
  { kind: 'token', method: 'POST', path: '/auth/token' },
  { kind: 'revoke', method: 'POST', path: '/auth/revoke' },
  { kind: 'jwks', method: 'GET', path: '/auth/jwks' },
];
const WEIGHTS: ReadonlyArray<readonly [number, NativeRoute | 'guarded']> = [
  [5, NATIVE_ROUTES[0]!],
  [4, NATIVE_ROUTES[1]!],
  [8, NATIVE_ROUTES[2]!],
  [4, NATIVE_ROUTES[3]!],
  [1, NATIVE_ROUTES[4]!],
  [2, 'guarded'],
];

/** Whose cookies a request carries: none, the anonymous CSRF pair, the signed-in browser's, a mix. */
type Identity = 'none' | 'anon' | 'user' | 'mixed';

/** A generated request, with what the checks need to know about it. */
interface NativeRequest extends FuzzRequest {
  kind: RouteKind;
  /** The real material it carries, exactly as handed out. */
  real: Set<Material>;
  /** Every `client_id` and `redirect_uri` string it carries (query, body; in arrays too). */
  clientIds: Set<string>;
  redirectUris: Set<string>;
}

/** `value` with the character at `at` (from the end when negative) replaced by another base64url one. */
function flip(value: string, at: number): string {
  const i = at < 0 ? value.length + at : at;
  const c = value[i] === 'A' ? 'B' : 'A';
  return `${value.slice(0, i)}${c}${value.slice(i + 1)}`;
}

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A refresh token's MAC, as the module makes it, under `secret`. */
function refreshMac(secret: string, familyId: string, generation: string): string {
  return createHmac('sha256', secret)
    .update(`nestjs-auth refresh-token\u0000${familyId}.${generation}`)
    .digest('base64url');
}

/** Hostile values that are not strings, or strings of the wrong shape, for any field. */
function oddShape(rng: Rng, m: string, real?: string): FieldValue {
  return rng.pick<FieldValue>([
    [real ?? 'x', real ?? 'y'],
    [],
    { value: real ?? 'x' },
    JSON.parse('{"__proto__":{"admin":true}}') as FieldValue,
    42,
    -1,
    1e308,
    true,
    null,
    '',
    ' ',
    `${real ?? ''}\u0000`,
    'A'.repeat(rng.pick([4097, 70_000])),
    '\ud83d\ude00'.repeat(rng.between(1, 600)),
    '\u202e\u0645\u0631\u062d\u0628\u0627',
    markup(rng, m),
  ]);
}

function clientIdValue(rng: Rng, m: string): FieldValue {
  return rng.weighted<() => FieldValue>([
    [12, () => 'ios'],
    [3, () => 'desktop'],
    [
      2,
      () =>
        rng.pick([
          '',
          'IOS',
          'ios ',
          ' ios',
          'ios\u0000',
          'android',
          'i'.repeat(200),
          '__proto__',
          'constructor',
          'ios\u200b',
          '\u0456os',
          'ios,desktop',
        ]),
    ],
    [1, () => junk(rng, m)],
    [1, () => oddShape(rng, m, 'ios')],
  ])();
}

/** Redirect URIs: registered ones (of this client or another), near misses, other sites, junk. */
function redirectUriValue(rng: Rng, m: string, fx: NativeFixtures): FieldValue {
  const port = rng.pick([1, 80, 8080, 51234, 65535]);
  return rng.weighted<() => FieldValue>([
    [8, () => fx.params.redirect_uri!],
    [2, () => `http://127.0.0.1:${port}/callback`],
    [
      1,
      () =>
        rng.pick([
          LOOPBACK_REDIRECT,
          LINK_REDIRECT,
          DESKTOP_REDIRECT,
          `http://127.0.0.1:${port}/cb`,
          fx.spentCode.redirectUri,
        ]),
    ],
    [
      5,
      () =>
        rng.pick([
          `${SCHEME_REDIRECT}/`,
          `${SCHEME_REDIRECT}x`,
          `${SCHEME_REDIRECT}?x=1`,
          `${SCHEME_REDIRECT}#frag`,
          `${SCHEME_REDIRECT}%23frag`,
          'COM.EXAMPLE.APP:/oauth',
          'com.example.app://oauth',
          'com.example.app:/oauth/../oauth',
          'com.example.app:/OAUTH',
          ` ${SCHEME_REDIRECT}`,
          `${SCHEME_REDIRECT}\u200b`,
          `${SCHEME_REDIRECT}\r\n${'X-Fuzz-Injected'}: 1`,
          'http://127.0.0.1:99999/callback',
          'http://127.0.0.1:80/callback',
          'http://127.0.0.1:0/callback',
          'http://127.0.0.1./callback',
          'http://127.1/callback',
          'http://2130706433/callback',
          'http://[::1]/callback',
          'http://localhost/callback',
          'http://127.0.0.1/callback/',
          'http://127.0.0.1/callback/../callback',
          'http://127.0.0.1/callback?x=1',
          'http://user@127.0.0.1/callback',
          `http://127.0.0.1@${EVIL_HOST}/callback`,
          `http://${EVIL_HOST}/callback`,
          `https://${EVIL_HOST}/oauth/cb`,
          'https://app.example.test/oauth/cb/',
          'https://APP.example.test/oauth/cb',
          'https://app.example.test:443/oauth/cb',
          'https://app.example.test.evil.example/oauth/cb',
          `//${EVIL_HOST}/cb`,
          '/auth/signin',
          `${ORIGIN}/me`,
          'javascript:alert(1)//',
          `data:text/html,<${m}>`,
          'file:///etc/passwd',
          'x'.repeat(3000),
        ]),
    ],
    [1, () => junk(rng, m)],
    [1, () => oddShape(rng, m, SCHEME_REDIRECT)],
  ])();
}

function challengeValue(rng: Rng, m: string, fx: NativeFixtures): FieldValue {
  return rng.weighted<() => FieldValue>([
    [8, () => fx.params.code_challenge!],
    [2, () => rng.b64url(43)],
    [
      3,
      () =>
        rng.pick([
          rng.b64url(42),
          rng.b64url(44),
          `${rng.b64url(42)}=`,
          `${rng.b64url(42)}+`,
          `${rng.b64url(42)}/`,
          rng.b64url(128),
          fx.code.verifier,
          '',
          'abc',
        ]),
    ],
    [1, () => junk(rng, m)],
    [1, () => oddShape(rng, m, fx.params.code_challenge)],
  ])();
}

function stateValue(rng: Rng, m: string, fx: NativeFixtures): FieldValue {
  return rng.weighted<() => FieldValue>([
    [6, () => fx.params.state!],
    [
      4,
      () =>
        rng.pick([
          'x'.repeat(512),
          'x'.repeat(513),
          'x'.repeat(20_000),
          markup(rng, m),
          `a${injection(rng)}`,
          '\u00e9\ud83d\ude00\u202e',
          '',
          '&code=forged&iss=https://evil.example',
          '%26code%3Dforged',
        ]),
    ],
    [1, () => oddShape(rng, m, fx.params.state)],
  ])();
}

/** The fields of an authorization request: the fixture's valid one, each field maybe replaced or left out. */
function authorizeFields(rng: Rng, m: string, fx: NativeFixtures, post: boolean, identity: Identity): Fields {
  const fields: Fields = [];
  const draws: Array<[string, () => FieldValue]> = [
    [
      'response_type',
      () =>
        rng.weighted<() => FieldValue>([
          [10, () => 'code'],
          [2, () => rng.pick(['token', 'code token', 'id_token', 'CODE', 'code ', ''])],
          [1, () => oddShape(rng, m, 'code')],
        ])(),
    ],
    ['client_id', () => clientIdValue(rng, m)],
    ['redirect_uri', () => redirectUriValue(rng, m, fx)],
    ['code_challenge', () => challengeValue(rng, m, fx)],
    [
      'code_challenge_method',
      () =>
        rng.weighted<() => FieldValue>([
          [10, () => 'S256'],
          [2, () => rng.pick(['plain', 's256', 'S512', '', 'S256 '])],
          [1, () => oddShape(rng, m, 'S256')],
        ])(),
    ],
    ['state', () => stateValue(rng, m, fx)],
  ];
  // A third of them as the app sends it (so that the flow runs on: the browser, the CSRF token, the
  // headers are what is hostile then); the rest with fields replaced or left out.
  const pristine = rng.chance(0.35);
  for (const [key, draw] of draws) {
    if (pristine) fields.push([key, fx.params[key]!]);
    else if (!rng.chance(0.04)) fields.push([key, draw()]);
  }
  if (rng.chance(0.25))
    fields.push([
      'prompt',
      rng.pick<FieldValue>([
        'login',
        'none',
        'consent',
        'select_account',
        'login none',
        junk(rng, m),
        ['login', 'none'],
      ]),
    ]);
  if (rng.chance(0.1))
    fields.push(
      ...rng.pick<Fields>([
        [['scope', 'openid offline_access']],
        [['response_mode', rng.pick(['fragment', 'form_post', 'query'])]],
        [['request_uri', `https://${EVIL_HOST}/r`]],
        [['nonce', junk(rng, m)]],
        [['callbackUrl', `https://${EVIL_HOST}/`]],
        [['redirect_uri', `https://${EVIL_HOST}/second`]],
        [['client_id', 'desktop']],
        Array.from({ length: 60 }, (_, i) => [`p${i}`, 'v'] as [string, FieldValue]),
      ]),
    );
  if (post) {
    const token = identity === 'user' ? fx.user.token : fx.anon.token;
    const csrf = rng.weighted<() => FieldValue | undefined>([
      [8, () => token],
      [1, () => (identity === 'user' ? fx.anon.token : fx.user.token)],
      [1, () => undefined],
      [1, () => rng.pick<FieldValue>([junk(rng, m), [token, token], { t: token }, `${token}x`])],
    ])();
    if (csrf !== undefined) fields.push(['csrfToken', csrf]);
  }
  return rng.chance(0.1) ? rng.shuffle(fields) : fields;
}

/** A code: the fresh one, the spent one, forgeries of them, junk. */
function codeValue(rng: Rng, m: string, fx: NativeFixtures): { value: FieldValue; of?: CodeFixture } {
  return rng.weighted<() => { value: FieldValue; of?: CodeFixture }>([
    [4, () => ({ value: fx.code.code, of: fx.code })],
    [2, () => ({ value: fx.spentCode.code, of: fx.spentCode })],
    [
      3,
      () => ({
        value: rng.pick([
          flip(fx.code.code, rng.between(10, fx.code.code.length - 2)),
          flip(fx.code.code, -1),
          fx.code.code.slice(0, -10),
          `${fx.code.code}.x`,
          fx.code.code.split('.').reverse().join('.'),
          fx.code.code.toUpperCase(),
          `${fx.code.code}=`,
          fx.access,
          fx.refresh,
          fx.user.sessionToken,
        ]),
        of: fx.code,
      }),
    ],
    [
      2,
      () => ({ value: rng.pick(['%00'.repeat(50), rng.b64url(rng.between(1, 300)), 'a'.repeat(4097), junk(rng, m)]) }),
    ],
    [1, () => ({ value: oddShape(rng, m, fx.code.code), of: fx.code })],
  ])();
}

function verifierValue(rng: Rng, m: string, of: CodeFixture | undefined, fx: NativeFixtures): FieldValue {
  return rng.weighted<() => FieldValue>([
    [8, () => (of ?? fx.code).verifier],
    [1, () => (of === fx.code ? fx.spentCode : fx.code).verifier],
    [1, () => rng.b64url(rng.pick([43, 64, 128]))],
    [
      2,
      () =>
        rng.pick([
          rng.b64url(42),
          rng.b64url(129),
          `${rng.b64url(42)}+/`,
          fx.params.code_challenge!,
          '',
          ' '.repeat(43),
        ]),
    ],
    [1, () => oddShape(rng, m, (of ?? fx.code).verifier)],
  ])();
}

/** A refresh token: the current and spent ones, forgeries (MACs, generations, families), junk. */
function refreshValue(rng: Rng, m: string, fx: NativeFixtures, notes: string[]): FieldValue {
  const [family = '', generation = '0', mac = ''] = fx.refresh.split('.');
  return rng.weighted<() => FieldValue>([
    [4, () => fx.refresh],
    [3, () => fx.spentRefresh],
    [
      3,
      () =>
        rng.pick([
          flip(fx.refresh, -1),
          flip(fx.refresh, 5),
          `${family}.${Number(generation) + 1}.${mac}`,
          `${family}.0${generation}.${mac}`,
          `${family}.-1.${mac}`,
          `${family}.1e3.${mac}`,
          `${family}.${generation}.${refreshMac('another-secret-that-is-long-enough-0123', family, generation)}`,
          `${rng.b64url(43)}.${generation}.${mac}`,
          `${fx.refresh}.x`,
          ` ${fx.refresh}`,
          fx.refresh.toLowerCase(),
          fx.refresh.replace(/\./g, '%2E'),
          `${family}..${mac}`,
          fx.refresh.slice(0, -1),
        ]),
    ],
    [
      // With the secret: tokens the module could have made, of a family that does not exist or of
      // a generation the family never reached (as an attacker with the secret would; it ends the family).
      1,
      () => {
        notes.push('refresh token minted with the secret');
        const g = rng.pick(['0', '1', '999999999', String(Number(generation) + 1), '1000000000']);
        const f = rng.chance(0.5) ? rng.b64url(43) : family;
        return `${f}.${g}.${refreshMac(TEST_SECRET, f, g)}`;
      },
    ],
    [1, () => rng.pick([fx.access, fx.code.code, 'x'.repeat(500), 'x'.repeat(70_000), junk(rng, m)])],
    [1, () => oddShape(rng, m, fx.refresh)],
  ])();
}

/** An access token: the real one, look-alikes (alg none, HS256, another typ or kid, claims changed), junk. */
function accessValue(rng: Rng, m: string, fx: NativeFixtures): string {
  const [h = '', p = '', s = ''] = fx.access.split('.');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  return rng.weighted<() => string>([
    [4, () => fx.access],
    [
      5,
      () =>
        rng.pick([
          `${h}.${p}.${flip(s, 20)}`,
          `${h}.${p}.${flip(s, -1)}`,
          `${h}.${p}.`,
          `${h}.${p}`,
          `${b64json({ alg: 'none', typ: 'at+jwt' })}.${p}.`,
          `${b64json({ ...header, alg: 'HS256' })}.${p}.${s}`,
          `${b64json({ ...header, typ: 'JWT' })}.${p}.${s}`,
          `${b64json({ ...header, kid: 'nope' })}.${p}.${s}`,
          `${b64json({ ...header, crit: ['exp'] })}.${p}.${s}`,
          `${b64json({ ...header, jku: `https://${EVIL_HOST}/jwks` })}.${p}.${s}`,
          `${h}.${b64json({ ...claims, sub: 'user-final' })}.${s}`,
          `${h}.${b64json({ ...claims, exp: 9_999_999_999 })}.${s}`,
          `${h}.${b64json({ ...claims, client_id: 'desktop' })}.${s}`,
          `${h}.${b64json({ ...claims, sid: `../${claims.sid as string}` })}.${s}`,
          `${h}.${p}.${'A'.repeat(5000)}`,
          `${fx.access}.${s}`,
          fx.access.toLowerCase(),
        ]),
    ],
    [
      1,
      () =>
        rng.pick([
          fx.refresh,
          fx.spentRefresh,
          fx.code.code,
          fx.user.sessionToken,
          'eyJ',
          `eyJ${'A'.repeat(4200)}.a.b`,
        ]),
    ],
    [1, () => junk(rng, m)],
  ])();
}

function tokenFields(rng: Rng, m: string, fx: NativeFixtures, notes: string[]): Fields {
  const grant = rng.weighted<string>([
    [5, 'authorization_code'],
    [5, 'refresh_token'],
    [2, 'other'],
  ]);
  const fields: Fields = [];
  const maybe = (key: string, value: () => FieldValue) => {
    if (!rng.chance(0.06)) fields.push([key, value()]);
  };
  maybe('grant_type', () =>
    grant === 'other'
      ? rng.pick<FieldValue>([
          'password',
          'client_credentials',
          'urn:ietf:params:oauth:grant-type:device_code',
          'AUTHORIZATION_CODE',
          'refresh_token ',
          '',
          '__proto__',
          ['authorization_code', 'refresh_token'],
          { grant: 'refresh_token' },
          junk(rng, m),
        ])
      : grant,
  );
  maybe('client_id', () => clientIdValue(rng, m));
  if (grant !== 'refresh_token' || rng.chance(0.1)) {
    const code = codeValue(rng, m, fx);
    maybe('code', () => code.value);
    maybe('redirect_uri', () => (rng.chance(0.75) ? (code.of ?? fx.code).redirectUri : redirectUriValue(rng, m, fx)));
    maybe('code_verifier', () => verifierValue(rng, m, code.of, fx));
  }
  if (grant !== 'authorization_code' || rng.chance(0.1)) maybe('refresh_token', () => refreshValue(rng, m, fx, notes));
  if (rng.chance(0.08))
    fields.push(
      rng.pick<[string, FieldValue]>([
        ['client_secret', 'secret'],
        ['scope', 'admin'],
        ['resource', `https://${EVIL_HOST}/`],
        ['code_challenge_method', 'plain'],
        ['state', markup(rng, m)],
      ]),
    );
  if (rng.chance(0.05)) fields.push(['client_id', clientIdValue(rng, m)]);
  return rng.chance(0.1) ? rng.shuffle(fields) : fields;
}

function revokeFields(rng: Rng, m: string, fx: NativeFixtures, notes: string[]): Fields {
  const fields: Fields = [];
  if (!rng.chance(0.06))
    fields.push([
      'token',
      rng.weighted<() => FieldValue>([
        [4, () => accessValue(rng, m, fx)],
        [4, () => refreshValue(rng, m, fx, notes)],
        [1, () => rng.pick([fx.code.code, fx.user.sessionToken, ''])],
        [1, () => oddShape(rng, m, fx.refresh)],
      ])(),
    ]);
  if (rng.chance(0.3))
    fields.push([
      'token_type_hint',
      rng.pick<FieldValue>(['refresh_token', 'access_token', 'id_token', junk(rng, m), ['a', 'b']]),
    ]);
  if (!rng.chance(0.06)) fields.push(['client_id', clientIdValue(rng, m)]);
  return fields;
}

function serializeQuery(rng: Rng, fields: Fields): string {
  if (fields.length === 0) return rng.chance(0.05) ? '?' : '';
  const parts: string[] = [];
  const add = (key: string, value: FieldValue) => {
    if (Array.isArray(value)) value.forEach((v) => add(rng.chance(0.3) ? `${key}[]` : key, v));
    else if (value !== null && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    else parts.push(`${encodeValue(rng, key)}=${encodeValue(rng, String(value))}`);
  };
  for (const [key, value] of fields) add(key, value);
  if (rng.chance(0.04)) parts.push(`x=${badPercent(rng)}`);
  return `?${parts.join('&')}`;
}

function formEncode(rng: Rng, fields: Fields): string {
  const parts: string[] = [];
  const add = (key: string, value: FieldValue) => {
    if (Array.isArray(value))
      value.forEach((v, i) => add(rng.chance(0.5) ? `${key}[]` : rng.chance(0.5) ? key : `${key}[${i}]`, v));
    else if (value !== null && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    else parts.push(`${encodeValue(rng, key)}=${encodeValue(rng, String(value))}`);
  };
  for (const [key, value] of fields) add(key, value);
  if (rng.chance(0.05))
    parts.push(
      rng.pick(['__proto__[admin]=1', 'constructor[prototype][admin]=1', '=x', 'novalue', `${'a['.repeat(40)}=1`]),
    );
  return parts.join('&');
}

/** A body: mostly a form (what OAuth clients send) or JSON, now and then a broken one. */
function encodeBody(rng: Rng, fields: Fields, notes: string[]): { headers: HeaderLine[]; body: Buffer } {
  const kind = rng.weighted<string>([
    [10, 'form'],
    [6, 'json'],
    [0.6, 'bad-json'],
    [0.4, 'text'],
    [0.3, 'multipart'],
    [0.5, 'wrong-type'],
    [0.4, 'charset'],
    [0.4, 'chunked'],
    [0.5, 'oversized'],
    [0.3, 'no-type'],
    [0.3, 'gzip-junk'],
  ]);
  if (kind !== 'form') notes.push(`body ${kind}`);
  const form = () => formEncode(rng, fields);
  const json = () => JSON.stringify(Object.fromEntries(fields));
  const FORM = 'application/x-www-form-urlencoded';
  switch (kind) {
    case 'form':
      return {
        headers: [['Content-Type', rng.pick([FORM, `${FORM}; charset=utf-8`, FORM.toUpperCase()])]],
        body: Buffer.from(form()),
      };
    case 'json':
      return {
        headers: [['Content-Type', rng.pick(['application/json', 'application/json; charset=utf-8'])]],
        body: Buffer.from(json()),
      };
    case 'bad-json':
      return {
        headers: [['Content-Type', 'application/json']],
        body: Buffer.from(
          rng.pick([
            '{',
            '{"grant_type":',
            '{"a":1,}',
            'null',
            '"str"',
            '[]',
            '[1,2]',
            '{"__proto__":{"admin":true}}',
            `${'['.repeat(5000)}${']'.repeat(5000)}`,
          ]),
        ),
      };
    case 'text':
      return { headers: [['Content-Type', 'text/plain']], body: Buffer.from(form()) };
    case 'multipart':
      return {
        headers: [['Content-Type', 'multipart/form-data; boundary=xyz']],
        body: Buffer.from(
          '--xyz\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nrefresh_token\r\n--xyz--\r\n',
        ),
      };
    case 'wrong-type':
      return rng.chance(0.5)
        ? { headers: [['Content-Type', 'application/json']], body: Buffer.from(form()) }
        : { headers: [['Content-Type', FORM]], body: Buffer.from(json()) };
    case 'charset':
      return {
        headers: [
          [
            'Content-Type',
            rng.pick(['application/json; charset=utf-16', `${FORM}; charset=latin1`, `${FORM}; charset="><x`]),
          ],
        ],
        body: Buffer.from(rng.chance(0.5) ? json() : form()),
      };
    case 'chunked': {
      const payload = Buffer.from(form());
      const half = Math.floor(payload.length / 2);
      const chunk = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
      const parts = [payload.subarray(0, half), payload.subarray(half)].filter((b) => b.length > 0).map(chunk);
      return {
        headers: [
          ['Content-Type', FORM],
          ['Transfer-Encoding', 'chunked'],
        ],
        body: Buffer.concat([...parts, Buffer.from('0\r\n\r\n')]),
      };
    }
    case 'oversized': {
      const size = rng.pick([150_000, 1_500_000]);
      return rng.chance(0.5)
        ? {
            headers: [['Content-Type', 'application/json']],
            body: Buffer.from(JSON.stringify({ ...Object.fromEntries(fields), code: 'x'.repeat(size) })),
          }
        : { headers: [['Content-Type', FORM]], body: Buffer.from(`${form()}&refresh_token=${'x'.repeat(size)}`) };
    }
    case 'no-type':
      return { headers: [], body: Buffer.from(form()) };
    default:
      return {
        headers: [
          ['Content-Type', FORM],
          ['Content-Encoding', rng.pick(['gzip', 'deflate', 'br', 'x-evil'])],
        ],
        body: Buffer.from(form()),
      };
  }
}

const ODD_METHODS = ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'GET', 'POST', 'TRACE', 'FOO', 'get'];
const WEBVIEW_AGENTS = [
  'Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/400.0]',
];

/** Every string in a field value, at any depth. */
function stringsOf(value: FieldValue, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

/**
 * Whether two compact JWS are the same token: the same header and claims, and a signature of the
 * same bytes. The last base64url character of an Ed25519 signature (86 characters, 516 bits for
 * 512) carries 4 unused bits, which base64url decoders ignore (Node's, and jose's `jwtVerify`): the
 * module, like jose, accepts those 16 spellings of a signature as one, so they count as the real token.
 */
function sameJws(a: string, b: string): boolean {
  if (a === b) return true;
  const [ha, pa, sa, ...restA] = a.split('.');
  const [hb, pb, sb, ...restB] = b.split('.');
  if (restA.length || restB.length || ha !== hb || pa !== pb || !sa || !sb || sa.length !== sb.length) return false;
  if (!/^[A-Za-z0-9_-]+$/.test(sa) || !/^[A-Za-z0-9_-]+$/.test(sb)) return false;
  return Buffer.from(sa, 'base64url').equals(Buffer.from(sb, 'base64url'));
}

/** The parameters of a request's query and (form) body, parsed from its bytes as a server would. */
function sentParams(bytes: Buffer): URLSearchParams[] {
  const text = bytes.toString('utf8');
  const line = text.split(/\r\n|\n|\r/, 1)[0] ?? '';
  const target = line.split(' ')[1] ?? '';
  const query = target.includes('?') ? target.slice(target.indexOf('?') + 1).split('#')[0]! : '';
  const split = text.indexOf('\r\n\r\n');
  const body = split === -1 ? '' : text.slice(split + 4);
  return [new URLSearchParams(query), new URLSearchParams(body)];
}

/**
 * Request number `index` of a run. Every third request takes the next native route in turn (so
 * each is reached within the first fifteen), the others draw one by weight.
 */
function generate(
  rng: Rng,
  marker: string,
  fx: NativeFixtures,
  origin: string,
  port: number,
  index: number,
): NativeRequest {
  const notes: string[] = [];
  const sweep = index % 3 === 0 ? NATIVE_ROUTES[(index / 3) % NATIVE_ROUTES.length] : undefined;
  const drawn = sweep ?? rng.weighted(WEIGHTS);
  const identity = rng.weighted<Identity>([
    [2, 'none'],
    [3, 'anon'],
    [5, 'user'],
    [1, 'mixed'],
  ]);
  const headers: HeaderLine[] = [];
  let kind: RouteKind;
  let method: string;
  let path: string;
  let query: Fields = [];
  let body: Fields | undefined;
  let authorization: string | undefined;

  if (drawn === 'guarded') {
    kind = 'guarded';
    method = 'GET';
    path = rng.pick(['/me', '/auth/session', '/me/fresh']);
    const token = accessValue(rng, marker, fx);
    authorization = rng.weighted<() => string>([
      [8, () => `Bearer ${token}`],
      [
        1,
        () =>
          rng.pick([
            `bearer ${token}`,
            `Bearer  ${token}`,
            `Bearer ${token} x`,
            `Basic ${token}`,
            `Bearer ${token}, Bearer ${fx.access}`,
          ]),
      ],
      [1, () => `Bearer ${'A'.repeat(rng.pick([5000, 20_000]))}`],
    ])();
  } else {
    kind = drawn.kind;
    method = drawn.method;
    path = drawn.path;
    if (kind === 'authorize') {
      const fields = authorizeFields(rng, marker, fx, method === 'POST', identity);
      if (method === 'GET') query = fields;
      else {
        body = fields;
        if (rng.chance(0.15)) query = authorizeFields(rng, marker, fx, false, identity);
      }
    } else if (kind === 'token') body = tokenFields(rng, marker, fx, notes);
    else if (kind === 'revoke') body = revokeFields(rng, marker, fx, notes);
    else query = rng.chance(0.3) ? [['x', junk(rng, marker)]] : [];
    if ((kind === 'token' || kind === 'revoke') && rng.chance(0.06)) {
      authorization = rng.pick([
        `Basic ${Buffer.from('ios:').toString('base64')}`,
        `Bearer ${fx.access}`,
        'Basic !!!',
        '',
      ]);
      notes.push('Authorization');
    }
  }
  if (rng.chance(0.05)) {
    method = rng.pick(ODD_METHODS);
    notes.push(`method ${method}`);
  }
  if (rng.chance(0.05)) {
    path = rng.pick([
      `${path}/`,
      path.toUpperCase(),
      path.replace('/auth/', '/auth//'),
      `${path};x=1`,
      path.replace('/auth/', '/auth/./'),
      path.replace('/auth/', '/auth%2F'),
      `${path}%00`,
    ]);
    notes.push('path mutated');
  }
  // A GET's fields go in the query, a POST's in the body (and now and then the other way round).
  if (method !== 'POST' && body && query.length === 0 && rng.chance(0.8)) {
    query = body;
    body = undefined;
  }
  const target = `${path}${serializeQuery(rng, query)}`;

  // ---- headers ----
  const ownHost = new URL(origin).host;
  const host = rng.weighted<string | undefined>([
    [88, ownHost],
    [
      8,
      rng.pick([
        EVIL_HOST,
        `${ownHost}.${EVIL_HOST}`,
        `127.0.0.1:${port}`,
        'bad host!',
        '',
        `${ownHost}, ${EVIL_HOST}`,
      ]),
    ],
    [2, undefined],
  ]);
  if (host !== undefined) headers.push(['Host', host]);
  if (rng.chance(0.08)) {
    headers.push(
      ['X-Forwarded-Host', rng.pick([EVIL_HOST, '', `${EVIL_HOST}:443`])],
      ['X-Forwarded-Proto', rng.pick(['https', 'javascript', ''])],
    );
    notes.push('forwarding headers');
  }
  if (method === 'POST' && rng.chance(0.4))
    headers.push([
      'Origin',
      rng.pick([origin, origin, `http://${EVIL_HOST}`, 'null', `${origin}.${EVIL_HOST}`, markup(rng, marker)]),
    ]);
  if (rng.chance(0.15)) headers.push(['Sec-Fetch-Site', rng.pick(['same-origin', 'cross-site', 'none', 'same-site'])]);
  const agent = rng.weighted<string | undefined>([
    [5, undefined],
    [
      4,
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
    ],
    [1, rng.pick(WEBVIEW_AGENTS)],
    [0.5, rng.pick([markup(rng, marker), 'u'.repeat(8000), '\u00ff\u00fe'])],
  ]);
  if (agent !== undefined) headers.push(['User-Agent', agent]);
  if (rng.chance(0.3))
    headers.push(['Accept', rng.pick(['text/html', 'application/json', '*/*', markup(rng, marker)])]);
  if (authorization !== undefined) headers.push(['Authorization', authorization]);
  if (rng.chance(0.03)) {
    headers.push([
      rng.pick(['X-Big', 'Authorization', 'Cookie', 'User-Agent']),
      'b'.repeat(rng.pick([12_000, 20_000, 70_000])),
    ]);
    notes.push('oversized head');
  }
  if (rng.chance(0.02)) {
    headers.push(['X-Note', `a\r\nX-Fuzz-Injected: from-request`]);
    notes.push('CRLF in a request header');
  }

  // ---- cookies ----
  const cookies: string[] = [];
  const pair = ([n, v]: CookiePair) => `${n}=${v}`;
  if (identity === 'anon') cookies.push(pair(fx.anon.cookie));
  if (identity === 'user') cookies.push(...fx.user.session.map(pair), pair(fx.user.csrf));
  if (identity === 'mixed') cookies.push(...fx.user.session.map(pair), pair(fx.anon.cookie));
  if (kind === 'authorize' && rng.chance(0.25)) cookies.push(pair(fx.check));
  if (rng.chance(0.05)) {
    cookies.push(
      rng.pick([
        `${CHECK_COOKIE}=${junk(rng, marker).replace(/[;\r\n]/g, '')}`,
        `${CHECK_COOKIE}=${fx.check[1].slice(0, -4)}`,
        `${CHECK_COOKIE}=${fx.user.session[0]?.[1] ?? ''}`,
        `authjs.session-token=${fx.access}`,
        `authjs.session-token=${fx.refresh}`,
      ]),
    );
    notes.push('odd cookie');
  }
  if (cookies.length) headers.push(['Cookie', cookies.join('; ')]);

  // ---- body ----
  let bytesBody: Buffer | undefined;
  if (body !== undefined) {
    const encoded = encodeBody(rng, body, notes);
    headers.push(...encoded.headers);
    bytesBody = encoded.body;
  }
  const bytes = buildRequest(`${method} ${target} HTTP/1.1`, headers, bytesBody);

  // ---- what it carries ----
  // As drawn, and as the server parses the bytes sent (a value sent without percent-encoding, or
  // with `%2E` for a dot, may decode to a real token).
  const fields = [...query, ...(body ?? [])];
  const sent = sentParams(bytes);
  const strings = [...fields.flatMap(([, v]) => stringsOf(v)), ...sent.flatMap((params) => [...params.values()])];
  const cookieLine = cookies.join('; ');
  const real = new Set<Material>();
  const bearerToken = authorization?.replace(/^bearer +/i, '');
  // The browser's session: its cookie, or its token as a bearer token (which the guard reads too).
  if (fx.user.session.every(([n, v]) => cookieLine.includes(`${n}=${v}`)) || bearerToken === fx.user.sessionToken)
    real.add('session');
  const carries = (value: string) => strings.includes(value) || bearerToken === value;
  if (carries(fx.code.code)) real.add('code');
  if (carries(fx.spentCode.code)) real.add('spentCode');
  if (strings.some((v) => sameJws(v, fx.access)) || (bearerToken !== undefined && sameJws(bearerToken, fx.access)))
    real.add('access');
  if (carries(fx.refresh)) real.add('refresh');
  if (carries(fx.spentRefresh)) real.add('spentRefresh');
  if (notes.includes('refresh token minted with the secret')) real.add('minted');
  // What the request names, likewise (a raw `#`, `&` or line break in a value ends it early there).
  const named = (key: string) =>
    new Set([
      ...fields.filter(([k]) => k === key).flatMap(([, v]) => stringsOf(v)),
      ...sent.flatMap((params) => [...params.getAll(key), ...params.getAll(`${key}[]`)]),
    ]);
  const clientIds = named('client_id');
  const redirectUris = named('redirect_uri');
  const route = sweep ?? (drawn === 'guarded' ? undefined : drawn);
  return {
    label: `${method} ${target.length > 160 ? `${target.slice(0, 160)}…` : target}`,
    method,
    target,
    bytes,
    marker,
    // A session may be shown (and re-issued) for the browser's session or the real access token.
    mayAuthenticate: real.has('session') || (bearerToken !== undefined && sameJws(bearerToken, fx.access)),
    notes,
    route: route ? { action: route.kind, method: route.method, path: route.path } : undefined,
    identity: identity === 'none' ? 'anon' : identity,
    kind,
    real,
    clientIds,
    redirectUris,
  };
}

// ---- checks --------------------------------------------------------------------------------------

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?(\/[^?#]*)$/;

/** Whether `uri` is registered for `clientId`: exactly, or a registered loopback URI at any port (RFC 8252 section 7.3). */
function registeredFor(clientId: string, uri: string): boolean {
  const client = CLIENTS.find((c) => c.clientId === clientId);
  if (!client) return false;
  return client.redirectUris.some((registered) => {
    if (registered === uri) return true;
    const a = LOOPBACK.exec(registered);
    const b = LOOPBACK.exec(uri);
    return Boolean(a && b && a[1] === b[1] && a[3] === b[3] && Number(b[2] ?? 80) <= 65_535);
  });
}

/**
 * Where an answer sends the browser off the origin, when that is a redirect URI the request named
 * and registered for a client it named; else undefined (the common checks then report it).
 */
function appRedirect(req: NativeRequest, res: WireResponse): URL | undefined {
  const to = res.headers.location;
  if (!to || to.includes('\n') || to.startsWith(`${ORIGIN}/`) || to.startsWith('/')) return undefined;
  const base = to.split('?')[0]!;
  if (!req.redirectUris.has(base)) return undefined;
  if (![...req.clientIds].some((id) => registeredFor(id, base))) return undefined;
  try {
    return new URL(to);
  } catch {
    return undefined;
  }
}

/** The answers that may write: a code sent to the app, a token response. */
function outcome(req: NativeRequest, res: WireResponse): { code: boolean; tokens: boolean } {
  const app = appRedirect(req, res);
  return {
    code: Boolean(app?.searchParams.has('code')),
    tokens: res.status === 200 && /"access_token"\s*:/.test(res.body),
  };
}

/** Nest's answer to a body its JSON parser refused (it quotes the body). */
const BODY_PARSER_REFUSAL = /"message":"(?:[^"\\]|\\.)*is not valid JSON","error":"Bad Request","statusCode":400/;

/** A JSON object body, or undefined (a body that does not parse is reported by the common checks). */
function parsed(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The longest Location header allowed (see {@link nativeProblems}). */
const MAX_LOCATION = 8192;

/** Nest's (Express) and Fastify's 404 of a method or path no route takes: they quote the request target. */
const FRAMEWORK_NOT_FOUND = /^\{"message":"(?:Cannot [A-Za-z-]+ |Route [A-Za-z-]+:)/;

/** This suite's checks of an answer, beyond the common ones. */
function nativeProblems(req: NativeRequest, res: WireResponse, fx: NativeFixtures): string[] {
  const problems: string[] = [];
  const app = appRedirect(req, res);
  const { code, tokens } = outcome(req, res);
  // The longest Location a valid request gets is about 4 KiB (a redirect URI of 2048 characters, a
  // state of 512 percent-encoded, a code, iss, an error description); one past 8 KiB carries input the
  // module bounds (and is what a reverse proxy answers with a 502: "upstream sent too big header").
  const location = res.headers.location ?? '';
  if (location.length > MAX_LOCATION)
    problems.push(`a Location of ${location.length} characters: ${location.slice(0, 160)}…`);
  if (app) {
    if (app.searchParams.get('iss') !== ISSUER)
      problems.push(`a redirect to the app without iss=${ISSUER}: ${app.href.slice(0, 200)}`);
    if (app.searchParams.has('code') && app.searchParams.has('error'))
      problems.push(`a redirect with both a code and an error: ${app.href.slice(0, 200)}`);
    if (!app.searchParams.has('code') && !app.searchParams.has('error'))
      problems.push(`a redirect to the app with neither a code nor an error: ${app.href.slice(0, 200)}`);
  }
  if (code && !req.real.has('session'))
    problems.push('a code went to the app for a request without the signed-in browser');
  if (code && !['GET', 'HEAD', 'POST'].includes(req.method))
    problems.push(`a code went to the app for a ${req.method}`);
  if (tokens) {
    // (A refresh token minted with the secret may be the family's real one.)
    if (!(req.real.has('code') || req.real.has('refresh') || req.real.has('spentRefresh') || req.real.has('minted')))
      problems.push(`tokens issued for a request without a real code or refresh token: ${res.body.slice(0, 120)}`);
    if (!/no-store/i.test(res.headers['cache-control'] ?? ''))
      problems.push('a token response without Cache-Control: no-store');
    const json = parsed(res.body) ?? {};
    if (json.token_type !== 'Bearer' || typeof json.refresh_token !== 'string' || typeof json.expires_in !== 'number')
      problems.push(`a token response of another shape: ${res.body.slice(0, 200)}`);
  } else if (!BODY_PARSER_REFUSAL.test(res.body) && !(res.status === 404 && FRAMEWORK_NOT_FOUND.test(res.body))) {
    // No other answer repeats a code or token of the fixtures (but the framework's answers to its
    // sender before the module sees the request, as checks.ts excuses them: the JSON body parser
    // quotes a body that is not JSON, the 404 of a method or path nothing routes quotes the target).
    const answer = `${res.headers.location ?? ''}\n${res.body}`;
    for (const [name, value] of [
      ['code', fx.code.code],
      ['spent code', fx.spentCode.code],
      ['access token', fx.access],
      ['refresh token', fx.refresh],
      ['spent refresh token', fx.spentRefresh],
    ] as const)
      if (answer.includes(value) && !(name === 'access token' && req.kind === 'guarded'))
        problems.push(`the answer repeats the fixtures' ${name}`);
  }
  if (
    (req.kind === 'token' || req.kind === 'revoke') &&
    res.status >= 400 &&
    /json/i.test(res.headers['content-type'] ?? '')
  ) {
    const json = parsed(res.body);
    if (
      json &&
      typeof json.error === 'string' &&
      typeof json.error_description === 'string' &&
      !/no-store/i.test(res.headers['cache-control'] ?? '')
    )
      problems.push(`an OAuth error without Cache-Control: no-store (${res.status} ${json.error})`);
  }
  if (
    req.kind === 'jwks' &&
    req.method !== 'HEAD' &&
    res.status === 200 &&
    /json/i.test(res.headers['content-type'] ?? '')
  ) {
    const jwks = (parsed(res.body) ?? {}) as { keys?: Array<Record<string, unknown>> };
    if (!Array.isArray(jwks.keys) || jwks.keys.length === 0)
      problems.push(`a JWKS without keys: ${res.body.slice(0, 120)}`);
    for (const key of jwks.keys ?? [])
      if (['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'].some((member) => member in key) || key.kty !== 'OKP')
        problems.push(`the JWKS publishes private or unexpected key material: ${JSON.stringify(key).slice(0, 120)}`);
  }
  return problems;
}

// ---- storage -------------------------------------------------------------------------------------

const TABLES = [
  'users',
  'accounts',
  'sessions',
  'verificationTokens',
  'refreshFamilies',
  'authenticators',
  'twoFactors',
] as const;
type Table = (typeof TABLES)[number];
type Snapshot = Record<Table, Map<string, string>>;

/** Every row of the MemoryAdapter, as text, by table and key. */
function snapshot(adapter: MemoryAdapter): Snapshot {
  const raw = adapter as unknown as Record<Table, Map<string, unknown> | undefined>;
  const out = {} as Snapshot;
  for (const table of TABLES) {
    const rows = raw[table];
    if (!(rows instanceof Map))
      throw new Error(`MemoryAdapter has no ${table} map: this suite reads its storage to compare it`);
    out[table] = new Map([...rows].map(([key, row]) => [key, JSON.stringify(row)]));
  }
  return out;
}

interface TableDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

function diff(before: Snapshot, after: Snapshot): Record<Table, TableDiff> {
  const out = {} as Record<Table, TableDiff>;
  for (const table of TABLES) {
    const a = before[table];
    const b = after[table];
    out[table] = {
      added: [...b.keys()].filter((k) => !a.has(k)),
      removed: [...a.keys()].filter((k) => !b.has(k)),
      changed: [...b.keys()].filter((k) => a.has(k) && a.get(k) !== b.get(k)),
    };
  }
  return out;
}

/**
 * What an answer wrote, against what it may write: a code sent to the app adds its verification
 * token; a code exchanged adds one session row and one family (its verification token goes); a
 * refresh changes the family and its session row; a request carrying a real code, refresh or access
 * token may end app sign-ins (their session rows and families). Nothing else, whatever the answer.
 */
function storageProblems(req: NativeRequest, res: WireResponse, d: Record<Table, TableDiff>): string[] {
  const problems: string[] = [];
  const { code, tokens } = outcome(req, res);
  const carriesToken = ['code', 'spentCode', 'refresh', 'spentRefresh', 'access', 'minted'].some((m) =>
    req.real.has(m as Material),
  );
  const exchanged = tokens && req.real.has('code');
  const allowed: Record<Table, { added: number; changed: boolean; removed: boolean }> = {
    users: { added: 0, changed: false, removed: false },
    accounts: { added: 0, changed: false, removed: false },
    authenticators: { added: 0, changed: false, removed: false },
    twoFactors: { added: 0, changed: false, removed: false },
    verificationTokens: { added: code ? 1 : 0, changed: false, removed: req.real.has('code') },
    sessions: { added: exchanged ? 1 : 0, changed: tokens, removed: carriesToken },
    refreshFamilies: { added: exchanged ? 1 : 0, changed: tokens, removed: carriesToken },
  };
  for (const table of TABLES) {
    const { added, removed, changed } = d[table];
    const may = allowed[table];
    if (added.length > may.added) problems.push(`${table}: ${added.length} row(s) added (may add ${may.added})`);
    if (changed.length > 0 && !may.changed) problems.push(`${table}: ${changed.length} row(s) changed`);
    if (removed.length > 0 && !may.removed) problems.push(`${table}: ${removed.length} row(s) removed`);
  }
  // A browser's session is never ended from here: only app sign-ins (`app:<client>:<family>`).
  const browserRows = [...d.sessions.removed, ...d.sessions.changed].filter((k) => !k.startsWith('app:'));
  if (browserRows.length > 0)
    problems.push(`a browser's session row was ${d.sessions.removed.length ? 'removed' : 'changed'}`);
  if (code && d.verificationTokens.added.length !== 1)
    problems.push('a code went to the app without its verification token stored');
  return problems;
}

// ---- the suite ---------------------------------------------------------------------------------

describe("the native-app fuzzer's checks", () => {
  // The checks must bite: each is fed an answer it has to refuse.
  const fx = {
    code: { code: 'the-code', verifier: 'v', redirectUri: SCHEME_REDIRECT },
    spentCode: { code: 'spent-code', verifier: 'w', redirectUri: LOOPBACK_REDIRECT },
    access: 'the.access.token',
    refresh: 'the-refresh-token',
    spentRefresh: 'the-spent-refresh-token',
  } as NativeFixtures;
  const request = (over: Partial<NativeRequest> = {}): NativeRequest => ({
    label: 'GET /auth/authorize',
    method: 'GET',
    target: '/auth/authorize',
    bytes: Buffer.alloc(0),
    marker: 'fz0q',
    mayAuthenticate: false,
    notes: [],
    identity: 'anon',
    kind: 'authorize',
    real: new Set(),
    clientIds: new Set(['ios']),
    redirectUris: new Set([SCHEME_REDIRECT, 'http://127.0.0.1:5555/callback', DESKTOP_REDIRECT]),
    ...over,
  });
  const redirect = (to: string) =>
    finish(`HTTP/1.1 302 Found\r\nLocation: ${to}\r\nX-Content-Type-Options: nosniff\r\n\r\n`);
  const json = (status: number, body: unknown, head: string[] = []) =>
    finish(
      `${[`HTTP/1.1 ${status} X`, 'Content-Type: application/json', 'X-Content-Type-Options: nosniff', ...head].join('\r\n')}\r\n\r\n${JSON.stringify(body)}`,
    );
  const none: Record<Table, TableDiff> = Object.fromEntries(
    TABLES.map((t) => [t, { added: [], removed: [], changed: [] }]),
  ) as never;
  const withRows = (table: Table, rows: Partial<TableDiff>) => ({ ...none, [table]: { ...none[table], ...rows } });

  it('lets a registered redirect URI the request named through, a loopback one at any port', () => {
    expect(appRedirect(request(), redirect(`${SCHEME_REDIRECT}?error=invalid_request&iss=x`))).toBeDefined();
    expect(appRedirect(request(), redirect('http://127.0.0.1:5555/callback?error=x'))).toBeDefined();
    expect(
      nativeProblems(
        request({ real: new Set(['session']) }),
        redirect(`${SCHEME_REDIRECT}?code=c&iss=${encodeURIComponent(ISSUER)}`),
        fx,
      ),
    ).toEqual([]);
  });

  it.each([
    ["another client's redirect URI", request(), redirect(`${DESKTOP_REDIRECT}?error=x`), 'Location leaves the origin'],
    [
      'a redirect URI the request did not name',
      request(),
      redirect(`${LOOPBACK_REDIRECT}?error=x`),
      'Location leaves the origin',
    ],
    [
      'a code without the browser',
      request(),
      redirect(`${SCHEME_REDIRECT}?code=c&iss=${encodeURIComponent(ISSUER)}`),
      'without the signed-in browser',
    ],
    ['no iss', request(), redirect(`${SCHEME_REDIRECT}?error=x`), 'without iss'],
    [
      'tokens without material',
      request({ kind: 'token' }),
      json(200, { access_token: 'a', token_type: 'Bearer', refresh_token: 'r', expires_in: 1 }, [
        'Cache-Control: no-store',
      ]),
      'without a real code',
    ],
    [
      'tokens without no-store',
      request({ kind: 'token', real: new Set(['refresh']) }),
      json(200, { access_token: 'a', token_type: 'Bearer', refresh_token: 'r', expires_in: 1 }),
      'no-store',
    ],
    [
      'a repeated refresh token',
      request({ kind: 'token' }),
      json(400, { error: 'invalid_grant', error_description: `bad the-refresh-token` }, ['Cache-Control: no-store']),
      "repeats the fixtures' refresh token",
    ],
    [
      'an oversized Location',
      request({ method: 'POST' }),
      redirect(`${SCHEME_REDIRECT}?error=invalid_request&state=${'x'.repeat(9000)}&iss=x`),
      'a Location of 9',
    ],
    [
      'a private JWKS',
      request({ kind: 'jwks' }),
      json(200, { keys: [{ kty: 'OKP', x: 'x', d: 'secret' }] }),
      'private',
    ],
  ])('finds %s', (_name, req, res, expected) => {
    const rules: AnswerRules = {
      origin: ORIGIN,
      oauthAuthorize: 'http://127.0.0.1:9/authorize',
      oauthRedirectUri: `${ORIGIN}/cb`,
      basePath: '/auth',
    };
    const common = checkAnswer(req, appRedirect(req, res) ? withoutLocation(res) : res, rules);
    expect([...common, ...nativeProblems(req, res, fx)].join('\n')).toContain(expected);
  });

  it.each([
    [
      'a refused request that adds a family',
      request({ kind: 'token' }),
      json(400, { error: 'invalid_grant' }),
      withRows('refreshFamilies', { added: ['f'] }),
      'refreshFamilies: 1 row(s) added',
    ],
    [
      'a junk revocation that removes a sign-in',
      request({ kind: 'revoke' }),
      json(200, {}),
      withRows('sessions', { removed: ['app:ios:f'] }),
      'sessions: 1 row(s) removed',
    ],
    [
      'a browser session ended',
      request({ kind: 'revoke', real: new Set(['refresh']) }),
      json(200, {}),
      withRows('sessions', { removed: ['browser-token'] }),
      "browser's session",
    ],
    [
      'a verification token without a code',
      request(),
      redirect('/auth/signin'),
      withRows('verificationTokens', { added: ['v'] }),
      'verificationTokens',
    ],
    [
      'a user added',
      request({ kind: 'token', real: new Set(['code']) }),
      json(200, { access_token: 'a' }),
      withRows('users', { added: ['u'] }),
      'users',
    ],
  ])('finds %s in storage', (_name, req, res, d, expected) => {
    expect(storageProblems(req, res, d).join('\n')).toContain(expected);
  });
});

/** The answer without its Location (a redirect to the app this suite checks itself). */
function withoutLocation(res: WireResponse): WireResponse {
  const headers = { ...res.headers };
  delete headers.location;
  return { ...res, headers };
}

describe.each([
  ['jwt', 0],
  ['database', 1],
] as const)(`native-app fuzzer, %s sessions (${REPLAY})`, (strategy, strategyIndex) => {
  const requests = strategyRequests(COUNT, strategyIndex);
  const log = fuzzLog(ORIGIN);
  let t: TestApp;
  let port: number;
  let adapter: MemoryAdapter;

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    for (const user of USERS.values())
      await adapter.createUser({ id: user.id, email: user.email, emailVerified: null, name: 'Fuzz' });
    t = await createTestApp({
      auth: {
        url: ORIGIN,
        trustHost: false,
        secret: TEST_SECRET,
        adapter,
        session: { strategy },
        logger: log.logger,
        nativeApps: { clients: CLIENTS, reuseWindow: REUSE_WINDOW },
        providers: [
          Credentials({
            credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
            lockout: { maxAttemptsPerIp: 1_000_000 },
            authorize: async (c) => {
              const user = typeof c.username === 'string' ? USERS.get(c.username) : undefined;
              return user && user.password === c.password ? { id: user.id, email: user.email } : null;
            },
          }),
        ],
      },
    });
    port = Number(new URL(t.url).port);
    console.log(`native-app fuzzer: ${REPLAY}`);
  });
  afterAll(() => t?.close());

  const fixtureTarget = (user = 'fixture'): FixtureTarget => ({
    port,
    origin: ORIGIN,
    user: { username: user, password: USERS.get(user)!.password },
  });

  it(
    `answers ${requests} hostile requests to the native-app routes: below 500, redirects only to the origin or a registered redirect URI, nothing written when refused, no error logged, bounded heap`,
    async () => {
      const rules: AnswerRules = {
        origin: ORIGIN,
        // No OAuth provider here: nothing may redirect to one.
        oauthAuthorize: 'http://127.0.0.1:9/authorize',
        oauthRedirectUri: `${ORIGIN}/auth/callback/none`,
        basePath: '/auth',
      };
      const gc = getGc();
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      const outcomes = new Map<string, number>();
      const reached = new Set<string>();
      const counts = { codes: 0, tokens: 0, removals: 0 };
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => void uncaught.push(error);
      process.on('uncaughtException', onUncaught);
      process.on('unhandledRejection', onUncaught);
      const warmup = Math.min(requests, Math.max(50, Math.floor(requests / 10)));
      let baseline = 0;
      let fx: NativeFixtures | undefined;
      const started = performance.now();
      const settle = async () => {
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setTimeout(resolve, 0));
      };
      try {
        for (let i = 0; i < requests && failures.length < MAX_FAILURES; i++) {
          if (i === warmup) baseline = await heapAfterGc(gc);
          if (i % REFRESH_EVERY === 0 || !fx) {
            try {
              fx = await nativeFixtures(fixtureTarget(), i);
            } catch (error) {
              failures.push(
                `[${strategy} #${i}] the fixtures could not be fetched (the flow broke after the requests before): ${String(error)}`,
              );
              break;
            }
          }
          const req = generate(
            new Rng(mixSeed(SEED, STREAM, strategyIndex, i)),
            `fz${i.toString(36)}q`,
            fx,
            ORIGIN,
            port,
            i,
          );
          if (req.route) reached.add(`${req.route.method} ${req.route.path}`);
          await settle();
          const errorsBefore = log.errors.length;
          const uncaughtBefore = uncaught.length;
          const before = snapshot(adapter);
          let res: WireResponse;
          try {
            res = await sendRaw(port, req.bytes);
          } catch (error) {
            failures.push(
              `[${strategy} #${i}] ${req.label}\n  - no answer: ${String(error)}\n  request: ${showRequest(req.bytes)}`,
            );
            continue;
          }
          await settle();
          const d = diff(before, snapshot(adapter));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const { code, tokens } = outcome(req, res);
          if (code) counts.codes += 1;
          if (tokens) counts.tokens += 1;
          if (d.refreshFamilies.removed.length) counts.removals += 1;
          if (VERBOSE) {
            const error =
              /"error":"(\w+)"/.exec(res.body)?.[1] ?? /[?&]error=(\w+)/.exec(res.headers.location ?? '')?.[1] ?? '';
            const key = `${req.kind} ${req.method} ${res.status} ${code ? 'code' : tokens ? 'tokens' : error}`;
            outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
          }
          const problems = [
            ...checkAnswer(req, appRedirect(req, res) ? withoutLocation(res) : res, rules),
            ...nativeProblems(req, res, fx),
            ...storageProblems(req, res, d),
          ];
          if (log.errors.length > errorsBefore)
            problems.push(...log.errors.slice(errorsBefore).map((e) => `logged an error: ${e}`));
          if (uncaught.length > uncaughtBefore)
            problems.push(...uncaught.slice(uncaughtBefore).map((e) => `uncaught: ${String(e)}`));
          if (problems.length > 0)
            failures.push(
              [
                `[${strategy} #${i}] ${req.label} -> ${res.status} ${res.headers.location?.slice(0, 160) ?? ''} (identity ${req.identity}, carries ${[...req.real].join(', ') || 'nothing real'})`,
                ...problems.map((p) => `  - ${p}`),
                `  mutations: ${req.notes.join(', ') || 'none'}`,
                `  answer: ${JSON.stringify(res.body.slice(0, 200))}`,
                `  request: ${showRequest(req.bytes)}`,
              ].join('\n'),
            );
        }
      } finally {
        process.off('uncaughtException', onUncaught);
        process.off('unhandledRejection', onUncaught);
      }
      const seconds = (performance.now() - started) / 1000;
      const growth = (await heapAfterGc(gc)) - baseline;
      if (failures.length === 0 && growth >= MAX_HEAP_GROWTH)
        failures.push(
          `[${strategy}] heap after GC grew by ${(growth / 1048576).toFixed(1)} MiB between request #${warmup} and the end (limit 10 MiB)`,
        );
      const missed = NATIVE_ROUTES.map((r) => `${r.method} ${r.path}`).filter((r) => !reached.has(r));
      if (requests >= 3 * NATIVE_ROUTES.length && missed.length)
        failures.push(`[${strategy}] routes never sent: ${missed.join(', ')}`);
      console.log(
        `native-app fuzzer, ${strategy}: ${requests} requests in ${seconds.toFixed(1)} s, heap ${(growth / 1048576).toFixed(2)} MiB after warm-up, ${log.warnings} warnings, ` +
          `statuses ${[...statuses]
            .sort(([a], [b]) => a - b)
            .map(([s, n]) => `${s}x${n}`)
            .join(' ')}, ` +
          `${counts.codes} codes sent to the app, ${counts.tokens} token responses, ${counts.removals} sign-ins ended, (${REPLAY})`,
      );
      if (VERBOSE)
        console.log(
          [...outcomes]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, n]) => `${String(n).padStart(5)} ${k}`)
            .join('\n'),
        );
      if (failures.length > 0)
        throw new Error(
          `The native-app fuzzer found ${failures.length}${failures.length >= MAX_FAILURES ? '+' : ''} problem(s). Replay with ${REPLAY}.\n\n${failures.join('\n\n')}`,
        );
      // The run reached the flows: codes went out and tokens were issued for real material.
      if (requests >= 200)
        expect({ codes: counts.codes > 0, tokens: counts.tokens > 0 }).toEqual({ codes: true, tokens: true });
    },
    Math.max(120_000, requests * 60),
  );

  it('still signs a native app in afterwards: its token opens a guarded route, and its revocation closes it', async () => {
    const errorsBefore = log.errors.length;
    const target = fixtureTarget('final');
    const fx = await nativeFixtures(target, 99_999);
    const me = await sendRaw(
      port,
      buildRequest('GET /me HTTP/1.1', [
        ['Host', 'app.test'],
        ['Authorization', `Bearer ${fx.access}`],
      ]),
    );
    expect({ status: me.status, replay: REPLAY }).toEqual({ status: 200, replay: REPLAY });
    expect((JSON.parse(me.body) as { user: { id: string } }).user.id).toBe(USERS.get('final')!.id);
    const revoked = await call(target, 'POST', '/auth/revoke', { form: { token: fx.refresh, client_id: 'ios' } });
    expect(revoked.status).toBe(200);
    const after = await sendRaw(
      port,
      buildRequest('GET /me HTTP/1.1', [
        ['Host', 'app.test'],
        ['Authorization', `Bearer ${fx.access}`],
      ]),
    );
    expect(after.status).toBe(401);
    const refresh = await call(target, 'POST', '/auth/token', {
      form: { grant_type: 'refresh_token', client_id: 'ios', refresh_token: fx.refresh },
    });
    expect(refresh.status).toBe(400);
    expect(log.errors.slice(errorsBefore)).toEqual([]);
  });
});
