// Refresh-token benchmark: refresh-token exchanges per second (`POST {basePath}/token`,
// `grant_type=refresh_token`, each one rotating its family) on a real app, against a plain request
// of a signed-in browser (`GET /auth/session` with its database session cookie) in the same run.
// Run with `npm run bench:refresh`.
//
// The server (bench/refresh-bench.server.ts: Nest on Express, the default TypeORM adapter, database
// sessions, native apps) runs in a child process pinned to one core, the load generator here, pinned
// to another, when `taskset` and two cores exist, as in the guard bench. Storage: better-sqlite3 in
// WAL mode, then PostgreSQL when it is reachable (skipped, with the reason, when not).
//
// Before timing, BENCH_FAMILIES users each sign in once the way an app's user does, over HTTP: the
// app's authorization request (PKCE) in a cookie-keeping "browser", the sign-in page and its password
// form, back to the authorization route, the code on the app's redirect URI, and the code exchanged
// at the token route. That gives each user a refresh-token family (and an access token), and the
// browser a session cookie. Then BENCH_CONNECTIONS workers, one keep-alive connection each, run
// closed loops: worker w refreshes only its own families (w, w + C, w + 2C, ...), one request at a
// time, each with the refresh token the previous answer gave, so no family is ever refreshed twice
// at once and every exchange is a real rotation (answers that are not a new pair are failures). The
// session side is the same workers sending `GET /auth/session` with their users' session cookies.
// A load of D seconds stops sending at D and waits for the requests in flight, so the workers always
// hold each family's newest token.
//
// Exchange and session rounds alternate (order swapped every round), so machine noise hits both; the
// ratio is the median of the per-round ratios exchanges/s over session reads/s, and the CPU-time
// ratio the same made of the server's own CPU time per request (from /proc). Latencies (p50, p99)
// are over every request of the measured rounds. Nothing is read from or written to a file: every
// number printed is from this run.
//
// Settings (environment): BENCH_ROUNDS (default 9), BENCH_DURATION seconds per round and route
// (default 1), BENCH_WARMUP seconds per route before the rounds (default 3: an exchange runs ten
// times the code a session read does, and the server's CPU per exchange was still falling after a
// 1 s warm-up), BENCH_CONNECTIONS workers (default 16), BENCH_FAMILIES users signed in (default 32,
// at least BENCH_CONNECTIONS), BENCH_REFRESH_DATABASES (default `sqlite,postgres`),
// AUTH_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { location, TestClient } from '../test/setup/http-client.js';
import { canPin, closedLoop, cpuMicros, median, quantile, send, startServer, stopServer } from './bench-harness.js';
import { POSTGRES_URL, withPostgres } from './guard-bench.scenarios.js';
import type { RefreshServerConfig, RefreshServerReady } from './refresh-bench.server.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const DURATION = Number(process.env.BENCH_DURATION ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const FAMILIES = Number(process.env.BENCH_FAMILIES ?? 32);
const DATABASES = (process.env.BENCH_REFRESH_DATABASES ?? 'sqlite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const SECRET = randomBytes(32).toString('hex');
const SESSION_COOKIE = 'authjs.session-token';
const MIB = 1024 * 1024;

// ---- storage ----

const LABELS: Record<string, string> = { sqlite: 'SQLite (better-sqlite3, WAL)', postgres: 'PostgreSQL' };

interface Storage {
  label: string;
  database: Record<string, unknown>;
  cleanup: () => Promise<void>;
}

async function storageOf(name: string): Promise<Storage | { label: string; skip: string }> {
  if (name === 'sqlite') {
    const file = join(tmpdir(), `nestjs-auth-refresh-bench-${randomBytes(4).toString('hex')}.sqlite`);
    return {
      label: LABELS.sqlite!,
      database: { type: 'better-sqlite3', database: file, enableWAL: true },
      cleanup: () =>
        Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${file}${suffix}`, { force: true }))).then(
          () => undefined,
        ),
    };
  }
  if (name === 'postgres') {
    const label = LABELS.postgres!;
    const db = `nestjs_auth_refresh_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    try {
      await withPostgres(POSTGRES_URL, (c) => c.query(`CREATE DATABASE "${db}"`));
    } catch (error) {
      return {
        label,
        skip: `PostgreSQL is not reachable at ${new URL(POSTGRES_URL).host} (${(error as Error).message})`,
      };
    }
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${db}`;
    return {
      label,
      database: { type: 'postgres', url: url.toString() },
      cleanup: () =>
        withPostgres(POSTGRES_URL, (c) => c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`)).then(
          () => undefined,
        ),
    };
  }
  throw new Error(`BENCH_REFRESH_DATABASES: unknown database "${name}" (sqlite, postgres)`);
}

