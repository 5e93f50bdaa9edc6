// Guard benchmark: requests/s and p99 latency of one small route through AuthGuard against the
// same route without it, in the same run, for JWT sessions, database sessions on SQLite and on
// PostgreSQL, and database sessions with the session cache. Run with `npm run bench`.
//
// The server runs in a child process pinned to one core, the load generator (autocannon) here,
// pinned to another, when `taskset` and two cores exist. Guarded and unguarded rounds alternate
// (and swap order every round) so machine noise hits both; the ratio is the median of the ratios
// of adjacent rounds. Writes bench/RESULTS.md.
//
// Scale scenarios rotate the Cookie header per request through many distinct sessions (50,000 JWTs;
// 50,000 of 200,000 stored database sessions), the unguarded route sent the same rotation.
//
// Settings (environment): BENCH_ROUNDS (default 5), BENCH_DURATION seconds per round (default 2),
// BENCH_CONNECTIONS (default 16), BENCH_SCENARIOS (comma-separated ids, default all),
// BENCH_CPU_PROF=1 (profile the server under load, from READY to exit, with V8's sampling profiler,
// what `node --cpu-prof` writes: one .cpuprofile per scenario in .bench-prof/, summarised by
// bench/cpu-profile-summary.ts; the numbers of such a run are not reported),
// AUTH_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchServerConfig, BenchServerReady } from './guard-bench.server.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DURATION = Number(process.env.BENCH_DURATION ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const WARMUP = 1;
const CPU_PROF = process.env.BENCH_CPU_PROF === '1';
const MIB = 1024 * 1024;
/** The heading of the CPU profile section of bench/RESULTS.md, kept across runs. */
const PROFILE_HEADING = '## CPU profiles';
const POSTGRES_URL = process.env.AUTH_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRET = randomBytes(32).toString('hex');

interface Scenario {
  id: string;
  label: string;
  /** Ratio guarded/unguarded the issue asks for, if any. */
  target?: number;
  /** The guarded route to measure (default `guarded`, the route behind AuthGuard). */
  path?: string;
  /** Distinct sessions the requests rotate through (default 1), and stored database sessions. */
  tokens?: number;
  rows?: number;
  /** Builds the server config; returns `skip` with a reason when a dependency is unavailable. */
  setup(): Promise<{ config: BenchServerConfig; cleanup: () => Promise<void> } | { skip: string }>;
}

interface RouteStats {
  rps: number[];
  p99: number[];
  failures: number;
}

interface ScenarioResult {
  scenario: Scenario;
  skipped?: string;
  open?: RouteStats;
  guarded?: RouteStats;
  ratios?: number[];
  /** Server RSS after start-up and seeding, and its peak (VmHWM) after the load, MiB. */
  rssMiB?: number;
  peakMiB?: number;
  plan?: string;
  seconds?: number;
}

// ---- databases ----

interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}

