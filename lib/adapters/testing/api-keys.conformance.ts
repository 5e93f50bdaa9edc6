import { randomUUID } from 'node:crypto';
import { check } from './conformance-assert.js';
import type { AdapterApiKey, ApiKeyAdapter } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate, newApiKey } from './conformance-fixtures.js';

/** API keys' storage beyond the contract (`ApiKeyAdapter`). */
export function describeApiKeys(ctx: ConformanceContext): void {
  const { createUser } = ctx;
  const store = () => ctx.adapter as unknown as ApiKeyAdapter;
  const stored = async (userId: string, overrides: Partial<AdapterApiKey> = {}) =>
    store().createApiKey(newApiKey(userId, overrides));
  const get = async (id: string) => store().getApiKey(id);
  const listed = async (userId: string) => store().listApiKeysByUserId(userId);
  const ids = (keys: AdapterApiKey[]) => keys.map((k) => k.id);
  /** An id no key has. */
  const unknownId = () => newApiKey('nobody').id;
  /** Settled promises as 'won' (true) or 'lost' (false, or a refusal). */
  const outcomes = async (calls: Promise<boolean>[]) =>
    (await Promise.allSettled(calls)).map((r) => (r.status === 'fulfilled' && r.value === true ? 'won' : 'lost'));
  const rawGone = async (id: string) => {
    const raw = await ctx.raw(ctx.db.apiKey, id);
    if (raw !== 'unchecked') check.is(raw ?? null, null, `the row of API key ${id} is still stored`);
  };

  ctx.runner.describe('API keys (beyond the contract)', () => {
    ctx.testExtension(
      'createApiKey stores every field as given; getApiKey reads it back (dates as Date), null for an unknown id',
      'apiKey',
      ['createUser'],
      async () => {
        const user = await createUser();
        const key = newApiKey(user.id);
        check.equals(await store().createApiKey(key), key);
        const found = await get(key.id);
        check.equals(found, key);
        check.instanceOf(found!.createdAt, Date);
        check.equals([found!.expires, found!.lastUsedAt], [null, null]);
        check.equals(found!.scopes, ['read:reports', 'write:deploys']);
        // No scopes, an expiry and a last use of its own, a name with what a user may type.
        const full = newApiKey(user.id, {
          name: 'Grafana – prod ✓',
          scopes: [],
          expires: futureDate(90),
          lastUsedAt: futureDate(-1),
        });
        check.equals(await store().createApiKey(full), full);
        const read = await get(full.id);
        check.equals(read, full);
        check.instanceOf(read!.expires, Date);
        check.instanceOf(read!.lastUsedAt, Date);
        check.equals(read!.scopes, []);
        check.isNull(await get(unknownId()));
      },
    );

    ctx.testExtension(
      'getApiKey and listApiKeysByUserId return copies: changing them changes nothing stored',
      'apiKey',
      ['createUser'],
      async () => {
        const user = await createUser();
        const key = await stored(user.id, { expires: futureDate(9) });
        const read = (await get(key.id))!;
        read.scopes.push('admin');
        read.createdAt.setTime(0);
        read.expires!.setTime(0);
        read.keyHash = 'changed';
        const [first] = await listed(user.id);
        first!.scopes.length = 0;
        first!.name = 'changed';
        check.equals(await get(key.id), key);
        check.equals(await listed(user.id), [key]);
      },
    );

    ctx.testExtension(
      'createApiKey refuses a key of a user that does not exist, and a second key with an existing id (nothing written)',
      'apiKey',
      ['createUser'],
      async () => {
        const orphan = newApiKey(randomUUID());
        await check.rejects(Promise.resolve().then(() => store().createApiKey(orphan)));
        check.isNull(await get(orphan.id));
        const [user, other] = [await createUser(), await createUser()];
        const key = await stored(user.id);
        await check.rejects(Promise.resolve().then(() => store().createApiKey(newApiKey(other.id, { id: key.id }))));
        check.equals(await get(key.id), key);
        check.equals(await listed(other.id), []);
      },
    );

    ctx.testExtension(
      'a key whose fields are not of their types is refused, or stored as missing (never read back)',
      'apiKey',
      ['createUser'],
      async () => {
        const user = await createUser();
        const bad: Partial<AdapterApiKey>[] = [
          { keyHash: '' },
          { hint: '' },
          { createdAt: new Date(Number.NaN) },
          { createdAt: 'yesterday' as unknown as Date },
          { expires: new Date(Number.NaN) },
          { lastUsedAt: 0 as unknown as Date },
          { scopes: ['read', 'write all'] },
          { scopes: ['read', ''] },
          { scopes: 'read' as unknown as string[] },
          { name: null as unknown as string },
        ];
        for (const overrides of bad) {
          const key = newApiKey(user.id, overrides);
          await Promise.resolve()
            .then(() => store().createApiKey(key))
            .catch(() => undefined);
          check.isNull(await get(key.id), `a key with ${JSON.stringify(overrides)} was read back`);
        }
        check.equals(await listed(user.id), [], 'none of them is listed');
        // An empty id: no key can be found by it.
        await Promise.resolve()
          .then(() => store().createApiKey(newApiKey(user.id, { id: '' })))
          .catch(() => undefined);
        check.isNull(await get(''));
        check.equals(await listed(user.id), [], 'nor one with an empty id');
      },
    );

    ctx.testExtension(
      "listApiKeysByUserId lists that user's keys only, oldest first; [] for an unknown user",
      'apiKey',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const middle = await stored(user.id, { createdAt: futureDate(-5) });
        const newest = await stored(user.id, { createdAt: futureDate(-4), scopes: [] });
        const oldest = await stored(user.id, { createdAt: futureDate(-6), expires: futureDate(1) });
        await stored(other.id);
        const keys = await listed(user.id);
        check.equals(ids(keys), [oldest.id, middle.id, newest.id]);
        check.equals(keys, [oldest, middle, newest]);
        check.equals(await listed(randomUUID()), []);
      },
    );

    ctx.testExtension(
      "updateApiKey sets the name and lastUsedAt the patch gives, leaves the rest; null for another user's key or an unknown id",
      'apiKey',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const key = await stored(user.id, { expires: futureDate(30) });
        const lastUsedAt = futureDate(0);
        check.equals(await store().updateApiKey(key.id, user.id, { lastUsedAt }), { ...key, lastUsedAt });
        check.equals(await store().updateApiKey(key.id, user.id, { name: 'Renamed' }), {
          ...key,
          lastUsedAt,
          name: 'Renamed',
        });
        const both = { name: 'Both', lastUsedAt: futureDate(1) };
        check.equals(await store().updateApiKey(key.id, user.id, both), { ...key, ...both });
        check.equals(await store().updateApiKey(key.id, user.id, {}), { ...key, ...both }, 'an empty patch');
        check.equals(await store().updateApiKey(key.id, user.id, { lastUsedAt: null }), {
          ...key,
          name: 'Both',
          lastUsedAt: null,
        });
        check.isNull(await store().updateApiKey(key.id, other.id, { name: 'Taken over' }), "another user's key");
        check.isNull(await store().updateApiKey(unknownId(), user.id, { name: 'Nothing' }), 'an unknown id');
        check.equals(await get(key.id), { ...key, name: 'Both', lastUsedAt: null }, 'a refused update wrote nothing');
      },
    );

    ctx.testExtension(
      "deleteApiKey deletes the user's key: true once, then false; never another user's; other keys stay",
      'apiKey',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const [a, b] = [await stored(user.id), await stored(user.id)];
        check.is(await store().deleteApiKey(a.id, other.id), false, "another user's key");
        check.equals(await get(a.id), a);
        check.is(await store().deleteApiKey(a.id, user.id), true);
        check.isNull(await get(a.id));
        await rawGone(a.id);
        check.is(await store().deleteApiKey(a.id, user.id), false, 'deleted already');
        check.is(await store().deleteApiKey(unknownId(), user.id), false, 'an unknown id');
        check.isNull(await store().updateApiKey(a.id, user.id, { name: 'Back' }), 'a deleted key is not updated');
        check.equals(await listed(user.id), [b]);
      },
    );

    ctx.testExtension(
      `deleteApiKey: of ${ctx.concurrency} concurrent calls for one key, exactly one is true`,
      'apiKey',
      ['createUser'],
      async () => {
        const user = await createUser();
        const [key, kept] = [await stored(user.id), await stored(user.id)];
        const calls = Array.from({ length: ctx.concurrency }, () =>
          Promise.resolve().then(() => store().deleteApiKey(key.id, user.id)),
        );
        const results = await outcomes(calls);
        check.is(results.filter((r) => r === 'won').length, 1, `winners among ${results.length}: ${results.join(',')}`);
        check.isNull(await get(key.id));
        await rawGone(key.id);
        check.equals(await listed(user.id), [kept]);
      },
    );

    ctx.testExtension(
      "deleteApiKeysByUserId deletes that user's keys and says how many",
      'apiKey',
      ['createUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const mine = [await stored(user.id), await stored(user.id), await stored(user.id, { scopes: [] })];
        const theirs = await stored(other.id);
        check.is(await store().deleteApiKeysByUserId(user.id), 3);
        for (const key of mine) {
          check.isNull(await get(key.id));
          await rawGone(key.id);
        }
        check.is(await store().deleteApiKeysByUserId(user.id), 0, 'none left');
        check.is(await store().deleteApiKeysByUserId(randomUUID()), 0, 'an unknown user');
        check.equals(await get(theirs.id), theirs, "another user's key stays");
      },
    );

    ctx.testExtension(
      "deleteUser deletes the user's keys with it",
      'apiKey',
      ['createUser', 'deleteUser'],
      async () => {
        const [user, other] = [await createUser(), await createUser()];
        const mine = [await stored(user.id), await stored(user.id, { expires: futureDate(1) })];
        const theirs = await stored(other.id);
        await ctx.adapter.deleteUser(user.id);
        for (const key of mine) {
          check.isNull(await get(key.id));
          await rawGone(key.id);
        }
        check.equals(await listed(user.id), []);
        check.equals(await get(theirs.id), theirs);
      },
    );

    ctx.testExtension(
      "deleteUserCascade deletes the user's keys with it",
      ['apiKey', 'deleteUserCascade'],
      ['createUser'],
      async () => {
        const user = await createUser();
        const key = await stored(user.id);
        await (ctx.adapter as unknown as { deleteUserCascade(id: string): Promise<unknown> }).deleteUserCascade(
          user.id,
        );
        check.isNull(await get(key.id));
        await rawGone(key.id);
      },
    );

    ctx.testExtension(
      'a stored key corrupted behind the adapter (an empty hash, scopes or an expiry of the wrong kind) reads as null and is left out of the list (with db.corruptApiKey)',
      'apiKey',
      ['createUser'],
      async () => {
        const corrupt = ctx.db.corruptApiKey;
        if (!corrupt) return;
        const user = await createUser();
        const [badHash, badScopes, badExpiry, intact] = [
          await stored(user.id, { createdAt: futureDate(-4) }),
          await stored(user.id, { createdAt: futureDate(-3) }),
          await stored(user.id, { createdAt: futureDate(-2), expires: futureDate(9) }),
          await stored(user.id, { createdAt: futureDate(-1) }),
        ];
        await corrupt.call(ctx.db, badHash.id, 'keyHash');
        check.isNull(await get(badHash.id), 'a key whose hash is empty');
        await corrupt.call(ctx.db, badScopes.id, 'scopes');
        check.isNull(await get(badScopes.id), 'a key whose scopes are no list of words');
        await corrupt.call(ctx.db, badExpiry.id, 'expires');
        check.isNull(await get(badExpiry.id), 'a key whose expiry is no date');
        check.equals(await listed(user.id), [intact], 'only the intact key is listed');
        check.equals(await get(intact.id), intact, 'the other keys are read as before');
        // An update of a corrupted key writes, and still reads nothing back.
        check.isNull(await store().updateApiKey(badHash.id, user.id, { lastUsedAt: futureDate(0) }));
        // A corrupted key can still be deleted (by the user, with the account).
        check.is(await store().deleteApiKey(badScopes.id, user.id), true);
        check.is(await store().deleteApiKeysByUserId(user.id), 3);
      },
    );
  });
}
