// The guard benchmark's report tables (split from guard.bench.ts): one row per scenario, and the
// interleaved comparisons of a scenario against its baseline.
import { median, quantile } from './bench-harness.js';
import type { Scenario } from './guard-bench.scenarios.js';

export interface RouteStats {
  rps: number[];
  p99: number[];
  /** Server CPU time per request, microseconds. */
  cpu: number[];
  failures: number;
}

export interface ScenarioResult {
  scenario: Scenario;
  skipped?: string;
  open?: RouteStats;
  guarded?: RouteStats;
  ratios?: number[];
  /** Per round: server CPU time per unguarded request / per guarded request. */
  cpuRatios?: number[];
  /** Server RSS after start-up and seeding, and its peak (VmHWM) after the load, MiB. */
  rssMiB?: number;
  peakMiB?: number;
  /** The same of the bare-route baseline (a Nest app without this library, same routes and load), MiB. */
  bareRssMiB?: number;
  barePeakMiB?: number;
  /** V8 heap in use after start-up and seeding (after a GC), of the server and of the bare route, MiB. */
  heapMiB?: number;
  bareHeapMiB?: number;
  /** What the session cache held after the rounds: entries and the bytes it counted. */
  cache?: { jwts: number; jwtBytes: number; dbs: number; dbBytes: number };
  /** JWT scale rows: one cache entry's bytes, measured on the heap and as counted (see the server). */
  entryBytes?: { measured: number; counted: number; entries: number };
  plan?: string;
  seconds?: number;
  /**
   * Per round, against the bare Nest app of the same rounds (bench/bare-bench.server.ts: no library at
   * all), as an outside harness compares: guarded req/s over the bare app's, the unguarded route's
   * over the bare app's (what the module costs a route it does not guard), and the same of CPU time.
   */
  overBare?: { guarded: number[]; open: number[]; guardedCpu: number[]; openCpu: number[] };
  /** With a baseline: per-round ratio of this scenario's ratio to the baseline's (and of the CPU-time ratios). */
  versus?: number[];
  cpuVersus?: number[];
}

export function table(results: ScenarioResult[]): string {
  const rows = [
    '| Scenario | Unguarded req/s | Guarded req/s | Ratio | Middle half of rounds | CPU-time ratio | Middle half | Target | Unguarded p99 | Guarded p99 | RSS after start | Peak RSS | Peak RSS over the bare route |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const target = r.scenario.target !== undefined ? `>= ${r.scenario.target.toFixed(2)}` : '';
    if (r.skipped) {
      rows.push(`| ${r.scenario.label} | skipped: ${r.skipped} | | | | | | ${target} | | | | | |`);
      continue;
    }
    const ratio = median(r.ratios!);
    const cpu = median(r.cpuRatios!);
    const verdict = (x: number) => (r.scenario.target === undefined ? '' : x >= r.scenario.target ? ' ✓' : ' ✗');
    rows.push(
      `| ${r.scenario.label} | ${median(r.open!.rps).toFixed(0)} | ${median(r.guarded!.rps).toFixed(0)} | ${ratio.toFixed(3)}${verdict(ratio)} | ${spread(r.ratios!)} | ${cpu.toFixed(3)}${verdict(cpu)} | ${spread(r.cpuRatios!)} | ${target} | ${median(r.open!.p99).toFixed(1)} ms | ${median(r.guarded!.p99).toFixed(1)} ms | ${r.rssMiB!.toFixed(0)} MiB | ${r.peakMiB?.toFixed(0) ?? '?'} MiB | ${overBare(r.peakMiB, r.barePeakMiB)} |`,
    );
  }
  return rows.join('\n');
}

/** `+N MiB` (a difference of MiB), or `?` when either side is unknown. */
const overBare = (mine: number | undefined, bare: number | undefined) =>
  mine === undefined || bare === undefined || !Number.isFinite(mine - bare)
    ? '?'
    : `${mine - bare >= 0 ? '+' : '−'}${Math.abs(mine - bare).toFixed(0)} MiB`;

