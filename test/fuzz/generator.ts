/**
 * Builds one malformed request from a seeded `Rng`: a route of the module (or a guarded route of
 * the test app), a method, a request target, headers, cookies and a body, each possibly hostile.
 * The same seed and index give the same request shape; values that come from the server (CSRF
 * tokens, check cookies, magic-link tokens) are taken from the fixtures of the moment.
 */
import { hkdfSync } from 'node:crypto';
import { EncryptJWT } from 'jose';
import { encode } from '../../lib/session/jwt.js';
import type { Rng } from './prng.js';
import { buildRequest, type HeaderLine } from './wire.js';
import { SoftAuthenticator } from '../setup/soft-authenticator.js';
import {
  badPercent,
  callbackUrl,
  EVIL_HOST,
  emailAddress,
  encodeValue,
  INJECTED_HEADER,
  injection,
  junk,
  markup,
  oddProviderId,
} from './payloads.js';

/** Session cookie name over http (the app's public origin is http). */
export const SESSION_COOKIE = 'authjs.session-token';
const CSRF_COOKIE = 'authjs.csrf-token';
const CALLBACK_COOKIE = 'authjs.callback-url';
const CHECK_COOKIES = ['authjs.state', 'authjs.pkce.code_verifier', 'authjs.nonce', 'authjs.challenge'];

/** The app under test, as the generator needs to know it. */
export interface FuzzTarget {
  /** The configured `url`, e.g. `http://app.test`. */
  origin: string;
  /** The socket the app listens on (127.0.0.1). */
  port: number;
  secret: string;
  strategy: 'jwt' | 'database';
  /** The credentials user the fuzzer may sign in as, and its password. */
  alice: { username: string; password: string };
  /**
   * The module's routes, from its own action table (`AUTH_ROUTES`, the account paths of the
   * running app's `AccountRoutes`) and its configured providers: see {@link fuzzRoutes}.
   */
  routes: readonly FuzzRoute[];
  /**
   * Two-factor authentication is on and alice has an authenticator app (the pending-state suite,
   * `two-factor.fuzz.e2e-spec.ts`): her password and her magic links prove one factor, so they may
   * not sign in; the generator never sends a code the app accepts now.
   */
  twoFactor?: TwoFactorTarget;
}

/** What the generator knows of the second factor of the app under test. */
export interface TwoFactorTarget {
  /** alice's address: a magic link to it proves one factor only. */
  heldEmail: string;
  /**
   * True when `value` holds a code the app would accept for alice now (a TOTP code of the steps
   * around now, a backup code): such a value is never sent.
   */
  accepts(value: string): boolean;
}

/** One (route, method, provider) of the module, as the fuzzer reaches it. */
export interface FuzzRoute {
  /** The router's action (`signin`, `account`, …). */
  action: string;
  method: 'GET' | 'POST';
  /** The path under the origin, provider or account path filled in (`/auth/link/oauth`). */
  path: string;
  /** The provider id in the path, when the route takes one (`undefined`: an odd id is drawn instead). */
  provider?: string;
  /** Set when the route takes a provider and the fuzzer draws an odd one (traversal, markup, unknown). */
  oddProvider?: boolean;
}

/** Where the action table says a route goes, as `lib/router/auth-routes.ts` types it. */
export interface TableRoute {
  action: string;
  method: 'GET' | 'POST';
  segment: 'none' | 'provider' | 'account-path';
}

/**
 * Every (route, method, provider) to fuzz: each row of the action table with each configured
 * provider (and one slot for an odd provider id), the account rows with each path `AccountRoutes`
 * answers for that method. A new row, provider or account action is fuzzed without a change here.
 */
export function fuzzRoutes(
  table: readonly TableRoute[],
  paths: Readonly<Record<string, string>>,
  providers: readonly string[],
  account: { get: readonly string[]; post: readonly string[] },
  basePath = '/auth',
): FuzzRoute[] {
  const out: FuzzRoute[] = [];
  for (const { action, method, segment } of table) {
    const base = `${basePath}/${paths[action] ?? action}`;
    if (segment === 'none') out.push({ action, method, path: base });
    else if (segment === 'provider') {
      for (const provider of providers) out.push({ action, method, path: `${base}/${provider}`, provider });
      out.push({ action, method, path: `${base}/`, oddProvider: true });
    } else {
      for (const sub of method === 'GET' ? account.get : account.post)
        out.push({ action, method, path: sub === '' ? base : `${base}/${sub}` });
    }
  }
  return out;
}

/** A name=value pair for the Cookie header. */
export type CookiePair = [name: string, value: string];

/**
 * Valid material obtained from the app with ordinary requests, refreshed every so often, so that
 * mutated requests get past the first checks (CSRF, check cookies) and reach the flows.
 */
export interface Fixtures {
  /** An anonymous CSRF cookie and its token. */
  anon: { cookie: CookiePair; token: string };
  /** A signed-in browser: its session cookie(s) and its CSRF pair (bound to the user). */
  user?: SignedIn;
  /**
   * A browser whose sign-in is older than `account.recentSignInMaxAge` (a stolen old cookie): its
   * session and CSRF pair. Nothing sent with it may add a way into its user.
   */
  stale?: SignedIn;
  /** An OAuth sign-in in progress: its check cookies, the state, and a code from the test server. */
  oauth?: OAuthInProgress;
  /** The same, started by the stale browser, for an IdP account no user has yet. */
  oauthStale?: OAuthInProgress;
  /** WebAuthn challenges: the challenge cookie and the options the app sent. */
  webauthn: {
    /** A new user's registration (asked for anonymously). */
    register?: { cookie: CookiePair; options: WebAuthnRegisterOptions };
    /** A passkey added by the fixture user (asked for with its session). */
    registerAsUser?: { cookie: CookiePair; options: WebAuthnRegisterOptions };
    /** A passkey added by the stale browser (when the app hands it options at all). */
    registerAsStale?: { cookie: CookiePair; options: WebAuthnRegisterOptions };
    authenticate?: { cookie: CookiePair; options: { challenge: string; rpId?: string } };
  };
  /** Recent magic links (path and query), newest last. */
  emailLinks: string[];
  /** Two-factor on: alice's sign-in held for its second factor (see {@link PendingFixture}). */
  pending?: PendingFixture;
  /** Two-factor's remembered devices on: device cookies none of which may spare alice her code (see {@link DeviceFixture}). */
  devices?: DeviceFixture;
}

/**
 * "Don't ask again on this device" (`twoFactor.rememberDevice`): `authjs.two-factor-device` values
 * the app minted through real flows (a password, a backup code, the box ticked), none of which may
 * let a sign-in of alice skip her second factor now.
 */
export interface DeviceFixture {
  /** alice's id (whose sign-ins the fuzzer sends the cookies with). */
  userId: string;
  /** A real device cookie of another user with an app (bob), live for him. */
  otherUser: string;
  otherUserId: string;
  /** A real device cookie of alice's from before her factors changed (her backup codes were renewed since). */
  stale: string;
  /** The fingerprints sealed in those two (read with the secret), transplanted into minted cookies. */
  fingerprints: string[];
}

/**
 * A sign-in held for its second factor: the `authjs.two-factor` cookie a password sign-in of alice
 * set (with the anonymous CSRF pair it was made with), her user id and factor ids, and another
 * user's id (a pending state minted for them). Nothing it carries is a session.
 */
export interface PendingFixture {
  cookie: CookiePair;
  userId: string;
  /** alice's second factors (an app, backup codes): ids the account routes are sent. */
  factorIds: string[];
  /** A user without a second factor (the fixture user). */
  otherUserId: string;
}

/** A signed-in browser's session cookie(s) and CSRF pair. */
export interface SignedIn {
  session: CookiePair[];
  sessionToken: string;
  csrf: CookiePair;
  token: string;
}

/** An OAuth sign-in in progress: its check cookies, the state, and a code from the test server. */
export interface OAuthInProgress {
  cookies: CookiePair[];
  state?: string;
  code?: string;
}

export interface WebAuthnRegisterOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

/** One generated request. */
export interface FuzzRequest {
  /** `METHOD target` plus what was mutated, for failure messages. */
  label: string;
  method: string;
  target: string;
  bytes: Buffer;
  /** Unique to this request: the reflection check searches the answer for `<marker`. */
  marker: string;
  /**
   * True when the request carries anything that may legitimately sign in or show a session: a
   * fixture session, a JWE minted with the secret and valid claims, the right password, a real
   * OAuth code, a real magic link, a real WebAuthn challenge. Without it, no answer may set a
   * session cookie or show a session.
   */
  mayAuthenticate: boolean;
  /** Parts of the request the fuzzer mutated (for the failure message). */
  notes: string[];
  /** The route of the action table the request was built for (undefined: a path outside it). */
  route?: FuzzRoute;
  /** Whose session and CSRF pair it mostly carries. */
  identity: Identity;
  /**
   * Remembered devices on: the kind of `authjs.two-factor-device` cookie the request carries, and
   * whether it is one of alice's own sign-ins (her password, right or not; her magic link).
   */
  device?: { cookie?: string; signIn?: DeviceSignIn };
}

/** One of alice's sign-ins sent with a device cookie: her right password, a wrong one, her magic link. */
export type DeviceSignIn = 'password' | 'wrong password' | 'magic link';

type FieldValue = string | number | boolean | null | FieldValue[] | { [key: string]: FieldValue };
type Fields = Array<[string, FieldValue]>;

/**
 * Whose CSRF pair and session a request carries: the anonymous pair, the signed-in browser's, the
 * stale browser's, a mix, or (two-factor on) the browser whose sign-in waits for its second factor:
 * the anonymous pair and the pending cookie, no session.
 */
export type Identity = 'anon' | 'user' | 'stale' | 'mixed' | 'pending';

/** What the generator decided so far about the request being built. */
interface DrawState {
  mayAuthenticate: boolean;
  identity: Identity;
  /** Remembered devices on: what {@link FuzzRequest.device} says, and a device cookie sent on a `Cookie` line of its own. */
  device?: { cookie?: string; signIn?: DeviceSignIn; line?: string; plain?: boolean };
}

type Flow = 'credentials' | 'email' | 'passkey' | 'oauth' | 'odd';

interface RouteChoice {
  method: string;
  /** Path before mutation (origin-form). */
  path: string;
  query: Fields;
  body?: Fields;
  /** The body is sent as JSON when possible. */
  preferJson?: boolean;
  flow?: Flow;
  /** The row of the action table this is (undefined for the paths outside it). */
  table?: FuzzRoute;
}

const SWEEP_IDENTITIES: readonly Identity[] = ['stale', 'user', 'anon', 'mixed'];
/** With a pending sign-in in the fixtures, every other pass of the sweep goes with it. */
const PENDING_SWEEP_IDENTITIES: readonly Identity[] = ['pending', 'user', 'pending', 'anon', 'pending', 'mixed'];

const FLOWS: readonly string[] = ['credentials', 'email', 'passkey', 'oauth'];

/**
 * How often each action is drawn, relative to the others (the flows with most code are drawn
 * most). An action this map does not know, a new route, is drawn with weight 4.
 */
const ACTION_WEIGHTS: Readonly<Record<string, number>> = {
  signin: 9,
  callback: 14,
  link: 4,
  account: 8,
  signout: 5,
  session: 7,
  csrf: 3,
  providers: 2,
  error: 3,
  'verify-request': 2,
  'webauthn-options': 5,
  'webauthn-client': 1,
  'backchannel-logout': 4,
};

/** An action's weight; with a pending sign-in in the fixtures, its routes are drawn most. */
function actionWeight(action: string, fx: Fixtures): number {
  if (fx.pending && action === 'two-factor') return 60;
  return ACTION_WEIGHTS[action] ?? 4;
}

const ODD_METHODS = [
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'HEAD',
  'PROPFIND',
  'PURGE',
  'FOO',
  'M-SEARCH',
  'LINK',
  'get',
  'G\u00c9T',
  'CONNECT',
  'QUERY',
];

/**
 * Generates request number `index` of a run. Every third request takes the next route of
 * `target.routes` in turn (so each (route, method, provider) is reached within the first
 * 3 × `routes.length` requests); the others draw one.
 */
