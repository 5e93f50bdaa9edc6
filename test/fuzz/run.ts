/**
 * What the fuzz suites share about a run: the seed and the number of requests (the replay
 * conventions: `FUZZ_SEED`, `FUZZ_COUNT`), the heap measured after GC, a request as text.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { randomInt } from 'node:crypto';
import { isStrictCi } from '../setup/ci.js';

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
