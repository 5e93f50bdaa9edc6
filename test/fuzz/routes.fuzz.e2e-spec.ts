/**
 * The route fuzzer (issue "Security hardening", item 5): a bounded, seeded run of malformed requests
 * over every route of the module, in both session strategies, on a real socket. Every answer must
 * be below 500, send the browser nowhere but the configured origin (or the OAuth provider, with our
 * redirect_uri), reflect no markup and carry no injected header; no request may log an error; the
 * app must still sign a user in afterwards; the heap after GC may grow by less than 10 MiB.
 *
 * The routes come from the module's own action table (`AUTH_ROUTES` in lib/router, held to the
 * controller and the router by `auth-routes.spec.ts`), the account paths of the running app's
 * `AccountRoutes` and its configured providers: a new route, account action or provider is fuzzed
 * the day it exists. Every third request takes the next (route, method, provider) in turn, each
 * pass with another identity, one of them a stale browser: a session of a user who signed in
 * longer ago than `account.recentSignInMaxAge` (a stolen old cookie). No answer to any request may
 * add a way into that user: its accounts, passkeys, email address and password stay as they were.
 *
 * FUZZ_SEED (default: random; under CI=true a fixed seed, `random` for a new one) and FUZZ_COUNT
 * (default 2400, split over both strategies) replay a run: every failure message names both.
 * Request `i` of a strategy depends only on the seed, the strategy and `i` (plus server-made values
 * such as CSRF tokens), not on the count.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Credentials, Email, encode, MemoryAdapter, Passkey } from '../../lib/index.js';
import { createTestApp, TEST_SECRET, type TestApp } from '../setup/app.js';
import { startOAuth2Server, type TestOAuth2Server } from '../setup/oauth2-server.js';
import { checkAnswer, type AnswerRules } from './checks.js';
import { call, refreshFixtures, setCookiePairs, type FixtureTarget } from './fixtures.js';
import { type CookiePair, type FuzzRequest, type FuzzRoute } from './generator.js';
import { mixSeed } from './prng.js';
import {
  appRoutes,
  fuzzLog,
  parseCount,
  parseSeed,
  runFuzz,
  showRequest,
  signInAfterwards,
  strategyRequests,
} from './run.js';
import { finish } from './wire.js';

const ORIGIN = 'http://app.test';
const SEED = parseSeed(process.env.FUZZ_SEED);
const COUNT = parseCount(process.env.FUZZ_COUNT);
const REPLAY = `FUZZ_SEED=${SEED} FUZZ_COUNT=${COUNT}`;
/** Fixtures (CSRF pairs, a session, an OAuth code, challenges) are fetched anew this often. */
const REFRESH_EVERY = 100;

/** Credentials users: `alice` the fuzzer may sign in as; `fixture` and `final` it never names. */
const USERS = new Map([
  ['alice', { id: 'user-alice', email: 'alice@example.test', password: 'correct horse' }],
  ['fixture', { id: 'user-fixture', email: 'fixture@example.test', password: 'fixture-password-1' }],
  ['final', { id: 'user-final', email: 'final@example.test', password: 'final-password-2' }],
]);

/** `account.recentSignInMaxAge` of the app under test; the stale browser signed in twice as long ago. */
const RECENT_SIGN_IN_MAX_AGE = 600;
/** The stored user of the stale browser (never signs in: its sessions are made old). */
const STALE = { id: 'user-stale', email: 'stale@example.test' };