export async function generateRequest(
  rng: Rng,
  marker: string,
  target: FuzzTarget,
  fx: Fixtures,
  index = 0,
): Promise<FuzzRequest> {
  const notes: string[] = [];
  // Most requests are coherent (the CSRF cookie, its token and the session belong together), so
  // that they get past the CSRF check and reach the flows; the rest mix and match.
  const state: DrawState = {
    mayAuthenticate: false,
    identity: rng.weighted<Identity>([
      [5, 'anon'],
      [4, 'user'],
      [2, 'stale'],
      [2, 'mixed'],
    ]),
  };
  // Two-factor on: the browser holding alice's pending sign-in sends most requests. (Drawn only then,
  // so the runs without it are the same request for request.)
  if (fx.pending && rng.chance(0.45)) state.identity = 'pending';
  const n = target.routes.length;
  const sweep = index % 3 === 0 && n > 0 ? target.routes[(index / 3) % n] : undefined;
  // Each pass of the sweep goes with one identity in turn: every route meets the stale browser (and
  // the pending one).
  const sweepIdentities = fx.pending ? PENDING_SWEEP_IDENTITIES : SWEEP_IDENTITIES;
  if (sweep) state.identity = sweepIdentities[Math.floor(index / 3 / n) % sweepIdentities.length]!;
  if (state.identity === 'user' && !fx.user) state.identity = 'anon';
  if (state.identity === 'stale' && !fx.stale) state.identity = 'anon';
  const route = await chooseRoute(rng, marker, target, fx, state, notes, sweep);
  // Most of alice's sign-ins with a device cookie go plainly (only their cookies hostile), so that
  // they reach the step that reads it.
  if (state.device?.plain) return plainRequest(rng, marker, target, fx, state, notes, route);

  // ---- method ----
  let method = route.method;
  if (rng.chance(0.07)) {
    method = rng.pick(ODD_METHODS);
    notes.push(`method ${method}`);
  }

  // ---- request target ----
  let path = route.path;
  if (rng.chance(0.12)) {
    path = mutatePath(rng, path);
    notes.push('path mutated');
  }
  let query = serializeQuery(rng, route.query);
  if (rng.chance(0.05)) {
    query += `${query ? '&' : '?'}${rng.pick(['x', 'a', 'callbackUrl', 'error'])}=${badPercent(rng)}`;
    notes.push('bad percent in query');
  }
  let requestTarget = `${path}${query}`;
  const form = rng.weighted<string>([
    [86, 'origin'],
    [10, 'absolute'],
    [2, 'asterisk'],
    [2, 'garbage'],
  ]);
  if (form === 'absolute') {
    requestTarget = `${absoluteBase(rng, target)}${requestTarget}`;
    notes.push('absolute-form target');
  } else if (form === 'asterisk') {
    requestTarget = '*';
  } else if (form === 'garbage') {
    requestTarget = rng.pick([
      requestTarget.slice(1),
      `//${EVIL_HOST}${requestTarget}`,
      `\\\\${EVIL_HOST}${requestTarget}`,
      `${requestTarget}#frag`,
      `${requestTarget} HTTP/1.1`,
      `?${requestTarget}`,
    ]);
    notes.push('odd target');
  }

  // ---- headers ----
  const headers: HeaderLine[] = [];
  const ownHost = rng.chance(0.5) ? new URL(target.origin).host : `127.0.0.1:${target.port}`;
  const host = rng.weighted<string | undefined>([
    [80, ownHost],
    [
      12,
      rng.pick([
        EVIL_HOST,
        `${EVIL_HOST}:443`,
        `app.test@${EVIL_HOST}`,
        `${ownHost}.${EVIL_HOST}`,
        '[::1]',
        'bad host!',
        '',
        `${ownHost}\t`,
        'localhost',
        `${'h'.repeat(300)}.test`,
        `\u0430pp.test`,
      ]),
    ],
    [3, undefined],
    [5, `${ownHost}, ${EVIL_HOST}`],
  ]);
  if (host !== undefined) headers.push(['Host', host]);
  if (host !== undefined && rng.chance(0.03)) {
    headers.push(['Host', EVIL_HOST]);
    notes.push('duplicate Host');
  }
  if (rng.chance(0.25)) {
    for (const [name, value] of hostileForwarding(rng)) headers.push([name, value]);
    notes.push('forwarding headers');
  }
  if (rng.chance(0.3)) {
    headers.push([
      'Origin',
      rng.pick([
        target.origin,
        `http://${EVIL_HOST}`,
        'null',
        `${target.origin}.${EVIL_HOST}`,
        `https://${new URL(target.origin).host}`,
        `${target.origin}/path`,
        '',
        markup(rng, marker),
      ]),
    ]);
  }
  if (rng.chance(0.2))
    headers.push(['Sec-Fetch-Site', rng.pick(['same-origin', 'same-site', 'cross-site', 'none', 'SAME-ORIGIN', ''])]);
  if (rng.chance(0.15))
    headers.push([
      'Referer',
      rng.pick([
        `${target.origin}/auth/signin`,
        `http://${EVIL_HOST}/`,
        `${target.origin}/${encodeURIComponent(markup(rng, marker))}`,
        'not a url',
      ]),
    ]);
  if (rng.chance(0.2)) headers.push(['X-Auth-Return-Redirect', rng.pick(['1', 'true', '0', ''])]);
  if (rng.chance(0.3))
    headers.push([
      'Accept',
      rng.pick(['text/html', 'application/json', '*/*', 'text/html;q=0.1, application/json', markup(rng, marker)]),
    ]);
  if (rng.chance(0.08)) {
    headers.push(['Authorization', await authorizationHeader(rng, target, fx, state)]);
    notes.push('Authorization');
  }
  if (rng.chance(0.06)) {
    headers.push([
      rng.pick(['X-Custom', 'User-Agent', 'X-Request-Id', 'Accept-Language', 'If-None-Match']),
      rng.pick([
        markup(rng, marker),
        'x'.repeat(rng.pick([100, 8000])),
        `a${injection(rng).replace(/[\r\n]/g, '')}`,
        '\u00ff\u00fe',
      ]),
    ]);
  }
  if (rng.chance(0.03)) {
    // A header line that tries to end early: the request carries the injected line as its own header.
    headers.push(['X-Note', `a\r\n${INJECTED_HEADER}: from-request`]);
    notes.push('CRLF in a request header');
  }
  if (rng.chance(0.02)) {
    headers.push(['X-Big', 'b'.repeat(rng.pick([12_000, 20_000]))]);
    notes.push('oversized head');
  }

  // ---- cookies ----
  const cookies = await cookieHeader(rng, marker, target, fx, state, notes, route);
  if (cookies.length > 0) {
    if (rng.chance(0.1) && cookies.length > 1) {
      // Split over several Cookie lines (HTTP/2-style), which Node joins.
      const cut = rng.between(1, cookies.length - 1);
      headers.push(['Cookie', cookies.slice(0, cut).join('; ')], ['Cookie', cookies.slice(cut).join('; ')]);
    } else {
      headers.push(['Cookie', cookies.join(rng.pick(['; ', ';', '; ; ', ' ;  ']))]);
    }
  }
  // A device cookie on a `Cookie` line of its own (drawn only with remembered devices on).
  if (state.device?.line !== undefined) headers.push(['Cookie', state.device.line]);

  // ---- body ----
  let body: Buffer | undefined;
  const sendsBody = route.body !== undefined || rng.chance(0.05);
  if (sendsBody) {
    const encoded = encodeBody(rng, marker, route.body ?? [['x', junk(rng, marker)]], route.preferJson === true, notes);
    for (const h of encoded.headers) headers.push(h);
    body = encoded.body;
  }

  const finalHeaders = rng.chance(0.1) ? rng.shuffle(headers) : headers;
  const version = rng.weighted<string>([
    [95, 'HTTP/1.1'],
    [3, 'HTTP/1.0'],
    [1, 'HTTP/2.0'],
    [1, 'HTTP/1.1 '],
  ]);
  const requestLine = `${method} ${requestTarget} ${version}`;
  const bytes = buildRequest(requestLine, finalHeaders, body, rng.chance(0.03) ? 'latin1' : 'utf8');
  const label = `${method} ${truncate(requestTarget, 160)}`;
  return {
    label,
    method,
    target: requestTarget,
    bytes,
    marker,
    mayAuthenticate: state.mayAuthenticate,
    notes,
    route: route.table,
    identity: state.identity,
    ...(state.device ? { device: { cookie: state.device.cookie, signIn: state.device.signIn } } : {}),
  };
}

// ---- routes --------------------------------------------------------------------------------------

async function chooseRoute(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  fx: Fixtures,
  state: DrawState,
  notes: string[],
  sweep?: FuzzRoute,
): Promise<RouteChoice> {
  // Remembered devices on: now and then one of alice's own sign-ins, with a device cookie that must
  // not stand in for her second factor. (Drawn only then: the route fuzzer's stream stays the same.)
  if (!sweep && fx.devices && target.twoFactor && rng.chance(DEVICE_SIGN_IN_SHARE))
    return deviceSignIn(rng, m, target, target.twoFactor, fx, state, notes);
  // A route of the action table (the next one in turn, or drawn by its action's weight), or now
  // and then a path outside it: unknown paths under basePath, the bare base path, the app's own.
  let table = sweep;
  if (!table && target.routes.length > 0 && rng.chance(0.86)) {
    const actions = [...new Set(target.routes.map((r) => r.action))];
    const action = rng.weighted(actions.map((a) => [actionWeight(a, fx), a] as const));
    table = rng.pick(target.routes.filter((r) => r.action === action));
  }
  const outside = rng.weighted<string>([
    [3, 'unknown'],
    [1, 'bare'],
    [6, 'guarded'],
    [1, 'outside'],
  ]);
  const flowOf = (id: string | undefined): Flow => (id !== undefined && FLOWS.includes(id) ? (id as Flow) : 'odd');
  const flow = table ? flowOf(table.provider) : flowOf(rng.pick([...FLOWS, 'odd']));
  const providerId = table?.provider ?? (flow === 'odd' ? oddProviderId(rng, m) : flow);
  const kind = table ? routeKind(table) : outside;
  const route = await buildRoute(rng, m, target, fx, state, notes, kind, flow, providerId, table);
  if (!table) return route;
  // The table's method and path decide; what the builder drew for them is only a fallback.
  return { ...asMethod(route, table.method), path: route.path, table };
}

/** The builder of a table row: its action, the sign-in page being `signin` without a provider. */
function routeKind(route: FuzzRoute): string {
  if (route.action === 'signin' && route.method === 'GET') return 'signin-page';
  return route.action;
}

/** The route sent with `method`: a body becomes the query of a GET, a query the body of a POST. */
function asMethod(route: RouteChoice, method: 'GET' | 'POST'): RouteChoice {
  if (route.method === method) return route;
  if (method === 'GET') return { ...route, method, query: [...route.query, ...(route.body ?? [])], body: undefined };
  return { ...route, method, query: [], body: [...(route.body ?? []), ...route.query] };
}

