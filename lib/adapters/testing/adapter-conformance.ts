import { ADAPTER_METHODS, type Adapter, type AdapterMethod } from '../adapter.interface.js';
import { describeAccounts } from './accounts.conformance.js';
import { describeApiKeys } from './api-keys.conformance.js';
import { describeAuthenticators } from './authenticators.conformance.js';
import { check } from './conformance-assert.js';
import type {
  ConformanceContext,
  ConformanceDb,
  ConformanceExtension,
  ConformanceRunner,
} from './conformance-context.js';
import { newAccount, newUser } from './conformance-fixtures.js';
import { describeOptionalMethods } from './optional-methods.conformance.js';
import { describePasskeyNames } from './passkeys.conformance.js';
import { describeRefreshFamilies } from './refresh-families.conformance.js';
import { describeSessionDevices } from './session-devices.conformance.js';
import { describeSessions } from './sessions.conformance.js';
import { describeSigningKeys } from './signing-keys.conformance.js';
import { describeTwoFactors } from './two-factors.conformance.js';
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
  /** Runs once, after the suite's last test (disconnect, drop the database...). */
  teardown?: () => unknown;
  /** Raw reads used to double-check the store. */
  db?: ConformanceDb;
  /**
   * The methods the adapter implements. Tests that need another method are skipped with the reason in their title (and listed as
   * skipped by jest), so a partial adapter can still be checked for what it does.
   * @default every method of the adapter contract
   */
  methods?: readonly AdapterMethod[];
  /** How many concurrent calls the race tests make. @default 50 */
  concurrency?: number;
  /**
   * Optional methods beyond the contract that the adapter implements, to be checked too:
   * `deleteSessionsByUserId` (`SessionsByUserAdapter`), `deleteVerificationTokensByIdentifier`
   * (`VerificationTokensByIdentifierAdapter`), `listAccountsByUserId` and `updateAccountTokens`
   * (`AccountTokensAdapter`), `deleteUserCascade` (`UserDeletionAdapter`), `twoFactor`
   * (`TwoFactorAdapter`), `refreshFamily` (`RefreshTokenAdapter`), `apiKey` (`ApiKeyAdapter`),
   * `signingKey` (`SigningKeyAdapter`)... (see {@link ConformanceExtension}). Tests of the others
   * are skipped.
   * @default none
   */
  extensions?: readonly ConformanceExtension[];
  /**
   * The test functions to register with: `{ describe, it, beforeAll, afterAll }` from
   * `@jest/globals` or `vitest`, or from `node:test` as `{ describe, it, beforeAll: before, afterAll: after }`.
   * @default the runner's globals (`describe`, `it`, `beforeAll`, `afterAll`: jest's, or vitest's with `globals: true`)
   */
  runner?: ConformanceRunner;
  /**
   * Whether the store refuses duplicates: a second user with an email, a second session with a
   * token, a second account with a (provider, providerAccountId). False for tables without those
   * unique keys (Auth.js's pg adapter schema): the tests of these rules then do not apply.
   * @default true
   */
  unique?: boolean;
  /**
   * What becomes of a test that does not apply (a method not in `methods`, an extension not in
   * `extensions`, a uniqueness rule with `unique: false`): `'skip'` registers it as skipped, so the
   * runner's report lists what the adapter leaves out; `'omit'` does not register it, for a CI
   * where any skipped test is an error.
   * @default 'skip'
   */
  inapplicable?: 'skip' | 'omit';
}

/** The runner's global test functions, or an error saying to pass `runner`. */
function globalRunner(): ConformanceRunner {
  const g = globalThis as Partial<ConformanceRunner>;
  if (typeof g.describe === 'function' && typeof g.it === 'function' && g.beforeAll && g.afterAll)
    return { describe: g.describe, it: g.it, beforeAll: g.beforeAll, afterAll: g.afterAll };
  throw new TypeError(
    'runAdapterConformanceTests: no global describe/it/beforeAll/afterAll; pass `runner` ' +
      "(e.g. `runner: { describe, it, beforeAll: before, afterAll: after }` from 'node:test').",
  );
}

/**
 * Registers tests (with jest, vitest or `node:test`: see `runner`) that check an adapter against the contract (SPEC sections 4 and 7) and the
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
  const runner = options.runner ?? globalRunner();
  const { describe, it, beforeAll, afterAll } = runner;
  const supported = new Set<AdapterMethod>(options.methods ?? ADAPTER_METHODS);
  const db = options.db ?? {};
  let adapter: Required<Adapter>;
  const extensions = new Set<ConformanceExtension>(options.extensions ?? []);
  // A test that does not apply is registered as skipped with its reason in the title (a partial
  // adapter's report says what it leaves out, and why), or not at all with `inapplicable: 'omit'`.
  const register = (whyNot: string | undefined, name: string, fn: () => Promise<void>): void => {
    if (whyNot === undefined) it(name, fn);
    else if (options.inapplicable !== 'omit') it.skip(`${name} [not applicable: ${whyNot}]`, fn);
  };
  const lacking = (needs: readonly AdapterMethod[]): string | undefined => {
    const missing = needs.filter((m) => !supported.has(m));
    return missing.length > 0 ? `\`methods\` lacks ${missing.join(', ')}` : undefined;
  };

  const ctx: ConformanceContext = {
    runner,
    get adapter() {
      return adapter;
    },
    db,
    concurrency: options.concurrency ?? 50,
    supported,
    extensions,
    test: (name, needs, fn) => register(lacking(needs), name, fn),
    testUnique: (name, needs, fn) =>
      register((options.unique ?? true) ? lacking(needs) : '`unique: false` (no unique keys)', name, fn),
    testExtension: (name, extension, needs, fn) => {
      const absent = (typeof extension === 'string' ? [extension] : extension).filter((e) => !extensions.has(e));
      register(absent.length ? `\`extensions\` lacks ${absent.join(', ')}` : lacking(needs), name, fn);
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

    it('implements the methods it declares', async () => {
      for (const method of supported)
        check.equals({ method, type: typeof adapter[method] }, { method, type: 'function' });
    });

    describeUsers(ctx);
    describeAccounts(ctx);
    describeSessions(ctx);
    describeOptionalMethods(ctx);
    describePasskeyNames(ctx);
    describeSessionDevices(ctx);
    describeVerificationTokens(ctx);
    describeAuthenticators(ctx);
    describeTwoFactors(ctx);
    describeRefreshFamilies(ctx);
    describeApiKeys(ctx);
    describeSigningKeys(ctx);
  });
}
