import { randomUUID } from 'node:crypto';
import { check } from './conformance-assert.js';
import type { AdapterTwoFactor, TwoFactorAdapter } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate, newTwoFactor } from './conformance-fixtures.js';

/** Two-factor authentication's storage beyond the contract (`TwoFactorAdapter`). */
export function describeTwoFactors(ctx: ConformanceContext): void {
  const { createUser } = ctx;
  const store = () => ctx.adapter as unknown as TwoFactorAdapter;
  const stored = async (userId: string, overrides: Partial<AdapterTwoFactor> = {}) =>
    store().createTwoFactor(newTwoFactor(userId, overrides));
  const ids = (factors: AdapterTwoFactor[]) => factors.map((f) => f.id);
  const listed = async (userId: string) => store().listTwoFactorsByUserId(userId);
  /** A backup code: one row per code, no name, never used. */
  const code = (userId: string): AdapterTwoFactor =>
    newTwoFactor(userId, { type: 'backup-code', name: null, lastUsedAt: null, lastUsedStep: null });
  /** Settled promises as 'won' (true) or 'lost' (false, or a refusal). */
  const outcomes = async (calls: Promise<boolean>[]) =>
    (await Promise.allSettled(calls)).map((r) => (r.status === 'fulfilled' && r.value === true ? 'won' : 'lost'));

  ctx.runner.describe('two-factor storage (beyond the contract)', () => {
    ctx.testExtension(
      'createTwoFactor stores every field as given; dates come back as Date, lastUsedStep as a number',
      'twoFactor',
      ['createUser'],
      async () => {
        const user = await createUser();
        const full = newTwoFactor(user.id);
        check.equals(await store().createTwoFactor(full), full);
        const bare = newTwoFactor(user.id, {
          name: null,
          confirmedAt: null,
          lastUsedAt: null,
          lastUsedStep: null,
          createdAt: futureDate(-1),
        });
        check.equals(await store().createTwoFactor(bare), bare);
        const [first, second] = await listed(user.id);
        check.equals([first, second], [full, bare]);
        check.instanceOf(first!.createdAt, Date);
        check.instanceOf(first!.confirmedAt, Date);
        check.instanceOf(first!.lastUsedAt, Date);
        check.is(first!.lastUsedStep, full.lastUsedStep);
        check.equals(
          [second!.name, second!.confirmedAt, second!.lastUsedAt, second!.lastUsedStep],
          [null, null, null, null],
        );
      },
    );

    ctx.testExtension('createTwoFactor refuses a factor of a user that does not exist', 'twoFactor', [], async () => {
      await check.rejects(Promise.resolve().then(() => store().createTwoFactor(newTwoFactor(randomUUID()))));
    });

    ctx.testExtension(
      "listTwoFactorsByUserId lists that user's factors only, oldest first, unconfirmed ones included; [] for an unknown user",
      'twoFactor',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const middle = await stored(user.id, { createdAt: futureDate(-5) });
        const newest = await stored(user.id, { createdAt: futureDate(-4), confirmedAt: null, lastUsedStep: null });
        const oldest = await stored(user.id, { createdAt: futureDate(-6), type: 'backup-code', name: null });
        await stored(other.id);
        check.equals(ids(await listed(user.id)), [oldest.id, middle.id, newest.id]);
        check.isNull((await listed(user.id))[2]!.confirmedAt);
        check.equals(await listed(randomUUID()), []);
      },
    );

    ctx.testExtension(
      "updateTwoFactor sets the name and confirmedAt the patch gives, leaves the rest; null for another user's or an unknown id",
      'twoFactor',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const factor = await stored(user.id, { name: null, confirmedAt: null });
        const confirmedAt = futureDate(-1);
        check.equals(await store().updateTwoFactor(factor.id, user.id, { confirmedAt }), { ...factor, confirmedAt });
        check.equals(await store().updateTwoFactor(factor.id, user.id, { name: 'Work phone' }), {
          ...factor,
          confirmedAt,
          name: 'Work phone',
        });
        check.equals(await store().updateTwoFactor(factor.id, user.id, { name: null }), {
          ...factor,
          confirmedAt,
          name: null,
        });
        check.isNull(await store().updateTwoFactor(factor.id, other.id, { name: 'stolen', confirmedAt: new Date() }));
        check.isNull(await store().updateTwoFactor(randomUUID(), user.id, { name: 'nobody' }));
        check.equals(await listed(user.id), [{ ...factor, confirmedAt, name: null }]);
      },
    );

    ctx.testExtension(
      "useTwoFactorStep accepts a step above the last one only, and only the user's own factor",
      'twoFactor',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const factor = await stored(user.id, { lastUsedStep: null, lastUsedAt: null });
        const step = 59_000_000;
        const at = futureDate(-1);
        check.is(await store().useTwoFactorStep(factor.id, user.id, step, at), true, 'a first use');
        check.matches((await listed(user.id))[0], { lastUsedStep: step, lastUsedAt: at });
        check.is(await store().useTwoFactorStep(factor.id, user.id, step, new Date()), false, 'the same step again');
        check.is(await store().useTwoFactorStep(factor.id, user.id, step - 1, new Date()), false, 'an earlier step');
        check.is(await store().useTwoFactorStep(factor.id, other.id, step + 5, new Date()), false, "another's factor");
        check.is(await store().useTwoFactorStep(randomUUID(), user.id, step + 5, new Date()), false, 'an unknown id');
        check.matches((await listed(user.id))[0], { lastUsedStep: step, lastUsedAt: at });
        const later = futureDate(0);
        check.is(await store().useTwoFactorStep(factor.id, user.id, step + 1, later), true, 'the next step');
        check.matches((await listed(user.id))[0], { lastUsedStep: step + 1, lastUsedAt: later });
      },
    );

    ctx.testExtension(
      `useTwoFactorStep: of ${ctx.concurrency} concurrent calls with one step, exactly one succeeds`,
      'twoFactor',
      ['createUser'],
      async () => {
        const user = await createUser();
        const factor = await stored(user.id, { lastUsedStep: 1000 });
        const calls = Array.from({ length: ctx.concurrency }, () =>
          Promise.resolve().then(() => store().useTwoFactorStep(factor.id, user.id, 1001, new Date())),
        );
        const results = await outcomes(calls);
        check.is(results.filter((r) => r === 'won').length, 1, `winners among ${results.length}: ${results.join(',')}`);
        check.is((await listed(user.id))[0]!.lastUsedStep, 1001);
      },
    );

    ctx.testExtension(
      "deleteTwoFactor deletes the user's own factor only; of concurrent deletes exactly one succeeds",
      'twoFactor',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const [a, b] = [await stored(user.id), await stored(user.id, { createdAt: futureDate(-2) })];
        check.is(await store().deleteTwoFactor(a.id, other.id), false, "another user's id");
        check.is(await store().deleteTwoFactor(randomUUID(), user.id), false, 'an unknown id');
        check.equals(ids(await listed(user.id)), [a.id, b.id]);
        const calls = Array.from({ length: ctx.concurrency }, () =>
          Promise.resolve().then(() => store().deleteTwoFactor(a.id, user.id)),
        );
        const results = await outcomes(calls);
        check.is(results.filter((r) => r === 'won').length, 1, `winners among ${results.length}: ${results.join(',')}`);
        check.equals(ids(await listed(user.id)), [b.id]);
        const raw = await ctx.raw(ctx.db.twoFactor, a.id);
        if (raw !== 'unchecked') check.is(raw ?? null, null);
      },
    );

    ctx.testExtension(
      "deleteTwoFactorsByUserId deletes that user's factors (of one type, when given) and says how many",
      'twoFactor',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const totp = await stored(user.id);
        for (let i = 0; i < 3; i++) await store().createTwoFactor(code(user.id));
        await stored(other.id);
        await store().createTwoFactor(code(other.id));
        check.is(await store().deleteTwoFactorsByUserId(user.id, 'backup-code'), 3);
        check.equals(ids(await listed(user.id)), [totp.id]);
        check.is(await store().deleteTwoFactorsByUserId(user.id, 'backup-code'), 0);
        await store().createTwoFactor(code(user.id));
        check.is(await store().deleteTwoFactorsByUserId(user.id), 2);
        check.equals(await listed(user.id), []);
        check.is((await listed(other.id)).length, 2, "another user's factors stay");
      },
    );

    ctx.testExtension(
      "replaceTwoFactors replaces the user's factors of that type only, all at once",
      'twoFactor',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const totp = await stored(user.id, { createdAt: futureDate(-9) });
        const old = [code(user.id), code(user.id)];
        for (const factor of old) await store().createTwoFactor(factor);
        const theirs = await store().createTwoFactor(code(other.id));
        const fresh = [code(user.id), code(user.id), code(user.id)];
        await store().replaceTwoFactors(user.id, 'backup-code', fresh);
        const now = await listed(user.id);
        check.equals(ids(now.filter((f) => f.type === 'backup-code')).sort(), ids(fresh).sort());
        check.equals(
          now.find((f) => f.id === totp.id),
          totp,
        );
        check.lengthOf(now, 4);
        check.equals(await listed(other.id), [theirs]);
        await store().replaceTwoFactors(user.id, 'backup-code', []);
        check.equals(ids(await listed(user.id)), [totp.id]);
      },
    );

    ctx.testExtension(
      "deleteUser deletes the user's factors with it",
      'twoFactor',
      ['createUser', 'deleteUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const mine = await stored(user.id);
        await store().createTwoFactor(code(user.id));
        const theirs = await stored(other.id);
        await ctx.adapter.deleteUser(user.id);
        check.equals(await listed(user.id), []);
        const raw = await ctx.raw(ctx.db.twoFactor, mine.id);
        if (raw !== 'unchecked') check.is(raw ?? null, null);
        check.equals(await listed(other.id), [theirs]);
      },
    );
  });
}