async function buildRoute(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  fx: Fixtures,
  state: DrawState,
  notes: string[],
  kind: string,
  flow: Flow,
  providerId: string,
  table: FuzzRoute | undefined,
): Promise<RouteChoice> {
  const cb = (): FieldValue => callbackUrl(rng, target.origin, m);
  const csrf = (): FieldValue => csrfValue(rng, m, fx, state);
  // The second factor's routes, when there is a pending sign-in to attack (else the generic builder).
  if (kind === 'two-factor' && fx.pending && target.twoFactor)
    return twoFactorRoute(rng, m, target, target.twoFactor, fx, state, notes, table);
  switch (kind) {
    case 'signin-page':
      return {
        method: 'GET',
        path: '/auth/signin',
        query: pickFields(rng, [
          ['callbackUrl', cb],
          ['error', () => rng.pick(['OAuthSignin', 'CredentialsSignin', 'Verification', markup(rng, m), junk(rng, m)])],
          ['code', () => junk(rng, m)],
          ['email', () => emailAddress(rng, m)],
        ]),
      };
    case 'signin': {
      const body: Fields = [['csrfToken', csrf()]];
      if (rng.chance(0.6)) body.push(['callbackUrl', cb()]);
      if (flow === 'email' || rng.chance(0.1)) body.push(['email', emailAddress(rng, m)]);
      const query: Fields = [];
      if (flow === 'oauth' && rng.chance(0.5)) {
        // Extra authorization parameters are passed on; reserved ones must not be.
        const extra = rng.pick<Fields>([
          [
            ['prompt', 'login'],
            ['login_hint', emailAddress(rng, m)],
          ],
          [
            ['redirect_uri', `http://${EVIL_HOST}/cb`],
            ['client_id', 'evil'],
          ],
          [
            ['response_type', 'token'],
            ['response_mode', 'fragment'],
            ['scope', markup(rng, m)],
          ],
          [
            ['request_uri', `http://${EVIL_HOST}/r`],
            ['state', 'x'],
            ['nonce', 'y'],
            ['code_challenge', 'z'],
          ],
          Array.from({ length: rng.pick([5, 33, 40]) }, (_, i) => [`p${i}`, 'v'] as [string, FieldValue]),
          [['max_age', rng.pick(['0', '60', '-1', '1e3', 'abc', '99999999999'])]],
          [
            ['x'.repeat(65), 'v'],
            ['y', 'v'.repeat(2049)],
          ],
          [
            ['callbackUrl', cb()],
            [`evil${injection(rng)}`, '1'],
          ],
        ]);
        query.push(...extra);
        notes.push('authorization params');
      }
      if (rng.chance(0.1)) query.push(['callbackUrl', cb()]);
      return { method: 'POST', path: `/auth/signin/${providerId}`, query, body, flow };
    }
    case 'link': {
      // Linking another account: CSRF-protected, needs a session, OAuth/OIDC providers only.
      const body: Fields = [['csrfToken', csrf()]];
      if (rng.chance(0.6)) body.push(['callbackUrl', cb()]);
      return { method: 'POST', path: `/auth/link/${providerId}`, query: [], body, flow };
    }
    case 'account': {
      // The account page and API (every path `AccountRoutes` answers): session, CSRF, rate limit,
      // step-up; JSON or forms.
      const path = table?.path ?? '/auth/account';
      if (table ? table.method === 'GET' : rng.chance(0.35))
        return {
          method: 'GET',
          path,
          query: pickFields(rng, [
            ['notice', () => junk(rng, m)],
            ['error', () => junk(rng, m)],
            ['token', () => junk(rng, m)],
            ['email', () => junk(rng, m)],
          ]),
        };
      const body: Fields = [
        ['csrfToken', csrf()],
        ...pickFields(rng, [
          ['credentialID', () => junk(rng, m)],
          ['name', () => junk(rng, m)],
          ['email', () => junk(rng, m)],
          ['token', () => junk(rng, m)],
          ['newPassword', () => rng.pick<FieldValue>([junk(rng, m), 'a-long-enough-password-1', ''])],
          ['currentPassword', () => junk(rng, m)],
          ['id', () => junk(rng, m)],
          ['provider', () => rng.pick<FieldValue>(['oauth', 'credentials', junk(rng, m)])],
          ['providerAccountId', () => junk(rng, m)],
          ['confirm', () => 'yes'],
        ]),
      ];
      // Two-factor on: the fields of the two-factor actions, and alice's factor ids (whose apps and
      // codes no other session may touch; her pending sign-in is no session at all).
      if (fx.pending && target.twoFactor) {
        const tf = target.twoFactor;
        const pending = fx.pending;
        body.push(
          ...pickFields(rng, [
            ['id', () => (rng.chance(0.7) ? rng.pick(pending.factorIds) : junk(rng, m))],
            ['code', () => wrongCode(rng, m, tf)],
            ['name', () => rng.pick<FieldValue>([markup(rng, m), 'n'.repeat(100), ['a', 'b'], { x: 1 }, ''])],
          ]),
        );
      }
      return { method: 'POST', path, query: [], body, preferJson: rng.chance(0.5), flow };
    }
    case 'callback':
      return callbackRoute(rng, m, target, fx, state, notes, flow, providerId);
    case 'signout':
      return (table ? table.method === 'GET' : rng.chance(0.5))
        ? { method: 'GET', path: '/auth/signout', query: pickFields(rng, [['callbackUrl', cb]]) }
        : {
            method: 'POST',
            path: '/auth/signout',
            query: pickFields(rng, [['callbackUrl', cb]]),
            body: [['csrfToken', csrf()], ...pickFields(rng, [['callbackUrl', cb]])],
          };
    case 'session':
      if (table ? table.method === 'GET' : rng.chance(0.55))
        return {
          method: 'GET',
          path: '/auth/session',
          query: pickFields(rng, [
            ['callbackUrl', cb],
            ['x', () => junk(rng, m)],
          ]),
        };
      return {
        method: 'POST',
        path: '/auth/session',
        query: [],
        body: [
          ['csrfToken', csrf()],
          ['data', sessionData(rng, m)],
        ],
        preferJson: true,
      };
    case 'csrf':
      return { method: 'GET', path: '/auth/csrf', query: pickFields(rng, [['callbackUrl', cb]]) };
    case 'providers':
      return { method: 'GET', path: '/auth/providers', query: pickFields(rng, [['x', () => junk(rng, m)]]) };
    case 'error':
      return {
        method: 'GET',
        path: '/auth/error',
        query: [
          [
            'error',
            rng.pick([
              'Configuration',
              'AccessDenied',
              'Verification',
              'Default',
              'OAuthCallbackError',
              markup(rng, m),
              junk(rng, m),
              'x'.repeat(200),
            ]),
          ],
          ...pickFields(rng, [
            ['error', () => markup(rng, m)],
            ['callbackUrl', cb],
          ]),
        ],
      };
    case 'verify-request':
      return {
        method: 'GET',
        path: '/auth/verify-request',
        query: pickFields(rng, [
          ['provider', () => junk(rng, m)],
          ['type', () => markup(rng, m)],
          ['callbackUrl', cb],
        ]),
      };
    case 'webauthn-options': {
      const query = pickFields(rng, [
        ['action', () => rng.pick(['register', 'authenticate', 'delete', '', 'REGISTER', markup(rng, m), '__proto__'])],
        ['email', () => emailAddress(rng, m)],
        ['callbackUrl', cb],
      ]);
      const id = table ? providerId : rng.chance(0.7) ? 'passkey' : providerId;
      return { method: 'GET', path: `/auth/webauthn-options/${id}`, query };
    }
    case 'webauthn-client':
      return { method: 'GET', path: '/auth/webauthn-client.js', query: pickFields(rng, [['v', () => junk(rng, m)]]) };
    case 'unknown':
      return {
        method: rng.pick(['GET', 'POST', 'DELETE']),
        path: `/auth/${rng.pick(['nope', 'signin/email/extra', 'callback', 'session/x', '..%2fme', encodeURIComponent(markup(rng, m)), 'csrf.json', '%00', 'webauthn-options', `${'z'.repeat(300)}`])}`,
        query: pickFields(rng, [['callbackUrl', cb]]),
      };
    case 'bare':
      return { method: rng.pick(['GET', 'POST']), path: rng.pick(['/auth', '/auth/', '/auth//', '/auth?']), query: [] };
    case 'guarded':
      return {
        method: 'GET',
        path: rng.pick(['/me', '/me/fresh', '/me/scribble', '/me/', '/ME']),
        query: pickFields(rng, [['callbackUrl', cb]]),
      };
    case 'backchannel-logout':
      // The provider's server posts a logout token; anyone can post anything.
      return {
        method: 'POST',
        path: `/auth/backchannel-logout/${providerId}`,
        query: [],
        body: [['logout_token', logoutToken(rng, m, target)], ...pickFields(rng, [['x', () => junk(rng, m)]])],
      };
    case 'outside':
      return {
        method: rng.pick(['GET', 'POST']),
        path: rng.pick([
          '/public',
          '/',
          '/nope',
          `/${encodeURIComponent(markup(rng, m))}`,
          '/auth-x/csrf',
          '/authsignin',
        ]),
        query: pickFields(rng, [['x', () => junk(rng, m)]]),
      };
    default: {
      // A route of the table this generator has no builder for yet (a new route): junk fields in the
      // query, and for a POST a body with the CSRF token; reached all the same.
      notes.push(`generic route ${kind}`);
      const fields = pickFields(rng, [
        ['callbackUrl', cb],
        ['x', () => junk(rng, m)],
        ['email', () => emailAddress(rng, m)],
        ['token', () => junk(rng, m)],
      ]);
      const method = table?.method ?? rng.pick(['GET', 'POST']);
      const path = table?.path ?? `/auth/${kind}`;
      return method === 'GET'
        ? { method, path, query: fields }
        : { method, path, query: [], body: [['csrfToken', csrf()], ...fields], preferJson: rng.chance(0.5), flow };
    }
  }
}

// ---- the second factor ---------------------------------------------------------------------------

/** The pending sign-in's cookie (`PendingSignIns` in lib/methods/two-factor). */
export const PENDING_COOKIE = 'authjs.two-factor';

/**
 * `GET` or `POST {basePath}/two-factor`, the challenge of a pending sign-in, with the fields it
 * reads, hostile: the method (known, unknown, not a string), the code (wrong, odd types, huge), the
 * cancel flag, a CSRF token or none, fields it must ignore. Never a code the app accepts now.
 */
function twoFactorRoute(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  tf: TwoFactorTarget,
  fx: Fixtures,
  state: DrawState,
  notes: string[],
  table: FuzzRoute | undefined,
): RouteChoice {
  const path = table?.path ?? '/auth/two-factor';
  // Mostly the browser whose sign-in is pending: its requests are the ones that reach the code.
  if (state.identity !== 'pending' && rng.chance(0.6)) state.identity = 'pending';
  const method = (): FieldValue =>
    rng.pick<FieldValue>([
      'totp',
      'backup-code',
      'passkey',
      'TOTP',
      'backup_code',
      '',
      'sms',
      '__proto__',
      markup(rng, m),
      ['totp', 'backup-code'],
      { totp: true },
      1,
      null,
      'x'.repeat(300),
    ]);
  const cancel = (): FieldValue =>
    rng.pick<FieldValue>([
      '1',
      '0',
      'true',
      '',
      'yes',
      '01',
      ' 1',
      ['1'],
      ['1', '1'],
      { 1: 1 },
      1,
      true,
      markup(rng, m),
    ]);
  const extras = (): Fields =>
    pickFields(rng, [
      ['callbackUrl', () => callbackUrl(rng, target.origin, m)],
      ['userId', () => rng.pick<FieldValue>([fx.pending!.userId, fx.pending!.otherUserId, junk(rng, m)])],
      ['amr', () => rng.pick<FieldValue>([['pwd', 'otp', 'mfa'], 'mfa', { mfa: true }])],
      ['enrol', () => rng.pick<FieldValue>([rng.b64url(60), junk(rng, m), true])],
      ['secret', () => rng.chars(32, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')],
      ['__proto__', () => ({ admin: true })],
    ]);
  let choice: RouteChoice;
  if (table ? table.method === 'GET' : rng.chance(0.35)) {
    choice = {
      method: 'GET',
      path,
      query: [
        ...pickFields(rng, [
          ['method', method],
          ['cancel', cancel],
          ['options', () => rng.pick<FieldValue>(['passkey', 'totp', 'backup-code', '', junk(rng, m)])],
          ['code', () => wrongCode(rng, m, tf)],
        ]),
        ...(rng.chance(0.15) ? extras() : []),
      ],
    };
  } else {
    const body: Fields = [];
    // The CSRF token: mostly the browser's own, sometimes missing or wrong (`csrfValue` mixes).
    if (rng.chance(0.88)) body.push(['csrfToken', csrfValue(rng, m, fx, state)]);
    else notes.push('no csrfToken');
    if (rng.chance(0.75)) body.push(['method', method()]);
    if (rng.chance(0.85)) body.push(['code', wrongCode(rng, m, tf)]);
    if (rng.chance(0.12)) body.push(['cancel', cancel()]);
    if (rng.chance(0.15)) body.push(...extras());
    choice = { method: 'POST', path, query: [], body, preferJson: rng.chance(0.5) };
  }
  // Whatever was drawn, no field carries a code the app accepts now.
  return { ...choice, query: scrubCodes(choice.query, tf), body: choice.body && scrubCodes(choice.body, tf) };
}

/** A code that is not the right one: wrong digits, a backup code's shape, another type, huge. */
function wrongCode(rng: Rng, m: string, tf: TwoFactorTarget): FieldValue {
  const digits = (n: number) => rng.chars(n, '0123456789');
  const backup = () => [rng.chars(4, BACKUP_ALPHABET), rng.chars(4, BACKUP_ALPHABET), rng.chars(4, BACKUP_ALPHABET)];
  const code = rng.weighted<() => FieldValue>([
    [8, () => digits(6)],
    [1, () => `${digits(3)} ${digits(3)}`],
    [1, () => `\u00a0${digits(6)}\t`],
    [1, () => digits(rng.pick([0, 1, 5, 7, 8, 12, 40]))],
    [3, () => backup().join(rng.pick(['-', '', ' ']))],
    [1, () => backup().join('-').toUpperCase()],
    [1, () => [digits(6), digits(6)]],
    [1, () => ({ $ne: '' })],
    [1, () => ({ code: digits(6) })],
    [1, () => 'x'.repeat(rng.pick([65, 1000, 60_000]))],
    [1, () => digits(rng.pick([1000, 50_000]))],
    // Other scripts' digits, full-width digits, an exponent: none may read as the right code.
    [
      1,
      () =>
        rng.pick(['\u0661\u0662\u0663\u0664\u0665\u0666', '\uff11\uff12\uff13\uff14\uff15\uff16', '1e5', '0x1e240']),
    ],
    [1, () => Number(digits(6))],
    [1, () => rng.pick<FieldValue>([null, true, false, 0, -1, 1e21, []])],
    [1, () => markup(rng, m)],
    [1, () => junk(rng, m)],
  ])();
  return scrubCode(code, tf);
}

/** The backup codes' alphabet (lib/methods/two-factor/backup-codes.ts). */
const BACKUP_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';

/** `value` with every string (or number) the app would accept as alice's code now replaced. */
function scrubCode(value: FieldValue, tf: TwoFactorTarget): FieldValue {
  if (typeof value === 'string' || typeof value === 'number')
    return tf.accepts(String(value)) ? 'scrubbed-right-code' : value;
  if (Array.isArray(value)) return value.map((v) => scrubCode(v, tf));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubCode(v, tf)]));
  return value;
}

