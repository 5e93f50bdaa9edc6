import { expect } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AccountTokens, AdapterAccount, VerificationToken } from '../../lib/adapters/adapter.interface.js';
import { compareAndSetCounter } from '../../lib/adapters/typeorm/authenticator.query.js';
import { swapAccountTokens } from '../../lib/adapters/typeorm/account-tokens.query.js';
import { twoFactorOf, useStep } from '../../lib/adapters/typeorm/two-factor.query.js';
import { AdapterNotFoundError } from '../../lib/errors/auth.errors.js';
import { TypeOrmAdapter } from '../../lib/adapters/typeorm/typeorm.adapter.js';
import {
  accountOf,
  deleteReturningSupported,
  plain,
  TypeOrmQueries,
} from '../../lib/adapters/typeorm/typeorm-queries.js';
import { tableSql } from '../../lib/adapters/typeorm/plain-statements.js';
import { SchemaIds } from '../../lib/adapters/typeorm/schema-ids.js';
import { storableDetails } from '../../lib/adapters/typeorm/session-details.query.js';

/**
 * The query-builder reads `TypeOrmAdapter` made before its sign-in statements ran without the query
 * builder (PlainStatements), kept here as the reference those statements are compared with.
 */
function queryBuilderReads(ds: DataSource, adapter: TypeOrmAdapter) {
  const q = new TypeOrmQueries(ds);
  const { User, Account, Session, VerificationToken: Token } = adapter.entities;
  return {
    getUser: async (id: string) => plain(await q.select(User, 'u', { id }).getOne()),
    getUserByEmail: async (email: string) => plain(await q.select(User, 'u', { email }).getOne()),
    getUserByAccount: async (key: Pick<AdapterAccount, 'provider' | 'providerAccountId'>) => {
      const [where, params] = q.where('a', { provider: key.provider, providerAccountId: key.providerAccountId });
      const user = await q
        .repo(User)
        .createQueryBuilder('u')
        .innerJoin(ds.getMetadata(Account).target, 'a', 'a.userId = u.id')
        .where(where, params)
        .getOne();
      return plain(user);
    },
    getAccount: async (providerAccountId: string, provider: string) => {
      const row = await q.select(Account, 'a', { provider, providerAccountId }).getOne();
      return row ? accountOf(row) : null;
    },
    createSession: async (session: { sessionToken: string; userId: string; expires: Date } & object) => {
      const repo = q.repo(Session);
      const value = { sessionToken: session.sessionToken, userId: session.userId, expires: session.expires };
      const row = {
        ...value,
        ...storableDetails(repo, session),
        ...new SchemaIds(adapter.schema?.mapping).rowId('session'),
      };
      await q.insert(repo, row, () => 'session');
    },
    useVerificationToken: async (params: { identifier: string; token: string }) => {
      const keys = { identifier: params.identifier, token: params.token };
      const [row] = await q.deleteReturning(Token, keys, deleteReturningSupported(ds));
      return row ? { identifier: row.identifier, token: row.token, expires: row.expires } : null;
    },
  };
}

/**
 * Differential check of the adapter's sign-in statements: for each of `users` (ids and addresses of
 * rows already stored, including ones the entity must not see: soft-deleted, another inheritance
 * type), `getUser`, `getUserByEmail`, `getUserByAccount` (an account is linked to each user here),
 * `getAccount` and `useVerificationToken` give exactly (`toStrictEqual`) what the query builder
 * gives, found or not, for the exact keys and for keys that differ in case only.
 */
