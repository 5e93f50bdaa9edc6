// Sign-in benchmark: sign-ins per second and the server's CPU time per sign-in, for nestjs-auth,
// Auth.js (`@auth/express`) and better-auth in the same run. Run with `npm run bench:signin`.
//
// Every library runs in its own server process (bench/signin-bench.server.ts and the library's
// module signin-bench.<library>.ts: the app as that library's documentation sets it up, on Express),
// pinned to core 1 while this load generator is pinned to core 0 (taskset, when two cores exist),
// as in the guard and refresh benches; all of a flow's servers are up at once and only the one being
// loaded works. Storage: one better-sqlite3 file in WAL mode per server, through the library's own
// storage (nestjs-auth's TypeORM adapter, Auth.js's Kysely adapter, better-auth's own Kysely
// storage), with BENCH_SIGNIN_USERS users stored before timing.
//
// Flows:
// - credentials: email and password POSTed (form with the CSRF token for nestjs-auth and Auth.js,
//   JSON for better-auth, each as its own client sends it), answered with a session cookie. One
//   password-hash cost for all: scrypt N = 2^14, r = 16, p = 1, 64-byte key, node:crypto (better-auth's
//   own default, which its app uses as it is; nestjs-auth's and Auth.js's `authorize` call
//   nestjs-auth's `verifyPassword` on a hash of those parameters, Auth.js having no hashing of its own).
// - magic-link: the GET of the emailed link, answered with a session cookie. The tokens are stored
//   before timing through each library's storage, in its own format, one per sign-in (single use).
// - oauth: the provider's redirect back to the app's callback (the app exchanges the code at the
//   provider's token endpoint, checks the ID token, reads or creates the user, starts the session),
//   against a local `oidc-provider` in its own process on the load generator's core
//   (bench/signin-bench.oidc.ts). Only the callback is timed: before timing, the bench starts each
//   sign-in at the app (keeping its state/PKCE cookies, as the browser does) and follows the
//   provider's authorization request up to the redirect back, and keeps that URL with its code.
// - passkey: a WebAuthn authentication as the browser makes it, the options request and then the
//   verify POST (one sign-in: both requests timed), with a real ES256 assertion signed in this
//   process by the e2e suites' software authenticator (test/setup/soft-authenticator.ts); the
//   passkeys (one per user, discoverable, backup-eligible, counter 0 as synced passkeys report)
//   are registered over HTTP before timing. nestjs-auth only: better-auth's passkey plugin is a
//   separate package (`@better-auth/passkey`) not installed here, and Auth.js's experimental passkey
//   provider cannot run with the installed packages (see FLOW_NOTES below).
// - two-factor: the TOTP code step of a sign-in held after the password (the code POSTed with the
//   pending cookie, answered with the session cookie). Only that step is timed: the password steps
//   (one per sign-in, each user once, on a token-cost hash) are made before timing, and the code is
//   computed in this process at send time. Against better-auth's `twoFactor` plugin; Auth.js has no
//   second factor.
//
// Each worker (BENCH_CONNECTIONS, one keep-alive connection each) runs a closed loop; each answer is
// checked (the session cookie set, no error redirect), and after the rounds one session of each
// server is read back as its user. Rounds rotate the servers' order, so machine noise hits all; the
// ratio is the median of the per-round ratios of ours to the fastest peer of that round, in
// sign-ins/s, and the CPU-time ratio the same made of the server CPU time per sign-in (/proc: user +
// system of the whole process, the hash's thread-pool work included), what the ratio would be with
// the core to itself. Then nestjs-auth's credentials server runs once more under V8's sampling
// profiler (BENCH_SIGNIN_PROFILE: the flows to profile, default `credentials`; 0 for none), and the
// summary says how much CPU per sign-in runs under this library's own frames (the hash runs on
// libuv's pool, outside the profiled thread).
// Writes bench/RESULTS-signin.md (or BENCH_RESULTS) and prints it. `npm run bench` runs it after the
// guard bench; there a BENCH_SCENARIOS that does not name `signin` skips it.
//
// Settings (environment): BENCH_ROUNDS (default 5), BENCH_DURATION seconds per round and server
// (default 5 for credentials, 2 for magic links), BENCH_WARMUP seconds per server before the rounds
// (default 3 and 2), BENCH_CONNECTIONS
// (default 4 for credentials, 16 for the others), BENCH_SIGNIN_USERS (default 64), BENCH_SIGNIN_FLOWS
// (default `credentials,magic-link,oauth,passkey,two-factor`, every flow), BENCH_SIGNIN_LINKS magic links stored per server (default
// 8000), BENCH_SIGNIN_CALLBACKS OAuth callbacks minted per server (default 600),
// BENCH_SIGNIN_PENDINGS two-factor sign-ins held at the code step per server (default 3000),
// BENCH_SIGNIN_PROFILE (default `credentials`; `oauth` too, its server's callbacks minted for the
// profiled load: BENCH_SIGNIN_PROFILE_CALLBACKS, default 2000), BENCH_SIGNIN_PROFILE_SECONDS (default 10), BENCH_RESULTS
// (the file to write instead of bench/RESULTS-signin.md, for a subset of the flows).
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, scrypt } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { Agent, type IncomingHttpHeaders } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canPin,
  closedLoop,
  cpuMicros,
  median,
  memoryOf,
  quantile,
  send,
  startServer,
  stopServer,
} from './bench-harness.js';
import { totpCode } from '../lib/methods/two-factor/totp.js';
import { SoftAuthenticator } from '../test/setup/soft-authenticator.js';
import { profileShares } from './cpu-profile-summary.js';
import {
  base32,
  BENCH_PASSWORD,
  benchEmail,
  CHEAP_SCRYPT_COST,
  magicToken,
  oidcEmail,
  passkeyEmail,
  phcHash,
  SCRYPT_COST,
  totpKey,
  twoFactorEmail,
  type OidcBenchConfig,
  type SigninLibrary,
  type SigninServerConfig,
  type SigninServerReady,
} from './signin-bench.common.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Seconds per round and server: a credentials sign-in costs a scrypt hash, so its rounds are longer. */
const DURATION = (flow: Flow) => Number(process.env.BENCH_DURATION ?? (flow === 'credentials' ? 5 : 2));
const WARMUP = (flow: Flow) => Number(process.env.BENCH_WARMUP ?? (flow === 'credentials' ? 3 : 2));
/**
 * Closed-loop workers: 16, but 4 for credentials (libuv's pool hashes 4 passwords at once; more
 * workers only queue, and each load would end waiting seconds for the queue to drain).
 */