function scrubCodes(fields: Fields, tf: TwoFactorTarget): Fields {
  return fields.map(([key, value]) => [key, scrubCode(value, tf)]);
}

/**
 * The pending cookie a request carries: the real one (most of the pending browser's requests), or
 * tampered with, truncated, sealed with another secret or salt, minted with the secret around odd
 * contents, under another cookie's name, chunked, duplicated, empty, oversized. None of them, nor
 * the real one, is a session.
 */
async function pendingCookies(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  fx: Fixtures,
  pending: PendingFixture,
  state: DrawState,
  notes: string[],
): Promise<string[]> {
  if (!rng.chance(state.identity === 'pending' ? 0.95 : 0.12)) return [];
  const real = pending.cookie[1];
  const kind = rng.weighted<string>([
    [30, 'real'],
    [2, 'tampered'],
    [2, 'truncated'],
    [2, 'other secret'],
    [3, 'minted'],
    [1, 'session salt'],
    [1, 'as session'],
    [1, 'session as pending'],
    [1, 'prefixed'],
    [1, 'chunked'],
    [2, 'duplicate'],
    [1, 'empty'],
    [1, 'oversized'],
    [1, 'junk'],
  ]);
  if (kind !== 'real') notes.push(`pending cookie ${kind}`);
  const named = (value: string) => `${PENDING_COOKIE}=${value}`;
  switch (kind) {
    case 'tampered':
      return [named(tamperedJwe(rng, real))];
    case 'truncated':
      return [named(real.slice(0, rng.int(real.length)))];
    case 'other secret':
      return [named(await mintPending(rng, m, target, pending, { secret: `${target.secret}-other` }))];
    case 'minted':
      return [named(await mintPending(rng, m, target, pending, { odd: true }, notes))];
    case 'session salt':
      return [named(await mintPending(rng, m, target, pending, { salt: SESSION_COOKIE }))];
    case 'as session':
      // The pending state where a session is read (alone, or beside itself).
      return rng.chance(0.5) ? [`${SESSION_COOKIE}=${real}`] : [`${SESSION_COOKIE}=${real}`, named(real)];
    case 'session as pending':
      return [named(fx.user?.sessionToken ?? rng.b64url(200))];
    case 'prefixed':
      return [`${rng.pick(['__Secure-', '__Host-'])}${PENDING_COOKIE}=${real}`];
    case 'chunked': {
      const cut = rng.between(1, real.length - 1);
      return [`${PENDING_COOKIE}.0=${real.slice(0, cut)}`, `${PENDING_COOKIE}.1=${real.slice(cut)}`];
    }
    case 'duplicate': {
      const other = rng.pick([rng.b64url(120), '', await mintPending(rng, m, target, pending, { odd: true }, notes)]);
      return rng.chance(0.5) ? [named(other), named(real)] : [named(real), named(other)];
    }
    case 'empty':
      return [`${PENDING_COOKIE}=`];
    case 'oversized':
      return [named(rng.b64url(rng.pick([4000, 9000, 15_000])))];
    case 'junk':
      return [named(junkCookie(rng, m, real))];
    default:
      return [named(real)];
  }
}

const B64URL_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * A pending state sealed as `PendingSignIns` seals one (a check payload: `value` the user id,
 * `provider` 'two-factor', `kind` 'twoFactor', `data` the first factor's account, its `amr`, the
 * callback URL, the deadline), with another secret or salt, or (`odd`) with the right ones around
 * contents the challenge must refuse or treat as a pending state, never as a session.
 */
async function mintPending(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  pending: PendingFixture,
  how: { secret?: string; salt?: string; odd?: boolean },
  notes?: string[],
): Promise<string> {
  const userId = pending.userId;
  const payload: Record<string, unknown> = {
    value: userId,
    provider: 'two-factor',
    kind: 'twoFactor',
    data: {
      acc: { provider: 'credentials', providerAccountId: userId, type: 'credentials' },
      amr: ['pwd'],
      cb: `${target.origin}/me`,
      nu: false,
      until: Date.now() + 300_000,
    },
  };
  const data = payload.data as Record<string, unknown>;
  let maxAge = 300;
  if (how.odd) {
    const [note, edit] = rng.pick<[string, () => void]>([
      ['amr says mfa', () => void (data.amr = ['pwd', 'otp', 'mfa'])],
      ['amr odd', () => void (data.amr = rng.pick<unknown>(['mfa', { 0: 'mfa' }, [1, null], 'x'.repeat(500)]))],
      ['until past', () => void (data.until = Date.now() - 1000)],
      ['until odd', () => void (data.until = rng.pick<unknown>(['9999999999999', 1e300, null, -1]))],
      ['exp past', () => void (maxAge = -60)],
      ['callback off-origin', () => void (data.cb = `https://${EVIL_HOST}/stolen`)],
      ['callback odd', () => void (data.cb = rng.pick<unknown>([markup(rng, m), ['/me'], 5, 'javascript:alert(1)']))],
      ['account missing', () => void delete data.acc],
      ['account odd', () => void (data.acc = rng.pick<unknown>([{ provider: 1 }, 'credentials', [], { type: null }]))],
      ['data missing', () => void delete payload.data],
      ['data array', () => void (payload.data = [1, 2])],
      ['another user', () => void (payload.value = pending.otherUserId)],
      ['unknown user', () => void (payload.value = `fz-nobody-${rng.b64url(6)}`)],
      ['value odd', () => void (payload.value = rng.pick<unknown>(['', 5, { id: userId }, [userId]]))],
      ['another check', () => void (payload.kind = rng.pick(['state', 'webauthnChallenge', 'pkceCodeVerifier']))],
      ['another provider', () => void (payload.provider = rng.pick(['credentials', 'email', '', 'two-factor ']))],
      ['enrolment secret', () => void (data.enrol = rng.pick<unknown>([rng.b64url(80), junk(rng, m), 7]))],
      ['profile huge', () => void (data.pr = { name: 'p'.repeat(3000), email: `x@${EVIL_HOST}` })],
      ['provider sid', () => void (data.sid = rng.pick<unknown>([rng.b64url(20), { x: 1 }]))],
    ]);
    edit();
    notes?.push(`minted: ${note}`);
  }
  return encode({
    token: payload,
    secret: how.secret ?? target.secret,
    salt: how.salt ?? PENDING_COOKIE,
    maxAge,
  });
}

// ---- remembered devices --------------------------------------------------------------------------

/** The remembered device's cookie (`RememberedDevices` in lib/methods/two-factor). */
export const DEVICE_COOKIE = 'authjs.two-factor-device';
/** The provider a device cookie is sealed for (lib/methods/two-factor/two-factor.device.ts). */
const DEVICE_PROVIDER = 'two-factor-device';
/** The share of drawn requests (the sweep's aside) that are one of alice's sign-ins with a device cookie. */
const DEVICE_SIGN_IN_SHARE = 0.12;
/** The share of those sent plainly ({@link plainRequest}); the others are mutated as any request. */
const PLAIN_SHARE = 0.7;

/**
 * One of alice's own sign-ins, sent with a device cookie ({@link deviceCookies}): her password (the
 * right one mostly: it proves one factor, and only a device cookie the app minted for her as she is
 * now could stand in for the second), now and then a wrong one, or her magic link. Mostly from the
 * anonymous browser or the pending one (whose CSRF pair that is), so that most reach the second
 * factor's step; the request's other parts are mutated as any other's.
 */
function deviceSignIn(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  tf: TwoFactorTarget,
  fx: Fixtures,
  state: DrawState,
  notes: string[],
): RouteChoice {
  // Mostly the pending browser: its CSRF pair is the anonymous one, and it sends no session (which
  // would want a CSRF token bound to it).
  if (state.identity !== 'pending' && rng.chance(0.85)) state.identity = 'pending';
  const tableRoute = (method: 'GET' | 'POST', provider: string) =>
    target.routes.find((r) => r.action === 'callback' && r.method === method && r.provider === provider);
  const link = fx.emailLinks.find((l) => new URL(l, target.origin).searchParams.get('email') === tf.heldEmail);
  if (link && rng.chance(0.15)) {
    // Her magic link proves one factor too (and is spent by the first request that uses it).
    const params = new URL(link, target.origin).searchParams;
    const query: Fields = [
      ['token', params.get('token') ?? ''],
      ['email', tf.heldEmail],
    ];
    if (rng.chance(0.4)) query.push(['callbackUrl', callbackUrl(rng, target.origin, m)]);
    state.device = { signIn: 'magic link', plain: rng.chance(PLAIN_SHARE) };
    notes.push('device sign-in: magic link');
    return { method: 'GET', path: '/auth/callback/email', query, flow: 'email', table: tableRoute('GET', 'email') };
  }
  const right = rng.chance(0.85);
  state.device = { signIn: right ? 'password' : 'wrong password', plain: rng.chance(PLAIN_SHARE) };
  notes.push(`device sign-in: ${state.device.signIn}`);
  const body: Fields = [
    ['csrfToken', csrfValue(rng, m, fx, state)],
    ['username', target.alice.username],
    [
      'password',
      right ? target.alice.password : rng.pick<FieldValue>(['wrong', '', `${target.alice.password} `, ['x'], null]),
    ],
  ];
  if (rng.chance(0.6)) body.push(['callbackUrl', callbackUrl(rng, target.origin, m)]);
  // Fields of the challenge's form, which a sign-in must ignore (nothing is remembered without a code).
  if (rng.chance(0.2))
    body.push(
      ...pickFields(rng, [
        ['remember', () => rng.pick<FieldValue>(['1', true, 'on', ['1']])],
        ['method', () => rng.pick<FieldValue>(['totp', 'backup-code', 'device', 'dev'])],
        ['code', () => wrongCode(rng, m, tf)],
        ['amr', () => rng.pick<FieldValue>([['pwd', 'dev', 'mfa'], 'dev'])],
      ]),
    );
  return {
    method: 'POST',
    path: '/auth/callback/credentials',
    query: [],
    body: scrubCodes(body, tf),
    flow: 'credentials',
    table: tableRoute('POST', 'credentials'),
  };
}

/**
 * A request built plainly, as a browser sends it: the route's method and path, the public Host (and
 * Origin now and then), the cookies {@link cookieHeader} draws (a device cookie among them), the
 * fields as a form or JSON. What is hostile in it is the cookies (and the fields the route drew).
 */
