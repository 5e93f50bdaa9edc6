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
        expect(await new PrismaAdapter(counting).getSessionAndUser(randomUUID())).toBeNull();
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