/**
 * Memory per scenario: the V8 heap after start-up (the server's and the bare route's: code loaded
 * and what start-up keeps, which under load V8 lets grow by a multiple before collecting), RSS and
 * peak of the bare route, what the session cache held after the rounds, and one entry's bytes.
 */
export function memoryTable(results: ScenarioResult[]): string {
  const rows = [
    '| Scenario | Heap after start | Bare route: heap after start | RSS after start over the bare route | Bare route: peak RSS | Session cache after the rounds | Bytes per entry: on the heap / counted |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  const mib = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '?' : `${x.toFixed(1)} MiB`);
  for (const r of results) {
    if (r.skipped) continue;
    const c = r.cache;
    const held = !c
      ? '?'
      : c.jwts || !c.dbs
        ? `${c.jwts} JWTs, ${(c.jwtBytes / 2 ** 20).toFixed(1)} MiB counted`
        : `${c.dbs} sessions, ${(c.dbBytes / 2 ** 20).toFixed(1)} MiB counted`;
    const perEntry = r.entryBytes
      ? `${r.entryBytes.measured} / ${r.entryBytes.counted} B (${r.entryBytes.entries} entries)`
      : c && c.jwts
        ? `? / ${Math.round(c.jwtBytes / c.jwts)} B`
        : c && c.dbs
          ? `? / ${Math.round(c.dbBytes / c.dbs)} B`
          : '';
    rows.push(
      `| ${r.scenario.label} | ${mib(r.heapMiB)} | ${mib(r.bareHeapMiB)} | ${overBare(r.rssMiB, r.bareRssMiB)} | ${mib(r.barePeakMiB)} | ${held} | ${perEntry} |`,
    );
  }
  return rows.join('\n');
}

/** The middle half (25th to 75th percentile) of values. */
const spread = (values: number[]) => `${quantile(values, 0.25).toFixed(2)}–${quantile(values, 0.75).toFixed(2)}`;

/**
 * Each scenario against a bare Nest app loaded in the same rounds: how an outside harness that puts
 * a bare route at 1.00 reads it, beside this bench's own ratio (guarded against the same app's
 * unguarded route, which already pays what the module costs every request).
 */
export function bareTable(results: ScenarioResult[]): string {
  const rows = [
    "| Scenario | Guarded over the bare app | Middle half | CPU time | Middle half | Unguarded route over the bare app | CPU time | This bench's ratio (guarded over unguarded) |",
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const b = r.overBare;
    if (r.skipped || !b?.guarded.length) continue;
    const m = (values: number[]) => median(values).toFixed(3);
    rows.push(
      `| ${r.scenario.label} | ${m(b.guarded)} | ${spread(b.guarded)} | ${m(b.guardedCpu)} | ${spread(b.guardedCpu)} | ${m(b.open)} | ${m(b.openCpu)} | ${m(r.ratios!)} |`,
    );
  }
  return rows.length > 2 ? rows.join('\n') : '';
}

/** The interleaved comparisons (a scenario against its baseline), as a table. */
export function versusTable(results: ScenarioResult[]): string {
  const rows = [
    '| Scenario | Against | Ratio of ratios (median) | Middle half of rounds | Per round | Ratio of CPU-time ratios | Middle half | Per round | Target |',
    '|---|---|---:|---:|---|---:|---:|---|---:|',
  ];
  for (const r of results) {
    if (!r.versus?.length || !r.scenario.baseline) continue;
    const target = r.scenario.versusTarget;
    const verdict = (x: number) => (target === undefined ? '' : x >= target ? ' ✓' : ' ✗');
    const cells = (values: number[]) =>
      `${median(values).toFixed(3)}${verdict(median(values))} | ${spread(values)} | ${values.map((x) => x.toFixed(2)).join(', ')}`;
    rows.push(
      `| ${r.scenario.label} | ${r.scenario.baseline.label} | ${cells(r.versus)} | ${cells(r.cpuVersus ?? [])} | ${target === undefined ? '' : `>= ${target.toFixed(2)}`} |`,
    );
  }
  return rows.length > 2 ? rows.join('\n') : '';
}