async function plainRequest(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  fx: Fixtures,
  state: DrawState,
  notes: string[],
  route: RouteChoice,
): Promise<FuzzRequest> {
  notes.push('sent plainly');
  const headers: HeaderLine[] = [['Host', new URL(target.origin).host]];
  if (rng.chance(0.5)) headers.push(['Origin', target.origin]);
  if (rng.chance(0.2)) headers.push(['X-Auth-Return-Redirect', '1']);
  const cookies = await cookieHeader(rng, m, target, fx, state, notes, route);
  if (cookies.length > 0) headers.push(['Cookie', cookies.join('; ')]);
  if (state.device?.line !== undefined) headers.push(['Cookie', state.device.line]);
  const text = (v: FieldValue) => (typeof v === 'string' ? v : JSON.stringify(v));
  const query = route.query.length
    ? `?${new URLSearchParams(route.query.map(([k, v]) => [k, text(v)])).toString()}`
    : '';
  let body: Buffer | undefined;
  if (route.body) {
    const json = rng.chance(0.25);
    headers.push(['Content-Type', json ? 'application/json' : 'application/x-www-form-urlencoded']);
    body = Buffer.from(
      json
        ? JSON.stringify(Object.fromEntries(route.body))
        : new URLSearchParams(route.body.map(([k, v]) => [k, text(v)])).toString(),
    );
  }
  const requestTarget = `${route.path}${query}`;
  return {
    label: `${route.method} ${truncate(requestTarget, 160)}`,
    method: route.method,
    target: requestTarget,
    bytes: buildRequest(`${route.method} ${requestTarget} HTTP/1.1`, headers, body),
    marker: m,
    mayAuthenticate: state.mayAuthenticate,
    notes,
    route: route.table,
    identity: state.identity,
    device: { cookie: state.device?.cookie, signIn: state.device?.signIn },
  };
}

/**
 * The device cookie a request carries (every one of alice's sign-ins of {@link deviceSignIn}, many
 * other sign-ins, some other requests): bob's real one, alice's stale one, those tampered with,
 * truncated, chunked, prefixed, duplicated or on a `Cookie` line of their own, sealed with another
 * secret or salt, minted with the secret around a fingerprint that is not hers now or odd contents,
 * another JWE (a session's, the pending state's) in its place, random, empty, oversized. Never a
 * device cookie the app would recognise for alice now.
 */
async function deviceCookies(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  fx: Fixtures,
  devices: DeviceFixture,
  state: DrawState,
  notes: string[],
  route: RouteChoice,
): Promise<string[]> {
  const signIn = state.device?.signIn !== undefined;
  if (!signIn && !rng.chance(route.flow === 'credentials' || route.flow === 'email' ? 0.6 : 0.15)) return [];
  // alice's sign-ins carry the two real cookies (bob's, her stale one) most: the ones whose seal opens.
  const kind =
    signIn && rng.chance(0.4)
      ? rng.pick(['other user', 'stale'])
      : rng.weighted<string>([
          [5, 'other user'],
          [5, 'stale'],
          [2, 'random'],
          [2, 'tampered'],
          [2, 'truncated'],
          [2, 'other secret'],
          [2, 'other salt'],
          [1, 'session value'],
          [1, 'pending value'],
          [5, 'minted'],
          [1, 'prefixed'],
          [2, 'chunked'],
          [2, 'duplicate'],
          [1, 'own Cookie line'],
          [1, 'as session'],
          [1, 'oversized'],
          [1, 'empty'],
          [1, 'junk'],
        ]);
  const realKind = rng.pick(['stale', 'other user'] as const);
  const real = realKind === 'stale' ? devices.stale : devices.otherUser;
  // The kind as counted and reported: the real cookie a variant was made of, where there is one.
  const label = ['tampered', 'truncated', 'prefixed', 'chunked', 'duplicate', 'own Cookie line', 'as session'].includes(
    kind,
  )
    ? `${kind} (${realKind})`
    : kind;
  state.device = { ...state.device, cookie: label };
  const at = notes.push(`device cookie ${label}`) - 1;
  const relabel = (to: string) => {
    state.device = { ...state.device, cookie: to };
    notes[at] = `device cookie ${to}`;
  };
  const named = (value: string) => `${DEVICE_COOKIE}=${value}`;
  switch (kind) {
    case 'other user':
      return [named(devices.otherUser)];
    case 'stale':
      return [named(devices.stale)];
    case 'random':
      return [
        named(
          rng.pick([
            rng.b64url(rng.between(1, 400)),
            [rng.b64url(36), '', rng.b64url(22), rng.b64url(rng.between(40, 300)), rng.b64url(22)].join('.'),
          ]),
        ),
      ];
    case 'tampered':
      return [named(tamperedJwe(rng, real))];
    case 'truncated':
      return [named(real.slice(0, rng.int(real.length)))];
    case 'other secret':
      return [named(await mintDevice(rng, m, target, devices, { secret: `${target.secret}-other` }))];
    case 'other salt': {
      const salt = rng.pick([PENDING_COOKIE, SESSION_COOKIE, 'authjs.challenge', `__Secure-${DEVICE_COOKIE}`]);
      notes.push(`sealed for ${salt}`);
      return [named(await mintDevice(rng, m, target, devices, { salt }))];
    }
    case 'session value':
      return [named(fx.user?.sessionToken ?? rng.b64url(200))];
    case 'pending value':
      return [named(fx.pending?.cookie[1] ?? rng.b64url(200))];
    case 'minted':
      return [named(await mintDevice(rng, m, target, devices, { odd: true }, notes))];
    case 'prefixed':
      return [`${rng.pick(['__Secure-', '__Host-'])}${named(real)}`];
    case 'chunked': {
      const cut = rng.between(1, real.length - 1);
      const chunks = [`${DEVICE_COOKIE}.0=${real.slice(0, cut)}`, `${DEVICE_COOKIE}.1=${real.slice(cut)}`];
      return rng.chance(0.3) ? [named(rng.b64url(40)), ...chunks] : chunks;
    }
    case 'duplicate': {
      const [otherKind, other] = rng.pick<[string, string]>([
        ['random', rng.b64url(120)],
        ['empty', ''],
        realKind === 'stale' ? ['other user', devices.otherUser] : ['stale', devices.stale],
        ['minted', await mintDevice(rng, m, target, devices, { odd: true }, notes)],
      ]);
      relabel(`duplicate (${realKind} and ${otherKind})`);
      return rng.chance(0.5) ? [named(other), named(real)] : [named(real), named(other)];
    }
    case 'own Cookie line':
      // Node joins repeated `Cookie` lines: the device cookie arrives after the others (or twice).
      state.device = { ...state.device, line: named(real) };
      return rng.chance(0.4) ? [named(rng.pick([rng.b64url(80), real]))] : [];
    case 'as session':
      // The device cookie where a session or the pending state is read.
      return [
        rng.pick([`${SESSION_COOKIE}=${real}`, `${SESSION_COOKIE}.0=${real}`, `${PENDING_COOKIE}=${real}`]),
        ...(rng.chance(0.5) ? [named(real)] : []),
      ];
    case 'oversized':
      return [named(rng.b64url(rng.pick([4000, 9000, 15_000])))];
    case 'empty':
      return [rng.pick([`${DEVICE_COOKIE}=`, `${DEVICE_COOKIE}=""`, DEVICE_COOKIE])];
    default:
      return [named(junkCookie(rng, m, real, [`${real}.`]))];
  }
}

/**
 * A device cookie sealed as `RememberedDevices` seals one (a check payload: `value` alice's id,
 * `provider` 'two-factor-device', `kind` 'twoFactorDevice', `data.fp` a fingerprint), with a
 * fingerprint that is not hers now (bob's, or her stale one: the app's key for the current one is
 * never computed here), with another secret or salt, or (`odd`) with the right ones around contents
 * the step must refuse.
 */
async function mintDevice(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  devices: DeviceFixture,
  how: { secret?: string; salt?: string; odd?: boolean },
  notes?: string[],
): Promise<string> {
  const userId = devices.userId;
  const payload: Record<string, unknown> = {
    value: userId,
    provider: DEVICE_PROVIDER,
    kind: 'twoFactorDevice',
    data: { fp: rng.pick(devices.fingerprints) },
  };
  const data = payload.data as Record<string, unknown>;
  let maxAge = 30 * 86_400;
  if (how.odd) {
    const [note, edit] = rng.pick<[string, () => void]>([
      ['a fingerprint not hers now', () => undefined],
      ['fingerprint random', () => void (data.fp = rng.b64url(43))],
      ['fingerprint missing', () => void delete data.fp],
      [
        'fingerprint odd',
        () =>
          void (data.fp = rng.pick<unknown>([
            null,
            '',
            5,
            true,
            [rng.pick(devices.fingerprints)],
            { fp: rng.pick(devices.fingerprints) },
            'x'.repeat(5000),
            markup(rng, m),
          ])),
      ],
      ['fingerprint outside data', () => void ((payload.fp = data.fp), delete payload.data)],
      ['another user', () => void (payload.value = devices.otherUserId)],
      ['unknown user', () => void (payload.value = `fz-nobody-${rng.b64url(6)}`)],
      [
        'value odd',
        () =>
          void (payload.value = rng.pick<unknown>([
            '',
            5,
            { id: userId },
            [userId],
            userId.toUpperCase(),
            `${userId} `,
            `${userId}\u0000`,
          ])),
      ],
      [
        'another check',
        () => void (payload.kind = rng.pick(['twoFactor', 'state', 'webauthnChallenge', 'nonce', 'pkceCodeVerifier'])),
      ],
      [
        'another provider',
        () => void (payload.provider = rng.pick(['two-factor', 'credentials', '', `${DEVICE_PROVIDER} `, 'device'])),
      ],
      ['exp past', () => void (maxAge = -60)],
      ['data missing', () => void delete payload.data],
      ['data array', () => void (payload.data = [data.fp])],
      ['claims of a session', () => void Object.assign(data, { amr: ['pwd', 'otp', 'mfa'], sub: userId, dev: true })],
    ]);
    edit();
    notes?.push(`minted: ${note}`);
  }
  return encode({ token: payload, secret: how.secret ?? target.secret, salt: how.salt ?? DEVICE_COOKIE, maxAge });
}

/** A back-channel logout token: unsigned, signed with a guessed key, odd claims, or not a JWT at all. */
function logoutToken(rng: Rng, m: string, target: FuzzTarget): FieldValue {
  const part = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = (): Record<string, unknown> => ({
    iss: rng.pick(['http://127.0.0.1:9', `http://${EVIL_HOST}`, target.origin]),
    aud: rng.pick(['fz-client', 'other', ['fz-client', 'x']]),
    iat: rng.pick([now, now + 3600, 'now', -1]),
    jti: rng.b64url(12),
    ...(rng.chance(0.7) ? { sub: rng.pick(['user-fixture', 'user-stale', junk(rng, m)]) } : {}),
    ...(rng.chance(0.5) ? { sid: rng.b64url(16) } : {}),
    events: rng.pick<unknown>([
      { 'http://schemas.openid.net/event/backchannel-logout': {} },
      ['http://schemas.openid.net/event/backchannel-logout'],
      {},
      'x',
    ]),
    ...(rng.chance(0.2) ? { nonce: 'n' } : {}),
  });
  return rng.pick<() => FieldValue>([
    () => `${part({ alg: 'none', typ: 'logout+jwt' })}.${part(claims())}.`,
    () => `${part({ alg: 'HS256', typ: 'logout+jwt' })}.${part(claims())}.${rng.b64url(43)}`,
    () => `${part({ alg: 'RS256', kid: rng.b64url(8) })}.${part(claims())}.${rng.b64url(342)}`,
    // Duplicate members: the last one wins in JSON.parse.
    () =>
      `${part('{"alg":"RS256","alg":"none"}')}.${part(`{"events":{},"events":${JSON.stringify(claims().events)}}`)}.`,
    () => `${part({ alg: 'none' })}.${part(markup(rng, m))}.`,
    () => rng.pick<FieldValue>(['', junk(rng, m), 'a.b.c', 'x'.repeat(20_000), ['a', 'b']]),
  ])();
}

