import { expect } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AdapterAccount, VerificationToken } from '../../lib/adapters/adapter.interface.js';
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
