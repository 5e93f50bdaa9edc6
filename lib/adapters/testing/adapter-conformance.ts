import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ADAPTER_METHODS, type Adapter, type AdapterMethod } from '../adapter.interface.js';
import { describeAccounts } from './accounts.conformance.js';
import { describeAuthenticators } from './authenticators.conformance.js';
import type { ConformanceContext, ConformanceDb, ConformanceExtension } from './conformance-context.js';
import { newAccount, newUser } from './conformance-fixtures.js';
import { describeOptionalMethods } from './optional-methods.conformance.js';
import { describeSessions } from './sessions.conformance.js';
import { describeUsers } from './users.conformance.js';
import { describeVerificationTokens } from './verification-tokens.conformance.js';

/** Options of {@link runAdapterConformanceTests}. */
export interface AdapterConformanceOptions {
  /** Shown in the `describe` title, e.g. `'TypeOrmAdapter (postgres)'`. */
  name: string;
  /** Builds the adapter under test; called once, after `setup`. */
  adapter: () => Adapter | Promise<Adapter>;
  /** Runs before anything else (create the database, connect...). */
  setup?: () => unknown;
  /** Runs after every test (disconnect, drop the database...). */
  teardown?: () => unknown;
  /** Raw reads used to double-check the store. */
  db?: ConformanceDb;
  /**
   * The methods the adapter implements. Tests that need another method are skipped (and listed as
   * skipped by jest), so a partial adapter can still be checked for what it does.
   * @default every method of the adapter contract
   */
  methods?: readonly AdapterMethod[];
  /** How many concurrent calls the race tests make. @default 50 */
  concurrency?: number;
  /**
   * Optional methods beyond the contract that the adapter implements, to be checked too:
   * `deleteSessionsByUserId` (`SessionsByUserAdapter`) and `deleteVerificationTokensByIdentifier`
   * (`VerificationTokensByIdentifierAdapter`). Tests of the others are skipped. @default none
   */
  extensions?: readonly ConformanceExtension[];
  /**
   * Whether the store refuses duplicates: a second user with an email, a second session with a
   * token, a second account with a (provider, providerAccountId). False for tables without those
   * unique keys (Auth.js's pg adapter schema): the tests of these rules are then skipped.
   * @default true
   */
  unique?: boolean;
}

/**
 * Registers jest tests that check an adapter against the contract (SPEC sections 4 and 7) and the
 * guarantees nestjs-auth relies on: lookups give `null` (never `undefined`) when nothing matches,
 * dates come back as `Date` with millisecond precision, verification tokens are single-use even
 * under concurrent calls, uniqueness rules are enforced, `deleteUser` cascades, and the
 * authenticator counter update is a compare-and-set.
 *
 * Tests are independent of each other (each creates its own users), so they can share one database.
 *
 * @example
 * // my-adapter.spec.ts
 * import { runAdapterConformanceTests } from 'nestjs-auth/testing';
 * runAdapterConformanceTests({ name: 'MyAdapter', adapter: () => new MyAdapter(pool) });
 */
export function runAdapterConformanceTests(options: AdapterConformanceOptions): void {
  const supported = new Set<AdapterMethod>(options.methods ?? ADAPTER_METHODS);
  const db = options.db ?? {};
  let adapter: Required<Adapter>;

  const ctx: ConformanceContext = {
    get adapter() {
      return adapter;
    },
    db,
    concurrency: options.concurrency ?? 50,
    supported,
    extensions: new Set<ConformanceExtension>(options.extensions ?? []),
    test: (name, needs, fn) => {
      (needs.every((m) => supported.has(m)) ? it : it.skip)(name, fn);
    },
    testUnique: (name, needs, fn) => {
      ((options.unique ?? true) && needs.every((m) => supported.has(m)) ? it : it.skip)(name, fn);
    },
    raw: async (read, ...args) => (read ? ((await read.apply(db, args)) ?? null) : 'unchecked'),
    createUser: async (overrides = {}) => adapter.createUser(newUser(overrides)),
    linked: async (userId, overrides = {}) => {
      const account = newAccount(userId, overrides);
      await adapter.linkAccount(account);
      return account;
    },
  };

  describe(`adapter conformance: ${options.name}`, () => {
    beforeAll(async () => {
      await options.setup?.();
      adapter = (await options.adapter()) as Required<Adapter>;
    });
    afterAll(async () => {
      await options.teardown?.();
    });

    it('implements the methods it declares', () => {
      for (const method of supported)
        expect({ method, type: typeof adapter[method] }).toEqual({ method, type: 'function' });
    });

    describeUsers(ctx);
    describeAccounts(ctx);
    describeSessions(ctx);
    describeOptionalMethods(ctx);
    describeVerificationTokens(ctx);
    describeAuthenticators(ctx);
  });
}