async function withPostgres<T>(url: string, fn: (client: PgClient) => Promise<T>): Promise<T> {
  // `pg` ships no type declarations; this is the little of it the benchmark uses.
  const pg = (await import('pg' as string)) as { default: { Client: new (options: object) => PgClient } };
  const client = new pg.default.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function postgresScenario(cacheTtl: number): Scenario['setup'] {
  return async () => {
    const name = `nestjs_auth_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    try {
      await withPostgres(POSTGRES_URL, (c) => c.query(`CREATE DATABASE "${name}"`));
    } catch (error) {
      return { skip: `PostgreSQL is not reachable at ${new URL(POSTGRES_URL).host} (${(error as Error).message})` };
    }
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    return {
      config: { strategy: 'database', secret: SECRET, cacheTtl, database: { type: 'postgres', url: url.toString() } },
      cleanup: () =>
        withPostgres(POSTGRES_URL, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
          () => undefined,
        ),
    };
  };
}

async function sqliteScenario(): ReturnType<Scenario['setup']> {
  const file = join(tmpdir(), `nestjs-auth-bench-${randomBytes(4).toString('hex')}.sqlite`);
  return {
    config: { strategy: 'database', secret: SECRET, database: { type: 'better-sqlite3', database: file } },
    cleanup: () => rm(file, { force: true }),
  };
}

const SCENARIOS: Scenario[] = [
  {
    // Not AuthGuard: a guard that returns true, for what Nest charges for running any guard at all.
    id: 'floor',
    label: 'Reference: a guard that returns `true`',
    path: 'allow-all',
    setup: async () => ({ config: { strategy: 'jwt', secret: SECRET }, cleanup: async () => undefined }),
  },
  {
    id: 'jwt',
    label: 'JWT sessions',
    target: 0.9,
    setup: async () => ({ config: { strategy: 'jwt', secret: SECRET }, cleanup: async () => undefined }),
  },
  {
    id: 'jwt-revocation',
    label: 'JWT sessions, `jwtRevocation` (in-memory list)',
    setup: async () => ({
      config: { strategy: 'jwt', secret: SECRET, jwtRevocation: true },
      cleanup: async () => undefined,
    }),
  },
  {
    id: 'jwt-50k',
    label: 'JWT sessions, 50,000 distinct cookies rotated',
    target: 0.8,
    tokens: 50_000,
    setup: async () => ({ config: { strategy: 'jwt', secret: SECRET }, cleanup: async () => undefined }),
  },
  { id: 'sqlite', label: 'Database sessions, SQLite', setup: sqliteScenario },
  {
    id: 'sqlite-200k',
    label: 'Database sessions, SQLite, 200,000 rows, 50,000 tokens rotated',
    target: 0.8,
    tokens: 50_000,
    rows: 200_000,
    setup: sqliteScenario,
  },
  { id: 'postgres', label: 'Database sessions, PostgreSQL', target: 0.7, setup: postgresScenario(0) },
  {
    id: 'postgres-1k',
    label: 'Database sessions, PostgreSQL, 1,000 rows, 1,000 tokens rotated',
    tokens: 1_000,
    rows: 1_000,
    setup: postgresScenario(0),
  },
  {
    id: 'postgres-200k',
    label: 'Database sessions, PostgreSQL, 200,000 rows, 50,000 tokens rotated',
    target: 0.7,
    tokens: 50_000,
    rows: 200_000,
    setup: postgresScenario(0),
  },
  {
    id: 'postgres-cache',
    label: 'Database sessions, PostgreSQL, `cacheTtl: 5`',
    target: 0.95,
    setup: postgresScenario(5),
  },
  {
    id: 'postgres-200k-cache',
    label: 'Database sessions, PostgreSQL, `cacheTtl: 5`, 200,000 rows, 50,000 tokens rotated',
    tokens: 50_000,
    rows: 200_000,
    setup: postgresScenario(5),
  },
];

// ---- processes ----

const canPin = availableParallelism() >= 2 && spawnSync('taskset', ['-V']).status === 0;

/** Starts the bench server (pinned to core 1 when possible) and waits for its READY line. */
function startServer(config: BenchServerConfig): Promise<{ child: ChildProcess; ready: BenchServerReady }> {
  // Same runtime flags as this process (e.g. the TypeScript loader), so the server runs as we do.
  const script = join(here, `guard-bench.server${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`);
  const args = [...process.execArgv, '--expose-gc', script, JSON.stringify(config)];
  const child = canPin
    ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the bench server did not start within 60 s\n${err}`));
    }, 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('READY '));
      if (line) {
        clearTimeout(timer);
        resolve({ child, ready: JSON.parse(line.slice('READY '.length)) as BenchServerReady });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bench server exited with code ${code}\n${err}`));
    });
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.removeAllListeners('exit');
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---- measuring ----

/** The q-quantile of values (linear interpolation between the closest ranks). */
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (pos - lo);
};
const median = (values: number[]) => quantile(values, 0.5);

/**
 * One load of `duration` seconds on `url`: every request sends the next of `cookies` (a shared
 * rotation: with 50,000 cookies a cookie comes back once per 50,000 requests).
 */
async function load(url: string, cookies: string[], duration: number) {
  let next = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    headers: { cookie: cookies[0] },
    ...(cookies.length > 1
      ? {
          requests: [
            {
              setupRequest: (request) => {
                request.headers.cookie = cookies[next];
                next = next + 1 === cookies.length ? 0 : next + 1;
                return request;
              },
            },
          ],
        }
      : {}),
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** Proves the setup before timing it: the guard lets the session in, and keeps everyone else out. */
async function verify(base: string, ready: BenchServerReady): Promise<void> {
  const ok = await fetch(`${base}/guarded`, { headers: { cookie: ready.cookie } });
  const body = (await ok.json()) as { id?: string };
  if (ok.status !== 200 || body.id !== ready.userId)
    throw new Error(`the guarded route refused the session (${ok.status})`);
  const anonymous = await fetch(`${base}/guarded`);
  if (anonymous.status !== 401) throw new Error(`the guarded route let an anonymous request in (${anonymous.status})`);
}

/** Peak and current resident set size of a process (Linux /proc), MiB. */
async function memoryOf(pid: number | undefined): Promise<{ peak?: number }> {
  if (pid === undefined) return {};
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status);
    return { peak: hwm ? Number(hwm[1]) / 1024 : undefined };
  } catch {
    return {};
  }
}

async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const started = Date.now();
  const prepared = await scenario.setup();
  if ('skip' in prepared) return { scenario, skipped: prepared.skip };
  const tokensFile = join(tmpdir(), `nestjs-auth-bench-tokens-${randomBytes(4).toString('hex')}.txt`);
  const profileDir = CPU_PROF ? join(process.cwd(), '.bench-prof', scenario.id) : undefined;
  if (profileDir) {
    await rm(profileDir, { recursive: true, force: true });
    await mkdir(profileDir, { recursive: true });
  }
  const { child, ready } = await startServer({
    ...prepared.config,
    tokens: scenario.tokens,
    rows: scenario.rows,
    tokensFile,
    ...(profileDir ? { cpuProfile: join(profileDir, 'server.cpuprofile') } : {}),
  });
  let peakMiB: number | undefined;
  try {
    const cookies = (await readFile(tokensFile, 'utf8')).split('\n');
    const base = `http://127.0.0.1:${ready.port}`;
    await verify(base, ready);
    const open: RouteStats = { rps: [], p99: [], failures: 0 };
    const guarded: RouteStats = { rps: [], p99: [], failures: 0 };
    const ratios: number[] = [];
    const guardedPath = scenario.path ?? 'guarded';
    await load(`${base}/open`, cookies, WARMUP);
    await load(`${base}/${guardedPath}`, cookies, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<[string, RouteStats]> =
        round % 2 === 0
          ? [
              ['open', open],
              [guardedPath, guarded],
            ]
          : [
              [guardedPath, guarded],
              ['open', open],
            ];
      for (const [path, stats] of order) {
        const r = await load(`${base}/${path}`, cookies, DURATION);
        stats.rps.push(r.rps);
        stats.p99.push(r.p99);
        stats.failures += r.failures;
      }
      ratios.push(guarded.rps[round] / open.rps[round]);
      process.stdout.write(
        `  round ${round + 1}/${ROUNDS}: open ${open.rps[round].toFixed(0)} req/s, guarded ${guarded.rps[round].toFixed(0)} req/s, ratio ${ratios[round].toFixed(3)}\n`,
      );
    }
    peakMiB = (await memoryOf(child.pid)).peak;
    return {
      scenario,
      open,
      guarded,
      ratios,
      rssMiB: ready.rss / MIB,
      peakMiB,
      plan: ready.plan,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await stopServer(child);
    await rm(tokensFile, { force: true });
    await prepared.cleanup().catch(() => undefined);
  }
}

