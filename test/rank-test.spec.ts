import { describe, expect, it } from '@jest/globals';
import { interleavedTimings, mannWhitneyU, rankTestP, TIMING_ALPHA } from './setup/rank-test.js';

describe('the rank test behind the timing tests', () => {
  it('counts U as the pairs where the first sample is larger', () => {
    expect(mannWhitneyU([1, 2, 3], [4, 5, 6])).toBe(0);
    expect(mannWhitneyU([4, 5, 6], [1, 2, 3])).toBe(9);
    expect(mannWhitneyU([1, 5], [3, 3])).toBe(2);
    expect(mannWhitneyU([3], [3])).toBe(0.5);
  });

  it('gives the exact two-sided p-value', () => {
    // Fully separated 8 + 8: one arrangement in C(16, 8) = 12870 per side.
    const low = [1, 2, 3, 4, 5, 6, 7, 8];
    const high = [11, 12, 13, 14, 15, 16, 17, 18];
    expect(rankTestP(low, high)).toBeCloseTo(2 / 12870, 12);
    expect(rankTestP(high, low)).toBeCloseTo(2 / 12870, 12);
    expect(rankTestP(low, high)).toBeLessThan(TIMING_ALPHA);
    // 3 + 3 fully separated: 2 / C(6, 3) = 0.1. One swap: U = 1, P(U <= 1) = 2/20, two-sided 0.2.
    expect(rankTestP([1, 2, 3], [4, 5, 6])).toBeCloseTo(0.1, 12);
    expect(rankTestP([1, 2, 4], [3, 5, 6])).toBeCloseTo(0.2, 12);
    // Perfectly interleaved samples: nothing to see.
    expect(rankTestP([1, 3, 5, 7], [2, 4, 6, 8])).toBeGreaterThan(0.5);
    expect(() => rankTestP([], [1])).toThrow(RangeError);
  });

  it('has the false-failure rate it documents on samples from one distribution', () => {
    // A fixed pseudo-random sequence (no flakiness): 2000 pairs of 8 + 8 draws from one distribution.
    let state = 12345;
    const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 100 + 200;
    let failures = 0;
    const runs = 2000;
    for (let r = 0; r < runs; r++) {
      const a = Array.from({ length: 8 }, next);
      const b = Array.from({ length: 8 }, next);
      if (rankTestP(a, b) < TIMING_ALPHA) failures++;
    }
    // Expected 2000 · 0.00016 ≈ 0.3 (the test's real size for 8 + 8 is below alpha).
    expect(failures).toBeLessThanOrEqual(2);
  });

  it('times both functions alternately, the same number of times', async () => {
    const order: string[] = [];
    const t = await interleavedTimings(
      4,
      async () => void order.push('a'),
      async () => void order.push('b'),
    );
    expect(order).toEqual(['a', 'b', 'b', 'a', 'a', 'b', 'b', 'a']);
    expect(t.first).toHaveLength(4);
    expect(t.second).toHaveLength(4);
  });
});