const CONNECTIONS = (flow: Flow) => Number(process.env.BENCH_CONNECTIONS ?? (flow === 'credentials' ? 4 : 16));
const USERS = Number(process.env.BENCH_SIGNIN_USERS ?? 64);
const LINKS = Number(process.env.BENCH_SIGNIN_LINKS ?? 8000);
const CALLBACKS = Number(process.env.BENCH_SIGNIN_CALLBACKS ?? 600);
const PENDINGS = Number(process.env.BENCH_SIGNIN_PENDINGS ?? 3000);
type Flow = 'credentials' | 'magic-link' | 'oauth' | 'passkey' | 'two-factor';
const ALL_FLOWS: Flow[] = ['credentials', 'magic-link', 'oauth', 'passkey', 'two-factor'];
const FLOWS = (process.env.BENCH_SIGNIN_FLOWS ?? ALL_FLOWS.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean) as Flow[];
const PROFILE_FLOWS = (process.env.BENCH_SIGNIN_PROFILE ?? 'credentials')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s && s !== '0') as Flow[];
const PROFILE_SECONDS = Number(process.env.BENCH_SIGNIN_PROFILE_SECONDS ?? 10);
/** OAuth callbacks the profiled load may use (minted for it beyond the warm-up's). */
const PROFILE_CALLBACKS = Number(process.env.BENCH_SIGNIN_PROFILE_CALLBACKS ?? 2000);
const SECRET = randomBytes(32).toString('hex');
/** Random per run: the two-factor users' TOTP keys are derived from it (see `totpKey`). */
const TOTP_SEED = randomBytes(16).toString('hex');

const FLOW_LABELS: Record<Flow, string> = {
  credentials: 'Credentials (email + password POST → session cookie)',
  'magic-link': 'Magic-link confirmation (GET of the emailed link → session cookie)',
  oauth: "OAuth/OIDC callback (the provider's redirect back: code exchange, ID token, session cookie)",
  passkey: 'Passkey authentication (options GET, then the signed assertion POSTed and verified → session cookie)',
  'two-factor':
    'Two-factor step (the TOTP code POSTed with the pending cookie → session cookie; the password step before timing)',
};

/** Why a flow has fewer peers than the others. */
const FLOW_NOTES: Partial<Record<Flow, string>> = {
  passkey:
    "nestjs-auth only, no peer in this row. better-auth's passkey plugin is the separate package `@better-auth/passkey` (better-auth 1.7 no longer ships it), which is not installed here. Auth.js's passkey provider (experimental) cannot run with the installed packages: `@auth/core` 0.41.3 calls `@simplewebauthn/server` with its version-9 API (`verifyAuthenticationResponse({ authenticator })`) while this project's `overrides` resolve it to 14.0.3 (which takes `credential` instead and reads `credential.counter`, so every verify throws), and `@auth/kysely-adapter`, the adapter of the other Auth.js rows, has no authenticator methods.",
  'two-factor': 'Auth.js has no second factor; better-auth with its `twoFactor` plugin.',
};

const LIBRARY_LABELS: Record<SigninLibrary, string> = {
  'nestjs-auth': 'nestjs-auth',
  authjs: 'Auth.js (`@auth/express`)',
  'better-auth': 'better-auth',
};

/** One server of a flow: a library with a session kind. */
interface Contender {
  library: SigninLibrary;
  session: 'jwt' | 'database';
}

/** Who runs each flow: every library, in each session kind it offers for that flow. */
const CONTENDERS: Record<Flow, Contender[]> = {
  credentials: [
    { library: 'nestjs-auth', session: 'jwt' },
    { library: 'nestjs-auth', session: 'database' },
    // Auth.js's credentials sign-in makes JWT sessions only.
    { library: 'authjs', session: 'jwt' },
    // better-auth keeps every session in its database.
    { library: 'better-auth', session: 'database' },
  ],
  'magic-link': [
    { library: 'nestjs-auth', session: 'jwt' },
    { library: 'nestjs-auth', session: 'database' },
    { library: 'authjs', session: 'jwt' },
    { library: 'authjs', session: 'database' },
    { library: 'better-auth', session: 'database' },
  ],
  oauth: [
    { library: 'nestjs-auth', session: 'jwt' },
    { library: 'nestjs-auth', session: 'database' },
    { library: 'authjs', session: 'jwt' },
    { library: 'authjs', session: 'database' },
    { library: 'better-auth', session: 'database' },
  ],
  passkey: [
    { library: 'nestjs-auth', session: 'jwt' },
    { library: 'nestjs-auth', session: 'database' },
  ],
  'two-factor': [
    { library: 'nestjs-auth', session: 'jwt' },
    { library: 'nestjs-auth', session: 'database' },
    { library: 'better-auth', session: 'database' },
  ],
};

const labelOf = (c: Contender) => `${LIBRARY_LABELS[c.library]}, ${c.session === 'jwt' ? 'JWT' : 'database'} sessions`;

/** The `name=value` pairs of an answer's Set-Cookie headers. */
function setCookies(headers: IncomingHttpHeaders | { 'set-cookie'?: string[] }): Map<string, string> {
  const jar = new Map<string, string>();
  for (const line of headers['set-cookie'] ?? []) {
    const pair = line.split(';', 1)[0]!;
    const eq = pair.indexOf('=');
    if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return jar;
}

/** A running server of the flow, with what its workers send. */
interface Running {
  contender: Contender;
  label: string;
  child: ChildProcess;
  ready: SigninServerReady;
  file: string;
  agent: Agent;
  /** Per worker: the headers (CSRF cookie) and form field its sign-ins send. */
  workers: { cookie?: string; csrfToken?: string; turn: number }[];
  /** Next magic link (or minted OAuth callback) to use. */
  nextLink: number;
  /** OAuth: the provider's redirects back to the server, minted before timing, with the browser's cookies. */
  callbacks: { path: string; cookie: string; email: string }[];
  /** Passkey: user i's authenticator (its passkey registered before timing). */
  devices: SoftAuthenticator[];
  /** Passkey: the origin the browser is at (`http://localhost:<port>`, the relying party's). */
  origin?: string;
  /** Two-factor: the sign-ins held at the code step before timing, with the browser's cookies. */
  pendings: { cookie: string; csrfToken?: string; key: string; email: string }[];
  tokenPrefix: string;
  /** A session cookie of a sign-in the load made, and whose it is (read back after the rounds). */
  lastSession?: { cookie: string; email: string };
  rps: number[];
  /** Server CPU per sign-in, microseconds, per round. */
  cpu: number[];
  latencies: number[];
  signIns: number;
  failures: number;
  firstFailure?: string;
}

/** Every server process started, so an interrupted run does not leave them behind. */
const children = new Set<ChildProcess>();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    for (const child of children) child.kill('SIGKILL');
    process.exit(130);
  });

