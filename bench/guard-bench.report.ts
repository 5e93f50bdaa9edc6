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
  plan?: string;
  seconds?: number;
  /** With a baseline: per-round ratio of this scenario's ratio to the baseline's (and of the CPU-time ratios). */
  versus?: number[];
  cpuVersus?: number[];
}

export function table(results: ScenarioResult[]): string {
  const rows = [
    '| Scenario | Unguarded req/s | Guarded req/s | Ratio | Middle half of rounds | CPU-time ratio | Middle half | Target | Unguarded p99 | Guarded p99 | RSS after start | Peak RSS |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const target = r.scenario.target !== undefined ? `>= ${r.scenario.target.toFixed(2)}` : '';
    if (r.skipped) {
      rows.push(`| ${r.scenario.label} | skipped: ${r.skipped} | | | | | | ${target} | | | | |`);
      continue;
    }
    const ratio = median(r.ratios!);
    const cpu = median(r.cpuRatios!);
    const verdict = (x: number) => (r.scenario.target === undefined ? '' : x >= r.scenario.target ? ' ✓' : ' ✗');
    rows.push(
      `| ${r.scenario.label} | ${median(r.open!.rps).toFixed(0)} | ${median(r.guarded!.rps).toFixed(0)} | ${ratio.toFixed(3)}${verdict(ratio)} | ${spread(r.ratios!)} | ${cpu.toFixed(3)}${verdict(cpu)} | ${spread(r.cpuRatios!)} | ${target} | ${median(r.open!.p99).toFixed(1)} ms | ${median(r.guarded!.p99).toFixed(1)} ms | ${r.rssMiB!.toFixed(0)} MiB | ${r.peakMiB?.toFixed(0) ?? '?'} MiB |`,
    );
  }
  return rows.join('\n');
}

/** The middle half (25th to 75th percentile) of values. */
const spread = (values: number[]) => `${quantile(values, 0.25).toFixed(2)}–${quantile(values, 0.75).toFixed(2)}`;

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