export async function expectSignInReadsAsQueryBuilder(
  ds: DataSource,
  adapter: TypeOrmAdapter,
  users: readonly { id: string; email: string }[],
): Promise<void> {
  const old = queryBuilderReads(ds, adapter);
  const same = async (label: string, ours: Promise<unknown>, theirs: Promise<unknown>) => {
    const [a, b] = await Promise.all([ours, theirs]);
    expect({ label, value: a }).toStrictEqual({ label, value: b });
    return a;
  };
  let found = 0;
  for (const user of users) {
    const provider = `diff-${randomUUID().slice(0, 8)}`;
    const account = {
      userId: user.id,
      type: 'oauth' as const,
      provider,
      providerAccountId: `Pa-${randomUUID()}`,
      access_token: randomBytes(8).toString('hex'),
      expires_at: 1_900_000_000,
      token_type: 'bearer' as const,
    };
    await adapter.linkAccount(account);
    if (await same(`getUser ${user.id}`, adapter.getUser(user.id), old.getUser(user.id))) found++;
    await same(`getUserByEmail ${user.email}`, adapter.getUserByEmail(user.email), old.getUserByEmail(user.email));
    const upper = user.email.toUpperCase();
    await same(`getUserByEmail ${upper}`, adapter.getUserByEmail(upper), old.getUserByEmail(upper));
    await same(`getUserByAccount ${provider}`, adapter.getUserByAccount(account), old.getUserByAccount(account));
    const otherCase = { provider, providerAccountId: account.providerAccountId.toLowerCase() };
    await same(
      `getUserByAccount ${provider} (other case)`,
      adapter.getUserByAccount(otherCase),
      old.getUserByAccount(otherCase),
    );
    const pid = account.providerAccountId;
    await same(`getAccount ${provider}`, adapter.getAccount(pid, provider), old.getAccount(pid, provider));
    await same(
      `getAccount ${provider} (other case)`,
      adapter.getAccount(pid.toLowerCase(), provider),
      old.getAccount(pid.toLowerCase(), provider),
    );
  }
  expect(found).toBeGreaterThan(0);
  await expectSameSessionRows(ds, adapter, old.createSession, users);
  const nobody = `nobody-${randomUUID()}@example.com`;
  await same('getUserByEmail (nobody)', adapter.getUserByEmail(nobody), old.getUserByEmail(nobody));

  // A token consumed by the query builder, stored again, consumed by the statement: the same row;
  // then neither finds it, nor a token differing in case.
  const token: VerificationToken = {
    identifier: `diff-${randomUUID()}@example.com`,
    token: `Tk${randomBytes(24).toString('hex')}`,
    expires: new Date(Date.now() + 600_000 + 7),
  };
  await adapter.createVerificationToken(token);
  const theirs = await old.useVerificationToken(token);
  expect(theirs).not.toBeNull();
  await adapter.createVerificationToken(token);
  const upper = { identifier: token.identifier, token: token.token.toUpperCase() };
  await same('useVerificationToken (other case)', adapter.useVerificationToken(upper), old.useVerificationToken(upper));
  const ours = await adapter.useVerificationToken(token);
  expect(ours).toStrictEqual(theirs);
  expect(ours?.expires).toBeInstanceOf(Date);
  await same('useVerificationToken (used)', adapter.useVerificationToken(token), old.useVerificationToken(token));
}

/**
 * A session inserted by the query builder and one inserted by `createSession`, with the same values
 * (with and without the optional columns): the same stored row, column for column, but the token
 * (and a mapping's surrogate key).
 */
async function expectSameSessionRows(
  ds: DataSource,
  adapter: TypeOrmAdapter,
  insertOld: (session: { sessionToken: string; userId: string; expires: Date }) => Promise<void>,
  users: readonly { id: string }[],
): Promise<void> {
  const metadata = ds.getMetadata(adapter.entities.Session);
  const tokenColumn = metadata.findColumnWithPropertyName('sessionToken')!.databaseName;
  const rowId = adapter.schema?.mapping.session.rowId?.column;
  const rowOf = async (sessionToken: string) => {
    const sql = `SELECT * FROM ${tableSql(ds, metadata)} WHERE ${ds.driver.escape(tokenColumn)} = ${ds.driver.createParameter('t', 0)}`;
    const [row] = (await ds.query(sql, [sessionToken])) as Record<string, unknown>[];
    expect(row).toBeDefined();
    const { [tokenColumn]: _token, ...rest } = row!;
    if (rowId) delete rest[rowId];
    return rest;
  };
  const details = [
    {},
    { createdAt: new Date(Date.now() - 1_234), userAgent: 'Firefox on Linux', ip: '203.0.113.0', amr: 'otp' },
  ];
  for (const extra of details) {
    const session = { userId: users[0]!.id, expires: new Date(Date.now() + 86_400_000 + 321), ...extra };
    const [theirs, ours] = [randomUUID(), randomUUID()];
    await insertOld({ ...session, sessionToken: theirs });
    await adapter.createSession({ ...session, sessionToken: ours });
    expect(await rowOf(ours)).toStrictEqual(await rowOf(theirs));
  }
}