async function startContender(
  flow: Flow,
  contender: Contender,
  passwordHash: string,
  cpuProfile?: string,
  oauth?: { port: number; oidc: NonNullable<SigninServerConfig['oidc']> },
) {
  const file = join(tmpdir(), `nestjs-auth-signin-bench-${randomBytes(4).toString('hex')}.sqlite`);
  const tokenPrefix = `ml${randomBytes(6).toString('hex')}`;
  // Passkeys: the relying party's origin is configured, so the port is chosen before the start.
  const passkeyPort = flow === 'passkey' ? (await freePorts(1))[0]! : undefined;
  const origin = passkeyPort === undefined ? undefined : `http://localhost:${passkeyPort}`;
  const config: SigninServerConfig = {
    ...contender,
    file,
    secret: SECRET,
    users: USERS,
    passwordHash,
    magicLinks: flow === 'magic-link' ? LINKS : 0,
    tokenPrefix,
    ...(cpuProfile ? { cpuProfile } : {}),
    ...(oauth ?? {}),
    ...(origin ? { port: passkeyPort, passkey: { origin } } : {}),
    ...(flow === 'two-factor'
      ? { twoFactor: { users: PENDINGS, seed: TOTP_SEED, passwordHash: await cheapHash() } }
      : {}),
  };
  const { child, ready } = await startServer<SigninServerConfig, SigninServerReady>(config, 'signin-bench.server');
  children.add(child);
  const running: Running = {
    contender,
    label: labelOf(contender),
    child,
    ready,
    file,
    agent: new Agent({ keepAlive: true, maxSockets: CONNECTIONS(flow) }),
    workers: [],
    nextLink: 0,
    callbacks: [],
    devices: [],
    ...(origin ? { origin } : {}),
    pendings: [],
    tokenPrefix,
    rps: [],
    cpu: [],
    latencies: [],
    signIns: 0,
    failures: 0,
  };
  // Each worker fetches its CSRF token once, as a browser does when it shows the sign-in form.
  for (let w = 0; w < CONNECTIONS(flow); w++) {
    const worker: Running['workers'][number] = { turn: 0 };
    if (flow === 'credentials' && ready.credentials.csrfPath) {
      const reply = await send(running.agent, ready.port, 'GET', ready.credentials.csrfPath, {});
      const token = (JSON.parse(reply.body) as { csrfToken?: string }).csrfToken;
      if (reply.status !== 200 || !token) throw new Error(`${running.label}: no CSRF token (${reply.status})`);
      worker.csrfToken = token;
      worker.cookie = [...setCookies(reply.headers)].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    running.workers.push(worker);
  }
  return running;
}

async function stopContender(running: Running): Promise<void> {
  running.agent.destroy();
  await stopServer(running.child);
  await Promise.all(['', '-wal', '-shm'].map((s) => rm(`${running.file}${s}`, { force: true })));
}

/**
 * `request()`, sent once more when it meets a reset: a kept-alive connection the server closed while
 * idle (its 5 s keep-alive timeout, which a pause between loads outlasts) is reset on reuse, before
 * the server read the request; a browser sends again, and so does this.
 */
function againOnReset(request: () => ReturnType<typeof send>): ReturnType<typeof send> {
  return request().catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET') throw error;
    return request();
  });
}

/** One sign-in of worker `w`: undefined when it went right, else what went wrong. */
function stepOf(flow: Flow, running: Running): (w: number) => Promise<string | undefined> {
  const { ready, agent } = running;
  const origin = `http://127.0.0.1:${ready.port}`;
  return async (w) => {
    const worker = running.workers[w]!;
    let email: string;
    let reply;
    if (flow === 'credentials') {
      email = benchEmail((w + CONNECTIONS(flow) * worker.turn++) % USERS);
      const json = ready.credentials.body === 'json';
      const body = json
        ? JSON.stringify({ email, password: BENCH_PASSWORD })
        : new URLSearchParams({ csrfToken: worker.csrfToken!, email, password: BENCH_PASSWORD }).toString();
      const post = () =>
        send(
          agent,
          ready.port,
          'POST',
          ready.credentials.path,
          {
            origin,
            'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
            ...(worker.cookie ? { cookie: worker.cookie } : {}),
          },
          body,
        );
      reply = await againOnReset(post);
    } else if (flow === 'passkey') {
      // Each worker goes through the users in turn; a passkey's counter stays 0 (synced passkeys),
      // so two workers may use one passkey at once, as two devices of its owner could.
      const i = (w + CONNECTIONS(flow) * worker.turn++) % running.devices.length;
      email = passkeyEmail(i);
      const headers = { host: new URL(running.origin!).host, origin: running.origin! };
      const options = await againOnReset(() =>
        send(agent, ready.port, 'GET', passkeyPath(ready, 'authenticate', ''), { host: headers.host }),
      );
      if (options.status !== 200) return `options answered ${options.status}: ${options.body.slice(0, 300)}`;
      const challenge = [...setCookies(options.headers)].map(([k, v]) => `${k}=${v}`).join('; ');
      const { options: requestOptions } = JSON.parse(options.body) as { options: { challenge: string; rpId?: string } };
      const data = running.devices[i]!.authenticate(requestOptions, { origin: running.origin! });
      reply = await againOnReset(() =>
        send(
          agent,
          ready.port,
          'POST',
          ready.passkey!.verifyPath,
          { ...headers, 'content-type': 'application/json', cookie: challenge },
          JSON.stringify({ action: 'authenticate', data }),
        ),
      );
    } else if (flow === 'two-factor') {
      const held = running.pendings[running.nextLink++];
      if (!held) return `ran out of held sign-ins (${running.pendings.length}; raise BENCH_SIGNIN_PENDINGS)`;
      email = held.email;
      // What the user's authenticator app shows now (each user signs in once: no code is reused).
      const code = await totpCode(base32(Buffer.from(held.key)), { now: Date.now() });
      const json = ready.twoFactor!.body === 'json';
      reply = await againOnReset(() =>
        send(
          agent,
          ready.port,
          'POST',
          ready.twoFactor!.path,
          {
            origin,
            'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
            cookie: held.cookie,
          },
          json
            ? JSON.stringify({ code })
            : new URLSearchParams({ csrfToken: held.csrfToken!, method: 'totp', code }).toString(),
        ),
      );
    } else if (flow === 'oauth') {
      const minted = running.callbacks[running.nextLink++];
      if (!minted) return `ran out of minted callbacks (${running.callbacks.length}; raise BENCH_SIGNIN_CALLBACKS)`;
      email = minted.email;
      reply = await againOnReset(() => send(agent, ready.port, 'GET', minted.path, { cookie: minted.cookie }));
    } else {
      const i = running.nextLink++;
      if (i >= LINKS) return `ran out of magic links (${LINKS}; raise BENCH_SIGNIN_LINKS)`;
      email = benchEmail(i % USERS);
      const path = ready.magicLinkPath
        .replace('{token}', encodeURIComponent(magicToken(running.tokenPrefix, i)))
        .replace('{email}', encodeURIComponent(email));
      reply = await againOnReset(() => send(agent, ready.port, 'GET', path, {}));
    }
    if (![200, 302, 303].includes(reply.status)) return `answered ${reply.status}: ${reply.body.slice(0, 300)}`;
    const location = String(reply.headers.location ?? '');
    if (/error/i.test(location)) return `redirected to ${location}`;
    const session = setCookies(reply.headers).get(ready.sessionCookie);
    if (!session) return `no ${ready.sessionCookie} cookie (status ${reply.status}, location ${location})`;
    running.lastSession = { cookie: `${ready.sessionCookie}=${session}`, email };
    return undefined;
  };
}

