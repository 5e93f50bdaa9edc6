// The `nestjs-auth/testing` entry point: tools for testing adapters. It imports `@jest/globals`,
// which is why it is not part of the main entry.
export { runAdapterConformanceTests } from './adapter-conformance.js';
export type { AdapterConformanceOptions } from './adapter-conformance.js';
export type { ConformanceDb, ConformanceExtension, RawRecord } from './conformance-context.js';