describe("the route fuzzer's checks", () => {
  // A checker that passes everything would make the fuzzer pass everything: each rule must bite.
  const rules: AnswerRules = {
    origin: ORIGIN,
    oauthAuthorize: 'http://127.0.0.1:9/authorize',
    oauthRedirectUri: `${ORIGIN}/auth/callback/oauth`,
    basePath: '/auth',
  };
  const request = (target = '/auth/signin', mayAuthenticate = false): FuzzRequest => ({
    label: `GET ${target}`,
    method: 'GET',
    target,
    bytes: Buffer.alloc(0),
    marker: 'fz0q',
    mayAuthenticate,
    notes: [],
    identity: 'anon',
  });
  const answer = (head: string[], body = '') =>
    finish(`${['HTTP/1.1 200 OK', 'X-Content-Type-Options: nosniff', 'Date: x', ...head].join('\r\n')}\r\n\r\n${body}`);
  const problems = (head: string[], body?: string, req = request()) => checkAnswer(req, answer(head, body), rules);

  it('accepts a clean answer', () => {
    expect(
      problems(['Location: /auth/signin', 'Set-Cookie: authjs.callback-url=http%3A%2F%2Fapp.test%2Fme; Path=/']),
    ).toEqual([]);
    expect(problems(['Content-Type: application/json'], '{"url":"http://app.test/x"}')).toEqual([]);
    expect(
      problems([
        `Location: http://127.0.0.1:9/authorize?redirect_uri=${encodeURIComponent(`${ORIGIN}/auth/callback/oauth`)}`,
      ]),
    ).toEqual([]);
    expect(problems(['Content-Type: text/html'], '<p>&lt;fz0q&gt;</p>')).toEqual([]);
  });

  it.each([
    ['a 5xx', finish('HTTP/1.1 502 Bad Gateway\r\nX-Content-Type-Options: nosniff\r\n\r\n'), 'status 502'],
    ['no answer', finish(''), 'no HTTP answer'],
    ['an off-origin Location', answer(['Location: //evil.example/']), 'Location leaves the origin'],
    ['a Location with another scheme', answer(['Location: javascript:alert(1)']), 'Location leaves the origin'],
    [
      'an off-origin { url }',
      answer(['Content-Type: application/json'], '{"url":"https://evil.example"}'),
      'JSON url leaves the origin',
    ],
    [
      'a foreign redirect_uri',
      answer(['Location: http://127.0.0.1:9/authorize?redirect_uri=http%3A%2F%2Fevil.example%2F']),
      'redirect_uri',
    ],
    [
      'an off-origin form action',
      answer(['Content-Type: text/html'], '<form action="http://evil.example/x"></form>'),
      'page <form action> leaves the origin',
    ],
    [
      'an off-origin callback-url cookie',
      answer(['Set-Cookie: authjs.callback-url=https%3A%2F%2Fevil.example; Path=/']),
      'callback-url cookie leaves the origin',
    ],
    ['reflected markup', answer(['Content-Type: text/html'], '<p><fz0q onerror=alert(1)></p>'), 'reflected markup'],
    [
      'reflected markup in JSON',
      answer(['Content-Type: application/json'], '{"message":"<fz0q>"}'),
      'reflected markup',
    ],
    ['an injected header', answer(['X-Fuzz-Injected: 1']), 'injected header'],
    ['an injected cookie', answer(['Set-Cookie: fzinj=1']), 'injected cookie'],
    [
      'an injected cookie attribute',
      answer(['Set-Cookie: authjs.callback-url=x; Domain=evil.example']),
      'injected cookie attribute',
    ],
    ['a session cookie', answer(['Set-Cookie: authjs.session-token=abc; Path=/']), 'session cookie was set'],
    [
      'a session shown',
      answer(['Content-Type: application/json'], '{"user":{"id":"u"},"expires":"x"}'),
      'a session is shown',
    ],
    ['no nosniff', finish('HTTP/1.1 200 OK\r\nDate: x\r\nContent-Type: text/plain\r\n\r\nok'), 'nosniff'],
  ])('finds %s', (_label, res, expected) => {
    expect(checkAnswer(request(), res, rules).join('\n')).toContain(expected);
  });

  it('lets a request with valid credentials sign in', () => {
    expect(
      checkAnswer(
        request('/auth/callback/credentials', true),
        answer(['Set-Cookie: authjs.session-token=abc; Path=/']),
        rules,
      ),
    ).toEqual([]);
  });
});

let oauthServer: TestOAuth2Server;
beforeAll(async () => {
  oauthServer = await startOAuth2Server({
    clients: [
      { client_id: 'fz-client', client_secret: 'fz-client-secret', redirect_uris: [`${ORIGIN}/auth/callback/oauth`] },
    ],
  });
  // Printed once, so a passing run can be replayed too.
  console.log(`route fuzzer: ${REPLAY}`);
});
afterAll(async () => {
  await oauthServer?.close();
});

