import { randomBytes } from 'node:crypto';
import { check } from './conformance-assert.js';
import type { AdapterRefreshFamily, RefreshTokenAdapter } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate, newRefreshFamily } from './conformance-fixtures.js';

/** Native-app sign-ins' storage beyond the contract (`RefreshTokenAdapter`). */
export function describeRefreshFamilies(ctx: ConformanceContext): void {
  const { createUser } = ctx;
  const store = () => ctx.adapter as unknown as RefreshTokenAdapter;
  const stored = async (userId: string, overrides: Partial<AdapterRefreshFamily> = {}) =>
    store().createRefreshFamily(newRefreshFamily(userId, overrides));
  const get = async (id: string) => store().getRefreshFamily(id);
  /** The fields a rotation writes, fresh: a new hash, dates with milliseconds. */
  const nextToken = (days = 0) => ({
    tokenHash: randomBytes(32).toString('base64url'),
    rotatedAt: futureDate(days),
    expires: futureDate(days + 30),
  });
  /** An id no family has. */
  const unknownId = () => randomBytes(32).toString('base64url');
  /** Settled promises as 'won' (true) or 'lost' (false, or a refusal). */
  const outcomes = async (calls: Promise<boolean>[]) =>
    (await Promise.allSettled(calls)).map((r) => (r.status === 'fulfilled' && r.value === true ? 'won' : 'lost'));
  const rawGone = async (id: string) => {
    const raw = await ctx.raw(ctx.db.refreshFamily, id);
    if (raw !== 'unchecked') check.is(raw ?? null, null, `the row of family ${id} is still stored`);
  };

  ctx.runner.describe('refresh-token families (beyond the contract)', () => {
    ctx.testExtension(
      'createRefreshFamily stores every field as given; getRefreshFamily reads it back (dates as Date), null for an unknown id',
      'refreshFamily',
      ['createUser'],
      async () => {
        const user = await createUser();
        const family = newRefreshFamily(user.id);
        check.equals(await store().createRefreshFamily(family), family);
        const found = await get(family.id);
        check.equals(found, family);
        check.instanceOf(found!.rotatedAt, Date);
        check.instanceOf(found!.expires, Date);
        check.instanceOf(found!.authTime, Date);
        check.is(found!.generation, 0);
        check.equals(found!.amr, ['pwd', 'otp']);
        // No amr (unknown), a later generation, dates of their own.
        const bare = newRefreshFamily(user.id, {
          amr: [],
          generation: 7,
          authTime: futureDate(-9),
          rotatedAt: futureDate(-2),
          expires: futureDate(1),
        });
        check.equals(await store().createRefreshFamily(bare), bare);
        check.equals(await get(bare.id), bare);
        check.isNull(await get(unknownId()));
      },
    );

    ctx.testExtension(
      'getRefreshFamily returns a copy: changing it changes nothing stored',
      'refreshFamily',
      ['createUser'],
      async () => {
        const user = await createUser();
        const family = await stored(user.id);
        const read = (await get(family.id))!;
        read.amr.push('hwk');
        read.expires.setTime(0);
        read.generation = 99;
        check.equals(await get(family.id), family);
      },
    );

    ctx.testExtension(
      'createRefreshFamily refuses a family of a user that does not exist, and a second family with an existing id',
      'refreshFamily',
      ['createUser'],
      async () => {
        await check.rejects(
          Promise.resolve().then(() => store().createRefreshFamily(newRefreshFamily('no-such-user'))),
        );
        const user = await createUser();
        const family = await stored(user.id);
        await check.rejects(
          Promise.resolve().then(() => store().createRefreshFamily({ ...newRefreshFamily(user.id), id: family.id })),
        );
        check.equals(await get(family.id), family);
      },
    );

    ctx.testExtension(
      'a family whose fields are not of their types is refused, or stored as missing (never read back)',
      'refreshFamily',
      ['createUser'],
      async () => {
        const user = await createUser();
        const bad: Partial<AdapterRefreshFamily>[] = [
          { generation: -1 },
          { generation: 1.5 },
          { expires: new Date(Number.NaN) },
          { rotatedAt: 'tomorrow' as unknown as Date },
          { tokenHash: '' },
          { amr: ['pwd', 'o t p'] },
        ];
        for (const overrides of bad) {
          const family = newRefreshFamily(user.id, overrides);
          await Promise.resolve()
            .then(() => store().createRefreshFamily(family))
            .catch(() => undefined);
          check.isNull(await get(family.id), `a family with ${JSON.stringify(overrides)} was read back`);
        }
      },
    );

    ctx.testExtension(
      'rotateRefreshFamily writes the next generation, hash and dates only from the stored generation; a stale or future from, or an unknown id, is false',
      'refreshFamily',
      ['createUser'],
      async () => {
        const user = await createUser();
        const family = await stored(user.id);
        const first = nextToken(1);
        check.is(await store().rotateRefreshFamily(family.id, 0, first), true, 'a first rotation');
        const once = { ...family, ...first, generation: 1 };
        check.equals(await get(family.id), once);
        check.is(await store().rotateRefreshFamily(family.id, 0, nextToken(2)), false, 'the same from again (stale)');
        check.is(
          await store().rotateRefreshFamily(family.id, 5, nextToken(2)),
          false,
          'a from ahead of the stored one',
        );
        check.is(await store().rotateRefreshFamily(unknownId(), 1, nextToken(2)), false, 'an unknown id');
        check.equals(await get(family.id), once, 'a refused rotation wrote nothing');
        const second = nextToken(2);
        check.is(await store().rotateRefreshFamily(family.id, 1, second), true, 'the next rotation');
        check.equals(await get(family.id), { ...family, ...second, generation: 2 });
      },
    );

    ctx.testExtension(
      `rotateRefreshFamily: of ${ctx.concurrency} concurrent calls with one from, exactly one succeeds, and its hash is stored`,
      'refreshFamily',
      ['createUser'],
      async () => {
        const user = await createUser();
        const family = await stored(user.id, { generation: 3 });
        const nexts = Array.from({ length: ctx.concurrency }, () => nextToken(1));
        const calls = nexts.map((next) =>
          Promise.resolve().then(() => store().rotateRefreshFamily(family.id, 3, next)),
        );
        const results = await outcomes(calls);
        check.is(results.filter((r) => r === 'won').length, 1, `winners among ${results.length}: ${results.join(',')}`);
        const winner = nexts[results.indexOf('won')]!;
        check.equals(await get(family.id), { ...family, ...winner, generation: 4 });
      },
    );

    ctx.testExtension(
      'deleteRefreshFamily deletes the family: true once, then false; other families stay',
      'refreshFamily',
      ['createUser'],
      async () => {
        const user = await createUser();
        const [a, b] = [await stored(user.id), await stored(user.id)];
        check.is(await store().deleteRefreshFamily(a.id), true);
        check.isNull(await get(a.id));
        await rawGone(a.id);
        check.is(await store().deleteRefreshFamily(a.id), false, 'deleted already');
        check.is(await store().deleteRefreshFamily(unknownId()), false, 'an unknown id');
        check.is(await store().rotateRefreshFamily(a.id, 0, nextToken()), false, 'a deleted family does not rotate');
        check.equals(await get(b.id), b);
      },
    );

    ctx.testExtension(
      "deleteRefreshFamiliesByUserId deletes that user's families and says how many",
      'refreshFamily',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const mine = [await stored(user.id), await stored(user.id), await stored(user.id, { clientId: 'another-app' })];
        const theirs = await stored(other.id);
        check.is(await store().deleteRefreshFamiliesByUserId(user.id), 3);
        for (const family of mine) {
          check.isNull(await get(family.id));
          await rawGone(family.id);
        }
        check.is(await store().deleteRefreshFamiliesByUserId(user.id), 0, 'none left');
        check.is(await store().deleteRefreshFamiliesByUserId('no-such-user'), 0, 'an unknown user');
        check.equals(await get(theirs.id), theirs, "another user's family stays");
      },
    );

    ctx.testExtension(
      "deleteUser deletes the user's families with it",
      'refreshFamily',
      ['createUser', 'deleteUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const mine = [await stored(user.id), await stored(user.id)];
        const theirs = await stored(other.id);
        await ctx.adapter.deleteUser(user.id);
        for (const family of mine) {
          check.isNull(await get(family.id));
          await rawGone(family.id);
          check.is(await store().rotateRefreshFamily(family.id, 0, nextToken()), false);
        }
        check.equals(await get(theirs.id), theirs);
      },
    );

    ctx.testExtension(
      "deleteUserCascade deletes the user's families with it",
      ['refreshFamily', 'deleteUserCascade'],
      ['createUser'],
      async () => {
        const user = await createUser();
        const family = await stored(user.id);
        await (ctx.adapter as unknown as { deleteUserCascade(id: string): Promise<unknown> }).deleteUserCascade(
          user.id,
        );
        check.isNull(await get(family.id));
        await rawGone(family.id);
      },
    );

    ctx.testExtension(
      'a stored family corrupted behind the adapter (a generation or an expiry of the wrong kind) reads as null (with db.corruptRefreshFamily)',
      'refreshFamily',
      ['createUser'],
      async () => {
        const corrupt = ctx.db.corruptRefreshFamily;
        if (!corrupt) return;
        const user = await createUser();
        const [badGeneration, badExpiry, intact] = [
          await stored(user.id),
          await stored(user.id),
          await stored(user.id),
        ];
        await corrupt.call(ctx.db, badGeneration.id, 'generation');
        check.isNull(await get(badGeneration.id), 'a family whose generation is no whole number from 0');
        check.is(await store().rotateRefreshFamily(badGeneration.id, 0, nextToken()), false);
        await corrupt.call(ctx.db, badExpiry.id, 'expires');
        check.isNull(await get(badExpiry.id), 'a family whose expiry is no date');
        check.equals(await get(intact.id), intact, 'the other families are read as before');
        // A corrupted family can still be deleted (sign out, account deletion).
        check.is(await store().deleteRefreshFamily(badExpiry.id), true);
        check.is(await store().deleteRefreshFamiliesByUserId(user.id), 2);
      },
    );
  });
}
