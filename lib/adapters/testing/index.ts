// The `nestjs-auth/testing` entry point: tools for testing adapters, for any test runner (jest, vitest,
// node:test): the conformance suite registers with the functions it is given and asserts with node:assert.
export { runAdapterConformanceTests } from './adapter-conformance.js';
export type { AdapterConformanceOptions } from './adapter-conformance.js';
export type { ConformanceDb, ConformanceExtension, RawRecord } from './conformance-context.js';
export type { ConformanceRunner, ConformanceTestFn } from './conformance-context.js';
