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
// 50,000 of 200,000 stored database sessions), the unguarded route sent the same rotation. The
// access-token scenarios send native apps' access tokens as `Authorization: Bearer` instead (one, or
// 50,000 rotated), each in the same rounds as its JWE cookie counterpart (`jwt`, `jwt-50k`).
//
// Settings (environment): BENCH_ROUNDS (default 9), BENCH_DURATION seconds per round (default 1;
// many short rounds: a burst of other work on this shared machine spoils one pair, not the median),
// BENCH_CONNECTIONS (default 16), BENCH_SCENARIOS (comma-separated ids, default all; `startup` is
// the start-up and memory part, bench/startup-section.ts), BENCH_STARTUP_ROUNDS (default 21),
// BENCH_CPU_PROF=1 (profile the server under load, from READY to exit, with V8's sampling profiler,
// what `node --cpu-prof` writes: one .cpuprofile per scenario in .bench-prof/, summarised by
// bench/cpu-profile-summary.ts; the numbers of such a run are not reported),
// AUTH_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres), BENCH_RESULTS (the
// file written instead of bench/RESULTS.md, e.g. for a subset of the scenarios).
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { canPin, cpuMicros, load, memoryOf, resetPeak, startServer, stopServer, verify } from './bench-harness.js';
import {
  bareTable,
  memoryTable,
  table,
  versusTable,
  type RouteStats,
  type ScenarioResult,
} from './guard-bench.report.js';
import { SCENARIOS, sequence, type Scenario } from './guard-bench.scenarios.js';
import { mintSessionCookies } from './mint-jwe.js';
import type { BenchServerMemory, BenchServerReady, SessionHeader } from './guard-bench.server.js';
import { startupSection } from './startup-section.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const DURATION = Number(process.env.BENCH_DURATION ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const WARMUP = 1;
const CPU_PROF = process.env.BENCH_CPU_PROF === '1';
const MIB = 1024 * 1024;
/** The heading of the CPU profile section of bench/RESULTS.md, kept across runs. */
const PROFILE_HEADING = '## CPU profiles';

/** One bench server of a scenario, started and verified, with the Cookie headers it rotates. */
interface Side {
  scenario: Scenario;
  child: ChildProcess;
  ready: BenchServerReady;
  base: string;
  cookies: string[];
  /** The header `cookies` go in: `cookie`, or `authorization` (bearer access tokens). */
  header: SessionHeader;
  open: RouteStats;
  guarded: RouteStats;
  ratios: number[];
  cpuRatios: number[];
  /** Where the rotation stands: shared by every load of the side. */
  cursor: { next: number };
  cleanup: () => Promise<void>;
  tokensFile: string;
  /** The bare-route baseline (bench/bare-bench.server.ts): loaded alike, its own numbers not reported. */
  bare?: true;
}

/** Whether every server's peak RSS was reset after its start (else peaks include start-up and seeding). */
let peaksReset = true;

async function startSide(scenario: Scenario): Promise<Side | { skip: string }> {
  const prepared = await scenario.setup();
  if ('skip' in prepared) return prepared;
  const tokensFile = join(tmpdir(), `nestjs-auth-bench-tokens-${randomBytes(4).toString('hex')}.txt`);
  const profileDir = CPU_PROF ? join(process.cwd(), '.bench-prof', scenario.id) : undefined;
  if (profileDir) {
    await rm(profileDir, { recursive: true, force: true });
    await mkdir(profileDir, { recursive: true });
  }
  // Many JWT sessions are minted here, not in the server, as an outside harness mints them: minting
  // 50,000 (tens of MB of strings and buffers) in the server left its RSS after start about 11 MiB
  // higher (123 against 112 MiB), the bench's memory, not the app's. The peak under load is about
  // the same either way (the heap grows back into those pages).
  const { config } = prepared;
  const tokensGiven =
    config.strategy === 'jwt' && !config.accessTokens && !config.apiKeys && (scenario.tokens ?? 1) > 1;
  if (tokensGiven) await writeFile(tokensFile, (await mintSessionCookies(config.secret, scenario.tokens!)).join('\n'));
  const { child, ready } = await startServer({
    ...config,
    tokens: scenario.tokens,
    rows: scenario.rows,
    tokensFile,
    tokensGiven,
    ...(profileDir ? { cpuProfile: join(profileDir, 'server.cpuprofile') } : {}),
  });
  const cookies = sequence((await readFile(tokensFile, 'utf8')).split('\n'), scenario.visits);
  const base = `http://127.0.0.1:${ready.port}`;
  const side: Side = {
    scenario,
    child,
    ready,
    base,
    cookies,
    header: ready.header ?? 'cookie',
    open: { rps: [], p99: [], cpu: [], failures: 0 },
    guarded: { rps: [], p99: [], cpu: [], failures: 0 },
    ratios: [],
    cpuRatios: [],
    cursor: { next: 0 },
    cleanup: prepared.cleanup,
    tokensFile,
  };
  try {
    // The reference rows' routes run another guard: the server's AuthGuard route proves the session.
    await verify(base, ready, scenario.path?.startsWith('guarded') ? scenario.path : 'guarded');
  } catch (error) {
    await stopSide(side);
    throw error;
  }
  if (!(await resetPeak(child.pid))) peaksReset = false;
  return side;
}