// ---- report ----

function table(results: ScenarioResult[]): string {
  const rows = [
    '| Scenario | Unguarded req/s | Guarded req/s | Ratio | Middle half of rounds | Target | Unguarded p99 | Guarded p99 | RSS after start | Peak RSS |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const target = r.scenario.target !== undefined ? `>= ${r.scenario.target.toFixed(2)}` : '';
    if (r.skipped) {
      rows.push(`| ${r.scenario.label} | skipped: ${r.skipped} | | | | ${target} | | | | |`);
      continue;
    }
    const ratio = median(r.ratios!);
    const verdict = r.scenario.target === undefined ? '' : ratio >= r.scenario.target ? ' ✓' : ' ✗';
    rows.push(
      `| ${r.scenario.label} | ${median(r.open!.rps).toFixed(0)} | ${median(r.guarded!.rps).toFixed(0)} | ${ratio.toFixed(3)}${verdict} | ${quantile(r.ratios!, 0.25).toFixed(2)}–${quantile(r.ratios!, 0.75).toFixed(2)} | ${target} | ${median(r.open!.p99).toFixed(1)} ms | ${median(r.guarded!.p99).toFixed(1)} ms | ${r.rssMiB!.toFixed(0)} MiB | ${r.peakMiB?.toFixed(0) ?? '?'} MiB |`,
    );
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const wanted = process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim());
  const scenarios = wanted ? SCENARIOS.filter((s) => wanted.includes(s.id)) : SCENARIOS;
  // Describe the machine before pinning: pinned, availableParallelism() reports one core.
  const machine = `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node.js ${process.version}, ${process.platform}/${process.arch}`;
  if (canPin) spawnSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  console.log(`Guard benchmark: ${machine}`);
  console.log(
    canPin
      ? 'Load generator pinned to core 0, server to core 1 (taskset).'
      : 'Not pinned (taskset or a second core unavailable).',
  );
  console.log(`${ROUNDS} alternating rounds of ${DURATION} s per route, ${CONNECTIONS} connections.\n`);

  // Other work on the machine skews the numbers; the load averages are reported with them.
  const loadBefore = loadavg()[0];
  const runStarted = Date.now();
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    console.log(`${scenario.label}`);
    const result = await runScenario(scenario);
    if (result.skipped) console.log(`  skipped: ${result.skipped}`);
    if ((result.open?.failures ?? 0) + (result.guarded?.failures ?? 0) > 0) {
      throw new Error(
        `${scenario.label}: ${result.open!.failures + result.guarded!.failures} failed requests (non-2xx, errors or timeouts); the numbers would be meaningless`,
      );
    }
    results.push(result);
    if (result.seconds !== undefined) console.log(`  (${result.seconds.toFixed(0)} s)`);
  }

  const md = table(results);
  console.log(`\n${md}\n`);
  const plans = results
    .filter((r) => r.plan && (r.scenario.tokens ?? 1) > 1)
    .map((r) => [`${r.scenario.label}:`, '', '```', r.plan!, '```', ''].join('\n'));
  const totalSeconds = (Date.now() - runStarted) / 1000;
  const report = [
    '# Guard benchmark results',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} with ${import.meta.url.endsWith('.ts') ? '`npm run bench`' : 'bench/guard.bench.ts compiled by `tsc`'} (${(totalSeconds / 60).toFixed(1)} minutes).`,
    '',
    `- Machine: ${machine}. 1-minute load average ${loadBefore.toFixed(2)} before the run, ${loadavg()[0].toFixed(2)} after (anything well above 0 means other processes shared the cores, and the ratios are noisier).`,
    `- ${canPin ? 'Server (one Nest app, Express) pinned to core 1, autocannon to core 0, with `taskset`.' : 'No CPU pinning (taskset or a second core unavailable).'}`,
    `- Per scenario: ${WARMUP} s warm-up per route, then ${ROUNDS} rounds of ${DURATION} s per route with ${CONNECTIONS} connections, guarded and unguarded alternating (order swapped every round).`,
    "- Route: `GET /guarded` (`@UseGuards(AuthGuard)`, returns `{ ok, id }` from `@CurrentUser('id')`) against `GET /open` (the same handler and decorator without the guard), both sent the same session cookies.",
    '- Scale rows rotate the Cookie header per request through many distinct sessions, the unguarded route sent the same rotation: 50,000 JWTs (five times more than the 10,000 the session cache keeps, so nearly every request decrypts), or 50,000 of 200,000 stored database sessions (each of their own user). Other rows send one cookie.',
    '- The reference row puts a guard whose `canActivate` returns `true` in place of AuthGuard: what Nest itself charges for running any guard, which no guard can get under.',
    '- Req/s and p99 are medians over the rounds; the ratio is the median of the per-round ratios guarded/unguarded, and the middle half of those ratios (25th to 75th percentile) shows how much the machine moved them.',
    '- Database sessions without cache query the database on every request (one prepared `SELECT` joining the session and its user), so a revoked session is refused at once. With `cacheTtl: 5` a session is served from memory for up to 5 s after a lookup; 50,000 tokens rotated at this rate come back every ~5 s, so that row is mostly misses by construction.',
    '- RSS after start: the server process after start-up and seeding (after a GC). Peak RSS: its high-water mark (VmHWM) at the end of the scenario.',
    '',
    md,
    '',
    '## Session lookup plans',
    '',
    ...plans,
  ].join('\n');
  if (CPU_PROF) {
    console.log('Profiled run (BENCH_CPU_PROF=1): bench/RESULTS.md left as it was; profiles in .bench-prof/.');
    return;
  }
  // The CPU profile summary (written by bench/cpu-profile-summary.ts from a profiled run) is kept.
  const resultsFile = join(process.cwd(), 'bench', 'RESULTS.md');
  const previous = await readFile(resultsFile, 'utf8').catch(() => '');
  const profiles = previous.indexOf(PROFILE_HEADING);
  await writeFile(resultsFile, profiles >= 0 ? `${report}\n${previous.slice(profiles)}` : report);
  console.log('Wrote bench/RESULTS.md');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