/** One user's sign-in on the app: its family's newest tokens, and the browser's session cookie. */
interface Family {
  email: string;
  refresh: string;
  access: string;
  cookie: string;
}

interface TokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
}

/** The claims of a JWS (unverified: the guard verifies; this only reads what it says). */
const claimsOf = (jws: string) =>
  JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

/**
 * A user's sign-in on the app, as test/native-apps.e2e-spec.ts makes it: the authorization request
 * with PKCE in a cookie-keeping browser, the sign-in page and its password form, the authorization
 * route again, the code on the redirect URI, then the code exchange at the token route.
 */
async function signIn(base: string, ready: RefreshServerReady, email: string): Promise<Family> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const url = new URL(`${base}/auth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: ready.clientId,
    redirect_uri: ready.redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state,
  }))
    url.searchParams.set(k, v);
  const browser = new TestClient(base);
  let hop = location(await browser.get(url.href));
  if (hop.pathname !== '/auth/signin') throw new Error(`the authorization route sent the browser to ${hop.href}`);
  await browser.get(hop.href);
  const csrfToken = await browser.csrf();
  hop = location(await browser.post('/auth/callback/credentials', { csrfToken, email, password: ready.password }));
  if (hop.pathname !== '/auth/authorize') throw new Error(`the sign-in went to ${hop.href}, not back to the app`);
  const redirect = location(await browser.get(hop.href));
  const code = redirect.searchParams.get('code');
  if (!redirect.href.startsWith(ready.redirectUri) || redirect.searchParams.get('state') !== state || !code)
    throw new Error(`the app got no code: ${redirect.href}`);
  if (redirect.searchParams.get('iss') !== ready.issuer) throw new Error(`the code came without iss ${ready.issuer}`);
  const res = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: ready.clientId,
      code,
      redirect_uri: ready.redirectUri,
      code_verifier: verifier,
    }),
  });
  const pair = (await res.json()) as TokenAnswer;
  if (res.status !== 200 || typeof pair.refresh_token !== 'string' || typeof pair.access_token !== 'string')
    throw new Error(`the code exchange failed (${res.status}): ${JSON.stringify(pair)}`);
  const session = browser.cookies.get(SESSION_COOKIE);
  if (!session) throw new Error('the browser has no session cookie after signing in');
  return { email, refresh: pair.refresh_token, access: pair.access_token, cookie: `${SESSION_COOKIE}=${session}` };
}

// ---- load ----

/** What one route collected over the measured rounds. */
interface RouteStats {
  name: string;
  rps: number[];
  /** Server CPU time per request, microseconds, per round. */
  cpu: number[];
  /** Every request's latency in the measured rounds, milliseconds. */
  latencies: number[];
  requests: number;
  failures: number;
  firstFailure?: string;
  /** One request of worker `w`: undefined when it went right, else what went wrong. */
  step: (worker: number) => Promise<string | undefined>;
}

async function measure(route: RouteStats, child: ChildProcess, seconds: number, record: boolean): Promise<void> {
  const before = await cpuMicros(child.pid);
  const r = await closedLoop(CONNECTIONS, seconds, route.step);
  const after = await cpuMicros(child.pid);
  route.failures += r.failures;
  route.firstFailure ??= r.firstFailure;
  if (!record) return;
  route.rps.push(r.requests / r.seconds);
  route.cpu.push(before === undefined || after === undefined ? NaN : (after - before) / r.requests);
  for (const latency of r.latencies) route.latencies.push(latency);
  route.requests += r.requests;
}

interface StorageResult {
  label: string;
  skipped?: string;
  refresh?: RouteStats;
  session?: RouteStats;
  ratios?: number[];
  cpuRatios?: number[];
  signInSeconds?: number;
  rssMiB?: number;
}

async function runStorage(name: string): Promise<StorageResult> {
  const storage = await storageOf(name);
  if ('skip' in storage) return { label: storage.label, skipped: storage.skip };
  const config: RefreshServerConfig = { secret: SECRET, database: storage.database, users: FAMILIES };
  let child: ChildProcess | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  try {
    const started = await startServer<RefreshServerConfig, RefreshServerReady>(config, 'refresh-bench.server');
    child = started.child;
    const { ready } = started;
    const base = `http://127.0.0.1:${ready.port}`;

    const signInStarted = performance.now();
    const families: Family[] = [];
    for (const email of ready.emails) families.push(await signIn(base, ready, email));
    const signInSeconds = (performance.now() - signInStarted) / 1000;
    console.log(`  ${families.length} users signed in on the app over HTTP in ${signInSeconds.toFixed(1)} s`);
    await check(base, families, ready);

    // Worker w's families: w, w + C, w + 2C, ...; each worker takes them in turn.
    const owned = Array.from({ length: CONNECTIONS }, (_, w) => families.filter((_, i) => i % CONNECTIONS === w));
    const refreshTurn = new Array<number>(CONNECTIONS).fill(0);
    const sessionTurn = new Array<number>(CONNECTIONS).fill(0);
    const body = (token: string) =>
      `grant_type=refresh_token&client_id=${encodeURIComponent(ready.clientId)}&refresh_token=${encodeURIComponent(token)}`;
    const refresh: RouteStats = {
      name: 'refresh',
      rps: [],
      cpu: [],
      latencies: [],
      requests: 0,
      failures: 0,
      step: async (w) => {
        const mine = owned[w]!;
        const family = mine[refreshTurn[w]++ % mine.length]!;
        const reply = await send(
          agent,
          ready.port,
          'POST',
          '/auth/token',
          { 'content-type': 'application/x-www-form-urlencoded' },
          body(family.refresh),
        );
        if (reply.status !== 200) return `POST /auth/token answered ${reply.status}: ${reply.body.slice(0, 300)}`;
        const pair = JSON.parse(reply.body) as TokenAnswer;
        if (
          typeof pair.refresh_token !== 'string' ||
          typeof pair.access_token !== 'string' ||
          pair.refresh_token === family.refresh
        )
          return `POST /auth/token answered no new pair: ${reply.body.slice(0, 300)}`;
        family.refresh = pair.refresh_token;
        family.access = pair.access_token;
        return undefined;
      },
    };
    const session: RouteStats = {
      name: 'session',
      rps: [],
      cpu: [],
      latencies: [],
      requests: 0,
      failures: 0,
      step: async (w) => {
        const mine = owned[w]!;
        const family = mine[sessionTurn[w]++ % mine.length]!;
        const reply = await send(agent, ready.port, 'GET', '/auth/session', { cookie: family.cookie });
        if (reply.status !== 200) return `GET /auth/session answered ${reply.status}: ${reply.body.slice(0, 300)}`;
        const answer = JSON.parse(reply.body) as { user?: { email?: string } } | null;
        if (answer?.user?.email !== family.email)
          return `GET /auth/session answered another session: ${reply.body.slice(0, 300)}`;
        return undefined;
      },
    };

    await measure(refresh, child, WARMUP, false);
    await measure(session, child, WARMUP, false);
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of round % 2 === 0 ? [refresh, session] : [session, refresh])
        await measure(route, child, DURATION, true);
      ratios.push(refresh.rps[round]! / session.rps[round]!);
      cpuRatios.push(session.cpu[round]! / refresh.cpu[round]!);
      console.log(
        `  round ${round + 1}/${ROUNDS}: ${refresh.rps[round]!.toFixed(0)} exchanges/s, ${session.rps[round]!.toFixed(0)} session reads/s, ratio ${ratios[round]!.toFixed(3)}; server CPU per request ${refresh.cpu[round]!.toFixed(0)} / ${session.cpu[round]!.toFixed(0)} µs, ratio ${cpuRatios[round]!.toFixed(3)}`,
      );
    }
    for (const route of [refresh, session])
      if (route.failures)
        throw new Error(
          `${storage.label}: ${route.failures} failed ${route.name} requests; the numbers would be meaningless. First: ${route.firstFailure}`,
        );
    // After the load: every family's newest tokens still work (the chains stayed whole).
    await check(base, families, ready);
    return {
      label: storage.label,
      refresh,
      session,
      ratios,
      cpuRatios,
      signInSeconds,
      rssMiB: ready.rss / MIB,
    };
  } finally {
    agent.destroy();
    if (child) await stopServer(child);
    await storage.cleanup().catch(() => undefined);
  }
}