/** Sign-ins a flow of single-use inputs may use in one load: the stored links (minted callbacks) shared out over the loads. */
const linkBudget = (flow: Flow) =>
  flow === 'magic-link'
    ? Math.floor((LINKS - 1) / (ROUNDS + 1))
    : flow === 'oauth'
      ? Math.floor((CALLBACKS - 1) / (ROUNDS + 1))
      : flow === 'two-factor'
        ? Math.floor((PENDINGS - 1) / (ROUNDS + 1))
        : Infinity;

/** The passkey options route of a server, for `action` and `email` (empty: a discoverable sign-in). */
const passkeyPath = (ready: SigninServerReady, action: 'register' | 'authenticate', email: string) =>
  ready.passkey!.optionsPath.replace('{action}', action).replace('{email}', encodeURIComponent(email));

/** Before timing, what a flow needs beyond the server's own seeding: passkeys registered, sign-ins held at the second step. */
async function prepare(flow: Flow, running: Running): Promise<void> {
  if (flow === 'passkey') await registerPasskeys(running);
  if (flow === 'two-factor') await holdSignIns(running);
}

/**
 * Registers a passkey for each of USERS new users over HTTP, as the browser does (the options
 * request naming the address, then the authenticator's attestation POSTed): the server stores the
 * users, their credentials and accounts through its own storage.
 */
async function registerPasskeys(running: Running): Promise<void> {
  const { ready, agent } = running;
  if (!ready.passkey) throw new Error(`${running.label}: no passkey sign-in`);
  const headers = { host: new URL(running.origin!).host, origin: running.origin! };
  for (let i = 0; i < USERS; i++) {
    const device = new SoftAuthenticator({ counterStep: 0, backupEligible: true });
    const options = await send(agent, ready.port, 'GET', passkeyPath(ready, 'register', passkeyEmail(i)), {
      host: headers.host,
    });
    const body = JSON.parse(options.body) as {
      action?: string;
      options?: { challenge: string; rp: { id?: string }; user: { id: string } };
    };
    if (options.status !== 200 || body.action !== 'register' || !body.options)
      throw new Error(
        `${running.label}: the registration options answered ${options.status}: ${options.body.slice(0, 200)}`,
      );
    const reply = await send(
      agent,
      ready.port,
      'POST',
      ready.passkey.verifyPath,
      {
        ...headers,
        'content-type': 'application/json',
        cookie: [...setCookies(options.headers)].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      JSON.stringify({ action: 'register', data: device.register(body.options, { origin: running.origin! }) }),
    );
    const location = String(reply.headers.location ?? '');
    if (reply.status !== 302 || /error/i.test(location) || !setCookies(reply.headers).get(ready.sessionCookie))
      throw new Error(`${running.label}: passkey registration ${i} answered ${reply.status} (${location})`);
    running.devices.push(device);
  }
}

/**
 * Makes PENDINGS password steps of the two-factor users before timing, each user once (a TOTP code
 * works once per user and time step), 16 at a time: each must be held for the second factor (the
 * pending cookie, no session cookie). Keeps each browser's cookies (CSRF and pending) for the load.
 */
async function holdSignIns(running: Running): Promise<void> {
  const { ready, agent } = running;
  if (!ready.twoFactor) throw new Error(`${running.label}: no two-factor step`);
  const origin = `http://127.0.0.1:${ready.port}`;
  let csrf: { token: string; cookie: Map<string, string> } | undefined;
  if (ready.credentials.csrfPath) {
    const reply = await send(agent, ready.port, 'GET', ready.credentials.csrfPath, {});
    csrf = { token: (JSON.parse(reply.body) as { csrfToken: string }).csrfToken, cookie: setCookies(reply.headers) };
  }
  const started = performance.now();
  const json = ready.credentials.body === 'json';
  let next = 0;
  const holdOne = async (k: number) => {
    const email = twoFactorEmail(k);
    const reply = await send(
      agent,
      ready.port,
      'POST',
      ready.credentials.path,
      {
        origin,
        'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
        ...(csrf ? { cookie: [...csrf.cookie].map(([n, v]) => `${n}=${v}`).join('; ') } : {}),
      },
      json
        ? JSON.stringify({ email, password: BENCH_PASSWORD })
        : new URLSearchParams({ csrfToken: csrf!.token, email, password: BENCH_PASSWORD }).toString(),
    );
    // Cookies the answer set with a value (a deleted session cookie has none).
    const set = [...setCookies(reply.headers)].filter(([, v]) => v !== '');
    const jar = new Map([...(csrf?.cookie ?? []), ...set]);
    const held = json
      ? reply.status === 200 && (JSON.parse(reply.body) as { twoFactorRedirect?: boolean }).twoFactorRedirect === true
      : reply.status === 302 && String(reply.headers.location ?? '').endsWith('/two-factor');
    if (!held || set.some(([n]) => n === ready.sessionCookie))
      throw new Error(
        `${running.label}: the password step of ${email} was not held for the second factor (${reply.status}, ${String(reply.headers.location ?? reply.body.slice(0, 200))})`,
      );
    running.pendings[k] = {
      cookie: [...jar].map(([n, v]) => `${n}=${v}`).join('; '),
      ...(csrf ? { csrfToken: csrf.token } : {}),
      key: totpKey(TOTP_SEED, k),
      email,
    };
  };
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < PENDINGS) await holdOne(next++);
    }),
  );
  console.log(
    `  ${running.label}: ${PENDINGS} sign-ins held at the second step in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** The two-factor users' password hash (token cost), made once. */
let cheap: Promise<string> | undefined;
const cheapHash = () => (cheap ??= phcHash(BENCH_PASSWORD, CHEAP_SCRYPT_COST));

async function measure(flow: Flow, running: Running, seconds: number, record: boolean): Promise<void> {
  const before = await cpuMicros(running.child.pid);
  const r = await closedLoop(CONNECTIONS(flow), seconds, stepOf(flow, running), linkBudget(flow));
  const after = await cpuMicros(running.child.pid);
  running.failures += r.failures;
  running.firstFailure ??= r.firstFailure;
  if (!record) return;
  running.rps.push(r.requests / r.seconds);
  running.cpu.push(before === undefined || after === undefined ? NaN : (after - before) / r.requests);
  for (const latency of r.latencies) running.latencies.push(latency);
  running.signIns += r.requests;
}

/** Proves a sign-in of the load made a real session: the session route reads it as its user. */
async function readBack(running: Running): Promise<void> {
  const last = running.lastSession;
  if (!last) throw new Error(`${running.label}: no sign-in to read back`);
  const reply = await send(running.agent, running.ready.port, 'GET', running.ready.sessionPath, {
    cookie: last.cookie,
  });
  const body = JSON.parse(reply.body || 'null') as { user?: { email?: string } } | null;
  if (reply.status !== 200 || body?.user?.email !== last.email)
    throw new Error(
      `${running.label}: the session of ${last.email} did not read back (${reply.status}: ${reply.body.slice(0, 200)})`,
    );
}

interface FlowResult {
  flow: Flow;
  servers: Running[];
  /** Per nestjs-auth server: the per-round ratios to the fastest peer (sign-ins/s; CPU time). */
  ratios: Map<Running, { rps: number[]; cpu: number[] }>;
  peak: Map<Running, number | undefined>;
}

async function runFlow(flow: Flow, passwordHash: string): Promise<FlowResult> {
  const servers: Running[] = [];
  let op: ChildProcess | undefined;
  try {
    // OAuth: the provider first, with a client per server whose callback URL is fixed in advance.
    const ports = flow === 'oauth' ? await freePorts(CONTENDERS[flow].length + 1) : [];
    if (flow === 'oauth') op = await startOp(ports[0]!, CONTENDERS[flow], ports.slice(1));
    for (const [i, contender] of CONTENDERS[flow].entries()) {
      const started = performance.now();
      const oauth =
        flow === 'oauth'
          ? {
              port: ports[i + 1]!,
              oidc: {
                issuer: `http://127.0.0.1:${ports[0]}`,
                clientId: `bench-${i}`,
                clientSecret: `bench-${i}-secret`,
              },
            }
          : undefined;
      const running = await startContender(flow, contender, passwordHash, undefined, oauth);
      servers.push(running);
      if (flow === 'oauth') await mintCallbacks(running, `http://127.0.0.1:${ports[0]}`, CALLBACKS);
      await prepare(flow, running);
      console.log(
        `  ${labelOf(contender)}: up in ${((performance.now() - started) / 1000).toFixed(1)} s (pid ${running.child.pid})`,
      );
    }
    for (const s of servers) await measure(flow, s, WARMUP(flow), false);
    for (let round = 0; round < ROUNDS; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
      for (const s of order) await measure(flow, s, DURATION(flow), true);
      console.log(
        `  round ${round + 1}/${ROUNDS}: ${servers.map((s) => `${s.label} ${rate(s.rps[round]!)}/s, ${(s.cpu[round]! / 1000).toFixed(2)} ms CPU`).join('; ')}`,
      );
    }
    for (const s of servers)
      if (s.failures)
        throw new Error(
          `${FLOW_LABELS[flow]}, ${s.label}: ${s.failures} failed sign-ins; the numbers would be meaningless. First: ${s.firstFailure}`,
        );
    for (const s of servers) await readBack(s);
    const peers = servers.filter((s) => s.contender.library !== 'nestjs-auth');
    const ratios = new Map<Running, { rps: number[]; cpu: number[] }>();
    for (const ours of peers.length ? servers.filter((s) => s.contender.library === 'nestjs-auth') : []) {
      const rps: number[] = [];
      const cpu: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        rps.push(ours.rps[round]! / Math.max(...peers.map((p) => p.rps[round]!)));
        cpu.push(Math.min(...peers.map((p) => p.cpu[round]!)) / ours.cpu[round]!);
      }
      ratios.set(ours, { rps, cpu });
    }
    const peak = new Map<Running, number | undefined>();
    for (const s of servers) peak.set(s, (await memoryOf(s.child.pid)).peak);
    return { flow, servers, ratios, peak };
  } finally {
    for (const s of servers) await stopContender(s).catch(() => undefined);
    if (op) await stopServer(op);
  }
}