/**
 * The bare-route baseline of a scenario: a Nest app without this library (bench/bare-bench.server.ts)
 * on the same core, sent the scenario's cookies on the same routes in the same rounds.
 */
async function startBare(of: Side): Promise<Side> {
  const { child, ready } = await startServer<object, BenchServerReady>({}, 'bare-bench.server');
  if (!(await resetPeak(child.pid))) peaksReset = false;
  const empty = (): RouteStats => ({ rps: [], p99: [], cpu: [], failures: 0 });
  return {
    scenario: { ...of.scenario, id: `${of.scenario.id}, bare route`, baseline: undefined },
    child,
    ready,
    base: `http://127.0.0.1:${ready.port}`,
    cookies: of.cookies,
    header: of.header,
    open: empty(),
    guarded: empty(),
    ratios: [],
    cpuRatios: [],
    cursor: { next: 0 },
    cleanup: async () => undefined,
    tokensFile: '',
    bare: true,
  };
}

async function stopSide(side: Side): Promise<void> {
  await stopServer(side.child);
  if (side.tokensFile) await rm(side.tokensFile, { force: true });
  await side.cleanup().catch(() => undefined);
}

/** One round of a side: both routes, in an order swapped every round. */
async function measureRound(side: Side, round: number): Promise<void> {
  const guardedPath = side.scenario.path ?? 'guarded';
  const routes: Array<[string, RouteStats]> = [
    ['open', side.open],
    [guardedPath, side.guarded],
  ];
  if (round % 2 === 1) routes.reverse();
  for (const [path, stats] of routes) {
    const before = await cpuMicros(side.child.pid);
    const r = await load(`${side.base}/${path}`, side.cookies, DURATION, side.cursor, side.header);
    const after = await cpuMicros(side.child.pid);
    stats.cpu.push(before === undefined || after === undefined ? NaN : (after - before) / r.requests);
    stats.rps.push(r.rps);
    stats.p99.push(r.p99);
    stats.failures += r.failures;
  }
  side.ratios.push(side.guarded.rps[round] / side.open.rps[round]);
  side.cpuRatios.push(side.open.cpu[round] / side.guarded.cpu[round]);
  process.stdout.write(
    `  round ${round + 1}/${ROUNDS} [${side.scenario.id}]: open ${side.open.rps[round].toFixed(0)} req/s, guarded ${side.guarded.rps[round].toFixed(0)} req/s, ratio ${side.ratios[round].toFixed(3)}; CPU per request ${side.open.cpu[round].toFixed(0)} / ${side.guarded.cpu[round].toFixed(0)} µs, ratio ${side.cpuRatios[round].toFixed(3)}\n`,
  );
}

/**
 * Runs a scenario: its server (and with `baseline`, the baseline's server too, both on the same
 * core, their rounds interleaved and their order swapped every round), warm-up, then the rounds.
 * Returns the baseline's result first, then the scenario's (with `versus`, the per-round ratio of
 * its ratio to the baseline's).
 */