async function callbackRoute(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  fx: Fixtures,
  state: DrawState,
  notes: string[],
  flow: Flow,
  providerId: string,
): Promise<RouteChoice> {
  const cb = (): FieldValue => callbackUrl(rng, target.origin, m);
  switch (flow) {
    case 'credentials': {
      const right = rng.chance(0.1);
      // With a second factor, alice's right password proves one factor: it may not sign in.
      if (right && !target.twoFactor) state.mayAuthenticate = true;
      const body: Fields = [
        ['csrfToken', csrfValue(rng, m, fx, state)],
        [
          'username',
          right
            ? target.alice.username
            : rng.pick<FieldValue>([
                target.alice.username,
                'mallory',
                '',
                junk(rng, m),
                ['alice', 'bob'],
                { a: 1 },
                'a'.repeat(1025),
              ]),
        ],
        [
          'password',
          right
            ? target.alice.password
            : rng.pick<FieldValue>(['wrong', '', junk(rng, m), 'p'.repeat(5000), ['x'], null]),
        ],
      ];
      if (rng.chance(0.6)) body.push(['callbackUrl', cb()]);
      if (rng.chance(0.1))
        body.push([rng.pick(['__proto__', 'constructor', 'email', `x${injection(rng)}`]), junk(rng, m)]);
      return { method: rng.chance(0.9) ? 'POST' : 'GET', path: '/auth/callback/credentials', query: [], body, flow };
    }
    case 'email': {
      const link = fx.emailLinks.length > 0 && rng.chance(0.6) ? rng.pick(fx.emailLinks) : undefined;
      const real = link ? new URL(link, target.origin).searchParams : undefined;
      const token: FieldValue =
        real && rng.chance(0.6)
          ? real.get('token')!
          : rng.pick<FieldValue>([rng.b64url(64), '', junk(rng, m), 't'.repeat(600), [rng.b64url(8), rng.b64url(8)]]);
      const email: FieldValue = real && rng.chance(0.7) ? real.get('email')! : emailAddress(rng, m);
      // A link to alice's address proves one factor when she has a second.
      if (real && token === real.get('token') && real.get('email') !== target.twoFactor?.heldEmail)
        state.mayAuthenticate = true;
      const fields: Fields = [
        ['token', token],
        ['email', email],
      ];
      if (rng.chance(0.5)) fields.push(['callbackUrl', cb()]);
      if (rng.chance(0.5)) return { method: 'GET', path: '/auth/callback/email', query: fields, flow };
      return { method: 'POST', path: '/auth/callback/email', query: [], body: fields, flow };
    }
    case 'passkey': {
      const kind = rng.weighted<'register' | 'authenticate' | 'junk'>([
        [state.identity === 'stale' ? 12 : 3, 'register'],
        [3, 'authenticate'],
        [2, 'junk'],
      ]);
      const action =
        kind !== 'junk' && rng.chance(0.85)
          ? kind
          : rng.pick<FieldValue>(['register', 'authenticate', 'delete', '', markup(rng, m), ['register']]);
      const body: Fields = [
        ['action', action],
        ['data', webAuthnData(rng, m, target, fx, state, kind)],
      ];
      if (rng.chance(0.5)) body.push(['callbackUrl', cb()]);
      if (rng.chance(0.3)) body.push(['csrfToken', csrfValue(rng, m, fx, state)]);
      return {
        method: rng.chance(0.9) ? 'POST' : 'GET',
        path: '/auth/callback/passkey',
        query: [],
        body,
        preferJson: true,
        flow,
      };
    }
    case 'oauth': {
      const o = oauthFixture(fx, state);
      const params: Fields = [];
      // The stale browser mostly completes its own sign-in (what must not link an account to it).
      const stale = state.identity === 'stale';
      const useCode = o?.code !== undefined && rng.chance(stale ? 0.85 : 0.5);
      params.push(['code', useCode ? o!.code! : rng.pick<FieldValue>([rng.b64url(32), '', junk(rng, m)])]);
      if (rng.chance(0.85))
        params.push([
          'state',
          o?.state !== undefined && rng.chance(stale ? 0.95 : 0.7)
            ? o.state
            : rng.pick<FieldValue>([
                rng.b64url(40),
                `${rng.b64url(20)}.${rng.b64url(20)}.${rng.b64url(20)}.${rng.b64url(20)}.${rng.b64url(20)}`,
                junk(rng, m),
              ]),
        ]);
      if (useCode) state.mayAuthenticate = true;
      if (rng.chance(0.2)) params.push(['iss', rng.pick([`http://${EVIL_HOST}`, 'urn:none', junk(rng, m)])]);
      if (rng.chance(0.2))
        params.push(
          ['error', rng.pick(['access_denied', 'server_error', markup(rng, m), junk(rng, m)])],
          ['error_description', markup(rng, m)],
        );
      if (rng.chance(0.1)) params.push(['callbackUrl', cb()]);
      if (rng.chance(0.05)) params.push(['code', 'second']);
      if (rng.chance(0.6)) return { method: 'GET', path: '/auth/callback/oauth', query: params, flow };
      // form_post: cross-site by design, so no CSRF token is needed.
      return { method: 'POST', path: '/auth/callback/oauth', query: [], body: params, flow };
    }
    default: {
      const fields: Fields = [
        ['code', rng.b64url(10)],
        ['state', rng.b64url(10)],
        ['token', rng.b64url(10)],
        ['email', emailAddress(rng, m)],
      ];
      notes.push('unknown provider');
      return rng.chance(0.5)
        ? { method: 'GET', path: `/auth/callback/${providerId}`, query: fields, flow }
        : {
            method: 'POST',
            path: `/auth/callback/${providerId}`,
            query: [],
            body: [['csrfToken', csrfValue(rng, m, fx, state)], ...fields],
            flow,
          };
    }
  }
}

/** A WebAuthn response: a real one from a software authenticator (for a real challenge), tampered with, or junk. */
function webAuthnData(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  fx: Fixtures,
  state: DrawState,
  kind: 'register' | 'authenticate' | 'junk',
): FieldValue {
  const origin = rng.chance(0.8)
    ? target.origin
    : rng.pick([`http://${EVIL_HOST}`, 'http://127.0.0.1', `https://${new URL(target.origin).host}`]);
  let data: Record<string, FieldValue> | undefined;
  const own =
    state.identity === 'user'
      ? fx.webauthn.registerAsUser
      : state.identity === 'stale'
        ? fx.webauthn.registerAsStale
        : undefined;
  const registration = own && rng.chance(state.identity === 'stale' ? 0.9 : 0.7) ? own : fx.webauthn.register;
  if (kind === 'register' && registration) {
    data = device(rng, {
      discoverable: rng.chance(0.8) ? true : undefined,
      credentialIdBytes: rng.pick([16, 32, 64, 1100]),
    }).register(registration.options, {
      origin,
      type: rng.chance(0.9) ? undefined : 'webauthn.get',
      crossOrigin: rng.chance(0.1),
      uv: rng.chance(0.9),
      rpId: rng.chance(0.9) ? undefined : EVIL_HOST,
    }) as Record<string, FieldValue>;
    state.mayAuthenticate = true;
  } else if (kind === 'authenticate' && fx.webauthn.authenticate) {
    // These devices never register (their pool is apart from the registering ones'): an assertion
    // from one must never sign in, so it leaves `mayAuthenticate` false.
    data = device(rng).authenticate(fx.webauthn.authenticate.options, {
      origin,
      userHandle: rng.chance(0.5) ? rng.b64url(43) : null,
      tamper: rng.chance(0.3),
    }) as Record<string, FieldValue>;
  }
  if (!data) {
    return rng.pick<FieldValue>([
      '',
      'null',
      '{',
      '[]',
      junk(rng, m),
      { id: 'x', rawId: 'y', type: 'public-key', response: {} },
      {
        id: 'x',
        rawId: 'x',
        type: 'public-key',
        response: { clientDataJSON: '!!', attestationObject: markup(rng, m) },
      },
      {
        id: 'x',
        rawId: 'x',
        type: 'public-key',
        response: {
          clientDataJSON: rng.b64url(80),
          authenticatorData: rng.b64url(50),
          signature: rng.b64url(70),
          userHandle: 5,
        },
      },
      JSON.stringify({ id: 'a'.repeat(70_000), rawId: 'a', type: 'public-key' }),
      [1, 2, 3],
    ]);
  }
  // Tamper with one field of the real response now and then.
  if (rng.chance(0.3)) {
    const response = data.response as Record<string, FieldValue>;
    const key = rng.pick(Object.keys(response));
    response[key] = rng.pick<FieldValue>([rng.b64url(rng.between(1, 200)), '', junk(rng, m), 7]);
  }
  if (rng.chance(0.1)) data.rawId = rng.b64url(43);
  return rng.chance(0.2) ? JSON.stringify(data) : data;
}

function sessionData(rng: Rng, m: string): FieldValue {
  return rng.pick<FieldValue>([
    { name: markup(rng, m) },
    { user: { id: 'other-user', email: `x@${EVIL_HOST}` } },
    { expires: '9999-12-31' },
    { sub: 'admin' },
    'x'.repeat(50_000),
    nest(rng.pick([50, 2000])),
    [1, 2],
    null,
    42,
    { __proto__x: { admin: true } },
    junk(rng, m),
  ]);
}

