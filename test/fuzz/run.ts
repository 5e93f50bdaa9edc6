/**
 * What the fuzz suites share about a run: the seed and the number of requests (the replay
 * conventions: `FUZZ_SEED`, `FUZZ_COUNT`, `FUZZ_MAX_FAILURES`, `FUZZ_VERBOSE`, `FUZZ_TRACE`), the
 * app's logger and magic links as a run watches them ({@link fuzzLog}), and the run itself
 * ({@link runFuzz}): the request loop with its common checks, the heap measured after GC, the summary.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { randomInt } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { expect } from '@jest/globals';
import { AccountRoutes } from '../../lib/account/account-routes.js';
import type { LoggerInstance } from '../../lib/index.js';
import { AUTH_ROUTE_PATHS, AUTH_ROUTES } from '../../lib/router/auth-routes.js';
import type { TestApp } from '../setup/app.js';
import { isStrictCi } from '../setup/ci.js';
import { checkAnswer, type AnswerRules } from './checks.js';
import { anonymousCsrf, call, credentialsSignIn, type FixtureTarget } from './fixtures.js';
import {
  fuzzRoutes,
  generateRequest,
  type Fixtures,
  type FuzzRequest,
  type FuzzRoute,
  type FuzzTarget,
  type SignedIn,
} from './generator.js';
import { Rng } from './prng.js';
import { sendRaw, type WireResponse } from './wire.js';

/**
 * FUZZ_SEED: an integer in [0, 2^32) (decimal or 0x…); `random`, or unset outside CI, for a new
 * one; unset under CI=true, a fixed seed.
 */
export function parseSeed(raw: string | undefined): number {
  if (raw === 'random' || ((raw === undefined || raw === '') && !isStrictCi())) return randomInt(0, 2 ** 32 - 1);
  // CI's seed: a gate must not fail on a seed nobody has tried. New seeds are explored locally (the
  // default there is random) or with `FUZZ_SEED=random`.
  if (raw === undefined || raw === '') return 20261125;
  const n = raw.startsWith('0x') ? Number.parseInt(raw.slice(2), 16) : Number(raw);
  if (!Number.isInteger(n) || n < 0 || n >= 2 ** 32)
    throw new Error(`FUZZ_SEED must be an integer in [0, 2^32): ${raw}`);
  return n;
}

/** FUZZ_COUNT: the requests of a suite's run, split over both session strategies (default 2400). */
export function parseCount(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 2400;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 2) throw new Error(`FUZZ_COUNT must be an integer of at least 2: ${raw}`);
  return n;
}

/** The requests of one session strategy's run: `count` split over both, the first taking the odd one. */
export function strategyRequests(count: number, strategyIndex: number): number {
  return strategyIndex === 0 ? Math.ceil(count / 2) : Math.floor(count / 2);
}

/**
 * The routes to fuzz: the module's action table, the account paths the running app answers, its
 * configured providers (a new route, account action or provider is fuzzed the day it exists).
 */
export async function appRoutes(t: TestApp, origin: string): Promise<FuzzRoute[]> {
  const providers = await call({ port: Number(new URL(t.url).port), origin }, 'GET', '/auth/providers');
  return fuzzRoutes(
    AUTH_ROUTES,
    AUTH_ROUTE_PATHS,
    Object.keys(JSON.parse(providers.body) as object),
    t.app.get(AccountRoutes).paths(),
  );
}

/** `global.gc`, exposed at run time when node was started without --expose-gc. */
export function getGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

