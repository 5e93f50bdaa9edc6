import { AssertionError } from 'node:assert';
import { describe, expect, it } from '@jest/globals';
import { check } from './conformance-assert.js';

class Row {
  constructor(
    readonly id: string,
    readonly name?: string,
  ) {}
}

describe('the conformance assertions (node:assert)', () => {
  it('pass on what the contract asks', async () => {
    check.isNull(null);
    check.notNull(0);
    check.is(1, 1);
    check.equals(new Row('a'), { id: 'a' });
    check.equals({ at: new Date(5), list: [1, { x: undefined }] }, { at: new Date(5), list: [1, {}] });
    check.matches({ id: 'a', extra: 1, nested: { a: 1, b: 2 } }, { id: 'a', nested: { a: 1 } });
    check.instanceOf(new Date(), Date);
    check.lengthOf([1, 2], 2);
    await check.rejects(Promise.reject(new Error('no')));
  });

  it('fail with an AssertionError on anything else', async () => {
    const fails = (fn: () => void) => expect(fn).toThrow(AssertionError);
    fails(() => check.isNull(undefined));
    fails(() => check.notNull(null));
    fails(() => check.is({}, {}));
    fails(() => check.equals({ at: new Date(5) }, { at: new Date(6) }));
    fails(() => check.equals([1], [1, 2]));
    fails(() => check.matches({ id: 'a' }, { id: 'a', name: 'n' }));
    fails(() => check.matches([{ id: 'a' }], [{ id: 'a' }, { id: 'b' }]));
    fails(() => check.instanceOf('2020', Date));
    fails(() => check.lengthOf([], 1));
    await expect(check.rejects(Promise.resolve(1))).rejects.toThrow(AssertionError);
  });
});
