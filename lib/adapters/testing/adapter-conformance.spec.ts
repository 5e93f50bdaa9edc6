import { describe, expect, it } from '@jest/globals';
import { MemoryAdapter } from '../memory.adapter.js';
import { runAdapterConformanceTests, type AdapterConformanceOptions } from './adapter-conformance.js';
import type { ConformanceRunner } from './conformance-context.js';

/** What the suite registers, recorded by a runner that runs nothing. */
function registered(options: Partial<AdapterConformanceOptions>): { run: string[]; skipped: string[] } {
  const run: string[] = [];
  const skipped: string[] = [];
  const it = Object.assign((name: string) => void run.push(name), { skip: (name: string) => void skipped.push(name) });
  const runner: ConformanceRunner = { describe: (_name, fn) => fn(), it, beforeAll: () => {}, afterAll: () => {} };
  runAdapterConformanceTests({ name: 'recorded', adapter: () => new MemoryAdapter(), runner, ...options });
  return { run, skipped };
}

describe('tests that do not apply', () => {
  it('are skipped with the reason in their title by default', () => {
    const { skipped } = registered({ methods: ['createUser', 'getUser'], unique: false });
    expect(skipped).toContain(
      'getUserByEmail finds the user, and returns null for an unknown email [not applicable: `methods` lacks getUserByEmail]',
    );
    expect(skipped.some((name) => name.endsWith('[not applicable: `unique: false` (no unique keys)]'))).toBe(true);
    expect(skipped.some((name) => name.endsWith('[not applicable: `extensions` lacks updateAccountTokens]'))).toBe(
      true,
    );
    expect(skipped.every((name) => /\[not applicable: .+\]$/.test(name))).toBe(true);
  });

  it("are not registered at all with inapplicable: 'omit' (a strict CI reports no skipped test)", () => {
    const all = registered({});
    const omitted = registered({ methods: ['createUser', 'getUser'], unique: false, inapplicable: 'omit' });
    expect(omitted.skipped).toEqual([]);
    expect(omitted.run.length).toBeGreaterThan(0);
    expect(omitted.run.length).toBeLessThan(all.run.length);
    expect(omitted.run.every((name) => all.run.includes(name))).toBe(true);
  });
});
