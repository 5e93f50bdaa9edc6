/**
 * Timing equality as a statistical test rather than a bound on wall-clock time: the exact
 * Mann-Whitney rank test (Wilcoxon rank-sum) on two samples of durations taken interleaved, so that
 * whatever load the shared machine carries falls on both alike.
 *
 * The question is "could both samples come from the same distribution?". Under that hypothesis every
 * arrangement of the ranks is equally likely, so a test that fails when the two-sided p-value is
 * below `alpha` fails a correct build with probability at most `alpha` (the documented false-failure
 * rate; {@link TIMING_ALPHA} = 0.001, one run in a thousand). A real difference (one path skipping
 * the work the other does) separates the samples completely: with 8 + 8 samples that is
 * p = 2 / C(16, 8) ≈ 0.00016, below alpha, so the test fails.
 */

/** The false-failure rate the timing tests accept: one correct run in a thousand fails. */
export const TIMING_ALPHA = 0.001;

/** The U statistic of `a` against `b`: pairs where a's value is larger (ties count one half). */
export function mannWhitneyU(a: readonly number[], b: readonly number[]): number {
  let u = 0;
  for (const x of a) for (const y of b) u += x > y ? 1 : x === y ? 0.5 : 0;
  return u;
}

/**
 * Exact two-sided p-value of the rank test for samples of sizes `a.length` and `b.length` (no tie
 * correction: durations measured in fractions of a millisecond do not tie).
 */
export function rankTestP(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) throw new RangeError('rankTestP: both samples need values.');
  const u = mannWhitneyU(a, b);
  // counts[k] = arrangements of n a's and m b's with U = k (the recurrence on the largest value).
  const max = n * m;
  let table: number[][] = Array.from({ length: m + 1 }, () => [1]); // n = 0: U is 0 in one way
  for (let i = 1; i <= n; i++) {
    const next: number[][] = [];
    for (let j = 0; j <= m; j++) {
      const counts = new Array<number>(i * j + 1).fill(0);
      // Largest value is an a (it beats all j b's) or a b.
      const withA = table[j]!;
      withA.forEach((c, k) => (counts[k + j]! += c));
      if (j > 0) next[j - 1]!.forEach((c, k) => (counts[k]! += c));
      next.push(counts);
    }
    table = next;
  }
  const counts = table[m]!;
  const total = counts.reduce((s, c) => s + c, 0);
  let below = 0;
  let above = 0;
  for (let k = 0; k <= max; k++) {
    if (k <= u) below += counts[k]!;
    if (k >= u) above += counts[k]!;
  }
  return Math.min(1, (2 * Math.min(below, above)) / total);
}

/**
 * Takes `pairs` timings of `first` and `second` alternately (which goes first changes every pair,
 * so neither always follows the other) and returns both samples in milliseconds.
 */
export async function interleavedTimings(
  pairs: number,
  first: () => Promise<unknown>,
  second: () => Promise<unknown>,
): Promise<{ first: number[]; second: number[] }> {
  const out = { first: [] as number[], second: [] as number[] };
  const time = async (fn: () => Promise<unknown>): Promise<number> => {
    const started = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      out.first.push(await time(first));
      out.second.push(await time(second));
    } else {
      out.second.push(await time(second));
      out.first.push(await time(first));
    }
  }
  return out;
}
