/**
 * The route fuzzer, second suite: a pending sign-in under attack. The app has `twoFactor` on, and
 * alice has an authenticator app (and backup codes). The fixtures sign her in with her password,
 * which is held for the second factor: the fuzzer then holds a real `authjs.two-factor` cookie and
 * no session, and sends the same malformed requests as `routes.fuzz.e2e-spec.ts` over every route
 * of the module, in both session strategies, on a real socket, most of them as the browser holding
 * that pending sign-in. `{basePath}/two-factor` (GET and POST) is drawn most, with hostile fields
 * (the code as an array, an object, a huge string, other scripts' digits; unknown methods; cancel
 * flags; the CSRF token missing or wrong) and hostile pending cookies (tampered, truncated, sealed
 * with another secret or salt, minted with the secret around odd contents, read as a session,
 * chunked, duplicated); so are the account routes, `two-factor/*` included, with alice's factor ids.
 * Her right password and her magic links are among the inputs. The one thing never sent is a code
 * her app (or a backup code) would accept now.
 *
 * "Don't ask again on this device" is on (`twoFactor.rememberDevice`), a way to skip the second
 * factor. About a quarter of the requests carry an `authjs.two-factor-device` cookie that must not
 * let her skip it, and one in twelve is one of her own sign-ins with one (her password, mostly right
 * and mostly sent plainly so that it reaches the step that reads the cookie; her magic links): bob's
 * (another user with an app, who told a browser not to ask again through the real flow), alice's own
 * from before her backup codes were renewed (stale), those tampered with, truncated, chunked,
 * prefixed, duplicated, on a `Cookie` line of their own, sealed with another secret or salt (a
 * session's or the pending state's value in its place), minted with the secret around a fingerprint
 * that is not hers now or odd contents, random, empty, oversized. No answer may remember a device
 * (none is sent a right code), and enough of her password sign-ins with one, with bob's and with her
 * stale one among them, must be held for the challenge (so the cookie was read and refused).
 * Afterwards bob's cookie still spares him his code (it was a live one), and a device alice
 * remembers then through the real flow spares her hers (and the checks see that).
 *
 * The invariant, after every request: nothing gives alice a session. No answer sets a session
 * cookie without other valid credentials (a session of another user, a JWE minted with the secret),
 * none sets a JWT session of hers, no session row of hers exists, none shows her TOTP secret or a
 * backup code, and her second factors stay as they were. Plus the route fuzzer's own: below 500, no
 * off-origin redirect, nothing reflected or injected, no error logged, a bounded heap. Afterwards,
 * the held sign-in still completes with her code (so the state under attack was a live one).
 *
 * FUZZ_SEED and FUZZ_COUNT (default 2400, split over both strategies) as for the route fuzzer, whose
 * replay conventions this suite shares (the seed names another stream here: the same seed replays
 * both suites). FUZZ_MAX_FAILURES, FUZZ_VERBOSE=1 and FUZZ_TRACE=<file> too.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Credentials, decode, Email, MemoryAdapter } from '../../lib/index.js';
import { TwoFactors } from '../../lib/methods/two-factor/index.js';
import { totpCode } from '../../lib/methods/two-factor/totp.js';
import { createTestApp, TEST_SECRET, type TestApp } from '../setup/app.js';
import { checkAnswer, SESSION_COOKIE_NAME, type AnswerRules } from './checks.js';
import {
  anonymousCsrf,
  call,
  heldSignIn,
  refreshPendingFixtures,
  rememberedDevice,
  setCookiePairs,
  signInWith,
  type PendingFixtureTarget,
} from './fixtures.js';
import {
  DEVICE_COOKIE,
  PENDING_COOKIE,
  SESSION_COOKIE,
  type DeviceFixture,
  type FuzzRequest,
  type FuzzRoute,
} from './generator.js';
import { mixSeed } from './prng.js';
import { appRoutes, fuzzLog, parseCount, parseSeed, runFuzz, signInAfterwards, strategyRequests } from './run.js';
import { finish, type WireResponse } from './wire.js';

const ORIGIN = 'http://app.test';
const SEED = parseSeed(process.env.FUZZ_SEED);
const COUNT = parseCount(process.env.FUZZ_COUNT);
const REPLAY = `FUZZ_SEED=${SEED} FUZZ_COUNT=${COUNT}`;
/** This suite's stream of requests, apart from the route fuzzer's for the same seed. */
const STREAM = 0x2fa;
/** Fixtures (CSRF pair, a session, alice's pending cookie, magic links) are fetched anew this often. */
const REFRESH_EVERY = 100;
const PERIOD_MS = 30_000;