/**
 * Differential check of the statements of the second-factor, passkey and OAuth token paths that run
 * without the query builder (PlainStatements' ordered select and conditional `UPDATE`s): on twin
 * rows (the same values but the key), `listTwoFactorsByUserId`, `useTwoFactorStep`,
 * `getAuthenticator`, `updateAuthenticatorCounter`, `listAccountsByUserId` and `updateAccountTokens`
 * give what the query-builder statements they replaced give (the same answers, the same stored rows),
 * refusals included: a replayed or older TOTP step, another user's factor, a counter moved since it
 * was read, an unknown credential, tokens changed since they were read.
 */
export async function expectFactorPasskeyAndTokenWritesAsQueryBuilder(
  ds: DataSource,
  adapter: TypeOrmAdapter,
  user: { id: string },
): Promise<void> {
  const q = new TypeOrmQueries(ds);
  const { TwoFactor, Authenticator, Account } = adapter.entities;
  const rowOf = async (entity: NonNullable<typeof TwoFactor>, property: string, value: string) => {
    const metadata = ds.getMetadata(entity);
    const column = metadata.findColumnWithPropertyName(property)!.databaseName;
    const sql = `SELECT * FROM ${tableSql(ds, metadata)} WHERE ${ds.driver.escape(column)} = ${ds.driver.createParameter('k', 0)}`;
    const [row] = (await ds.query(sql, [value])) as Record<string, unknown>[];
    expect(row).toBeDefined();
    const { [column]: _key, ...rest } = row!;
    return rest;
  };

  // Second factors: the list in order (equal creation times ordered by id), and the step's compare-and-set.
  const created = new Date(Date.now() - 60_000);
  const factor = (id: string, at: Date) => ({
    id,
    userId: user.id,
    type: 'totp',
    name: null,
    secret: `sealed-${id}`,
    confirmedAt: at,
    createdAt: at,
    lastUsedAt: null,
    lastUsedStep: null,
  });
  const ids = [`f-${randomUUID()}`, `e-${randomUUID()}`, `d-${randomUUID()}`];
  for (const [i, id] of ids.entries())
    await adapter.createTwoFactor(factor(id, i === 2 ? new Date(+created + 5) : created));
  const listed = await adapter.listTwoFactorsByUserId(user.id);
  const builder = (
    await q
      .select(TwoFactor!, 'f', { userId: user.id })
      .orderBy('f.createdAt', 'ASC')
      .addOrderBy('f.id', 'ASC')
      .getMany()
  ).map(twoFactorOf);
  expect(listed).toStrictEqual(builder);
  expect(listed.map((f) => f.id)).toStrictEqual([ids[1], ids[0], ids[2]]);
  expect(await adapter.listTwoFactorsByUserId(randomUUID())).toStrictEqual([]);

  const [ours, theirs] = [ids[0]!, ids[1]!];
  const factorRepo = q.repo(TwoFactor!);
  const at = new Date(Date.now() - 1_234);
  for (const [step, userId] of [
    [100, user.id],
    [100, user.id],
    [99, user.id],
    [101, randomUUID()],
    [2 ** 40, user.id],
  ] as const) {
    const mine = await adapter.useTwoFactorStep(ours, userId, step, at);
    const old = (await useStep(q, factorRepo, { id: theirs, userId }, step, at)) === 1;
    expect({ step, userId, used: mine }).toStrictEqual({ step, userId, used: old });
    expect(await rowOf(TwoFactor!, 'id', ours)).toStrictEqual({
      ...(await rowOf(TwoFactor!, 'id', theirs)),
      secret: `sealed-${ours}`,
    });
  }

  // Passkeys: the read by credential id, and the counter's compare-and-set with and without the counter read.
  const authenticatorRepo = q.repo(Authenticator);
  const passkey = (credentialID: string) => ({
    credentialID,
    userId: user.id,
    providerAccountId: `pa-${credentialID}`,
    credentialPublicKey: 'pQECAyYgASFYIA',
    counter: 3,
    credentialDeviceType: 'multiDevice',
    credentialBackedUp: true,
    transports: 'internal,hybrid',
  });
  const [mineId, oldId] = [randomBytes(16).toString('base64url'), randomBytes(16).toString('base64url')];
  for (const id of [mineId, oldId]) await adapter.createAuthenticator(passkey(id));
  const oldRead = async (id: string) => plain(await q.select(Authenticator, 'a', { credentialID: id }).getOne());
  const withoutKey = (row: object | null) => {
    if (!row) return row;
    const { credentialID: _c, providerAccountId: _p, lastUsedAt, ...rest } = row as Record<string, unknown>;
    return { ...rest, lastUsed: lastUsedAt instanceof Date ? 'date' : lastUsedAt };
  };
  expect(await adapter.getAuthenticator(mineId)).toStrictEqual(await oldRead(mineId));
  expect(await adapter.getAuthenticator(randomUUID())).toStrictEqual(await oldRead(randomUUID()));
  for (const [next, expected] of [
    [7, 3],
    [9, 3],
    [9, undefined],
    [4_294_967_295, 9],
  ] as const) {
    const mine = await adapter.updateAuthenticatorCounter(mineId, next, expected).then(
      (row) => withoutKey(row),
      (error: Error) => error.constructor.name,
    );
    const affected = await compareAndSetCounter(q, authenticatorRepo, oldId, next, expected);
    const old = affected === 0 ? 'AdapterConflictError' : withoutKey(await oldRead(oldId));
    expect({ next, expected, result: mine }).toStrictEqual({ next, expected, result: old });
    expect(withoutKey(await adapter.getAuthenticator(mineId))).toStrictEqual(withoutKey(await oldRead(oldId)));
  }
  for (const expected of [0, undefined])
    await expect(adapter.updateAuthenticatorCounter(randomUUID(), 1, expected)).rejects.toBeInstanceOf(
      AdapterNotFoundError,
    );

  // Accounts: the user's list, and the tokens' compare-and-swap (null and set values on both sides).
  const provider = `diff-${randomUUID().slice(0, 8)}`;
  const account = (providerAccountId: string): AdapterAccount => ({
    userId: user.id,
    type: 'oauth',
    provider,
    providerAccountId,
    access_token: 'at-1',
    token_type: 'bearer',
  });
  const [mineAccount, oldAccount] = [`Pa-${randomUUID()}`, `Pa-${randomUUID()}`];
  for (const id of [mineAccount, oldAccount]) await adapter.linkAccount(account(id));
  expect(await adapter.listAccountsByUserId(user.id)).toStrictEqual(
    (await q.select(Account, 'a', { userId: user.id }).getMany()).map(accountOf),
  );
  const swaps: [{ refresh_token: string | null; expires_at: number | null }, AccountTokens][] = [
    [
      { refresh_token: null, expires_at: null },
      {
        access_token: 'at-2',
        refresh_token: 'rt-2',
        expires_at: 1_900_000_000,
        id_token: null,
        scope: 'openid',
        token_type: 'bearer',
      },
    ],
    [
      { refresh_token: null, expires_at: null },
      { access_token: 'at-3', id_token: null, scope: null, token_type: null, expires_at: null },
    ],
    [
      { refresh_token: 'RT-2', expires_at: 1_900_000_000 },
      { access_token: 'at-4', id_token: null, scope: null, token_type: null, expires_at: null },
    ],
    [
      { refresh_token: 'rt-2', expires_at: 1_900_000_000 },
      {
        access_token: 'at-5',
        refresh_token: 'rt-5',
        id_token: 'x.y.z',
        scope: null,
        token_type: 'bearer',
        expires_at: null,
      },
    ],
    [
      { refresh_token: 'rt-5', expires_at: null },
      { access_token: null, id_token: null, scope: null, token_type: null, expires_at: 1_800_000_000 },
    ],
  ];
  for (const [match, next] of swaps) {
    const mine = await adapter.updateAccountTokens({ provider, providerAccountId: mineAccount, ...match }, next);
    const affected = await swapAccountTokens(
      ds,
      q,
      Account,
      { provider, providerAccountId: oldAccount, ...match },
      next,
    );
    const oldRow = affected === 0 ? null : await adapter.getAccount(oldAccount, provider);
    const unkeyed = (a: AdapterAccount | null) => a && { ...a, providerAccountId: 'x' };
    expect({ match, next, result: unkeyed(mine) }).toStrictEqual({ match, next, result: unkeyed(oldRow) });
    expect(unkeyed(await adapter.getAccount(mineAccount, provider))).toStrictEqual(
      unkeyed(await adapter.getAccount(oldAccount, provider)),
    );
  }
}