function nest(depth: number): FieldValue {
  let value: FieldValue = 'deep';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** The OAuth sign-in in progress a request completes: the stale browser's own, or the anonymous one. */
function oauthFixture(fx: Fixtures, state: DrawState): OAuthInProgress | undefined {
  return state.identity === 'stale' && fx.oauthStale ? fx.oauthStale : fx.oauth;
}

function csrfValue(rng: Rng, m: string, fx: Fixtures, state: DrawState): FieldValue {
  if (state.identity !== 'mixed' && rng.chance(0.85))
    return state.identity === 'user' ? fx.user!.token : state.identity === 'stale' ? fx.stale!.token : fx.anon.token;
  return rng.weighted<() => FieldValue>([
    [6, () => fx.anon.token],
    [3, () => fx.user?.token ?? fx.anon.token],
    [1, () => fx.stale?.token ?? fx.anon.token],
    [2, () => rng.b64url(64)],
    [1, () => ''],
    [1, () => [fx.anon.token, rng.b64url(8)]],
    [1, () => ({ token: fx.anon.token })],
    [1, () => `${fx.anon.token}x`],
    [1, () => junk(rng, m)],
  ])();
}

function pickFields(rng: Rng, candidates: Array<[string, () => FieldValue]>): Fields {
  const out: Fields = [];
  for (const [key, make] of candidates) if (rng.chance(0.45)) out.push([key, make()]);
  if (rng.chance(0.05) && out.length > 0) out.push([out[0]![0], make0(out[0]![1])]);
  return out;
}

/** A second, different value for a duplicated key. */
function make0(value: FieldValue): FieldValue {
  return typeof value === 'string' ? `${value}-dup` : 'dup';
}

// ---- target mutations ----------------------------------------------------------------------------

function mutatePath(rng: Rng, path: string): string {
  return rng.pick<() => string>([
    () => `${path}/`,
    () => path.replace('/auth/', '/auth//'),
    () => path.toUpperCase(),
    () => `${path};jsessionid=x`,
    () => path.replace('/auth/', '/auth/./'),
    () => path.replace('/auth/', '/auth/x/../'),
    () => path.replace('/auth/', '/auth%2F'),
    () => path.replace('/auth/', '/auth\\'),
    () => path.replace('/auth', '/%61uth'),
    () => `${path}%00`,
    () => `${path}${badPercent(rng)}`,
    () => path.replace('/auth/', '/x/../auth/'),
    () => `/${path}`,
    () => `${path}/${'%2e%2e/'.repeat(rng.between(1, 4))}me`,
    () => `${path}\u00e9\ud83d\ude00`,
  ])();
}

function absoluteBase(rng: Rng, target: FuzzTarget): string {
  const own = new URL(target.origin);
  return rng.pick([
    target.origin,
    `${own.protocol}//${own.host.toUpperCase()}`,
    `https://${own.host}`,
    `http://${own.host}:8080`,
    `http://${own.host}:80`,
    `http://${EVIL_HOST}`,
    `https://${EVIL_HOST}`,
    `http://app@${EVIL_HOST}`,
    `http://${EVIL_HOST}@${own.host}`,
    `http://${own.host}@${EVIL_HOST}`,
    `http://${EVIL_HOST}:80`,
    `http://127.0.0.1:${target.port}`,
    'http://[::1]',
    `ftp://${own.host}`,
    `javascript://${own.host}`,
    `http://${own.host}.`,
    `http:///${own.host}`,
    `http:${own.host}`,
    'http://',
    `http://${own.host}%2f@${EVIL_HOST}`,
  ]);
}

function hostileForwarding(rng: Rng): HeaderLine[] {
  const out: HeaderLine[] = [];
  if (rng.chance(0.7))
    out.push([
      'X-Forwarded-Host',
      rng.pick([EVIL_HOST, `${EVIL_HOST}, app.test`, 'bad host', '', `${EVIL_HOST}:443`, 'app.test']),
    ]);
  if (rng.chance(0.6))
    out.push(['X-Forwarded-Proto', rng.pick(['https', 'http', 'javascript', 'https, http', '', 'gopher'])]);
  if (rng.chance(0.3))
    out.push(['X-Forwarded-For', rng.pick(['1.2.3.4', '::1', '1.2.3.4, 5.6.7.8', 'not-an-ip', '999.1.1.1'])]);
  if (rng.chance(0.2)) out.push(['X-Forwarded-Port', rng.pick(['443', '99999', 'x'])]);
  if (rng.chance(0.2)) out.push(['Forwarded', rng.pick([`host=${EVIL_HOST};proto=https`, 'for=1.2.3.4', 'garbage'])]);
  if (rng.chance(0.1)) out.push([rng.pick(['X-Original-URL', 'X-Rewrite-URL']), `http://${EVIL_HOST}/auth/signin`]);
  if (out.length === 0) out.push(['X-Forwarded-Host', EVIL_HOST]);
  return out;
}

// ---- query and body ----------------------------------------------------------------------------

function serializeQuery(rng: Rng, fields: Fields): string {
  if (fields.length === 0) return rng.chance(0.03) ? '?' : '';
  const parts: string[] = [];
  for (const [key, value] of fields) {
    for (const v of Array.isArray(value) ? value : [value]) {
      parts.push(`${encodeValue(rng, key)}=${encodeValue(rng, typeof v === 'string' ? v : JSON.stringify(v))}`);
    }
  }
  return `?${parts.join(rng.chance(0.05) ? '&&' : '&')}`;
}

function encodeBody(
  rng: Rng,
  m: string,
  fields: Fields,
  preferJson: boolean,
  notes: string[],
): { headers: HeaderLine[]; body: Buffer } {
  const kind = rng.weighted<string>([
    // About one body in five is broken in some way; the rest are well-formed JSON or forms.
    [preferJson ? 12 : 4, 'json'],
    [preferJson ? 4 : 12, 'form'],
    [0.5, 'bad-json'],
    [0.4, 'text'],
    [0.3, 'multipart'],
    [0.4, 'wrong-type'],
    [0.4, 'gzip-junk'],
    [0.4, 'charset'],
    [0.6, 'chunked'],
    [0.4, 'oversized'],
    [0.3, 'no-type'],
    [0.3, 'smuggle'],
  ]);
  if (kind !== 'json' && kind !== 'form') notes.push(`body ${kind}`);
  const form = () => formEncode(rng, fields);
  const json = () => JSON.stringify(Object.fromEntries(fields));
  switch (kind) {
    case 'json':
      return {
        headers: [
          ['Content-Type', rng.pick(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'])],
        ],
        body: Buffer.from(json()),
      };
    case 'form':
      return {
        headers: [
          [
            'Content-Type',
            rng.pick(['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8']),
          ],
        ],
        body: Buffer.from(form()),
      };
    case 'bad-json':
      return {
        headers: [['Content-Type', 'application/json']],
        body: Buffer.from(
          rng.pick([
            '{',
            '{"csrfToken":',
            '{"a":1,}',
            "{'a':1}",
            'null',
            '"str"',
            '[',
            '\u0000',
            `{"x":"${markup(rng, m)}"`,
            '{"__proto__":{"admin":true}}',
            '{"constructor":{"prototype":{"x":1}}}',
            `${'['.repeat(5000)}${']'.repeat(5000)}`,
          ]),
        ),
      };
    case 'text':
      return { headers: [['Content-Type', 'text/plain']], body: Buffer.from(form()) };
    case 'multipart':
      return {
        headers: [
          [
            'Content-Type',
            rng.pick(['multipart/form-data; boundary=xyz', 'multipart/form-data', 'multipart/form-data; boundary=']),
          ],
        ],
        body: Buffer.from(`--xyz\r\nContent-Disposition: form-data; name="csrfToken"\r\n\r\nabc\r\n--xyz--\r\n`),
      };
    case 'wrong-type':
      return rng.chance(0.5)
        ? { headers: [['Content-Type', 'application/json']], body: Buffer.from(form()) }
        : { headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: Buffer.from(json()) };
    case 'gzip-junk':
      return {
        headers: [
          ['Content-Type', 'application/x-www-form-urlencoded'],
          ['Content-Encoding', rng.pick(['gzip', 'deflate', 'br', 'zstd', 'identity, gzip', 'x-evil'])],
        ],
        body: Buffer.from(form()),
      };
    case 'charset':
      return {
        headers: [
          [
            'Content-Type',
            rng.pick([
              'application/json; charset=ebcdic',
              'application/json; charset=utf-16',
              'application/x-www-form-urlencoded; charset=latin1',
              'application/x-www-form-urlencoded; charset="><x',
            ]),
          ],
        ],
        body: Buffer.from(rng.chance(0.5) ? json() : form()),
      };
    case 'chunked': {
      const payload = Buffer.from(form());
      const half = Math.floor(payload.length / 2);
      const chunk = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
      const framing: HeaderLine[] = [['Transfer-Encoding', 'chunked']];
      // Both framings at once is a smuggling vector; Node refuses it.
      if (rng.chance(0.3)) framing.push(['Content-Length', String(payload.length + 5)]);
      const parts = [payload.subarray(0, half), payload.subarray(half)].filter((b) => b.length > 0).map(chunk);
      return {
        headers: [['Content-Type', 'application/x-www-form-urlencoded'], ...framing],
        body: Buffer.concat([...parts, Buffer.from('0\r\n\r\n')]),
      };
    }
    case 'oversized':
      return {
        headers: [['Content-Type', rng.pick(['application/json', 'application/x-www-form-urlencoded'])]],
        body: Buffer.from(
          rng.chance(0.5)
            ? JSON.stringify({ a: 'x'.repeat(rng.pick([90_000, 150_000])) })
            : `a=${'x'.repeat(rng.pick([90_000, 150_000]))}`,
        ),
      };
    case 'no-type':
      return { headers: [], body: Buffer.from(form()) };
    default: {
      // Content-Length shorter than what is sent: the rest would be a second request on the same
      // connection (which `Connection: close` ends first).
      const smuggled = `GET /auth/csrf HTTP/1.1\r\nHost: ${EVIL_HOST}\r\nX-Fuzz-Injected: 1\r\n\r\n`;
      return {
        headers: [
          ['Content-Type', 'application/x-www-form-urlencoded'],
          ['Content-Length', '0'],
        ],
        body: Buffer.from(smuggled),
      };
    }
  }
}

function formEncode(rng: Rng, fields: Fields): string {
  const parts: string[] = [];
  const add = (key: string, value: FieldValue) => {
    if (Array.isArray(value)) {
      // qs-style arrays and repeated keys
      value.forEach((v, i) => add(rng.chance(0.5) ? `${key}[]` : rng.chance(0.5) ? key : `${key}[${i}]`, v));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    } else {
      parts.push(`${encodeValue(rng, key)}=${encodeValue(rng, String(value))}`);
    }
  };
  for (const [key, value] of fields) add(key, value);
  if (rng.chance(0.05))
    parts.push(
      rng.pick([
        '__proto__[admin]=1',
        'constructor[prototype][admin]=1',
        '=x',
        'novalue',
        'a[b][c][d][e][f][g]=1',
        `${'a['.repeat(40)}=1`,
      ]),
    );
  return parts.join('&');
}

// ---- cookies -----------------------------------------------------------------------------------

async function cookieHeader(
  rng: Rng,
  m: string,
  target: FuzzTarget,
  fx: Fixtures,
  state: DrawState,
  notes: string[],
  route: RouteChoice,
): Promise<string[]> {
  const out: string[] = [];
  const pair = ([n, v]: CookiePair) => `${n}=${v}`;
  // The CSRF cookie: usually the anonymous pair's, or the signed-in browser's.
  // The pending browser's CSRF pair is the anonymous one its sign-in was made with.
  const own = state.identity === 'pending' ? 'anon' : state.identity;
  const csrfKind =
    own !== 'mixed' && rng.chance(0.9)
      ? own
      : rng.weighted<string>([
          [6, 'anon'],
          [3, 'user'],
          [1, 'stale'],
          [2, 'none'],
          [1, 'forged'],
        ]);
  if (csrfKind === 'anon') out.push(pair(fx.anon.cookie));
  else if (csrfKind === 'user' && fx.user) out.push(pair(fx.user.csrf));
  else if (csrfKind === 'stale' && fx.stale) out.push(pair(fx.stale.csrf));
  else if (csrfKind === 'forged')
    out.push(
      `${CSRF_COOKIE}=${rng.pick([`${rng.b64url(64)}|${rng.b64url(64)}`, '|', `${fx.anon.token}|`, encodeURIComponent(markup(rng, m)), 'x'.repeat(3000), `${fx.anon.cookie[1]}x`])}`,
    );

  // The session: none, the fixture user's, forged, minted with the secret, chunked, duplicated.
  const sessionKind =
    (state.identity === 'user' || state.identity === 'stale') && rng.chance(0.85)
      ? state.identity
      : state.identity === 'pending' && rng.chance(0.85)
        ? 'none'
        : rng.weighted<string>([
            [5, 'none'],
            [state.identity === 'anon' ? 0 : 4, 'user'],
            [state.identity === 'anon' ? 0 : 2, 'stale'],
            [3, 'forged'],
            [4, 'minted'],
            [2, 'chunked'],
            [1, 'duplicate'],
            [1, 'oversized'],
          ]);
  if (sessionKind !== 'none') notes.push(`session cookie ${sessionKind}`);
  switch (sessionKind) {
    case 'user':
      if (fx.user) {
        for (const c of fx.user.session) out.push(pair(c));
        state.mayAuthenticate = true;
      }
      break;
    case 'stale':
      // An old session is still a session (it may show itself); it may not add a way in.
      if (fx.stale) {
        for (const c of fx.stale.session) out.push(pair(c));
        state.mayAuthenticate = true;
      }
      break;
    case 'forged':
      out.push(`${SESSION_COOKIE}=${forgedToken(rng, target)}`);
      break;
    case 'minted': {
      const minted = await mintedToken(rng, target);
      if (minted.valid) state.mayAuthenticate = true;
      notes.push(`claims ${minted.note}`);
      out.push(`${SESSION_COOKIE}=${minted.token}`);
      break;
    }
    case 'chunked': {
      if (fx.user && rng.chance(0.5)) {
        out.push(...chunkCookies(rng, fx.user.sessionToken));
        state.mayAuthenticate = true;
      } else {
        const minted = await mintedToken(rng, target);
        if (minted.valid) state.mayAuthenticate = true;
        notes.push(`claims ${minted.note}`);
        out.push(...chunkCookies(rng, minted.token));
      }
      break;
    }
    case 'duplicate':
      out.push(`${SESSION_COOKIE}=${forgedToken(rng, target)}`);
      if (fx.user) {
        out.push(`${SESSION_COOKIE}=${fx.user.sessionToken}`);
        state.mayAuthenticate = true;
      }
      break;
    case 'oversized':
      out.push(`${SESSION_COOKIE}=${rng.b64url(rng.pick([4000, 9000, 15_000]))}`);
      break;
  }
  // Two-factor on: the pending sign-in's cookie, as it was set or worse.
  if (fx.pending) out.push(...(await pendingCookies(rng, m, target, fx, fx.pending, state, notes)));
  // Remembered devices on: a device cookie, forged, stale, another user's or worse.
  if (fx.devices) out.push(...(await deviceCookies(rng, m, target, fx, fx.devices, state, notes, route)));
  if (rng.chance(0.15)) {
    out.push(
      `${rng.pick(['__Secure-', '__Host-', ''])}${rng.pick([SESSION_COOKIE, CSRF_COOKIE])}${rng.pick(['', '.0'])}=${rng.b64url(40)}`,
    );
  }
  // The callback-URL cookie is an input to every redirect.
  if (rng.chance(0.2)) {
    out.push(
      `${CALLBACK_COOKIE}=${rng.chance(0.7) ? encodeURIComponent(callbackUrl(rng, target.origin, m)) : callbackUrl(rng, target.origin, m).replace(/[;\r\n]/g, '')}`,
    );
    notes.push('callback-url cookie');
  }
  // Check cookies: the real ones of an OAuth flow in progress or a WebAuthn challenge, or forged.
  const oauth = oauthFixture(fx, state);
  if (route.flow === 'oauth' && oauth && rng.chance(state.identity === 'stale' ? 0.9 : 0.6))
    for (const c of oauth.cookies) out.push(pair(c));
  if (route.flow === 'passkey' && rng.chance(0.7)) {
    const register =
      state.identity === 'user'
        ? fx.webauthn.registerAsUser
        : state.identity === 'stale'
          ? fx.webauthn.registerAsStale
          : fx.webauthn.register;
    // The stale browser mostly tries to add a passkey (what it must not be able to do).
    const challenge = rng.chance(state.identity === 'stale' ? 0.9 : 0.5) ? register : fx.webauthn.authenticate;
    if (challenge) out.push(pair(challenge.cookie));
  }
  if (rng.chance(0.1))
    out.push(
      `${rng.pick(CHECK_COOKIES)}=${rng.pick([rng.b64url(120), '', junk(rng, m).replace(/[;\r\n]/g, ''), `${rng.b64url(20)}.${rng.b64url(20)}`])}`,
    );
  // Syntax the cookie parser must survive.
  if (rng.chance(0.1)) {
    out.push(
      rng.pick([
        '=',
        ';',
        '==',
        'a',
        '"quoted"="x"',
        'a=b=c',
        `name=${badPercent(rng)}`,
        'x=\u00ff\u00fe',
        `${encodeURIComponent(markup(rng, m))}=1`,
        'a=; b',
        `${'k'.repeat(200)}=v`,
        'sp ace=1',
        'x="unterminated',
      ]),
    );
    notes.push('odd cookie syntax');
  }
  return rng.chance(0.1) ? rng.shuffle(out) : out;
}

/** Random base64url segments shaped like a JWE, or worse. */
function forgedToken(rng: Rng, target: FuzzTarget): string {
  const header = (h: object) => Buffer.from(JSON.stringify(h)).toString('base64url');
  return rng.pick<() => string>([
    () => [rng.b64url(40), '', rng.b64url(22), rng.b64url(120), rng.b64url(43)].join('.'),
    () => [header({ alg: 'dir', enc: 'A256CBC-HS512' }), '', rng.b64url(22), rng.b64url(200), rng.b64url(43)].join('.'),
    () =>
      [
        header({ alg: 'dir', enc: 'A256GCM', kid: rng.b64url(10) }),
        '',
        rng.b64url(16),
        rng.b64url(100),
        rng.b64url(22),
      ].join('.'),
    () => [header({ alg: 'none' }), rng.b64url(50), ''].join('.'),
    () =>
      [
        header({ alg: 'RSA-OAEP', enc: 'A128GCM', zip: 'DEF' }),
        rng.b64url(300),
        rng.b64url(16),
        rng.b64url(100),
        rng.b64url(22),
      ].join('.'),
    () =>
      [
        header({ alg: 'PBES2-HS512+A256KW', enc: 'A256GCM', p2c: 100_000_000, p2s: rng.b64url(16) }),
        rng.b64url(40),
        rng.b64url(16),
        rng.b64url(60),
        rng.b64url(22),
      ].join('.'),
    () =>
      [
        header({ alg: 'dir', enc: 'A256CBC-HS512', crit: ['exp'] }),
        '',
        rng.b64url(22),
        rng.b64url(120),
        rng.b64url(43),
      ].join('.'),
    () => Array.from({ length: rng.pick([2, 4, 6, 40]) }, () => rng.b64url(rng.between(0, 40))).join('.'),
    () => (target.strategy === 'database' ? rng.chars(64, '0123456789abcdef') : rng.b64url(300)),
    () => rng.pick(['', '.', '....', '%00', '\u00ff', 'null', 'undefined', '[object Object]']),
  ])();
}

/**
 * A JWE minted with the secret, with ordinary or odd claims, and whether the README's rules make
 * it a valid session (`exp` a finite NumericDate in the future and within a `Date`'s range; `iat`
 * and `nbf`, when present, numbers no later than now + 15 s; the session cookie's name as salt).
 */
async function mintedToken(rng: Rng, target: FuzzTarget): Promise<{ token: string; valid: boolean; note: string }> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    sub: 'fz-user',
    email: 'fz-user@example.test',
    exp: now + 3600,
    iat: now - 10,
  };
  const [note, edit] = rng.pick<[string, (c: Record<string, unknown>) => void]>([
    ['sane', () => undefined],
    ['exp 1e20', (c) => void (c.exp = 1e20)],
    ['exp negative', (c) => void (c.exp = -1)],
    ['exp zero', (c) => void (c.exp = 0)],
    ['exp past', (c) => void (c.exp = now - 3600)],
    ['exp string', (c) => void (c.exp = String(now + 3600))],
    ['exp NaN-ish', (c) => void (c.exp = 'NaN')],
    ['exp null', (c) => void (c.exp = null)],
    ['exp missing', (c) => void delete c.exp],
    ['exp max safe int', (c) => void (c.exp = Number.MAX_SAFE_INTEGER)],
    ['exp fractional', (c) => void (c.exp = now + 3600.5)],
    ['exp object', (c) => void (c.exp = { $gt: 0 })],
    ['exp array', (c) => void (c.exp = [now + 3600])],
    ['exp bool', (c) => void (c.exp = true)],
    ['iat future', (c) => void (c.iat = now + 3600)],
    ['iat 1e20', (c) => void (c.iat = 1e20)],
    ['iat string', (c) => void (c.iat = 'yesterday')],
    ['iat negative', (c) => void (c.iat = -5)],
    ['nbf future', (c) => void (c.nbf = now + 3600)],
    ['nbf string', (c) => void (c.nbf = '0')],
    ['sub missing', (c) => void delete c.sub],
    ['sub number', (c) => void (c.sub = 12345)],
    ['sub object', (c) => void (c.sub = { id: 'x' })],
    ['sub empty', (c) => void (c.sub = '')],
    ['sub huge', (c) => void (c.sub = 's'.repeat(3000))],
    ['sub __proto__', (c) => void (c.sub = '__proto__')],
    ['email array', (c) => void (c.email = ['a@example.test', 'b@example.test'])],
    // Own properties named like the prototype chain (as JSON.parse would make them), not a new prototype.
    [
      'own __proto__ claim',
      (c) =>
        void Object.defineProperties(c, {
          __proto__: { value: { admin: true }, enumerable: true },
          constructor: { value: { prototype: { x: 1 } }, enumerable: true },
        }),
    ],
    ['user object', (c) => void (c.user = { id: 'admin', role: 'admin' })],
    ['sid odd', (c) => void (c.sid = { x: 1 })],
    ['jti number', (c) => void (c.jti = 5)],
  ]);
  edit(claims);
  const key = rng.weighted<string>([
    [8, 'right'],
    [1, 'wrong salt'],
    [1, 'gcm'],
    [1, 'wrong secret'],
    [1, 'random kid'],
  ]);
  const salt = key === 'wrong salt' ? `__Secure-${SESSION_COOKIE}` : SESSION_COOKIE;
  const secret = key === 'wrong secret' ? `${target.secret}-other` : target.secret;
  const gcm = key === 'gcm';
  const material = derivedKey(secret, salt, gcm ? 32 : 64);
  const header: { alg: string; enc: string; kid?: string } = { alg: 'dir', enc: gcm ? 'A256GCM' : 'A256CBC-HS512' };
  if (key === 'random kid') header.kid = rng.b64url(43);
  const token = await new EncryptJWT(claims).setProtectedHeader(header).encrypt(material);
  const valid = target.strategy === 'jwt' && (key === 'right' || key === 'gcm') && timeClaimsValid(claims, now);
  return { token, valid, note: `${note}, ${key} key` };
}

/** HKDF keys as Auth.js derives them, kept: the fuzzer mints thousands of tokens with a handful of keys. */
const derivedKeys = new Map<string, Uint8Array>();
function derivedKey(secret: string, salt: string, length: number): Uint8Array {
  const id = `${length}\u0000${salt}\u0000${secret}`;
  let key = derivedKeys.get(id);
  if (!key) {
    key = new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, length));
    derivedKeys.set(id, key);
  }
  return key;
}