// ---- the OAuth flow's provider and its minted callbacks ----

/** `n` free TCP ports on 127.0.0.1 (listened on and closed: free when asked). */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Server>((resolve) => {
          const server = createNetServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** The callback route of each library's app (`idp` is the provider's id everywhere). */
const callbackPath = (library: SigninLibrary) =>
  library === 'better-auth' ? '/api/auth/callback/idp' : '/auth/callback/idp';

/** Starts the bench's OpenID Provider (bench/signin-bench.oidc.ts) beside the load generator, on core 0. */
async function startOp(port: number, contenders: Contender[], serverPorts: number[]): Promise<ChildProcess> {
  const config: OidcBenchConfig = {
    port,
    clients: contenders.map((c, i) => ({
      client_id: `bench-${i}`,
      client_secret: `bench-${i}-secret`,
      redirect_uris: [`http://127.0.0.1:${serverPorts[i]}${callbackPath(c.library)}`],
    })),
  };
  const { child } = await startServer<OidcBenchConfig, { issuer: string }>(config, 'signin-bench.oidc', '0');
  children.add(child);
  return child;
}

/**
 * Mints `count` callbacks of the server before timing: for each, a sign-in started at the app (its
 * state, PKCE and nonce cookies kept, as the browser keeps them), the provider's authorization
 * request followed as account `oidc-<k mod users>` in a fresh provider session (login and consent
 * are automatic), up to the redirect back to the app with the code, which is kept, unused, for the
 * load.
 */
async function mintCallbacks(running: Running, issuer: string, count: number): Promise<void> {
  const { ready, agent } = running;
  const origin = `http://127.0.0.1:${ready.port}`;
  const jarHeader = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let csrf: { token: string; cookie: string } | undefined;
  if (ready.oauthStart.csrfPath) {
    const reply = await send(agent, ready.port, 'GET', ready.oauthStart.csrfPath, {});
    csrf = {
      token: (JSON.parse(reply.body) as { csrfToken: string }).csrfToken,
      cookie: jarHeader(setCookies(reply.headers)),
    };
  }
  const started = performance.now();
  let next = 0;
  const mintOne = async (k: number) => {
    const sub = `oidc-${k % USERS}`;
    const json = ready.oauthStart.body === 'json';
    // A kept-alive connection the app closed while idle is reset on reuse: sent again (one run lost a minting request so).
    const start = await againOnReset(() =>
      send(
        agent,
        ready.port,
        'POST',
        ready.oauthStart.path,
        {
          origin,
          'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
          ...(csrf ? { cookie: csrf.cookie } : {}),
        },
        json
          ? JSON.stringify({ provider: 'idp', callbackURL: '/' })
          : new URLSearchParams({ csrfToken: csrf!.token, callbackUrl: `${origin}/` }).toString(),
      ),
    );
    const authorize = json ? (JSON.parse(start.body) as { url?: string }).url : start.headers.location;
    if (!authorize || !authorize.startsWith(issuer))
      throw new Error(
        `${running.label}: the sign-in start answered ${start.status} without the provider's URL: ${start.body.slice(0, 200)}`,
      );
    const browser = new Map([...(csrf ? setCookiesOf(csrf.cookie) : []), ...setCookies(start.headers)]);
    // A new browser at the provider each time (a login, then the consent): codes minted in a
    // provider session that a concurrent login of the same account replaced are refused.
    const jar = new Map<string, string>();
    let url = new URL(authorize);
    url.searchParams.set('login_hint', sub);
    for (let hop = 0; hop < 8; hop++) {
      const reply = await fetch(url, { redirect: 'manual', headers: jar.size ? { cookie: jarHeader(jar) } : {} });
      for (const [name, value] of setCookies(Object.fromEntries([['set-cookie', reply.headers.getSetCookie()]])))
        jar.set(name, value);
      await reply.arrayBuffer();
      const location = reply.headers.get('location');
      if (!location) throw new Error(`${running.label}: the provider answered ${reply.status} at ${url.pathname}`);
      url = new URL(location, url);
      if (url.origin === origin) {
        if (url.searchParams.has('error')) throw new Error(`${running.label}: the provider refused: ${url.href}`);
        running.callbacks.push({
          path: `${url.pathname}${url.search}`,
          cookie: jarHeader(browser),
          email: oidcEmail(sub),
        });
        return;
      }
    }
    throw new Error(`${running.label}: too many redirects at the provider`);
  };
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) await mintOne(next++);
    }),
  );
  console.log(
    `  ${running.label}: ${count} callbacks minted in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** A Cookie header's pairs. */
function setCookiesOf(header: string): Map<string, string> {
  const jar = new Map<string, string>();
  for (const pair of header.split('; ').filter(Boolean)) {
    const eq = pair.indexOf('=');
    jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return jar;
}

// ---- the profiled run ----

interface ProfileResult {
  signIns: number;
  /** /proc CPU per sign-in over the profiled load, microseconds (the profiler's own cost included). */
  cpuPerSignIn: number;
  /** The same, of the JavaScript thread only. */
  mainThreadPerSignIn: number;
  /** CPU per sign-in under this library's frames, microseconds. */
  libPerSignIn: number;
  lines: string[];
}

async function profileFlow(flow: Flow, passwordHash: string): Promise<ProfileResult> {
  const dir = join(process.cwd(), '.bench-prof', `signin-${flow}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'server.cpuprofile');
  const contender: Contender = { library: 'nestjs-auth', session: 'jwt' };
  // OAuth: the bench's provider beside the load generator, a client for this one server, and the
  // callbacks minted before the warm-up (as in the measured rounds).
  let op: ChildProcess | undefined;
  let oauth: { port: number; oidc: NonNullable<SigninServerConfig['oidc']> } | undefined;
  if (flow === 'oauth') {
    const [opPort, port] = await freePorts(2);
    op = await startOp(opPort!, [contender], [port!]);
    oauth = {
      port: port!,
      oidc: { issuer: `http://127.0.0.1:${opPort}`, clientId: 'bench-0', clientSecret: 'bench-0-secret' },
    };
  }
  const running = await startContender(flow, contender, passwordHash, file, oauth).catch(async (error: unknown) => {
    if (op) await stopServer(op);
    throw error;
  });
  const profiled = async () => {
    if (oauth) await mintCallbacks(running, oauth.oidc.issuer, linkBudget(flow) + PROFILE_CALLBACKS);
    await prepare(flow, running);
    await measure(flow, running, WARMUP(flow), false);
    running.child.kill('SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 250));
    const pid = running.child.pid;
    const [before, mainBefore] = [await cpuMicros(pid), await cpuMicros(pid, pid)];
    const r = await closedLoop(
      CONNECTIONS(flow),
      PROFILE_SECONDS,
      stepOf(flow, running),
      flow === 'oauth' ? PROFILE_CALLBACKS : linkBudget(flow),
    );
    const [after, mainAfter] = [await cpuMicros(pid), await cpuMicros(pid, pid)];
    if (r.failures) throw new Error(`profiled run: ${r.failures} failed sign-ins. First: ${r.firstFailure}`);
    const per = (a: number | undefined, b: number | undefined) =>
      a === undefined || b === undefined ? NaN : (b - a) / r.requests;
    return {
      signIns: r.requests,
      seconds: r.seconds,
      cpu: per(before, after),
      mainThread: per(mainBefore, mainAfter),
    };
  };
  const { signIns, seconds, cpu, mainThread } = await profiled().finally(async () => {
    await stopContender(running);
    if (op) await stopServer(op);
  });
  const shares = await profileShares(file);
  const pct = (us: number) => `${((100 * us) / shares.busyUs).toFixed(1)}%`;
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  // The profile's sample intervals are wall time: on a shared core, time the server was preempted
  // lands on whatever frame was running. Its shares are sound; the milliseconds come from the
  // JavaScript thread's own CPU time (/proc), split by those shares.
  const cpuOf = (us: number) => (us / shares.busyUs) * mainThread;
  const ms = (us: number) => `${(cpuOf(us) / 1000).toFixed(3)} ms`;
  const lines = [
    `### ${FLOW_LABELS[flow]}: nestjs-auth, JWT sessions`,
    '',
    `${signIns} sign-ins in ${seconds.toFixed(1)} s under the profiler (V8's sampling profiler in the server after a warm-up of ${WARMUP(flow)} s until exit, 0.5 ms interval; \`.bench-prof/signin-${flow}/\`). Milliseconds are CPU per sign-in: the JavaScript thread's CPU time (/proc) split by the profile's shares.`,
    '',
    `- Server CPU per sign-in (/proc, every thread): ${(cpu / 1000).toFixed(2)} ms, of which the JavaScript thread ${(mainThread / 1000).toFixed(2)} ms; the rest ran on other threads (${flow === 'credentials' ? "the scrypt hash on libuv's pool, " : ''}V8's background compiler and GC, the profiler).`,
    `- **Under this library's frames** (lib/ and what it calls synchronously: JWT encryption, cookie serialisation, node:crypto, the adapter's driver calls): **${ms(shares.libInclusiveUs)} per sign-in**, ${pct(shares.libInclusiveUs)} of the JavaScript thread.`,
    `- Of which not this library's own code: ${flow === 'oauth' ? `the round trip to the provider's HTTP client (undici, under \`fetch\`: the token and userinfo requests) ${ms(shares.roundTripUs)}, ` : ''}the database's own statement execution (better-sqlite3's native \`run\`, \`all\`, \`get\`, called synchronously) ${ms(shares.databaseUs)}. **This library's own code: ${ms(shares.libInclusiveUs - shares.roundTripUs - shares.databaseUs)} per sign-in** (target < 1 ms: the hash, the provider's round trip and the database excluded).`,
    `- TypeORM's work for the adapter outside those frames (its query builder's statements after an await: the driver's call, hydration): ${ms(shares.typeormOutsideLibUs)} per sign-in (${pct(shares.typeormOutsideLibUs)}); with it, ${ms(shares.libInclusiveUs + shares.typeormOutsideLibUs)}.`,
    ...(flow === 'credentials'
      ? [
          "- Read with care: the hash's four pool threads share the core with the JavaScript thread, and the profiler's samples are wall time, so time the JavaScript thread waited for the core lands on the frame it was preempted in (the router's `handle` here). The split below is skewed that way; the magic-link profile has no such threads and is the cleaner measure of the library's own code.",
        ]
      : []),
    `- Self time by part: ${sorted(shares.parts)
      .map(([k, v]) => `${k} ${pct(v)} (${ms(v)})`)
      .join(', ')}.`,
    '',
    'Top 12 functions by self time:',
    '',
    ...sorted(shares.functions)
      .slice(0, 12)
      .map(([k, v]) => `- ${pct(v)} (${ms(v)} per sign-in) ${k}`),
  ];
  return {
    signIns,
    cpuPerSignIn: cpu,
    mainThreadPerSignIn: mainThread,
    libPerSignIn: cpuOf(shares.libInclusiveUs),
    lines,
  };
}

/** CPU time of one scrypt derivation at the bench's cost, in this process (microseconds, median of 15). */
async function hashCost(): Promise<number> {
  const { ln, r, p, keyLength } = SCRYPT_COST;
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const before = process.cpuUsage();
    await new Promise<void>((resolve, reject) =>
      scrypt(BENCH_PASSWORD, 'saltsaltsaltsalt', keyLength, { N: 2 ** ln, r, p, maxmem: 64 * 1024 * 1024 }, (e) =>
        e ? reject(e) : resolve(),
      ),
    );
    const used = process.cpuUsage(before);
    times.push(used.user + used.system);
  }
  return median(times);
}

// ---- report ----

/** Sign-ins/s: one decimal below 100 (a credentials sign-in is mostly its hash: a few per second). */
const rate = (v: number) => v.toFixed(v < 100 ? 1 : 0);

const spread = (values: number[], digits = 2) =>
  `${quantile(values, 0.25).toFixed(digits)}–${quantile(values, 0.75).toFixed(digits)}`;

function flowTable(result: FlowResult): string[] {
  const peers = result.servers.filter((s) => s.contender.library !== 'nestjs-auth');
  const fastestPeer = peers.length ? peers.reduce((a, b) => (median(b.rps) > median(a.rps) ? b : a)) : undefined;
  const note = FLOW_NOTES[result.flow];
  const rows = [
    `### ${FLOW_LABELS[result.flow]}`,
    '',
    ...(note ? [note, ''] : []),
    '| Library, sessions | Sign-ins/s | Middle half of rounds | Server CPU per sign-in | Middle half | p50 | p99 | Peak RSS | Ours / fastest peer (sign-ins/s) | Middle half | CPU-time ratio | Middle half | Target |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of result.servers) {
    const ratio = result.ratios.get(s);
    const peak = result.peak.get(s);
    const mark = (v: number) => (v >= 1 ? ' ✓' : ' ✗');
    rows.push(
      `| ${s.label}${s === fastestPeer ? ' (fastest peer)' : ''} | ${rate(median(s.rps))} | ${rate(quantile(s.rps, 0.25))}–${rate(quantile(s.rps, 0.75))} | ${(median(s.cpu) / 1000).toFixed(2)} ms | ${spread(
        s.cpu.map((c) => c / 1000),
      )} | ${quantile(s.latencies, 0.5).toFixed(1)} ms | ${quantile(s.latencies, 0.99).toFixed(1)} ms | ${peak === undefined ? '' : `${peak.toFixed(0)} MiB`} | ${
        ratio ? `${median(ratio.rps).toFixed(3)}${mark(median(ratio.rps))}` : ''
      } | ${ratio ? spread(ratio.rps) : ''} | ${ratio ? `${median(ratio.cpu).toFixed(3)}${mark(median(ratio.cpu))}` : ''} | ${
        ratio ? spread(ratio.cpu) : ''
      } | ${ratio ? '>= 1.00' : ''} |`,
    );
  }
  rows.push('', `Sign-ins timed per server: ${result.servers.map((s) => `${s.label} ${s.signIns}`).join('; ')}.`, '');
  return rows;
}

async function main(): Promise<void> {
  // `npm run bench` runs this after the guard bench: a subset of its scenarios (BENCH_SCENARIOS)
  // runs this part only when it names `signin`.
  const wanted = process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim());
  if (wanted && !wanted.includes('signin')) {
    console.log('Sign-in benchmark skipped: BENCH_SCENARIOS does not name `signin`.');
    return;
  }
  const machine = `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node.js ${process.version}, ${process.platform}/${process.arch}`;
  if (canPin) spawnSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  const loadBefore = loadavg();
  const startedAt = new Date();
  console.log(`Sign-in benchmark: ${machine}`);
  console.log(
    canPin
      ? 'Load generator pinned to core 0, servers to core 1 (taskset).'
      : 'Not pinned (taskset or a second core unavailable).',
  );
  console.log(`1-minute load average before: ${loadBefore.map((l) => l.toFixed(2)).join(', ')}\n`);
  const passwordHash = await phcHash();
  const hashUs = await hashCost();
  console.log(`One scrypt derivation at the bench's cost: ${(hashUs / 1000).toFixed(1)} ms of CPU (core 0)\n`);

  const results: (FlowResult | { flow: Flow; failed: string })[] = [];
  for (const flow of FLOWS) {
    if (!CONTENDERS[flow]) throw new Error(`BENCH_SIGNIN_FLOWS: unknown flow "${flow}" (${ALL_FLOWS.join(', ')})`);
    console.log(FLOW_LABELS[flow]);
    // A flow that cannot be measured (a library refusing its sign-ins) is reported as such; the
    // other flows still run.
    results.push(
      await runFlow(flow, passwordHash).catch((error: unknown) => {
        console.error(`  not measured: ${(error as Error).message}`);
        return { flow, failed: (error as Error).message.split('\n')[0]! };
      }),
    );
  }
  const loadAfterFlows = loadavg();
  const profiles: ProfileResult[] = [];
  for (const flow of PROFILE_FLOWS) {
    if (!ALL_FLOWS.includes(flow))
      throw new Error(`BENCH_SIGNIN_PROFILE: only ${ALL_FLOWS.join(', ')} are profiled, not "${flow}"`);
    console.log(`Profiling nestjs-auth, ${flow}, JWT sessions`);
    profiles.push(await profileFlow(flow, passwordHash));
  }
  const loadAfter = loadavg();

  const lines = [
    '# Sign-in benchmark',
    '',
    `Run ${startedAt.toISOString().replace(/\.\d+Z$/, 'Z')} by \`npm run bench:signin\` (bench/signin.bench.ts). Machine: ${machine}. ${
      canPin ? 'Load generator on core 0, each server pinned to core 1.' : 'Not pinned.'
    } Load average (1, 5, 15 min) ${loadBefore.map((l) => l.toFixed(2)).join(', ')} before, ${loadAfterFlows
      .map((l) => l.toFixed(2))
      .join(
        ', ',
      )} after the flows, ${loadAfter.map((l) => l.toFixed(2)).join(', ')} at the end (the bench itself keeps both cores busy; above 2 means other work shared the cores).`,
    '',
    `Settings: ${ROUNDS} rounds per server (order rotated every round) of ${FLOWS.map((f) => `${DURATION(f)} s (${f})`).join(', ')}, after ${FLOWS.map((f) => `${WARMUP(f)} s (${f})`).join(', ')} of warm-up each, ${FLOWS.map((f) => `${CONNECTIONS(f)} (${f})`).join(', ')} closed-loop workers (one keep-alive connection each), ${USERS} users, ${LINKS} magic links stored per server${FLOWS.includes('oauth') ? `, ${CALLBACKS} OAuth callbacks minted per server` : ''}${FLOWS.includes('two-factor') ? `, ${PENDINGS} two-factor sign-ins held per server (each load stops after ${linkBudget('two-factor')})` : ''}.`,
    '',
    ...results.flatMap((r) =>
      'failed' in r ? [`### ${FLOW_LABELS[r.flow]}`, '', `Not measured in this run: ${r.failed}`, ''] : flowTable(r),
    ),
    '## Method',
    '',
    "- Every library in its own server process (the app as its documentation sets it up, on Express 5), pinned to the same core, one at a time under load; all of a flow's servers are up for the whole flow.",
    "- Storage: a better-sqlite3 file in WAL mode per server, through the library's own storage: nestjs-auth's default TypeORM adapter, Auth.js's `@auth/kysely-adapter` (the SQLite tables its documentation gives), better-auth's own Kysely storage (its migrations).",
    `- Password hash, the same cost for all: scrypt N = 2^${SCRYPT_COST.ln}, r = ${SCRYPT_COST.r}, p = ${SCRYPT_COST.p}, ${SCRYPT_COST.keyLength}-byte key, on node:crypto (libuv's thread pool). That is better-auth's own default, used as it is (its own \`verifyPassword\`, hash in its \`salt:key\` format in its account table); nestjs-auth's and Auth.js's \`authorize\` read the user through the adapter and call nestjs-auth's \`verifyPassword\` on a PHC string of the same parameters (Auth.js has no password hashing of its own; its docs leave it to the app). One derivation costs ${(hashUs / 1000).toFixed(1)} ms of CPU on this machine. nestjs-auth keeps its credentials lockout (in-memory counters) on; better-auth's rate limiter is off (at its defaults it refuses the load).`,
    '- Credentials: nestjs-auth and Auth.js get the form with the CSRF token (each worker fetched its token and cookie once, as a browser showing the form does) and answer 302 with the session cookie; better-auth gets JSON (as its client sends it) and answers 200 with its cookie.',
    "- Magic link: the tokens are stored before timing, through each library's storage in its own format (nestjs-auth: an HMAC of the token keyed with the secret; Auth.js: SHA-256 of token and secret; better-auth's plugin: the plain token, its default), each used once; the users exist (a sign-in, not a sign-up). nestjs-auth runs with `consumeOnGet: true`, so the GET signs in as it does in Auth.js and better-auth (its default is a confirmation page whose POST signs in: one more request, same work).",
    '- Every answer is checked (status, the session cookie, no error redirect); after the rounds the last session of each server is read back through its session route as its user.',
    '- Sign-ins/s: medians over the rounds. Ratio: the median of the per-round ratios of ours to the fastest peer of that round; the CPU-time ratio is the same made of the server CPU time per sign-in (user + system from /proc, every thread: the hash included), fastest peer over ours, what the ratio would be with the core to itself. Latencies are over every sign-in of the rounds, as the client saw them.',
    "- OAuth/OIDC callback: a local `oidc-provider` (its own process, on the load generator's core, so its work is in no library's CPU figure), a confidential client per server (`client_secret_basic`), RS256 ID tokens with the email in them, userinfo available, PKCE as each library does by default. Only the callback is timed: before timing, each sign-in was started at the app (its state/PKCE cookies kept) and the provider's authorization request followed to the redirect back, whose URL (with its unused code) the load then sends. The callback's time includes the app's round trip to the provider's token endpoint (and whatever else it fetches there), the same provider for all. The provider accounts are not the password users: the first callback of each (in the warm-up) creates its user and account, later ones find them. The provider stores in plain Maps: its development storage keeps only the last 1,000-2,000 entries (five or six per minted callback), which evicted the codes minted first.",
    "- Passkey: one sign-in is the options GET (a discoverable sign-in: no address, an empty allow list; the challenge in the sealed cookie it sets) and the verify POST of the assertion, both timed. The assertion is real: an ES256 (P-256) signature over the authenticator data and the client data's hash, made in this process by the e2e suites' software authenticator for the challenge of that options answer, origin `http://localhost:<port>` (the relying party configured as `localhost` at that origin). Each of the " +
      String(USERS) +
      " users registered one passkey over HTTP before timing (discoverable, backup-eligible, counter always 0 as synced passkeys report; user verification on). The options route's rate limiter stays on at limits the load stays under.",
    `- Two-factor: ${PENDINGS} users per server with a confirmed authenticator app (stored as each library's enrolment leaves it: nestjs-auth's sealed secret in its two-factor table, better-auth's \`symmetricEncrypt\`ed secret in its \`twoFactor\` table with \`twoFactorEnabled\`), the same 32-byte key for both libraries. Before timing, each user's password step (a token-cost scrypt hash, N = 2^${CHEAP_SCRYPT_COST.ln}, r = ${CHEAP_SCRYPT_COST.r}, checked by nestjs-auth's \`verifyPassword\` in both apps) was made once and held (nestjs-auth: 302 to \`/auth/two-factor\` with the sealed pending cookie; better-auth: \`twoFactorRedirect\` with its signed \`two_factor\` cookie and verification rows); the load POSTs the current code (SHA-1, 6 digits, 30 s, computed here at send time) with that browser's cookies (nestjs-auth: the form with its CSRF token; better-auth: JSON), each held sign-in once. The timed step is the code check (decrypting the secret, the HMACs of the window, nestjs-auth's replay mark of the time step) and the session start.`,
    '',
  ];
  if (profiles.length)
    lines.push(
      '## CPU profiles: where a sign-in of nestjs-auth goes',
      '',
      ...profiles.flatMap((p) => [...p.lines, '']),
    );
  const report = lines.join('\n');
  await writeFile(process.env.BENCH_RESULTS ?? join(process.cwd(), 'bench', 'RESULTS-signin.md'), report);
  console.log(`\n${report}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
