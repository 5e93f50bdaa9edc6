import { describe, expect, it } from '@jest/globals';
import { LookupBatcher, lookupStatementName } from './lookup-batcher.js';

type Row = { token: string; n: number };

/** A batcher over a table of rows, recording the calls each statement gets. */
function table(rows: Row[], many?: (tokens: string[]) => Promise<Row[] | undefined>) {
  const calls = { single: [] as string[], many: [] as string[][] };
  const batcher = new LookupBatcher<Row>(
    async (token) => (calls.single.push(token), rows.find((r) => r.token === token)),
    async (tokens) => {
      calls.many.push(tokens);
      return many ? many(tokens) : rows.filter((r) => tokens.includes(r.token));
    },
    (row) => row.token,
  );
  return { batcher, calls };
}

describe('LookupBatcher', () => {
  const rows = [
    { token: 'abc', n: 1 },
    { token: 'ABC', n: 2 },
    { token: 'xyz', n: 3 },
  ];

  it('answers the lookups of one turn with one batch of their distinct tokens, each with its own row', async () => {
    const { batcher, calls } = table(rows);
    const asked = ['abc', 'xyz', 'missing', 'abc', 'Abc', 'ABC'];
    const found = await Promise.all(asked.map((t) => batcher.lookup(t)));
    expect(found).toEqual([rows[0], rows[2], undefined, rows[0], undefined, rows[1]]);
    expect(calls.many).toEqual([['abc', 'xyz', 'missing', 'Abc', 'ABC']]);
    expect(calls.single).toEqual([]);
  });

  it('runs a lone lookup on the single-token statement', async () => {
    const { batcher, calls } = table(rows);
    expect(await batcher.lookup('xyz')).toEqual(rows[2]);
    expect(await batcher.lookup('nope')).toBeUndefined();
    expect(calls).toEqual({ single: ['xyz', 'nope'], many: [] });
  });

  it('answers no lookup with a row of another token, whatever the statement returned', async () => {
    // A statement that matched case-insensitively (a citext column) returns rows of other tokens.
    const { batcher } = table(rows, async () => rows);
    expect(await Promise.all([batcher.lookup('aBc'), batcher.lookup('xyz')])).toEqual([undefined, rows[2]]);
  });

  it('fails each lookup of a batch whose statement fails, and of one whose statement throws', async () => {
    for (const many of [
      () => Promise.reject(new Error('connection lost')),
      () => {
        throw new Error('bad arguments');
      },
    ]) {
      const { batcher } = table(rows, many);
      const settled = await Promise.allSettled([batcher.lookup('abc'), batcher.lookup('xyz')]);
      expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
      // The next turn's lookups are unaffected.
      expect(await batcher.lookup('abc')).toEqual(rows[0]);
    }
  });

  it('runs each lookup on its own when the batch cannot run (undefined)', async () => {
    const { batcher, calls } = table(rows, async () => undefined);
    expect(await Promise.all([batcher.lookup('abc'), batcher.lookup('ABC')])).toEqual([rows[0], rows[1]]);
    expect(calls.single).toEqual(['abc', 'ABC']);
  });

  it('sends at most 64 lookups per statement', async () => {
    const many = Array.from({ length: 150 }, (_, n) => ({ token: `t${n}`, n }));
    const { batcher, calls } = table(many);
    const found = await Promise.all(many.map((r) => batcher.lookup(r.token)));
    expect(found).toEqual(many);
    expect(calls.many.map((tokens) => tokens.length)).toEqual([64, 64, 22]);
  });
});

describe('lookupStatementName', () => {
  it('names a statement by a hash of its SQL', () => {
    expect(lookupStatementName('SELECT 1')).toMatch(/^nestjs_auth_session_[0-9a-f]{16}$/);
    expect(lookupStatementName('SELECT 1')).toBe(lookupStatementName('SELECT 1'));
    expect(lookupStatementName('SELECT 2')).not.toBe(lookupStatementName('SELECT 1'));
    expect(lookupStatementName('SELECT 1', 'statement')).toMatch(/^nestjs_auth_statement_[0-9a-f]{16}$/);
  });
});
