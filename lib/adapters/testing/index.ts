// The `nestjs-auth/testing` entry point: tools for testing adapters, for any test runner (jest, vitest,
// node:test): the conformance suite registers with the functions it is given and asserts with node:assert.

/**
 * Tools for testing adapters with any test runner (jest, vitest, node:test):
 * `runAdapterConformanceTests` registers the conformance suite with the functions it is given and
 * asserts with `node:assert`.
 *
 * @module nestjs-auth/testing
 */
export { runAdapterConformanceTests } from './adapter-conformance.js';
export type { AdapterConformanceOptions } from './adapter-conformance.js';
export type { ConformanceDb, ConformanceExtension, RawRecord } from './conformance-context.js';
export type { ConformanceRunner, ConformanceTestFn } from './conformance-context.js';