async function runScenario(scenario: Scenario): Promise<ScenarioResult[]> {
  const started = Date.now();
  const sides: Side[] = [];
  try {
    for (const s of scenario.baseline ? [scenario.baseline, scenario] : [scenario]) {
      const side = await startSide(s);
      if ('skip' in side) return [{ scenario, skipped: side.skip }];
      sides.push(side);
    }
    // Last: the scenario's servers keep the order (and the interleaved comparison) they had.
    const bare = await startBare(sides[sides.length - 1]);
    sides.push(bare);
    const measured = sides.filter((side) => !side.bare);
    for (const side of sides) {
      await load(`${side.base}/open`, side.cookies, WARMUP, side.cursor, side.header);
      await load(
        `${side.base}/${scenario.path ?? 'guarded'}`,
        side.cookies,
        WARMUP,
        side.cursor,
        side.header,
        side.scenario.warmupRequests,
      );
    }
    const versus: number[] = [];
    const cpuVersus: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) await measureRound(side, round);
      if (measured.length === 2) {
        versus.push(measured[1].ratios[round] / measured[0].ratios[round]);
        cpuVersus.push(measured[1].cpuRatios[round] / measured[0].cpuRatios[round]);
      }
    }
    const barePeak = (await memoryOf(bare.child.pid)).peak;
    const results: ScenarioResult[] = [];
    for (const side of measured) {
      const memory = (await fetch(`${side.base}/bench-memory`).then((r) => r.json())) as BenchServerMemory;
      results.push({
        scenario: side.scenario,
        open: side.open,
        guarded: side.guarded,
        ratios: side.ratios,
        cpuRatios: side.cpuRatios,
        rssMiB: side.ready.rss / MIB,
        peakMiB: (await memoryOf(side.child.pid)).peak,
        bareRssMiB: bare.ready.rss / MIB,
        barePeakMiB: barePeak,
        heapMiB: (side.ready.heapUsed ?? NaN) / MIB,
        bareHeapMiB: (bare.ready.heapUsed ?? NaN) / MIB,
        cache: memory.cache,
        entryBytes: side.ready.entryBytes,
        plan: side.ready.plan,
        overBare: {
          guarded: side.guarded.rps.map((rps, i) => rps / bare.guarded.rps[i]),
          open: side.open.rps.map((rps, i) => rps / bare.open.rps[i]),
          guardedCpu: side.guarded.cpu.map((cpu, i) => bare.guarded.cpu[i] / cpu),
          openCpu: side.open.cpu.map((cpu, i) => bare.open.cpu[i] / cpu),
        },
        seconds: (Date.now() - started) / 1000,
      });
    }
    if (versus.length) Object.assign(results[results.length - 1], { versus, cpuVersus });
    return results;
  } finally {
    for (const side of sides) await stopSide(side);
  }
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
    const outcome = await runScenario(scenario);
    for (const result of outcome) {
      if (result.skipped) console.log(`  skipped: ${result.skipped}`);
      if ((result.open?.failures ?? 0) + (result.guarded?.failures ?? 0) > 0) {
        throw new Error(
          `${result.scenario.label}: ${result.open!.failures + result.guarded!.failures} failed requests (non-2xx, errors or timeouts); the numbers would be meaningless`,
        );
      }
      results.push(result);
    }
    const seconds = outcome[outcome.length - 1].seconds;
    if (seconds !== undefined) console.log(`  (${seconds.toFixed(0)} s)`);
  }

  const md = table(results);
  const versus = versusTable(results);
  const memory = memoryTable(results);
  const againstBare = bareTable(results);
  console.log(`\n${md}\n\n${againstBare}\n\n${versus}\n\n${memory}\n`);
  // Start-up and memory (`startup`): with every scenario, or when named in BENCH_SCENARIOS.
  const startup = !CPU_PROF && (!wanted || wanted.includes('startup')) ? startupSection(process.cwd()) : undefined;
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
    `- Per scenario: ${WARMUP} s warm-up per route (unless said otherwise below), then ${ROUNDS} rounds of ${DURATION} s per route with ${CONNECTIONS} connections, guarded and unguarded alternating (order swapped every round).`,
    "- Route: `GET /guarded` (`@UseGuards(AuthGuard)`, returns `{ ok, id }` from `@CurrentUser('id')`) against `GET /open` (the same handler and decorator without the guard), both sent the same session cookies.",
    '- Scale rows rotate the Cookie header per request through many distinct sessions, the unguarded route sent the same rotation: 50,000 JWTs (five times more than the 10,000 the session cache keeps, so nearly every request decrypts), or 50,000 of 200,000 stored database sessions (each of their own user). Other rows send one cookie.',
    "- The reference rows put another guard in place of AuthGuard. One whose `canActivate` returns `true`: what Nest itself charges for running any guard, which no guard can get under. One that only sets `req.user` (a fixed user of the shape AuthGuard leaves): what any guard that puts its user where Passport does pays for that alone. One that only opens each request's session JWE with the library's decrypter (what AuthGuard does on a cache miss; nothing cached, no user left), with the 50,000 cookies rotated: what verifying a token on every request costs by itself.",
    "- Req/s and p99 are medians over the rounds; the ratio is the median of the per-round ratios guarded/unguarded, and the middle half of those ratios (25th to 75th percentile) shows how much the machine moved them. The CPU-time ratio is the same comparison made of the server's own CPU time per request (user + system, from /proc, unguarded over guarded): what the ratio of req/s would be if the server had its core to itself, which other processes on a shared machine move much less.",
    '- Database sessions without cache query the database on every request (one prepared `SELECT` joining the session and its user; on better-sqlite3 read synchronously), so a revoked session is refused at once. With `cacheTtl: 5` a session is served from memory for up to 5 s after a lookup: 50,000 tokens rotated one after the other come back after the entry expired (every request a miss: what the cache costs when it cannot help); in visits of 8 requests (64 users interleaved) a token is looked up once per visit.',
    '- Rows "1,000 rows" and "200,000 rows" of the same database run in the same rounds, on two servers on the same core, interleaved (order swapped every round); the second table gives, per round, the 200k ratio divided by the 1k ratio.',
    "- Access-token rows: native apps' access tokens (EdDSA JWTs, `typ: at+jwt`, signed by the server with the library's `AccessTokens.sign`) sent as `Authorization: Bearer` on both routes instead of a cookie; the server has `nativeApps`, `accessToken.issuer` and the TypeORM adapter on SQLite (WAL) they need, which the guard does not read for an access token, and JWT sessions. One token (served from the verified-token cache after its first request), or 50,000 rotated: more than the verified states kept (about 1,900 in the default 4 MiB), so nearly every request misses them and finds its token among the digests of tokens verified before, which spares the signature check (the warm-up sends each token once, 50,000 requests, as an app's clients send theirs again and again); the `first-sight` rows set `session.cacheMaxEntries: 0`, which keeps neither, so every request checks its signature (what a token's first request costs). Each runs in the same rounds as its JWE cookie row (`jwt`, `jwt-50k`, listed again as its baseline), on two servers on the same core, interleaved; the second table gives, per round, the access-token ratio divided by the cookie ratio.",
    "- API-key row: keys created through `AuthService.createApiKey`, sent as `Authorization: Bearer` to `GET /guarded-api-key` (`@Auth({ accept: ['apiKey'] })`) and to the unguarded route; 1,000 keys rotated, each sent twice in the warm-up (2,000 requests), so the rounds measure keys served from the key cache (a key's first request looks it up and records its use).",
    `- RSS after start: the server process after start-up and seeding (after a GC). Peak RSS: its high-water mark (VmHWM) at the end of the scenario, ${peaksReset ? 'reset after start-up and seeding (so the peak is that of the load)' : 'since the process started (it could not be reset here: seeding counts too)'}. Peak RSS over the bare route: the same peak of a Nest app without this library (bench/bare-bench.server.ts: the same routes and handler, no guard, no database), started for each scenario on the same core and sent the same requests in the same rounds, subtracted.`,
    '',
    md,
    '',
    ...(againstBare
      ? [
          '## Against a bare Nest app',
          '',
          "The same rounds read as an outside harness reads them: each scenario's guarded route against a Nest app without this library (bench/bare-bench.server.ts, the same handler, loaded in the same rounds on the same core), per round, then the median. The unguarded route's column is what the module costs a route it does not guard (on Express, giving each request its `user` and session slots as it arrives); this bench's own ratio (guarded over the same app's unguarded route) leaves that out, so it reads higher by about that much.",
          '',
          againstBare,
          '',
        ]
      : []),
    '## Memory',
    '',
    "What each server held: the V8 heap after start-up (a GC after seeding), which under load V8 lets grow to a multiple of what it held after its last full collection before collecting again, so every MiB kept (code loaded, cache entries) shows several times in the peak; what the session cache held after the rounds (entries, and the bytes it counts against `session.cacheMaxBytes`); and, in the JWT scale rows, one entry's bytes measured on the heap (2,000 of the scenario's tokens read through the library's reader, each from a Cookie header of its own, the heap compared after a GC) beside what the cache counts for it.",
    '',
    memory,
    '',
    ...(versus
      ? ['## Interleaved comparisons (200,000 rows against 1,000; access tokens against JWE cookies)', '', versus, '']
      : []),
    ...(startup ? [startup] : []),
    '## Session lookup plans',
    '',
    ...plans,
  ].join('\n');
  if (CPU_PROF) {
    console.log('Profiled run (BENCH_CPU_PROF=1): bench/RESULTS.md left as it was; profiles in .bench-prof/.');
    return;
  }
  // The CPU profile summary (written by bench/cpu-profile-summary.ts from a profiled run) is kept.
  const resultsFile = process.env.BENCH_RESULTS ?? join(process.cwd(), 'bench', 'RESULTS.md');
  const previous = await readFile(resultsFile, 'utf8').catch(() => '');
  const profiles = previous.indexOf(PROFILE_HEADING);
  await writeFile(resultsFile, profiles >= 0 ? `${report}\n${previous.slice(profiles)}` : report);
  console.log(`Wrote ${resultsFile}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