/**
 * Proves the setup: each family's newest access token lets its user through the guard, its browser
 * session reads as that user, and a forged refresh token is refused.
 */
async function check(base: string, families: Family[], ready: RefreshServerReady): Promise<void> {
  for (const family of families) {
    if (claimsOf(family.access).email !== family.email)
      throw new Error(`an access token of ${family.email} is someone else's`);
    const guarded = await fetch(`${base}/guarded`, { headers: { authorization: `Bearer ${family.access}` } });
    const who = (await guarded.json()) as { id?: string };
    if (guarded.status !== 200 || !who.id || who.id !== claimsOf(family.access).sub)
      throw new Error(`the guard refused the access token of ${family.email} (${guarded.status})`);
    const session = await fetch(`${base}/auth/session`, { headers: { cookie: family.cookie } });
    const read = (await session.json()) as { user?: { email?: string } } | null;
    if (read?.user?.email !== family.email) throw new Error(`GET /auth/session did not read ${family.email}'s session`);
  }
  const forged = families[0]!.refresh.replace(/\.[^.]+$/, `.${'A'.repeat(43)}`);
  const refused = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: ready.clientId, refresh_token: forged }),
  });
  if (refused.status !== 400) throw new Error(`a forged refresh token was answered ${refused.status}`);
}