describe.each([
  ['jwt', 0],
  ['database', 1],
] as const)(`route fuzzer, %s sessions (${REPLAY})`, (strategy, strategyIndex) => {
  const requests = strategyRequests(COUNT, strategyIndex);
  let t: TestApp;
  let port: number;
  let adapter: MemoryAdapter;
  /** The password hashes of the credentials provider's `passwordStore`, by user id. */
  const hashes = new Map<string, string>();
  let routes: FuzzRoute[] = [];
  /** The stale user's ways in when the run started, and each change an answer made to them. */
  let staleBefore = '';
  const staleChanges: string[] = [];
  /** The module's logger (no error lines allowed) and the magic links it sends. */
  const log = fuzzLog(ORIGIN);

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    t = await createTestApp({
      auth: {
        url: ORIGIN,
        trustHost: false,
        secret: TEST_SECRET,
        adapter,
        session: { strategy },
        account: { recentSignInMaxAge: RECENT_SIGN_IN_MAX_AGE },
        // On, so the access-token route, the JWKS and the account's API-key actions are fuzzed too.
        accessToken: {},
        apiKeys: {},
        logger: log.logger,
        providers: [
          Credentials({
            credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
            // Every request comes from 127.0.0.1: the per-IP lockout would stop the final sign-in.
            lockout: { maxAttemptsPerIp: 1_000_000 },
            authorize: async (c) => {
              const user = typeof c.username === 'string' ? USERS.get(c.username) : undefined;
              return user && user.password === c.password ? { id: user.id, email: user.email } : null;
            },
            // So that `/account/password` is offered (and a password counts as a way in).
            passwordStore: {
              getPasswordHash: (id) => hashes.get(id) ?? null,
              setPasswordHash: (id, hash) => void hashes.set(id, hash),
            },
          }),
          Email({
            rateLimit: { maxPerAddress: 3, maxPerIp: 1_000_000, windowSeconds: 600 },
            sendVerificationRequest: log.sendVerificationRequest,
          }),
          Passkey({ rateLimit: { maxPerAddress: 10, maxPerIp: 1_000_000, windowSeconds: 600 } }),
          {
            id: 'oauth',
            name: 'Fuzz OAuth',
            type: 'oauth',
            clientId: 'fz-client',
            clientSecret: 'fz-client-secret',
            authorization: { url: oauthServer.authorizationUrl, params: { scope: 'read:user' } },
            checks: ['pkce', 'state'],
            token: oauthServer.tokenUrl,
            userinfo: oauthServer.userinfoUrl,
          },
        ],
      },
    });
    port = Number(new URL(t.url).port);
    routes = await appRoutes(t, ORIGIN);
    await adapter.createUser({ id: STALE.id, email: STALE.email, emailVerified: new Date(), name: 'Stale' });
    staleBefore = await waysIn();
  });
  afterAll(() => t?.close());

  /** Everything that lets someone into the stale user, as one comparable text (rows counted). */
  async function waysIn(): Promise<string> {
    const user = await adapter.getUser(STALE.id);
    const accounts = (await adapter.listAccountsByUserId(STALE.id)).map((a) => `${a.provider}:${a.providerAccountId}`);
    const passkeys = (await adapter.listAuthenticatorsByUserId(STALE.id)).map((a) => a.credentialID.slice(0, 12));
    return JSON.stringify({
      email: user?.email ?? null,
      accounts: accounts.length,
      passkeys: passkeys.length,
      password: hashes.has(STALE.id),
      rows: { accounts: accounts.sort(), passkeys: passkeys.sort() },
    });
  }

  /** A new session of the stale user, signed in twice `recentSignInMaxAge` ago. */
  async function staleSession(): Promise<CookiePair[]> {
    const signedIn = Date.now() - 2 * RECENT_SIGN_IN_MAX_AGE * 1000;
    if (strategy === 'database') {
      const sessionToken = randomBytes(32).toString('hex');
      await adapter.createSession({
        sessionToken,
        userId: STALE.id,
        expires: new Date(Date.now() + 86_400_000),
        createdAt: new Date(signedIn),
      });
      return [['authjs.session-token', sessionToken]];
    }
    const token = await encode({
      token: { sub: STALE.id, email: STALE.email, name: 'Stale', auth_time: Math.floor(signedIn / 1000) },
      secret: TEST_SECRET,
      salt: 'authjs.session-token',
      maxAge: 86_400,
    });
    return [['authjs.session-token', token]];
  }

  const fixtureTarget = (): FixtureTarget => ({
    port,
    origin: ORIGIN,
    user: { username: 'fixture', password: USERS.get('fixture')!.password },
    stale: {
      session: staleSession,
      idpUser: (who) => {
        oauthServer.user = {
          id: `fz-${strategy}-${who}`,
          login: who,
          name: 'Fuzz IdP user',
          email: `idp-${strategy}-${who}@example.test`,
        };
      },
    },
  });
  const rules = (): AnswerRules => ({
    origin: ORIGIN,
    oauthAuthorize: oauthServer.authorizationUrl,
    oauthRedirectUri: `${ORIGIN}/auth/callback/oauth`,
    basePath: '/auth',
  });

  it(
    `answers ${requests} malformed requests: below 500, on-origin redirects, nothing reflected or injected, no error logged, bounded heap`,
    async () => {
      /** Requests sent as the stale browser, and how often the app let it start an OAuth sign-in or a passkey registration. */
      const stale = { requests: 0, oauthStarted: 0, passkeyOptions: 0, refreshes: 0 };
      let staleNow = staleBefore;
      await runFuzz({
        name: 'route fuzzer',
        strategy,
        requests,
        replay: REPLAY,
        seedOf: (i) => mixSeed(SEED, strategyIndex, i),
        target: {
          origin: ORIGIN,
          port,
          secret: TEST_SECRET,
          strategy,
          alice: { username: 'alice', password: USERS.get('alice')!.password },
          routes,
        },
        rules: rules(),
        log,
        refreshEvery: REFRESH_EVERY,
        refresh: async (i) => {
          const fx = await refreshFixtures(fixtureTarget(), i, log.emailLinks);
          stale.refreshes += 1;
          if (fx.oauthStale) stale.oauthStarted += 1;
          if (fx.webauthn.registerAsStale) stale.passkeyOptions += 1;
          return fx;
        },
        afterEach: async ({ index, request, res }) => {
          if (request.identity === 'stale') stale.requests += 1;
          // No answer adds a way into the stale browser's user (reported by the test after this one).
          const ways = await waysIn();
          if (ways !== staleNow) {
            staleChanges.push(
              [
                `[${strategy} #${index}] ${request.label} -> ${res.status} ${res.headers.location ?? ''} (identity ${request.identity})`,
                `  before: ${staleNow}`,
                `  after:  ${ways}`,
                `  mutations: ${request.notes.join(', ') || 'none'}`,
                `  request: ${showRequest(request.bytes)}`,
              ].join('\n'),
            );
            staleNow = ways;
          }
          return [];
        },
        summary: () =>
          `${stale.requests} as the stale browser (OAuth sign-in started for it ${stale.oauthStarted}/${stale.refreshes}, passkey options ${stale.passkeyOptions}/${stale.refreshes})`,
      });
    },
    Math.max(120_000, requests * 60),
  );

  it('added no way into the user of a stale session (accounts, passkeys, email, password)', async () => {
    expect(routes.some((r) => r.path.startsWith('/auth/account/'))).toBe(true);
    const after = await waysIn();
    if (staleChanges.length > 0 || after !== staleBefore)
      throw new Error(
        `Answers to requests changed the ways into ${STALE.id}, whose session is older than recentSignInMaxAge (${REPLAY}):\n` +
          `  at the start: ${staleBefore}\n  at the end:   ${after}\n\n${staleChanges.join('\n\n')}`,
      );
  });

  it('still signs a user in afterwards, over HTTP', async () => {
    const errorsBefore = log.errors.length;
    const target = fixtureTarget();
    const signedIn = await signInAfterwards(target, { username: 'final', ...USERS.get('final')! }, REPLAY);
    const session = await call(target, 'GET', '/auth/session', { cookies: signedIn.session });
    expect((JSON.parse(session.body) as { user?: { email?: string } } | null)?.user?.email).toBe('final@example.test');
    // And out again.
    const out = await call(target, 'POST', '/auth/signout', {
      cookies: [...signedIn.session, signedIn.csrf],
      form: { csrfToken: signedIn.token },
    });
    expect(out.status).toBe(302);
    expect(setCookiePairs(out).some(([name]) => name.startsWith('authjs.session-token'))).toBe(false);
    expect(log.errors.slice(errorsBefore)).toEqual([]);
  });
});
