import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { PrismaAdapter as AuthJsPrismaAdapter } from '@auth/prisma-adapter';
import { runAdapterConformanceTests } from '../lib/adapters/testing/adapter-conformance.js';
import { PrismaAdapter } from '../lib/prisma.js';
import { AdapterConflictError, AdapterNotFoundError } from '../lib/errors/auth.errors.js';
import { newAccount, newUser } from '../lib/adapters/testing/conformance-fixtures.js';
import { createDatabase, databaseTargets, dropDatabase, type TestDatabase } from './setup/databases.js';
import { conformanceDb, openPrisma, type PrismaTestDb } from './setup/prisma-db.js';
import { ALL_EXTENSIONS } from './setup/conformance-extensions.js';

const targets = await databaseTargets();

for (const target of targets) {
  target.describe(`PrismaAdapter on ${target.name}`, () => {
    let test: TestDatabase;
    let t: PrismaTestDb;
    runAdapterConformanceTests({
      name: `PrismaAdapter (${target.name})`,
      setup: async () => {
        test = await createDatabase(target, 'prisma_conformance');
        t = await openPrisma(test);
      },
      teardown: async () => {
        await t?.close();
        await dropDatabase(test);
      },
      adapter: () => new PrismaAdapter(t.prisma),
      extensions: ALL_EXTENSIONS,
      db: conformanceDb(() => t),
    });

    describe('beyond the conformance suite', () => {
      let other: TestDatabase;
      let o: PrismaTestDb;
      beforeAll(async () => {
        other = await createDatabase(target, 'prisma_extra');
        o = await openPrisma(other);
      });
      afterAll(async () => {
        await o?.close();
        await dropDatabase(other);
      });

      it('the DDL has a column for every scalar field of the generated client, and no other', async () => {
        const models = o.prisma._runtimeDataModel.models as Record<
          string,
          { dbName: string | null; fields: { name: string; kind: string }[] }
        >;
        for (const [model, { dbName, fields }] of Object.entries(models)) {
          const table = dbName ?? model;
          const declared = fields
            .filter((f) => f.kind === 'scalar')
            .map((f) => f.name)
            .sort();
          expect([table, await columnsOf(o, table)]).toEqual([table, declared]);
        }
      });

      it('reads and writes the rows @auth/prisma-adapter wrote (an app switching keeps its data)', async () => {
        const authjs = AuthJsPrismaAdapter(o.prisma);
        const user = await authjs.createUser!(newUser());
        const account = newAccount(user.id);
        await authjs.linkAccount!(account as never);
        const sessionToken = randomUUID();
        const expires = new Date(Date.now() + 86_400_000);
        await authjs.createSession!({ sessionToken, userId: user.id, expires });
        const ours = new PrismaAdapter(o.prisma);
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

      it('maps a duplicate email to AdapterConflictError user.email, an unknown user to AdapterNotFoundError', async () => {
        const adapter = new PrismaAdapter(o.prisma);
        const first = await adapter.createUser(newUser());
        const error = await adapter.createUser(newUser({ email: first.email })).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AdapterConflictError);
        expect((error as AdapterConflictError).conflict).toBe('user.email');
        const orphan = await adapter
          .createSession({ sessionToken: randomUUID(), userId: randomUUID(), expires: new Date() })
          .catch((e: unknown) => e);
        expect(orphan).toBeInstanceOf(AdapterNotFoundError);
      });

      it('on PostgreSQL looks a session up with one raw statement (the data model names its tables), else with findFirst', async () => {
        const adapter = new PrismaAdapter(o.prisma);
        const user = await adapter.createUser(newUser());
        const sessionToken = randomUUID();
        const expires = new Date(Date.now() + 86_400_000);
        await adapter.createSession({ sessionToken, userId: user.id, expires });
        const raw = o.prisma.$queryRawUnsafe.bind(o.prisma);
        let rawCalls = 0;
        const counting = Object.assign(Object.create(o.prisma), {
          $queryRawUnsafe: (query: string, ...values: unknown[]) => (rawCalls++, raw(query, ...values)),
        });
        const found = await new PrismaAdapter(counting).getSessionAndUser(sessionToken);
        expect(found).toEqual({ session: { sessionToken, userId: user.id, expires }, user });
        expect(rawCalls).toBe(target.name === 'postgres' ? 1 : 0);
        expect(new PrismaAdapter(o.prisma).sessionLookupPath).toBe(target.name === 'postgres' ? 'raw' : 'findFirst');
        expect(await new PrismaAdapter(counting).getSessionAndUser(randomUUID())).toBeNull();
      });

      // PostgreSQL only: the one database whose lookups are batched.
      if (target.name === 'postgres') {
        it('getSessionAndUser answers 20 lookups of one turn with one batched raw statement, each its own row', async () => {
          const adapter = new PrismaAdapter(o.prisma);
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
          const calls: unknown[][] = [];
          const raw = o.prisma.$queryRawUnsafe.bind(o.prisma);
          const counting = Object.assign(Object.create(o.prisma), {
            $queryRawUnsafe: (query: string, ...values: unknown[]) => (
              calls.push([query, ...values]),
              raw(query, ...values)
            ),
          });
          const batched = new PrismaAdapter(counting);
          // Sent in the same turn of the event loop, as concurrent requests' lookups are.
          const found = await Promise.all(asked.map((token) => batched.getSessionAndUser(token)));
          for (const [i, session] of sessions.entries())
            expect(found[i]).toEqual({ session, user: users.find((u) => u.id === session.userId) });
          expect(found.slice(15)).toEqual([null, null, null, null, null]);
          // Each answer is its own object: a caller that changes one does not change another's.
          const again = await Promise.all([batched.getSessionAndUser(asked[0]!), batched.getSessionAndUser(asked[0]!)]);
          expect(again[0]).toEqual(again[1]);
          expect(again[0]!.user).not.toBe(again[1]!.user);
          expect(calls).toHaveLength(2);
          expect(calls[0]![0]).toMatch(/= ANY\(\$1\)/);
          expect(calls[0]!.slice(1)).toEqual([[...new Set(asked)]]);
          expect(calls[1]!.slice(1)).toEqual([[asked[0]]]);
        });

        it('with pgPool, getSessionAndUser runs prepared statements on the pool (20 lookups of one turn: one), rows as Prisma reads them', async () => {
          const { default: pg } = (await import('pg' as string)) as { default: { Pool: new (o: object) => any } };
          const pool = new pg.Pool({ connectionString: (other.options as { url: string }).url, max: 4 });
          const { PrismaPg } = await import('@prisma/adapter-pg');
          const client = new o.PrismaClient({ adapter: new PrismaPg(pool) }) as any;
          try {
            const calls: { name: string; text: string; values: unknown[] }[] = [];
            const counted = { query: (config: any) => (calls.push(config), pool.query(config)) };
            let rawCalls = 0;
            const raw = client.$queryRawUnsafe.bind(client);
            const counting = Object.assign(Object.create(client), {
              $queryRawUnsafe: (query: string, ...values: unknown[]) => (rawCalls++, raw(query, ...values)),
            });
            const adapter = new PrismaAdapter(counting, { pgPool: counted });
            expect(adapter.sessionLookupPath).toBe('pg-pool');
            const users = [];
            for (let i = 0; i < 4; i++)
              users.push(
                await adapter.createUser(newUser({ emailVerified: i % 2 ? null : new Date(1_700_000_000_123 + i) })),
              );
            const sessions = [];
            for (let i = 0; i < 16; i++) {
              const session = {
                sessionToken: `Tok-${i}-${randomUUID()}`,
                userId: users[i % users.length]!.id,
                expires: new Date(Date.now() + (i === 5 ? -60_000 : 86_400_000) + i),
              };
              await adapter.createSession(session);
              sessions.push(session);
            }
            const asked = [
              ...sessions.map((s) => s.sessionToken),
              'missing-1',
              sessions[2]!.sessionToken.toUpperCase(),
              sessions[2]!.sessionToken.toLowerCase(),
              sessions[0]!.sessionToken,
            ];
            calls.length = 0;
            const found = await Promise.all(asked.map((token) => adapter.getSessionAndUser(token)));
            for (const [i, session] of sessions.entries()) {
              const user = users.find((u) => u.id === session.userId);
              expect(found[i]).toEqual({ session, user });
              // As Prisma itself reads the row.
              const viaPrisma = await client.session.findFirst({
                where: { sessionToken: session.sessionToken },
                include: { user: true },
              });
              expect(found[i]).toEqual({
                session: { sessionToken: viaPrisma.sessionToken, userId: viaPrisma.userId, expires: viaPrisma.expires },
                user: viaPrisma.user,
              });
            }
            expect(found.slice(16)).toEqual([null, null, null, found[0]]);
            expect(calls).toHaveLength(1);
            expect(calls[0]!.name).toMatch(/^nestjs_auth_session_[0-9a-f]{16}$/);
            expect(calls[0]!.text).toMatch(/= ANY\(\$1\)/);
            expect(calls[0]!.values).toEqual([[...new Set(asked)]]);
            // A lone lookup: the single-token statement.
            expect(await adapter.getSessionAndUser(asked[1]!)).toEqual(found[1]);
            expect(calls).toHaveLength(2);
            expect(calls[1]!.text).toMatch(/= \$1 LIMIT 1/);
            expect(calls[1]!.values).toEqual([asked[1]]);
            expect(rawCalls).toBe(0);
          } finally {
            await client.$disconnect();
            await pool.end();
          }
        });

        it('getSessionAndUser fails each lookup of a batch whose statement fails', async () => {
          let calls = 0;
          const failing = Object.assign(Object.create(o.prisma), {
            $queryRawUnsafe: () => (calls++, Promise.reject(new Error('connection lost'))),
          });
          const adapter = new PrismaAdapter(failing);
          const results = await Promise.allSettled(
            [randomUUID(), randomUUID(), randomUUID()].map((t) => adapter.getSessionAndUser(t)),
          );
          expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
          expect(calls).toBe(1);
        });
      }

      if (target.name !== 'postgres')
        it('refuses pgPool for a client of another database', () => {
          expect(() => new PrismaAdapter(o.prisma, { pgPool: { query: async () => ({ rows: [] }) } })).toThrow(
            /pgPool/,
          );
        });

      it('without the optional models, has none of their methods', () => {
        const { user, account, session, verificationToken, authenticator } = o.prisma;
        const client = { user, account, session, verificationToken, authenticator, $transaction: () => undefined };
        const adapter = new PrismaAdapter(client as never);
        for (const method of ['createTwoFactor', 'createRefreshFamily', 'createApiKey', 'createSigningKey'])
          expect(typeof (adapter as any)[method]).toBe('undefined');
        expect(typeof adapter.createUser).toBe('function');
      });

      it('refuses something that is no Prisma client', () => {
        expect(() => new PrismaAdapter({} as never)).toThrow(TypeError);
      });
    });
  });
}

/** The columns of a table as the database has them, sorted. */
async function columnsOf(t: PrismaTestDb, table: string): Promise<string[]> {
  let rows: { name: string }[];
  if (t.name === 'sqlite') {
    rows = await t.prisma.$queryRawUnsafe(`SELECT name FROM pragma_table_info('${table}')`);
  } else if (t.name === 'postgres') {
    rows = await t.prisma.$queryRawUnsafe(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 AND table_schema = 'public'`,
      table,
    );
  } else {
    rows = await t.prisma.$queryRawUnsafe(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_name = ? AND table_schema = DATABASE()`,
      table,
    );
  }
  return Array.from(rows, (r) => String(r.name)).sort();
}
