/**
 * Type-level test (compiled by `tsc` in `npm test`, never run): the conformance suite's `runner`
 * takes the test functions of jest, vitest and node:test as they are, under strict TypeScript.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import * as nodeTest from 'node:test';
import * as vitest from 'vitest';
import type { AdapterConformanceOptions } from '../../lib/adapters/testing/index.js';

type Runner = NonNullable<AdapterConformanceOptions['runner']>;

export const jest: Runner = { describe, it, beforeAll, afterAll };
export const vitestRunner: Runner = {
  describe: vitest.describe,
  it: vitest.it,
  beforeAll: vitest.beforeAll,
  afterAll: vitest.afterAll,
};
export const nodeRunner: Runner = {
  describe: nodeTest.describe,
  it: nodeTest.it,
  beforeAll: nodeTest.before,
  afterAll: nodeTest.after,
};