/** Software authenticators, a few per kind, reused (a key pair per request would dominate the run). */
const devices = new Map<string, SoftAuthenticator[]>();
function device(rng: Rng, options: ConstructorParameters<typeof SoftAuthenticator>[0] = {}): SoftAuthenticator {
  const id = JSON.stringify(options);
  let pool = devices.get(id);
  if (!pool) devices.set(id, (pool = []));
  const slot = rng.int(4);
  return (pool[slot] ??= new SoftAuthenticator(options));
}

function timeClaimsValid(c: Record<string, unknown>, now: number): boolean {
  const numeric = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && Math.abs(v * 1000) <= 8.64e15;
  if (!numeric(c.exp) || (c.exp as number) <= now) return false;
  for (const claim of [c.iat, c.nbf]) {
    if (claim === undefined) continue;
    if (!numeric(claim) || (claim as number) > now + 15) return false;
  }
  return true;
}

/** The session token split into `<name>.<n>` chunks, in order or not, with gaps, duplicates, odd indexes. */
function chunkCookies(rng: Rng, token: string): string[] {
  const n = rng.pick([2, 3, 5]);
  const size = Math.ceil(token.length / n);
  const chunks = Array.from({ length: n }, (_, i) => token.slice(i * size, (i + 1) * size));
  const named = chunks.map((c, i) => [`${SESSION_COOKIE}.${i}`, c] as CookiePair);
  const variant = rng.pick([
    'in order',
    'shuffled',
    'gap',
    'duplicate index',
    'odd index',
    'plain and chunks',
    'many tiny',
    'empty chunk',
  ]);
  let out: CookiePair[] = named;
  switch (variant) {
    case 'shuffled':
      out = rng.shuffle(named);
      break;
    case 'gap':
      out = named.filter((_, i) => i !== 1);
      break;
    case 'duplicate index':
      out = [...named, [`${SESSION_COOKIE}.0`, rng.b64url(20)]];
      break;
    case 'odd index':
      out = named.map(([name, v], i) => [
        `${name.slice(0, -String(i).length)}${rng.pick(['01', '1000', '-1', '999', ' 1', '1e2', '0x1', '\u0661'])}`,
        v,
      ]);
      break;
    case 'plain and chunks':
      out = [[SESSION_COOKIE, rng.b64url(60)], ...named];
      break;
    case 'many tiny':
      out = Array.from(
        { length: rng.pick([200, 400]) },
        (_, i) => [`${SESSION_COOKIE}.${i}`, rng.b64url(2)] as CookiePair,
      );
      break;
    case 'empty chunk':
      out = named.map(([name, v], i) => [name, i === 0 ? '' : v]);
      break;
  }
  return out.map(([name, v]) => `${name}=${v}`);
}

async function authorizationHeader(rng: Rng, target: FuzzTarget, fx: Fixtures, state: DrawState): Promise<string> {
  const kind = rng.pick(['user', 'forged', 'minted', 'odd']);
  if (kind === 'user' && fx.user) {
    state.mayAuthenticate = true;
    return `Bearer ${fx.user.sessionToken}`;
  }
  if (kind === 'minted') {
    const minted = await mintedToken(rng, target);
    if (minted.valid) state.mayAuthenticate = true;
    return `Bearer ${minted.token}`;
  }
  if (kind === 'forged') return `Bearer ${forgedToken(rng, target)}`;
  return rng.pick([
    'Bearer',
    'Bearer ',
    'Basic YTpi',
    `Bearer ${'x'.repeat(9000)}`,
    'bearer  a b c',
    'Negotiate x',
    `Bearer ${injection(rng).replace(/[\r\n]/g, '')}`,
  ]);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}

/** One character of one of the JWE's parts changed (the header, the IV, the ciphertext, the tag). */
function tamperedJwe(rng: Rng, real: string): string {
  const parts = real.split('.');
  const at = rng.pick(parts.map((p, i) => [p, i] as const).filter(([p]) => p.length > 0))[1];
  const part = parts[at]!;
  const i = rng.int(part.length);
  const swap = B64URL_CHARS[(B64URL_CHARS.indexOf(part[i]!) + rng.between(1, 63)) % 64]!;
  parts[at] = `${part.slice(0, i)}${swap}${part.slice(i + 1)}`;
  return parts.join('.');
}

/** A cookie value that is no JWE at all: markup, bad percent-encoding, the value doubled or quoted. */
function junkCookie(rng: Rng, m: string, real: string, more: string[] = []): string {
  return rng.pick([
    encodeURIComponent(markup(rng, m)),
    badPercent(rng),
    '....',
    `${real}${real}`,
    `"${real}"`,
    'null',
    'e30',
    ...more,
  ]);
}
