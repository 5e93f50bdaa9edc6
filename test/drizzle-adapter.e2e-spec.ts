import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { eq, getTableColumns, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { getTableConfig as mysqlTableConfig } from 'drizzle-orm/mysql-core';
import { getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import { DrizzleAdapter as AuthJsDrizzleAdapter } from '@auth/drizzle-adapter';
import { runAdapterConformanceTests } from '../lib/adapters/testing/adapter-conformance.js';
import { DrizzleAdapter, pgAuthTables, sqliteAuthTables } from '../lib/drizzle.js';
import { AdapterConflictError } from '../lib/errors/auth.errors.js';
import { newAccount, newUser } from '../lib/adapters/testing/conformance-fixtures.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { conformanceDb, openDrizzle, type DrizzleTestDb } from './setup/drizzle-db.js';
import { ALL_EXTENSIONS } from './setup/conformance-extensions.js';

const targets = await databaseTargets();

for (const target of targets) {
  target.describe(`DrizzleAdapter on ${target.name}`, () => {
    let test: TestDatabase;
    let t: DrizzleTestDb;
    runAdapterConformanceTests({
      name: `DrizzleAdapter (${target.name})`,
      setup: async () => {
        test = await createDatabase(target, 'drizzle_conformance');
        t = await openDrizzle(test);
      },
      teardown: async () => {
        await t?.close();
        await dropDatabase(test);
      },
      adapter: () => new DrizzleAdapter(t.db, t.tables),
      extensions: ALL_EXTENSIONS,
      db: conformanceDb(() => t),
    });

    describe('beyond the conformance suite', () => {
      let other: TestDatabase;
      let o: DrizzleTestDb;
      beforeAll(async () => {
        other = await createDatabase(target, 'drizzle_extra');
        o = await openDrizzle(other);
      });
      afterAll(async () => {
        await o?.close();
        await dropDatabase(other);
      });

      it('the DDL creates exactly the columns the Drizzle tables declare', async () => {
        for (const table of Object.values(o.tables) as any[]) {
          const config =
            target.name === 'postgres'
              ? pgTableConfig(table)
              : target.name === 'mariadb'
                ? mysqlTableConfig(table)
                : sqliteTableConfig(table);
          const declared = config.columns.map((c: any) => [c.name, c.notNull]).sort();
          const actual = await columnsOf(o, config.name);
          expect([config.name, actual]).toEqual([config.name, declared]);
        }
      });

      it('reads and writes the rows @auth/drizzle-adapter wrote (an app switching keeps its data)', async () => {
        const authjs = AuthJsDrizzleAdapter(o.db, {
          usersTable: o.tables.users,
          accountsTable: o.tables.accounts,
          sessionsTable: o.tables.sessions,
          verificationTokensTable: o.tables.verificationTokens,
          authenticatorsTable: o.tables.authenticators,
        } as never);
        const user = await authjs.createUser!(newUser());
        const account = newAccount(user.id);
        await authjs.linkAccount!(account as never);
        const sessionToken = randomUUID();
        const expires = new Date(Date.now() + 86_400_000);
        await authjs.createSession!({ sessionToken, userId: user.id, expires });
        const ours = new DrizzleAdapter(o.db, o.tables);
        expect(await ours.getUserByAccount(account)).toEqual(user);
        expect(await ours.getSessionAndUser(sessionToken)).toEqual({
          session: { sessionToken, userId: user.id, expires },
          user,
        });
        // And the other way: what ours writes, Auth.js's adapter reads.
        const token = { identifier: user.email, token: randomUUID(), expires };
        await ours.createVerificationToken(token);
        expect(await authjs.useVerificationToken!({ identifier: token.identifier, token: token.token })).toEqual(token);
      });

      it('maps a duplicate email to AdapterConflictError user.email', async () => {
        const adapter = new DrizzleAdapter(o.db, o.tables);
        const first = await adapter.createUser(newUser());
        const error = await adapter.createUser(newUser({ email: first.email })).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AdapterConflictError);
        expect((error as AdapterConflictError).conflict).toBe('user.email');
      });

      it('without the optional tables, has none of their methods', () => {
        const { users, accounts, sessions, verificationTokens, authenticators } = o.tables;
        const adapter = new DrizzleAdapter(o.db, { users, accounts, sessions, verificationTokens, authenticators });
        for (const method of ['createTwoFactor', 'createRefreshFamily', 'createApiKey', 'createSigningKey'])
          expect(typeof (adapter as any)[method]).toBe('undefined');
        expect(typeof adapter.createUser).toBe('function');
      });

      it('getSessionAndUser is one statement (a join)', async () => {
        const statements: string[] = [];
        const logged = { logQuery: (query: string) => statements.push(query) };
        const calls: PgQueryConfig[] = [];
        const db = loggedDb(o, logged, calls);
        const adapter = new DrizzleAdapter(db, o.tables);
        const user = await adapter.createUser(newUser());
        const sessionToken = randomUUID();
        await adapter.createSession({ sessionToken, userId: user.id, expires: new Date(Date.now() + 60_000) });
        statements.length = 0;
        calls.length = 0;
        expect(await adapter.getSessionAndUser(sessionToken)).toMatchObject({ user: { id: user.id } });
        if (target.name === 'postgres') {
          // node-postgres: a named statement on the pg pool itself, past Drizzle (and its logger).
          expect(statements).toHaveLength(0);
          expect(calls).toHaveLength(1);
          expect(calls[0]!.name).toMatch(/^nestjs_auth_session_[0-9a-f]{16}$/);
          expect(calls[0]!.text).toMatch(/join/i);
          expect(calls[0]!.values).toEqual([sessionToken, 1]);
        } else {
          expect(statements).toHaveLength(1);
          expect(statements[0]).toMatch(/join/i);
        }
        if (target.name === 'sqlite') expect(adapter.getSessionAndUserSync(sessionToken)?.user.id).toBe(user.id);
        else expect(adapter.getSessionAndUserSync(sessionToken)).toBeUndefined();
      });

      // node-postgres only: the one driver whose lookups are batched.
      if (target.name === 'postgres') {
        it('getSessionAndUser answers 20 lookups of one turn with one batched statement on the pg pool, each its own row', async () => {
          const adapter = new DrizzleAdapter(o.db, o.tables);
          const users = [];
          for (let i = 0; i < 5; i++)
            users.push(
              await adapter.createUser(newUser({ emailVerified: i % 2 ? null : new Date(1_700_000_000_123 + i) })),
            );
          const sessions = [];
          for (let i = 0; i < 15; i++) {
            // Mixed-case tokens, so that another case of one is a different token; one session expired.
            const session = {
              sessionToken: `Tok-${i}-${randomUUID()}`,
              userId: users[i % users.length]!.id,
              expires: new Date(Date.now() + (i === 7 ? -60_000 : 86_400_000) + i),
            };
            await adapter.createSession(session);
            sessions.push(session);
          }
          const asked = [
            ...sessions.map((s) => s.sessionToken),
            'missing-1',
            randomUUID(),
            'missing-1',
            sessions[3]!.sessionToken.toUpperCase(),
            sessions[3]!.sessionToken.toLowerCase(),
          ];
          expect(asked).toHaveLength(20);
          const calls: PgQueryConfig[] = [];
          const batched = new DrizzleAdapter(loggedDb(o, undefined, calls), o.tables);
          // Sent in the same turn of the event loop, as concurrent requests' lookups are.
          const found = await Promise.all(asked.map((token) => batched.getSessionAndUser(token)));
          for (const [i, session] of sessions.entries())
            expect(found[i]).toEqual({ session, user: users.find((u) => u.id === session.userId) });
          expect(found.slice(15)).toEqual([null, null, null, null, null]);
          // The rows are those Drizzle itself reads (its columns parse the timestamps).
          const { sessions: st, users: ut } = o.tables;
          const [viaDrizzle] = await o.db
            .select({
              session: { sessionToken: st.sessionToken, userId: st.userId, expires: st.expires },
              user: getTableColumns(ut),
            })
            .from(st)
            .innerJoin(ut, eq(ut.id, st.userId))
            .where(eq(st.sessionToken, asked[0]!));
          expect(found[0]).toEqual(viaDrizzle);
          expect(calls).toHaveLength(1);
          expect(calls[0]!.name).toMatch(/^nestjs_auth_session_[0-9a-f]{16}$/);
          expect(calls[0]!.text).toMatch(/= any\(\$1\)/i);
          expect(calls[0]!.values).toEqual([[...new Set(asked)]]);
        });

        it('getSessionAndUser fails each lookup of a batch whose statement fails', async () => {
          const calls: PgQueryConfig[] = [];
          const failing = loggedDb(o, undefined, calls, () => Promise.reject(new Error('connection lost')));
          const adapter = new DrizzleAdapter(failing, o.tables);
          const results = await Promise.allSettled(
            [randomUUID(), randomUUID(), randomUUID()].map((t) => adapter.getSessionAndUser(t)),
          );
          expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
          expect(calls).toHaveLength(1);
          expect(calls[0]!.text).toMatch(/= any\(\$1\)/i);
        });
      }

      it('mixing dialects is refused', () => {
        const mixed = {
          ...o.tables,
          sessions: target.name === 'sqlite' ? pgAuthTables.sessions : sqliteAuthTables.sessions,
        };
        expect(() => new DrizzleAdapter(o.db, mixed)).toThrow(TypeError);
      });

      it("the columns the adapter reads are the tables' own", () => {
        expect(Object.keys(getTableColumns(o.tables.sessions))).toEqual(
          expect.arrayContaining(['createdAt', 'lastSeenAt', 'userAgent', 'ip', 'providerSid', 'amr']),
        );
      });
    });
  });
}

/** A query sent to the pg pool as a config object (`name`, `text`, `values`). */
interface PgQueryConfig {
  name?: string;
  text: string;
  values?: unknown[];
}

/**
 * The same database with a query logger (a second Drizzle instance over the same client). On
 * PostgreSQL its pg pool records in `calls` each query sent to it as a config object (the pool
 * still runs it, unless `answer` answers it instead).
 */
function loggedDb(
  t: DrizzleTestDb,
  logger?: { logQuery(query: string, params: unknown[]): void },
  calls?: PgQueryConfig[],
  answer?: () => Promise<unknown>,
): any {
  const client = t.db.$client;
  if (t.name === 'sqlite') return drizzleSqlite({ client, logger });
  if (t.name === 'postgres') {
    // The pool itself, seen through an object whose `query` is counted (still `instanceof Pool`).
    const counted = Object.create(client, {
      query: {
        value: (...args: unknown[]) => {
          const config = args[0];
          if (typeof config === 'object' && config !== null && 'text' in config) {
            calls?.push(config as PgQueryConfig);
            if (answer) return answer();
          }
          return client.query(...args);
        },
      },
    });
    return drizzlePg({ client: counted, logger });
  }
  return drizzleMysql(client, { logger, mode: 'default' });
}

/** The columns of a table as the database has them: `[name, notNull]`, sorted. */
async function columnsOf(t: DrizzleTestDb, table: string): Promise<[string, boolean][]> {
  let rows: { name: string; notNull: boolean | number | string }[];
  if (t.name === 'sqlite') {
    rows = (await t.db.all(sql.raw(`SELECT name, "notnull" AS "notNull", pk FROM pragma_table_info('${table}')`))).map(
      (r: any) => ({ name: r.name, notNull: r.notNull === 1 || r.pk > 0 }),
    );
  } else if (t.name === 'postgres') {
    const result = await t.db.execute(
      sql`SELECT column_name AS name, is_nullable = 'NO' AS "notNull" FROM information_schema.columns WHERE table_name = ${table} AND table_schema = 'public'`,
    );
    rows = result.rows;
  } else {
    const [result] = await t.db.execute(
      sql`SELECT column_name AS name, is_nullable = 'NO' AS notNull FROM information_schema.columns WHERE table_name = ${table} AND table_schema = DATABASE()`,
    );
    rows = result;
  }
  return rows.map((r): [string, boolean] => [r.name, Boolean(Number(r.notNull)) || r.notNull === true]).sort();
}