// ---- report ----

const spread = (values: number[]) => `${quantile(values, 0.25).toFixed(2)}–${quantile(values, 0.75).toFixed(2)}`;
const ms = (values: number[], q: number) => `${quantile(values, q).toFixed(1)} ms`;

function table(results: StorageResult[]): string {
  const rows = [
    '| Storage | Refresh exchanges/s | `GET /auth/session` req/s | Ratio | Middle half of rounds | CPU-time ratio | Middle half | Exchange p50 | Exchange p99 | Session p50 | Session p99 | Server CPU per exchange | Per session read | Exchanges timed |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    if (r.skipped) {
      rows.push(`| ${r.label} | skipped: ${r.skipped} | | | | | | | | | | | | |`);
      continue;
    }
    const { refresh, session } = r as Required<StorageResult>;
    rows.push(
      `| ${r.label} | ${median(refresh.rps).toFixed(0)} | ${median(session.rps).toFixed(0)} | ${median(r.ratios!).toFixed(3)} | ${spread(r.ratios!)} | ${median(r.cpuRatios!).toFixed(3)} | ${spread(r.cpuRatios!)} | ${ms(refresh.latencies, 0.5)} | ${ms(refresh.latencies, 0.99)} | ${ms(session.latencies, 0.5)} | ${ms(session.latencies, 0.99)} | ${median(refresh.cpu).toFixed(0)} µs | ${median(session.cpu).toFixed(0)} µs | ${refresh.requests} |`,
    );
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  if (!(FAMILIES >= CONNECTIONS && CONNECTIONS >= 1))
    throw new Error(`BENCH_FAMILIES (${FAMILIES}) must be at least BENCH_CONNECTIONS (${CONNECTIONS}), which is >= 1`);
  const machine = `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node.js ${process.version}, ${process.platform}/${process.arch}`;
  if (canPin) spawnSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  console.log(`Refresh-token benchmark: ${machine}`);
  console.log(
    canPin
      ? 'Load generator pinned to core 0, server to core 1 (taskset).'
      : 'Not pinned (taskset or a second core unavailable).',
  );
  console.log(
    `${FAMILIES} families (users signed in), ${CONNECTIONS} workers (one connection each, closed loop); ${WARMUP} s warm-up per route, then ${ROUNDS} alternating rounds of ${DURATION} s per route.\n`,
  );
  const loadBefore = loadavg()[0];
  const results: StorageResult[] = [];
  for (const name of DATABASES) {
    console.log(LABELS[name] ?? name);
    const result = await runStorage(name);
    if (result.skipped) console.log(`  skipped: ${result.skipped}`);
    results.push(result);
  }
  console.log(
    [
      '',
      table(results),
      '',
      `- Machine: ${machine}. 1-minute load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after (well above 0: other processes shared the cores).`,
      '- Refresh exchange: `POST /auth/token` with `grant_type=refresh_token`, each a rotation of the family (read it, its session row and user, compare-and-set the generation, extend the session row, sign the access token with Ed25519); every answer checked to be a new pair. Session read: `GET /auth/session` with a browser session cookie of the same users (database sessions, read from the same database).',
      '- Req/s: medians over the rounds. Ratio: median of the per-round ratios exchanges/s over session reads/s, measured in alternating rounds; the CPU-time ratio is the same made of the server CPU time per request (session over exchange), what the ratio would be with the core to itself. Latencies: over every request of the measured rounds, as the client saw them.',
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