export async function heapAfterGc(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

/** A request as text for a failure message: the head and the start of the body, escaped. */
export function showRequest(bytes: Buffer): string {
  const text = bytes.toString('latin1');
  return JSON.stringify(text.length > 1500 ? `${text.slice(0, 1500)}…(${text.length} bytes)` : text);
}

/** Failures reported before a run stops (FUZZ_MAX_FAILURES for local runs). */
const MAX_FAILURES = Number(process.env.FUZZ_MAX_FAILURES) || 25;
/** FUZZ_VERBOSE=1 prints how often each route answered each status and error type. */
const VERBOSE = process.env.FUZZ_VERBOSE === '1';
/** FUZZ_TRACE=<file> writes every request and the head of its answer there (local debugging). */
const TRACE = process.env.FUZZ_TRACE;
/** Allowed growth of the heap after GC between the end of the warm-up and the end of the run. */
const MAX_HEAP_GROWTH = 10 * 1024 * 1024;

/** What the app under test logs and mails during a run, as the run checks it. */
export interface FuzzLog {
  /** The module's logger: error lines kept (there must be none), warnings only counted (and traced). */
  logger: LoggerInstance;
  errors: string[];
  warnings: number;
  /** The recent magic links (path and query, six at the most), and any that left the origin. */
  emailLinks: string[];
  offOriginLinks: string[];
  /** The email provider's sender: keeps the link. */
  sendVerificationRequest(params: { url: string }): void;
}

export function fuzzLog(origin: string): FuzzLog {
  const log: FuzzLog = {
    logger: {
      error: (error: Error) =>
        void (log.errors.length < 100 && log.errors.push(`${error.name}: ${error.message}`.slice(0, 300))),
      warn: (line: string) => {
        log.warnings += 1;
        if (TRACE) appendFileSync(TRACE, `  warn: ${line}\n`);
      },
      debug: () => undefined,
    },
    errors: [],
    warnings: 0,
    emailLinks: [],
    offOriginLinks: [],
    sendVerificationRequest: ({ url }) => {
      const link = new URL(url);
      if (link.origin !== origin) log.offOriginLinks.push(url.slice(0, 200));
      log.emailLinks.push(`${link.pathname}${link.search}`);
      if (log.emailLinks.length > 6) log.emailLinks.shift();
    },
  };
  return log;
}

/** One answered request of a run, for a suite's own checks. */
export interface FuzzExchange {
  index: number;
  request: FuzzRequest;
  res: WireResponse;
  /** The fixtures the request was generated with. */
  fx: Fixtures;
}

/** A suite's run of one session strategy: what is common is {@link runFuzz}'s, the rest these hooks. */
export interface FuzzRun {
  /** The suite in messages: `route fuzzer`. */
  name: string;
  strategy: FuzzTarget['strategy'];
  requests: number;
  /** `FUZZ_SEED=… FUZZ_COUNT=…`, for the messages. */
  replay: string;
  /** The seed of request `index`'s generator: of the run's seed, the suite, the strategy and `index` only. */
  seedOf(index: number): number;
  target: FuzzTarget;
  rules: AnswerRules;
  log: FuzzLog;
  /** Fixtures are fetched anew before request 0 and then every `refreshEvery` requests. */
  refreshEvery: number;
  refresh(index: number): Promise<Fixtures>;
  /**
   * The suite's own checks of an answer, and its counters: problems to report with the request. Run
   * after the common checks of the answer and before those of what it logged (so the log checks see
   * what it logged in the meantime).
   */
  afterEach?(exchange: FuzzExchange): Promise<string[]>;
  /** The suite's counters for the summary line. */
  summary?(): string;
  /** The suite's end-of-run checks: failures to report. */
  finish?(): string[];
}

/**
 * Sends `requests` generated requests and checks every answer: {@link checkAnswer}, no error logged,
 * nothing uncaught, no magic link off the origin, and the suite's own checks; then the heap after GC
 * (less than 10 MiB of growth after the warm-up), that every route of the target was sent (when
 * there were requests enough), and the suite's end-of-run checks. Prints a summary line (and with
 * FUZZ_VERBOSE=1 the outcomes); throws with every failure (at most {@link MAX_FAILURES}).
 */
export async function runFuzz(run: FuzzRun): Promise<void> {
  const { strategy, requests, target, log } = run;
  const gc = getGc();
  const reached = new Set<string>();
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const outcomes = new Map<string, number>();
  const fail = (index: number, what: string, problems: string[], request?: Buffer) => {
    failures.push(
      [
        `[${strategy} #${index}] ${what}`,
        ...problems.map((p) => `  - ${p}`),
        ...(request ? [`  request: ${showRequest(request)}`] : []),
      ].join('\n'),
    );
  };
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);

  const warmup = Math.min(requests, Math.max(50, Math.floor(requests / 10)));
  let baseline = 0;
  let fx: Fixtures | undefined;
  const started = performance.now();
  let generateMs = 0;
  let wireMs = 0;
  try {
    for (let i = 0; i < requests && failures.length < MAX_FAILURES; i++) {
      if (i === warmup) baseline = await heapAfterGc(gc);
      const errorsBefore = log.errors.length;
      const uncaughtBefore = uncaught.length;
      if (i % run.refreshEvery === 0 || !fx) {
        try {
          fx = await run.refresh(i);
        } catch (error) {
          fail(i, 'the fixtures could not be fetched (a normal flow broke after the requests before)', [String(error)]);
          break;
        }
      }
      const rng = new Rng(run.seedOf(i));
      const marker = `fz${i.toString(36)}q`;
      const generating = performance.now();
      const request = await generateRequest(rng, marker, target, fx, i);
      if (request.route) reached.add(`${request.route.method} ${request.route.path}`);
      generateMs += performance.now() - generating;
      const mutations = `mutations: ${request.notes.join(', ') || 'none'}`;
      let res: WireResponse;
      try {
        res = await sendRaw(target.port, request.bytes);
      } catch (error) {
        fail(i, request.label, [`no answer: ${String(error)}`, mutations], request.bytes);
        continue;
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      wireMs += res.ms;
      if (TRACE)
        appendFileSync(
          TRACE,
          `[${strategy} #${i}] ${showRequest(request.bytes)}\n  -> ${JSON.stringify(res.head)} ${JSON.stringify(res.body.slice(0, 300))}\n`,
        );
      if (VERBOSE) {
        const route = request.target
          .replace(/^[a-z]+:\/\/[^/]*/i, '')
          .split('?')[0]!
          .slice(0, 40);
        const kind =
          /"error":"(\w+)"/.exec(res.body)?.[1] ?? /[?&]error=(\w+)/.exec(res.headers.location ?? '')?.[1] ?? '';
        const key = `${request.method} ${route} ${res.status} ${kind}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
      const problems = checkAnswer(request, res, run.rules);
      // Work the answer started may still log (events, clean-ups): give it a turn.
      await new Promise((resolve) => setImmediate(resolve));
      if (run.afterEach) problems.push(...(await run.afterEach({ index: i, request, res, fx })));
      if (log.errors.length > errorsBefore)
        problems.push(...log.errors.slice(errorsBefore).map((e) => `logged an error: ${e}`));
      if (uncaught.length > uncaughtBefore)
        problems.push(...uncaught.slice(uncaughtBefore).map((e) => `uncaught: ${String(e)}`));
      if (log.offOriginLinks.length > 0)
        problems.push(`a magic link left the origin: ${log.offOriginLinks.splice(0).join(', ')}`);
      if (problems.length > 0)
        fail(
          i,
          `${request.label} -> ${res.status} (identity ${request.identity})`,
          [...problems, mutations],
          request.bytes,
        );
    }
  } finally {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  }
  const seconds = (performance.now() - started) / 1000;
  const end = await heapAfterGc(gc);
  const growth = end - baseline;
  if (failures.length === 0 && growth >= MAX_HEAP_GROWTH) {
    failures.push(
      `[${strategy}] heap after GC grew by ${(growth / 1048576).toFixed(1)} MiB between request #${warmup} and the end (limit 10 MiB)`,
    );
  }
  const own = run.summary?.();
  console.log(
    `${run.name}, ${strategy}: ${requests} requests in ${seconds.toFixed(1)} s (generating ${(generateMs / 1000).toFixed(1)} s, on the wire ${(wireMs / 1000).toFixed(1)} s), heap ${(growth / 1048576).toFixed(2)} MiB after warm-up, ` +
      `${log.warnings} warnings, statuses ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}x${n}`)
        .join(' ')}, ${reached.size} of ${target.routes.length} (route, method, provider) reached, ` +
      `${own ? `${own} ` : ''}(${run.replay})`,
  );
  if (VERBOSE)
    console.log(
      [...outcomes]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, n]) => `${String(n).padStart(5)} ${k}`)
        .join('\n'),
    );
  // Every (route, method, provider) of the table was sent (the sweep takes one every third request).
  const missed = target.routes.map((r) => `${r.method} ${r.path}`).filter((r) => !reached.has(r));
  if (requests >= 3 * target.routes.length && missed.length > 0)
    failures.push(`[${strategy}] routes of the action table never sent: ${missed.join(', ')}`);
  failures.push(...(run.finish?.() ?? []));
  if (failures.length > 0) {
    throw new Error(
      `The ${run.name} found ${failures.length}${failures.length >= MAX_FAILURES ? '+' : ''} problem(s). Replay with ${run.replay}.\n\n${failures.join('\n\n')}`,
    );
  }
}

/**
 * After a run, the app still signs a user in over HTTP: `user` (whom the fuzzer never names) signs in
 * with credentials and `/me` answers with their id. Returns the session, for a suite's own checks.
 */
export async function signInAfterwards(
  target: FixtureTarget,
  user: FixtureTarget['user'] & { id: string },
  replay: string,
): Promise<SignedIn> {
  const signedIn = await credentialsSignIn(target, user, await anonymousCsrf(target));
  const me = await call(target, 'GET', '/me', { cookies: signedIn.session });
  expect({ status: me.status, replay }).toEqual({ status: 200, replay });
  expect((JSON.parse(me.body) as { user: { id: string } }).user.id).toBe(user.id);
  return signedIn;
}