/**
 * Credentials users: `alice` has an authenticator app (the fuzzer may send her password: it proves
 * one factor); `fixture` (no second factor) is the signed-in browser; `bob` has an app too and a
 * remembered device (whose cookie the fuzzer sends, never his password); `final` the fuzzer never names.
 */
const USERS = new Map([
  ['alice', { id: 'user-alice', email: 'alice@example.test', password: 'correct horse' }],
  ['fixture', { id: 'user-fixture', email: 'fixture@example.test', password: 'fixture-password-1' }],
  ['bob', { id: 'user-bob', email: 'bob@example.test', password: 'bob-password-3' }],
  ['final', { id: 'user-final', email: 'final@example.test', password: 'final-password-2' }],
]);
const ALICE = USERS.get('alice')!;
const BOB = USERS.get('bob')!;
const ALICE_LOGIN = { username: 'alice', password: ALICE.password };
const BOB_LOGIN = { username: 'bob', password: BOB.password };
/** Days a remembered device is trusted. */
const REMEMBER_DAYS = 30;
/** A device cookie under any prefix (the app's is unprefixed over http). */
const DEVICE_COOKIE_NAME = /^(__Secure-|__Host-)?authjs\.two-factor-device(\.\d+)?$/;

/** Names and values of the session cookies an answer sets (deletions left out), chunks joined in order. */
function sessionCookiesSet(res: WireResponse): string[] {
  const set = setCookiePairs(res).filter(([name]) => SESSION_COOKIE_NAME.test(name));
  const whole = set.filter(([name]) => !/\.\d+$/.test(name)).map(([, value]) => value);
  const chunks = set
    .filter(([name]) => /\.\d+$/.test(name))
    .sort(([a], [b]) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
    .map(([, value]) => value);
  return chunks.length ? [...whole, chunks.join('')] : whole;
}

/** True when the answer sends the browser to the challenge (a redirect, or `{ url }` for X-Auth-Return-Redirect). */
function heldForChallenge(res: WireResponse): boolean {
  const to = `${ORIGIN}/auth/two-factor`;
  if (res.status === 302) return res.headers.location === to;
  return res.status === 200 && res.body === JSON.stringify({ url: to });
}

/** True when the answer deletes a device cookie (an empty value, or `Max-Age=0`). */
function deviceCookieDeleted(res: WireResponse): boolean {
  return res.setCookies.some((line) => {
    const pair = line.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    const name = pair.slice(0, Math.max(0, eq)).trim();
    return DEVICE_COOKIE_NAME.test(name) && (pair.slice(eq + 1).trim() === '' || /;\s*max-age=0\b/i.test(line));
  });
}

/**
 * The answer to `POST /two-factor` shows that the code was checked: `InvalidTwoFactorCode` (JSON, or
 * the page again with its error, the only 400 page that route answers), or the lockout's 429.
 */
function codeChecked(res: WireResponse): boolean {
  if (res.status === 429) return true;
  if (res.status !== 400) return false;
  return res.body.includes('"InvalidTwoFactorCode"') || /html/i.test(res.headers['content-type'] ?? '');
}

/** The code a TOTP app shows at time step `step`. */
const codeAt = (secret: string, step: number) => totpCode(secret, { now: step * PERIOD_MS + 1000 });

/** A code or backup code as the app compares it: lower case, no spaces or dashes. */
const normalized = (value: string) => value.toLowerCase().replace(/[\s\-\u2010-\u2015\u2212\u00a0]+/g, '');

describe("the pending-state fuzzer's checks", () => {
  const rules: AnswerRules = {
    origin: ORIGIN,
    oauthAuthorize: 'http://127.0.0.1:9/authorize',
    oauthRedirectUri: `${ORIGIN}/auth/callback/oauth`,
    basePath: '/auth',
  };
  const request: FuzzRequest = {
    label: 'POST /auth/account/two-factor/totp',
    method: 'POST',
    target: '/auth/account/two-factor/totp',
    bytes: Buffer.alloc(0),
    marker: 'fz0q',
    mayAuthenticate: true,
    notes: [],
    identity: 'user',
  };
  const page = (href: string) =>
    finish(
      `HTTP/1.1 200 OK\r\nX-Content-Type-Options: nosniff\r\nContent-Type: text/html\r\n\r\n<p><a href="${href}" data-otpauth>Open</a></p>`,
    );

  it("lets the enrolment page link an app's otpauth://totp/ URI, and nothing else of another scheme", () => {
    expect(
      checkAnswer(request, page('otpauth://totp/app.test:alice%40example.test?secret=ABC&amp;issuer=app.test'), rules),
    ).toEqual([]);
    for (const href of [
      'otpauth://hotp/x?secret=A',
      'javascript:alert(1)',
      'otpauth://totp/a b',
      'http://evil.example/',
    ])
      expect(checkAnswer(request, page(href), rules).join('\n')).toContain('page <a href> leaves the origin');
  });

  it('joins the chunks of a session cookie it is set, and leaves deletions out', () => {
    const res = finish(
      [
        'HTTP/1.1 302 Found',
        `Set-Cookie: ${SESSION_COOKIE}.1=bb; Path=/`,
        `Set-Cookie: ${SESSION_COOKIE}.0=aa; Path=/`,
        `Set-Cookie: ${SESSION_COOKIE}=; Path=/; Max-Age=0`,
        `Set-Cookie: ${PENDING_COOKIE}=pp; Path=/`,
      ].join('\r\n') + '\r\n\r\n',
    );
    expect(sessionCookiesSet(res)).toEqual(['aabb']);
  });
});

beforeAll(() => {
  console.log(`two-factor route fuzzer: ${REPLAY}`);
});

describe.each([
  ['jwt', 0],
  ['database', 1],
] as const)(`two-factor route fuzzer, a pending sign-in, %s sessions (${REPLAY})`, (strategy, strategyIndex) => {
  const requests = strategyRequests(COUNT, strategyIndex);
  let t: TestApp;
  let port: number;
  let adapter: MemoryAdapter;
  const hashes = new Map<string, string>();
  let routes: FuzzRoute[] = [];
  /** alice's app: its secret, her backup codes, the last time step used. */
  const app = { secret: '', backupCodes: [] as string[], lastStep: 0 };
  /** The codes her app and backup codes would be accepted with now (normalised), renewed at each refresh. */
  let acceptable: string[] = [];
  /** The device cookies the fuzzer sends (bob's, alice's stale one), made in `beforeAll`. */
  let devices: DeviceFixture;
  /** alice's factors and address when the run started, and each change an answer made to them. */
  let factorsBefore = '';
  const factorChanges: string[] = [];
  const log = fuzzLog(ORIGIN);

  beforeAll(async () => {
    adapter = new MemoryAdapter();
    for (const user of USERS.values())
      await adapter.createUser({ id: user.id, email: user.email, emailVerified: new Date(), name: null });
    t = await createTestApp({
      auth: {
        url: ORIGIN,
        trustHost: false,
        secret: TEST_SECRET,
        adapter,
        session: { strategy },
        logger: log.logger,
        // The fuzzer sends hundreds of wrong codes for alice: a lockout that allows them keeps the
        // codes checked (a locked-out answer checks nothing); its window ends within the run.
        twoFactor: { policy: 'optional', maxAttempts: 100, lockoutWindow: 1, rememberDevice: REMEMBER_DAYS },
        providers: [
          Credentials({
            credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
            // Every request comes from 127.0.0.1, and the fixtures sign alice in after the fuzzer
            // sent wrong passwords for her: neither lockout may stop them.
            lockout: { maxAttempts: 1_000_000, maxAttemptsPerIp: 1_000_000 },
            authorize: async (c) => {
              const user = typeof c.username === 'string' ? USERS.get(c.username) : undefined;
              return user && user.password === c.password ? { id: user.id, email: user.email } : null;
            },
            passwordStore: {
              getPasswordHash: (id) => hashes.get(id) ?? null,
              setPasswordHash: (id, hash) => void hashes.set(id, hash),
            },
          }),
          Email({
            rateLimit: { maxPerAddress: 1_000_000, maxPerIp: 1_000_000, windowSeconds: 600 },
            sendVerificationRequest: log.sendVerificationRequest,
          }),
        ],
      },
    });
    port = Number(new URL(t.url).port);
    routes = await appRoutes(t, ORIGIN);
    // alice's app, added as the account API adds one (start, then confirm with a first code), but
    // without a session of hers: she never has one during the run.
    const twoFactors = t.app.get(TwoFactors);
    const enrolment = await twoFactors.startTotp(ALICE.id, ALICE.email, ORIGIN);
    app.secret = enrolment.secret;
    app.lastStep = Math.floor(Date.now() / PERIOD_MS);
    app.backupCodes = (await twoFactors.confirmTotp(ALICE.id, enrolment.id, await codeAt(app.secret, app.lastStep)))!;
    expect(app.backupCodes).toHaveLength(10);

    // Remembered devices. bob (an app too) tells a browser not to ask again through the real flow
    // (his password, a backup code, the box ticked): a device cookie of another user, live for him.
    const bobEnrolment = await twoFactors.startTotp(BOB.id, BOB.email, ORIGIN);
    const bobCodes = await twoFactors.confirmTotp(
      BOB.id,
      bobEnrolment.id,
      await codeAt(bobEnrolment.secret, app.lastStep),
    );
    const bobDevice = await rememberedDevice(fixtureTarget(), BOB_LOGIN, bobCodes![0]!);
    // alice does the same, then her backup codes are renewed (the account page's action): the cookie
    // she kept no longer matches her factors.
    const aliceDevice = await rememberedDevice(fixtureTarget(), ALICE_LOGIN, app.backupCodes[0]!);
    app.backupCodes = await twoFactors.regenerateBackupCodes(ALICE.id);
    // Those sign-ins made sessions; alice may have none during the run.
    for (const id of [ALICE.id, BOB.id]) await adapter.deleteSessionsByUserId(id);
    // bob's cookie is live: his password alone signs him in. alice's stale one asks for her second
    // factor again, and is deleted.
    const bobAgain = await signInWith(fixtureTarget(), BOB_LOGIN, [bobDevice.device]);
    expect({ status: bobAgain.status, location: bobAgain.headers.location }).toEqual({
      status: 302,
      location: `${ORIGIN}/me`,
    });
    await adapter.deleteSessionsByUserId(BOB.id);
    const aliceAgain = await signInWith(fixtureTarget(), ALICE_LOGIN, [aliceDevice.device]);
    expect({ status: aliceAgain.status, location: aliceAgain.headers.location }).toEqual({
      status: 302,
      location: `${ORIGIN}/auth/two-factor`,
    });
    expect(sessionCookiesSet(aliceAgain)).toEqual([]);
    expect(deviceCookieDeleted(aliceAgain)).toBe(true);
    const fingerprintOf = async (value: string) => {
      const sealed = await decode({ token: value, secret: TEST_SECRET, salt: DEVICE_COOKIE });
      const fp = (sealed?.data as { fp?: unknown } | undefined)?.fp;
      if (typeof fp !== 'string')
        throw new Error(`a device cookie the app set holds no fingerprint: ${JSON.stringify(sealed)}`);
      return fp;
    };
    devices = {
      userId: ALICE.id,
      otherUser: bobDevice.device[1],
      otherUserId: BOB.id,
      stale: aliceDevice.device[1],
      fingerprints: [await fingerprintOf(bobDevice.device[1]), await fingerprintOf(aliceDevice.device[1])],
    };
    factorsBefore = await factorsOfAlice();
  });
  afterAll(() => t?.close());

  /** alice's second factors and address, as one comparable text (what no answer may change). */
  async function factorsOfAlice(): Promise<string> {
    const rows = await adapter.listTwoFactorsByUserId(ALICE.id);
    return JSON.stringify({
      email: (await adapter.getUser(ALICE.id))?.email ?? null,
      factors: rows
        .map((r) => ({
          id: r.id,
          type: r.type,
          secret: r.secret,
          confirmed: r.confirmedAt !== null,
          lastUsedStep: r.lastUsedStep ?? null,
        }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    });
  }

  /** The codes alice's app shows for the steps around now (three either side), and her backup codes. */
  async function renewAcceptable(): Promise<void> {
    const now = Math.floor(Date.now() / PERIOD_MS);
    const steps = [-3, -2, -1, 0, 1, 2, 3].map((k) => now + k);
    acceptable = [...(await Promise.all(steps.map((s) => codeAt(app.secret, s)))), ...app.backupCodes].map(normalized);
  }

  /** What no answer may do for alice, who has proved one factor at most (empty: nothing). */
  async function heldProblems(res: WireResponse): Promise<string[]> {
    const problems: string[] = [];
    for (const token of sessionCookiesSet(res)) {
      if (strategy !== 'jwt') continue;
      const claims = await decode({ token, secret: TEST_SECRET, salt: SESSION_COOKIE });
      if (claims?.sub === ALICE.id)
        problems.push(`a JWT session of alice was set without her second factor (amr ${JSON.stringify(claims.amr)})`);
    }
    const rows = await adapter.listSessionsByUserId(ALICE.id);
    if (rows.length > 0)
      problems.push(
        `alice has ${rows.length} session row(s) without her second factor: amr ${rows.map((r) => JSON.stringify((r as { amr?: unknown }).amr)).join(', ')}`,
      );
    const shown = `${res.head}\n${res.body}`;
    if (shown.includes(app.secret)) problems.push("the answer shows alice's TOTP secret");
    const text = normalized(shown);
    const code = app.backupCodes.find((c) => text.includes(normalized(c)));
    if (code) problems.push(`the answer shows a backup code of alice's (${code.slice(0, 4)}…)`);
    return problems;
  }

  const fixtureTarget = (): PendingFixtureTarget => ({
    port,
    origin: ORIGIN,
    user: { username: 'fixture', password: USERS.get('fixture')!.password },
    userId: USERS.get('fixture')!.id,
    held: {
      username: 'alice',
      password: ALICE.password,
      email: ALICE.email,
      userId: ALICE.id,
      factorIds: async () => (await adapter.listTwoFactorsByUserId(ALICE.id)).map((r) => r.id),
    },
  });
  const rules = (): AnswerRules => ({
    origin: ORIGIN,
    // No OAuth provider here: no redirect may leave the origin at all.
    oauthAuthorize: `${ORIGIN}/no-oauth-provider`,
    oauthRedirectUri: `${ORIGIN}/auth/callback/none`,
    basePath: '/auth',
  });

  it(
    `answers ${requests} malformed requests, most holding alice's pending sign-in: no session of hers, no session cookie without other credentials, below 500, on-origin redirects, nothing reflected or injected, no error logged, bounded heap`,
    async () => {
      /**
       * Requests as the pending browser; those to `/two-factor`; those with its real cookie; and the
       * answers that show the code itself was checked (and refused, or the lockout counted it).
       */
      const asPending = { requests: 0, twoFactorRoute: 0, realCookie: 0, codesChecked: 0 };
      /**
       * Requests with a device cookie; alice's sign-ins among them; those with her right password
       * held for the challenge (with her stale cookie, and how many of those answers deleted it; with
       * bob's); answers that deleted a device cookie.
       */
      const withDevice = { requests: 0, signIns: 0, held: 0, heldStale: 0, staleDeleted: 0, heldOther: 0, deleted: 0 };
      /** What an answer did with device cookies that it may not (`problems`: what {@link heldProblems} found). */
      const deviceProblems = (request: FuzzRequest, res: WireResponse, problems: string[]): string[] => {
        const out: string[] = [];
        // No right code is ever sent: no answer may remember a device.
        const set = setCookiePairs(res).filter(([name]) => DEVICE_COOKIE_NAME.test(name));
        if (set.length > 0)
          out.push(`an answer remembered a device without a code: it set ${set.map(([name]) => name).join(', ')}`);
        if (deviceCookieDeleted(res)) withDevice.deleted += 1;
        const device = request.device;
        if (!device?.cookie) return out;
        withDevice.requests += 1;
        if (device.signIn) withDevice.signIns += 1;
        if (device.signIn === 'password' && heldForChallenge(res)) {
          withDevice.held += 1;
          if (device.cookie === 'stale') {
            withDevice.heldStale += 1;
            // The app deletes a device cookie of hers that no longer matches (it keeps another user's).
            if (deviceCookieDeleted(res)) withDevice.staleDeleted += 1;
          }
          if (device.cookie === 'other user') withDevice.heldOther += 1;
        }
        if (
          sessionCookiesSet(res).length > 0 &&
          problems.some((p) => p.startsWith('a JWT session of alice') || p.startsWith('alice has'))
        )
          out.push(
            `a remembered-device cookie that is not alice's now stood in for her second factor: ${device.cookie}${device.signIn ? ` (her sign-in: ${device.signIn})` : ''}`,
          );
        return out;
      };
      let factorsNow = factorsBefore;
      await runFuzz({
        name: 'two-factor route fuzzer',
        strategy,
        requests,
        replay: REPLAY,
        seedOf: (i) => mixSeed(SEED, STREAM, strategyIndex, i),
        target: {
          origin: ORIGIN,
          port,
          secret: TEST_SECRET,
          strategy,
          alice: { username: 'alice', password: ALICE.password },
          routes,
          twoFactor: {
            heldEmail: ALICE.email,
            accepts: (value) => {
              const text = normalized(value);
              return acceptable.some((code) => text.includes(code));
            },
          },
        },
        rules: rules(),
        log,
        refreshEvery: REFRESH_EVERY,
        refresh: async (i) => {
          await renewAcceptable();
          return { ...(await refreshPendingFixtures(fixtureTarget(), i, log.emailLinks)), devices };
        },
        afterEach: async ({ index, request, res, fx }) => {
          if (request.identity === 'pending') {
            asPending.requests += 1;
            if (request.route?.action === 'two-factor') asPending.twoFactorRoute += 1;
            if (request.bytes.includes(`${PENDING_COOKIE}=${fx.pending!.cookie[1]}`)) asPending.realCookie += 1;
          }
          if (request.route?.action === 'two-factor' && request.route.method === 'POST' && codeChecked(res))
            asPending.codesChecked += 1;
          const problems = await heldProblems(res);
          problems.push(...deviceProblems(request, res, problems));
          const factors = await factorsOfAlice();
          if (factors !== factorsNow) {
            factorChanges.push(
              [
                `[${strategy} #${index}] ${request.label} -> ${res.status} (identity ${request.identity})`,
                `  before: ${factorsNow}`,
                `  after:  ${factors}`,
              ].join('\n'),
            );
            problems.push("alice's second factors or address changed");
            factorsNow = factors;
          }
          return problems;
        },
        summary: () =>
          `${asPending.requests} as the pending browser (${asPending.realCookie} with its real cookie, ${asPending.twoFactorRoute} to /two-factor), ${asPending.codesChecked} codes checked and refused, ` +
          `${withDevice.requests} with a device cookie (${withDevice.signIns} of alice's sign-ins, ${withDevice.held} of them with her right password held for the challenge: ${withDevice.heldStale} with her stale cookie (${withDevice.staleDeleted} of those deleted), ${withDevice.heldOther} with bob's), ${withDevice.deleted} answers deleting a device cookie`,
        // The run attacked a pending sign-in, and mostly its own challenge.
        finish: () => [
          ...(requests >= 200 &&
          (asPending.realCookie < requests / 10 ||
            asPending.twoFactorRoute < requests / 20 ||
            asPending.codesChecked < requests / 250)
            ? [
                `[${strategy}] too few requests reached alice's pending sign-in (${asPending.realCookie} with the real cookie, ${asPending.twoFactorRoute} to /two-factor, ${asPending.codesChecked} codes checked, of ${requests})`,
              ]
            : []),
          // Her password sign-ins with a device cookie reached the step that reads it (and were held),
          // with her stale cookie and with bob's among them (a default run holds some 40, a dozen of
          // each, per strategy; smaller runs are not held to it).
          ...(requests >= 1000 &&
          (withDevice.held < requests / 60 || withDevice.heldStale === 0 || withDevice.heldOther === 0)
            ? [
                `[${strategy}] too few of alice's password sign-ins with a device cookie reached the challenge (${withDevice.held} held, ${withDevice.heldStale} with her stale cookie, ${withDevice.heldOther} with bob's, of ${requests})`,
              ]
            : []),
        ],
      });
    },
    Math.max(120_000, requests * 60),
  );

  it('left alice without a session, and her second factors and address as they were', async () => {
    expect(routes.some((r) => r.path === '/auth/two-factor')).toBe(true);
    expect(routes.some((r) => r.path.startsWith('/auth/account/two-factor'))).toBe(true);
    expect(await adapter.listSessionsByUserId(ALICE.id)).toEqual([]);
    const after = await factorsOfAlice();
    if (factorChanges.length > 0 || after !== factorsBefore)
      throw new Error(
        `Answers to requests changed alice's second factors or address (${REPLAY}):\n  at the start: ${factorsBefore}\n  at the end:   ${after}\n\n${factorChanges.join('\n\n')}`,
      );
  });

  it("bob's remembered device still spares him his code (the fuzzer's cookie of his was a live one), and alice's stale one still does not", async () => {
    const bob = await signInWith(fixtureTarget(), BOB_LOGIN, [[DEVICE_COOKIE, devices.otherUser]]);
    expect({ status: bob.status, location: bob.headers.location, replay: REPLAY }).toEqual({
      status: 302,
      location: `${ORIGIN}/me`,
      replay: REPLAY,
    });
    expect(sessionCookiesSet(bob).length).toBeGreaterThan(0);
    await adapter.deleteSessionsByUserId(BOB.id);
    const alice = await signInWith(fixtureTarget(), ALICE_LOGIN, [[DEVICE_COOKIE, devices.stale]]);
    expect({ status: alice.status, location: alice.headers.location, replay: REPLAY }).toEqual({
      status: 302,
      location: `${ORIGIN}/auth/two-factor`,
      replay: REPLAY,
    });
    expect(await heldProblems(alice)).toEqual([]);
  });

  it("a device alice remembers now, through the real flow, spares her the challenge, and the run's checks would have reported it", async () => {
    const { device } = await rememberedDevice(fixtureTarget(), ALICE_LOGIN, app.backupCodes[1]!);
    await adapter.deleteSessionsByUserId(ALICE.id);
    const res = await signInWith(fixtureTarget(), ALICE_LOGIN, [device]);
    expect({ status: res.status, location: res.headers.location }).toEqual({ status: 302, location: `${ORIGIN}/me` });
    const problems = await heldProblems(res);
    expect(problems.join('\n')).toMatch(strategy === 'jwt' ? /a JWT session of alice/ : /session row/);
    await adapter.deleteSessionsByUserId(ALICE.id);
  });

  it("a sign-in of alice held the same way still completes with her app's code, and only that gives her a session (which the checks see)", async () => {
    const target = fixtureTarget();
    const anon = await anonymousCsrf(target);
    const pending = await heldSignIn(target, target.held, anon);
    const page = await call(target, 'GET', '/auth/two-factor', { cookies: [anon.cookie, pending] });
    expect(page.status).toBe(200);
    const html = page.body;
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(html)?.[1];
    expect(csrfToken).toBeTruthy();
    // The next step her app has not used; never within 1.5 s of a step's end.
    const left = PERIOD_MS - (Date.now() % PERIOD_MS);
    if (left < 1500) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const now = Math.floor(Date.now() / PERIOD_MS);
    const step = Math.max(now - 1, app.lastStep + 1);
    expect(step).toBeLessThanOrEqual(now + 1);
    const done = await call(target, 'POST', '/auth/two-factor', {
      cookies: [anon.cookie, pending],
      form: { csrfToken: csrfToken!, method: 'totp', code: await codeAt(app.secret, step) },
    });
    expect({ status: done.status, location: done.headers.location, replay: REPLAY }).toEqual({
      status: 302,
      location: `${ORIGIN}/me`,
      replay: REPLAY,
    });
    const session = setCookiePairs(done).filter(([name]) => SESSION_COOKIE_NAME.test(name));
    expect(session.length).toBeGreaterThan(0);
    const me = await call(target, 'GET', '/me', { cookies: session });
    expect((JSON.parse(me.body) as { user: { id: string } }).user.id).toBe(ALICE.id);
    // The run's checks would have reported this answer: the invariant bites.
    const problems = await heldProblems(done);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('\n')).toMatch(strategy === 'jwt' ? /a JWT session of alice/ : /session row/);
  });

  it('still signs a user in afterwards, over HTTP', async () => {
    const errorsBefore = log.errors.length;
    await signInAfterwards(fixtureTarget(), { username: 'final', ...USERS.get('final')! }, REPLAY);
    expect(log.errors.slice(errorsBefore)).toEqual([]);
  });
});
