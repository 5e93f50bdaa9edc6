import assert from 'node:assert/strict';

/**
 * The conformance suite's assertions, on `node:assert` only, so the suite runs under any test
 * runner (jest, vitest, `node:test`): each throws an `AssertionError` with a diff on failure.
 */
export const check = {
  /** `actual` is `null` (not `undefined`: lookups that find nothing must give `null`). */
  isNull(actual: unknown, message?: string): void {
    assert.equal(actual, null, message ?? `expected null, got ${describe(actual)}`);
  },
  /** `actual` is not `null`. */
  notNull(actual: unknown, message?: string): void {
    assert.notEqual(actual, null, message ?? 'expected a value, got null');
  },
  /** `actual` is `expected` (`Object.is`). */
  is(actual: unknown, expected: unknown, message?: string): void {
    assert.equal(actual, expected, message);
  },
  /**
   * `actual` deeply equals `expected`, ignoring properties whose value is `undefined` and whether
   * an object is a class instance (an entity) or a plain object; dates compare by time.
   */
  equals(actual: unknown, expected: unknown, message?: string): void {
    assert.deepEqual(normalize(actual), normalize(expected), message);
  },
  /** `actual` has at least the properties of `expected`, recursively, with equal values. */
  matches(actual: unknown, expected: unknown, message?: string): void {
    assert.deepEqual(normalize(project(actual, expected)), normalize(expected), message);
  },
  /** `actual` is an instance of `type`. */
  instanceOf(actual: unknown, type: abstract new (...args: never[]) => unknown, message?: string): void {
    assert.ok(actual instanceof type, message ?? `expected an instance of ${type.name}, got ${describe(actual)}`);
  },
  /** `actual` has `length` items. */
  lengthOf(actual: { length: number }, length: number, message?: string): void {
    assert.equal(actual.length, length, message ?? `expected ${length} items, got ${actual.length}`);
  },
  /** `promise` rejects (with anything). */
  async rejects(promise: Promise<unknown>, message?: string): Promise<void> {
    await (message === undefined ? assert.rejects(promise) : assert.rejects(promise, message));
  },
};

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value instanceof Date) return `Date(${value.toISOString()})`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && !ArrayBuffer.isView(value);
}

/** Plain data: objects as plain objects without `undefined` properties, arrays item by item. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (!isRecord(value)) return value;
  const plain: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) plain[key] = normalize(item);
  return plain;
}

/** `actual` cut to the shape of `expected` (the keys it names, arrays of the same length). */
function project(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected))
    return Array.isArray(actual) && actual.length === expected.length
      ? actual.map((item, i) => project(item, expected[i]))
      : actual;
  if (!isRecord(expected) || Array.isArray(expected) || !isRecord(actual) || Array.isArray(actual)) return actual;
  const cut: Record<string, unknown> = {};
  for (const key of Object.keys(expected)) if (key in actual) cut[key] = project(actual[key], expected[key]);
  return cut;
}
