import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { AdapterConflictError } from '../../errors/auth.errors.js';
import { check } from './conformance-assert.js';
import type { AdapterSigningKey, SigningKeyAdapter } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate, newSigningKey, newSlot } from './conformance-fixtures.js';

/** How many instances race to make the key of one rotation slot. */
const RACERS = 10;

/** Rotated signing keys' storage beyond the contract (`SigningKeyAdapter`). */
export function describeSigningKeys(ctx: ConformanceContext): void {
  const store = () => ctx.adapter as unknown as SigningKeyAdapter;
  const stored = async (overrides: Partial<AdapterSigningKey> = {}) =>
    store().createSigningKey(newSigningKey(overrides));
  /** The stored keys among `ids`, in the order the adapter lists them (keys are global: other tests add theirs). */
  const listed = async (...ids: string[]) => (await store().listSigningKeys()).filter((k) => ids.includes(k.id));
  const one = async (id: string) => (await listed(id))[0] ?? null;
  /** An id no key has. */
  const unknownId = () => randomBytes(32).toString('base64url');
  const rawGone = async (id: string) => {
    const raw = await ctx.raw(ctx.db.signingKey, id);
    if (raw !== 'unchecked') check.is(raw ?? null, null, `the row of signing key ${id} is still stored`);
  };
  /** The promise's rejection, or `undefined` when it fulfils. */
  const refusal = async (call: () => unknown) =>
    Promise.resolve()
      .then(call)
      .then(
        () => undefined,
        (error: unknown) => error ?? new Error('rejected with nothing'),
      );

  ctx.runner.describe('signing keys (beyond the contract)', () => {
    ctx.testExtension(
      'createSigningKey stores every field as given; listSigningKeys reads it back (dates as Date, the slot a number)',
      'signingKey',
      [],
      async () => {
        const key = newSigningKey();
        check.equals(await store().createSigningKey(key), key);
        const found = await one(key.id);
        check.equals(found, key);
        check.instanceOf(found!.createdAt, Date);
        check.instanceOf(found!.activatesAt, Date);
        check.isNull(found!.removesAt);
        check.is(found!.slot, key.slot);
        check.equals(JSON.parse(found!.publicJwk), JSON.parse(key.publicJwk));
        // An ES256 key scheduled for removal, on a slot past 2^32.
        const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
        const scheduled = newSigningKey({
          alg: 'ES256',
          publicJwk: JSON.stringify(p256),
          slot: 2 ** 41 + newSlot(),
          removesAt: futureDate(7),
        });
        check.equals(await store().createSigningKey(scheduled), scheduled);
        const read = await one(scheduled.id);
        check.equals(read, scheduled);
        check.instanceOf(read!.removesAt, Date);
      },
    );

    ctx.testExtension('listSigningKeys lists the keys oldest slot first', 'signingKey', [], async () => {
      const [first, second, third] = [newSlot(), newSlot(), newSlot()];
      const b = await stored({ slot: second });
      const c = await stored({ slot: third, createdAt: futureDate(-3) });
      const a = await stored({ slot: first, createdAt: futureDate(-2) });
      check.equals(await listed(a.id, b.id, c.id), [a, b, c]);
      const slots = (await store().listSigningKeys()).map((k) => k.slot);
      check.equals(
        slots,
        [...slots].sort((x, y) => x - y),
        'every key, in slot order',
      );
    });

    ctx.testExtension(
      'listSigningKeys returns copies: changing them changes nothing stored',
      'signingKey',
      [],
      async () => {
        const key = await stored({ removesAt: futureDate(3) });
        const [read] = await listed(key.id);
        read!.activatesAt.setTime(0);
        read!.removesAt!.setTime(0);
        read!.slot = -1;
        read!.privateKey = 'changed';
        check.equals(await one(key.id), key);
      },
    );

    ctx.testExtension(
      'createSigningKey refuses a key whose id or slot is taken with AdapterConflictError, writing nothing',
      'signingKey',
      [],
      async () => {
        const key = await stored();
        const sameId = newSigningKey({ id: key.id });
        const sameSlot = newSigningKey({ slot: key.slot });
        for (const [what, duplicate] of [
          ['id', sameId],
          ['slot', sameSlot],
        ] as const) {
          const error = await refusal(() => store().createSigningKey(duplicate));
          check.instanceOf(error, AdapterConflictError, `a key with a taken ${what}`);
        }
        check.equals(await listed(key.id, sameSlot.id), [key], 'the first key only, as it was');
        check.equals(
          (await store().listSigningKeys()).filter((k) => k.slot === sameId.slot),
          [],
          'the refused key took no slot',
        );
        // The slot the refused key asked for is still free.
        const free = newSigningKey({ slot: sameId.slot });
        check.equals(await store().createSigningKey(free), free);
      },
    );

    ctx.testExtension(
      `createSigningKey: of ${RACERS} concurrent calls for one slot (different ids), exactly one succeeds; the others get AdapterConflictError`,
      'signingKey',
      [],
      async () => {
        const slot = newSlot();
        const keys = Array.from({ length: RACERS }, () => newSigningKey({ slot }));
        const results = await Promise.allSettled(
          keys.map((key) => Promise.resolve().then(() => store().createSigningKey(key))),
        );
        const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [keys[i]!] : []));
        check.is(won.length, 1, `successes among ${RACERS}: ${results.map((r) => r.status).join(',')}`);
        for (const r of results)
          if (r.status === 'rejected') check.instanceOf(r.reason, AdapterConflictError, String(r.reason));
        check.equals(
          (await store().listSigningKeys()).filter((k) => k.slot === slot),
          won,
          'one key of that slot is stored: the winner',
        );
      },
    );

    ctx.testExtension(
      'a key whose fields are not of their types is refused, or stored as missing (never listed)',
      'signingKey',
      [],
      async () => {
        const bad: Partial<AdapterSigningKey>[] = [
          { slot: -1 },
          { slot: 1.5 },
          { slot: Number.NaN },
          { slot: 2 ** 53 },
          { slot: '7' as unknown as number },
          { publicJwk: 'not json' },
          { publicJwk: '[1,2]' },
          { publicJwk: '' },
          { privateKey: '' },
          { alg: '' },
          { createdAt: new Date(Number.NaN) },
          { activatesAt: 'soon' as unknown as Date },
          { activatesAt: null as unknown as Date },
          { removesAt: new Date(Number.NaN) },
        ];
        for (const overrides of bad) {
          const key = newSigningKey(overrides);
          await refusal(() => store().createSigningKey(key));
          check.isNull(await one(key.id), `a key with ${JSON.stringify(overrides)} was listed`);
        }
        await refusal(() => store().createSigningKey(newSigningKey({ id: '' })));
        check.equals(await listed(''), [], 'a key with an empty id was listed');
      },
    );

    ctx.testExtension(
      'updateSigningKey sets the activatesAt and removesAt the patch gives, leaves the rest; null for an unknown id',
      'signingKey',
      [],
      async () => {
        const [key, other] = [await stored(), await stored()];
        const activatesAt = futureDate(1);
        check.equals(await store().updateSigningKey(key.id, { activatesAt }), { ...key, activatesAt });
        const removesAt = futureDate(8);
        check.equals(await store().updateSigningKey(key.id, { removesAt }), { ...key, activatesAt, removesAt });
        check.equals(await store().updateSigningKey(key.id, {}), { ...key, activatesAt, removesAt }, 'an empty patch');
        const both = { activatesAt: futureDate(2), removesAt: null };
        check.equals(await store().updateSigningKey(key.id, both), { ...key, ...both });
        check.isNull(await store().updateSigningKey(unknownId(), { removesAt }), 'an unknown id');
        // A patch whose fields are not of their types: refused, nothing written.
        for (const patch of [{ activatesAt: null }, { removesAt: new Date(Number.NaN) }, { activatesAt: 'now' }]) {
          const error = await refusal(() => store().updateSigningKey(key.id, patch as Partial<AdapterSigningKey>));
          check.is(error !== undefined, true, `the patch ${JSON.stringify(patch)} was taken`);
        }
        check.equals(await listed(key.id, other.id), [{ ...key, ...both }, other], 'the other key is as it was');
      },
    );

    ctx.testExtension(
      'deleteSigningKey deletes the key: true once, then false; other keys stay; its slot is free again',
      'signingKey',
      [],
      async () => {
        const [a, b] = [await stored(), await stored()];
        check.is(await store().deleteSigningKey(a.id), true);
        check.equals(await listed(a.id, b.id), [b]);
        await rawGone(a.id);
        check.is(await store().deleteSigningKey(a.id), false, 'deleted already');
        check.is(await store().deleteSigningKey(unknownId()), false, 'an unknown id');
        check.isNull(
          await store().updateSigningKey(a.id, { removesAt: futureDate(1) }),
          'a deleted key is not updated',
        );
        const again = newSigningKey({ slot: a.slot });
        check.equals(await store().createSigningKey(again), again, "a new key for the deleted key's slot");
      },
    );

    ctx.testExtension(
      'a stored key corrupted behind the adapter (a slot, public key or activation of the wrong kind) is left out of the list (with db.corruptSigningKey)',
      'signingKey',
      [],
      async () => {
        const corrupt = ctx.db.corruptSigningKey;
        if (!corrupt) return;
        const [badSlot, badJwk, badActivation, intact] = [
          await stored(),
          await stored(),
          await stored(),
          await stored(),
        ];
        await corrupt.call(ctx.db, badSlot.id, 'slot');
        check.isNull(await one(badSlot.id), 'a key whose slot is no whole number from 0');
        await corrupt.call(ctx.db, badJwk.id, 'publicJwk');
        check.isNull(await one(badJwk.id), 'a key whose public key is no JSON');
        await corrupt.call(ctx.db, badActivation.id, 'activatesAt');
        check.isNull(await one(badActivation.id), 'a key whose activation is no date');
        check.equals(await listed(badSlot.id, badJwk.id, badActivation.id, intact.id), [intact], 'only the intact key');
        // An update of a corrupted key reads nothing back.
        check.isNull(await store().updateSigningKey(badJwk.id, { removesAt: futureDate(1) }));
        // A corrupted key can still be deleted.
        for (const key of [badSlot, badJwk, badActivation]) {
          check.is(await store().deleteSigningKey(key.id), true);
          await rawGone(key.id);
        }
        check.equals(await listed(intact.id), [intact]);
      },
    );
  });
}
