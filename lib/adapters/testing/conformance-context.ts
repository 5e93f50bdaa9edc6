import type { Adapter, AdapterAccount, AdapterMethod, AdapterUser } from '../adapter.interface.js';

/** A raw row read straight from the store (not through the adapter), or `null`/`undefined` when absent. */
export type RawRecord = object | null | undefined;

/**
 * Raw reads that bypass the adapter, so the suite can check what really is (or is no longer)
 * stored: for example that `deleteUser` removed the sessions rows, not only that the adapter
 * stopped returning them. Each is optional.
 */
export interface ConformanceDb {
  /** A user by its id. */
  user?(id: string): Promise<RawRecord> | RawRecord;
  /** An account by `(provider, providerAccountId)`. */
  account?(provider: string, providerAccountId: string): Promise<RawRecord> | RawRecord;
  /** A session by its token. */
  session?(sessionToken: string): Promise<RawRecord> | RawRecord;
  /** A verification token by `(identifier, token)`. */
  verificationToken?(identifier: string, token: string): Promise<RawRecord> | RawRecord;
  /** An authenticator by its credential id. */
  authenticator?(credentialID: string): Promise<RawRecord> | RawRecord;
  /** A second factor by its id (`TwoFactorAdapter`). */
  twoFactor?(id: string): Promise<RawRecord> | RawRecord;
  /** A refresh-token family by its id (`RefreshTokenAdapter`). */
  refreshFamily?(id: string): Promise<RawRecord> | RawRecord;
  /**
   * Not a read: corrupts the stored family `id` behind the adapter's back, so the suite can check
   * that the adapter reads such a row as missing (fail closed). `generation`: store a value that is
   * no whole number from 0 (e.g. -1); `expires`: store a value that is no valid date where the store
   * can hold one (SQLite: text; PostgreSQL: `'infinity'`; MySQL/MariaDB: a zero date), else leave
   * it. Without it, that test checks nothing.
   */
  corruptRefreshFamily?(id: string, field: 'generation' | 'expires'): Promise<void> | void;
  /** An API key by its id (`ApiKeyAdapter`). */
  apiKey?(id: string): Promise<RawRecord> | RawRecord;
  /**
   * Not a read: corrupts the stored API key `id` behind the adapter's back, so the suite can check
   * that the adapter reads such a row as missing (fail closed). `keyHash`: store an empty hash;
   * `scopes`: store scopes that are no list of words (e.g. `'read  write'`, two spaces, in a
   * space-separated column); `expires`: store a value that is no valid date (SQLite: text;
   * PostgreSQL: `'infinity'`; MySQL/MariaDB: a zero date). Without it, that test checks nothing.
   */
  corruptApiKey?(id: string, field: 'keyHash' | 'scopes' | 'expires'): Promise<void> | void;
  /** A signing key by its id (`SigningKeyAdapter`). */
  signingKey?(id: string): Promise<RawRecord> | RawRecord;
  /**
   * Not a read: corrupts the stored signing key `id` behind the adapter's back (fail closed, as
   * `corruptApiKey`). `slot`: store a slot that is no whole number from 0 and is taken by no other
   * key (e.g. `-1 - slot`); `publicJwk`: store text that is no JSON; `activatesAt`: store a value
   * that is no valid date (as `corruptApiKey`'s `expires`). Without it, that test checks nothing.
   */
  corruptSigningKey?(id: string, field: 'slot' | 'publicJwk' | 'activatesAt'): Promise<void> | void;
}

/** Optional adapter methods beyond SPEC's contract that the library uses when present. */
export type ConformanceExtension =
  | 'deleteSessionsByUserId'
  | 'deleteVerificationTokensByIdentifier'
  | 'listAccountsByUserId'
  | 'updateAccountTokens'
  | 'deleteUserCascade'
  /** `PasskeyNamesAdapter.updateAuthenticatorName`, and `lastUsedAt` written with the counter. */
  | 'updateAuthenticatorName'
  /** `PasskeyNamesAdapter.deleteAuthenticator`. */
  | 'deleteAuthenticator'
  /** `SessionsByProviderSidAdapter.listSessionsByProviderSid` (sessions recording `providerSid`). */
  | 'listSessionsByProviderSid'
  /** `SessionListingAdapter.listSessionsByUserId`, and the optional session columns (device list). */
  | 'listSessionsByUserId'
  /** `TwoFactorAdapter` (two-factor authentication's factors); with `listSessionsByUserId`, the `amr` session detail. */
  | 'twoFactor'
  /** `RefreshTokenAdapter` (native-app sign-ins' refresh-token families). */
  | 'refreshFamily'
  /** `ApiKeyAdapter` (API keys: their hashes, never the keys). */
  | 'apiKey'
  /** `SigningKeyAdapter` (the rotated keys that sign access tokens). */
  | 'signingKey';

/** A test body: the suite's bodies take no argument and return a promise (or nothing). */
export type ConformanceTestFn = () => Promise<void>;

/**
 * The test functions the suite registers with: the runner's own, so the suite runs under jest,
 * vitest or `node:test` (whose hooks are named `before` and `after`: pass them as `beforeAll` and
 * `afterAll`). Assertions do not come from the runner: the suite uses `node:assert`.
 */
export interface ConformanceRunner {
  /** Groups tests (`describe`). */
  describe(name: string, fn: () => void): unknown;
  /** Registers a test (`it` or `test`). */
  it: ((name: string, fn: ConformanceTestFn) => unknown) & {
    /** Registers a skipped test (`it.skip`). */
    skip(name: string, fn: ConformanceTestFn): unknown;
  };
  /** Runs before the group's tests (`beforeAll`; `before` in `node:test`). */
  beforeAll(fn: ConformanceTestFn): unknown;
  /** Runs after the group's tests (`afterAll`; `after` in `node:test`). */
  afterAll(fn: ConformanceTestFn): unknown;
}

/** What each part of the suite works with: the adapter under test and the suite's helpers. */
export interface ConformanceContext {
  /** The test functions to register with. */
  runner: ConformanceRunner;
  /** The adapter under test (built in the suite's `beforeAll`). */
  readonly adapter: Required<Adapter>;
  db: ConformanceDb;
  /** How many concurrent calls the race tests make. */
  concurrency: number;
  supported: ReadonlySet<AdapterMethod>;
  extensions: ReadonlySet<ConformanceExtension>;

  /** `it`, or skipped/omitted (`inapplicable`) when the adapter does not implement every method in `needs`. */
  test(name: string, needs: AdapterMethod[], fn: () => Promise<void>): void;
  /** `test`, skipped when the store does not enforce unique keys (`unique: false`). */
  testUnique(name: string, needs: AdapterMethod[], fn: () => Promise<void>): void;
  /** `test` for an optional method: does not apply unless `extension` (each of them, for a list) is declared. */
  testExtension(
    name: string,
    extension: ConformanceExtension | readonly ConformanceExtension[],
    needs: AdapterMethod[],
    fn: () => Promise<void>,
  ): void;
  /** A raw read through `db`, or `'unchecked'` when the suite was given none. */
  raw(
    read: ((...args: string[]) => Promise<RawRecord> | RawRecord) | undefined,
    ...args: string[]
  ): Promise<RawRecord | 'unchecked'>;
  /** Creates a fresh user through the adapter. */
  createUser(overrides?: Partial<AdapterUser>): Promise<AdapterUser>;
  /** Links a fresh account to `userId` and returns what was linked. */
  linked(userId: string, overrides?: Partial<AdapterAccount>): Promise<AdapterAccount>;
}
