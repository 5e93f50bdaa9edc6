import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterMethod,
  AdapterUser,
  SessionsByUserAdapter,
  VerificationToken,
  VerificationTokensByIdentifierAdapter,
} from '../adapter.interface.js';

/** A raw row read straight from the store (not through the adapter), or `null`/`undefined` when absent. */
export type RawRecord = object | null | undefined;

/**
 * Raw reads that bypass the adapter, so the suite can check what really is (or is no longer)
 * stored: for example that `deleteUser` removed the sessions rows, not only that the adapter
 * stopped returning them. Each is optional.
 */
export interface ConformanceDb {
  user?(id: string): Promise<RawRecord> | RawRecord;
  account?(provider: string, providerAccountId: string): Promise<RawRecord> | RawRecord;
  session?(sessionToken: string): Promise<RawRecord> | RawRecord;
  verificationToken?(identifier: string, token: string): Promise<RawRecord> | RawRecord;
  authenticator?(credentialID: string): Promise<RawRecord> | RawRecord;
}

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
}

/** Optional adapter methods beyond SPEC's contract that the library uses when present. */
export type ConformanceExtension = 'deleteSessionsByUserId' | 'deleteVerificationTokensByIdentifier';

const ALL_METHODS: readonly AdapterMethod[] = [
  'createUser', 'getUser', 'getUserByEmail', 'getUserByAccount', 'updateUser', 'deleteUser',
  'linkAccount', 'unlinkAccount', 'getAccount', 'createSession', 'getSessionAndUser', 'updateSession',
  'deleteSession', 'createVerificationToken', 'useVerificationToken', 'createAuthenticator',
  'getAuthenticator', 'listAuthenticatorsByUserId', 'updateAuthenticatorCounter',
];

/** A date in the future with a non-zero millisecond part: storage must keep milliseconds. */
function futureDate(days: number): Date {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setUTCMilliseconds(123 + days);
  return d;
}

function newUser(overrides: Partial<AdapterUser> = {}): AdapterUser {
  return {
    id: randomUUID(),
    email: `conformance-${randomUUID()}@example.com`,
    name: 'Ada Lovelace',
    image: 'https://example.com/ada.png',
    emailVerified: futureDate(-3),
    ...overrides,
  };
}

function newAccount(userId: string, overrides: Partial<AdapterAccount> = {}): AdapterAccount {
  return {
    userId,
    type: 'oidc',
    provider: 'conformance-oidc',
    providerAccountId: randomUUID(),
    access_token: randomBytes(24).toString('base64url'),
    refresh_token: randomBytes(24).toString('base64url'),
    // Real id_tokens (RS256, many claims) run to several kilobytes: the column must hold them.
    id_token: `eyJ.${randomBytes(3000).toString('base64url')}.sig`,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    token_type: 'bearer',
    scope: 'openid email profile',
    session_state: randomUUID(),
    ...overrides,
  };
}

function newAuthenticator(userId: string, overrides: Partial<AdapterAuthenticator> = {}): AdapterAuthenticator {
  const credentialID = randomBytes(32).toString('base64url');
  return {
    credentialID,
    userId,
    providerAccountId: credentialID,
    credentialPublicKey: randomBytes(77).toString('base64'),
    counter: 7,
    credentialDeviceType: 'multiDevice',
    credentialBackedUp: true,
    transports: 'internal,hybrid',
    ...overrides,
  };
}

function hashedToken(): string {
  return randomBytes(32).toString('hex');
}

/** The object without `undefined` properties, for `toMatchObject`. */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
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
  const supported = new Set<AdapterMethod>(options.methods ?? ALL_METHODS);
  const extensions = new Set<ConformanceExtension>(options.extensions ?? []);
  const concurrency = options.concurrency ?? 50;
  const db = options.db ?? {};
  let adapter: Required<Adapter>;

  /** `it`, or `it.skip` when the adapter does not implement every method in `needs`. */
  const test = (name: string, needs: AdapterMethod[], fn: () => Promise<void>): void => {
    (needs.every((m) => supported.has(m)) ? it : it.skip)(name, fn);
  };

  const raw = async (read: ((...args: string[]) => Promise<RawRecord> | RawRecord) | undefined, ...args: string[]): Promise<RawRecord | 'unchecked'> =>
    read ? ((await read.apply(db, args)) ?? null) : 'unchecked';

  const createUser = async (overrides: Partial<AdapterUser> = {}): Promise<AdapterUser> =>
    adapter.createUser(newUser(overrides));

  describe(`adapter conformance: ${options.name}`, () => {
    beforeAll(async () => {
      await options.setup?.();
      adapter = (await options.adapter()) as Required<Adapter>;
    });
    afterAll(async () => {
      await options.teardown?.();
    });

    it('implements the methods it declares', () => {
      for (const method of supported) expect({ method, type: typeof adapter[method] }).toEqual({ method, type: 'function' });
    });

    describe('users', () => {
      test('createUser stores the user and returns it, dates as Date with milliseconds', ['createUser', 'getUser'], async () => {
        const input = newUser();
        const created = await adapter.createUser(input);
        expect(created).toMatchObject(input);
        expect(created.emailVerified).toBeInstanceOf(Date);
        const read = await adapter.getUser(input.id);
        expect(read).toMatchObject(input);
        expect(read?.emailVerified).toBeInstanceOf(Date);
        expect(read?.emailVerified?.getTime()).toBe(input.emailVerified?.getTime());
        const row = await raw(db.user, input.id);
        if (row !== 'unchecked') expect(row).toMatchObject({ email: input.email });
      });

      test('createUser keeps emailVerified null and optional fields absent or null', ['createUser', 'getUser'], async () => {
        const input: AdapterUser = { id: randomUUID(), email: `bare-${randomUUID()}@example.com`, emailVerified: null };
        await adapter.createUser(input);
        const read = await adapter.getUser(input.id);
        expect(read).toMatchObject(input);
        expect(read?.emailVerified).toBeNull();
        expect(read?.name ?? null).toBeNull();
        expect(read?.image ?? null).toBeNull();
      });

      test('createUser refuses a second user with the same email', ['createUser', 'getUserByEmail'], async () => {
        const first = await createUser();
        await expect(Promise.resolve().then(() => adapter.createUser(newUser({ email: first.email })))).rejects.toThrow();
        expect((await adapter.getUserByEmail(first.email))?.id).toBe(first.id);
      });

      test('getUser returns null (not undefined) for an unknown id', ['getUser'], async () => {
        expect(await adapter.getUser(randomUUID())).toBeNull();
      });

      test('getUserByEmail finds the user, and returns null for an unknown email', ['createUser', 'getUserByEmail'], async () => {
        const user = await createUser();
        expect(await adapter.getUserByEmail(user.email)).toMatchObject(defined(user));
        expect(await adapter.getUserByEmail(`nobody-${randomUUID()}@example.com`)).toBeNull();
      });

      test('getUserByAccount finds the user by (provider, providerAccountId), null otherwise', ['createUser', 'linkAccount', 'getUserByAccount'], async () => {
        const user = await createUser();
        const account = newAccount(user.id);
        await adapter.linkAccount(account);
        expect(await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId })).toMatchObject(defined(user));
        expect(await adapter.getUserByAccount({ provider: 'other-provider', providerAccountId: account.providerAccountId })).toBeNull();
        expect(await adapter.getUserByAccount({ provider: account.provider, providerAccountId: randomUUID() })).toBeNull();
      });

      test('updateUser changes the given fields only and returns the whole user', ['createUser', 'updateUser', 'getUser'], async () => {
        const user = await createUser({ emailVerified: null });
        const verifiedAt = futureDate(-1);
        const updated = await adapter.updateUser({ id: user.id, name: 'Grace Hopper', emailVerified: verifiedAt });
        expect(updated).toMatchObject({ ...defined(user), name: 'Grace Hopper', emailVerified: verifiedAt });
        const read = await adapter.getUser(user.id);
        expect(read).toMatchObject({ ...defined(user), name: 'Grace Hopper', emailVerified: verifiedAt });
        expect(read?.emailVerified).toBeInstanceOf(Date);
        expect(read?.emailVerified?.getTime()).toBe(verifiedAt.getTime());
      });

      test('results are copies: mutating one does not change the store', ['createUser', 'getUser'], async () => {
        const user = await createUser();
        const read = await adapter.getUser(user.id);
        if (!read) throw new Error('user not found');
        read.name = 'mutated';
        read.emailVerified?.setTime(0);
        const again = await adapter.getUser(user.id);
        expect(again?.name).toBe(user.name);
        expect(again?.emailVerified?.getTime()).toBe(user.emailVerified?.getTime());
      });

      test('deleteUser removes the user and cascades to sessions, accounts and authenticators', [
        'createUser', 'deleteUser', 'getUser', 'linkAccount', 'getAccount', 'getUserByAccount', 'createSession',
        'getSessionAndUser', 'createAuthenticator', 'getAuthenticator', 'listAuthenticatorsByUserId',
      ], async () => {
        const user = await createUser();
        const other = await createUser();
        const account = await linked(user.id);
        const otherAccount = await linked(other.id);
        const sessionToken = randomUUID();
        await adapter.createSession({ sessionToken, userId: user.id, expires: futureDate(30) });
        const otherSession = randomUUID();
        await adapter.createSession({ sessionToken: otherSession, userId: other.id, expires: futureDate(30) });
        const authenticator = await adapter.createAuthenticator(newAuthenticator(user.id));

        await adapter.deleteUser(user.id);

        expect(await adapter.getUser(user.id)).toBeNull();
        expect(await adapter.getSessionAndUser(sessionToken)).toBeNull();
        expect(await adapter.getAccount(account.providerAccountId, account.provider)).toBeNull();
        expect(await adapter.getUserByAccount(account)).toBeNull();
        expect(await adapter.getAuthenticator(authenticator.credentialID)).toBeNull();
        expect(await adapter.listAuthenticatorsByUserId(user.id)).toEqual([]);
        for (const row of [
          await raw(db.user, user.id),
          await raw(db.session, sessionToken),
          await raw(db.account, account.provider, account.providerAccountId),
          await raw(db.authenticator, authenticator.credentialID),
        ]) if (row !== 'unchecked') expect(row).toBeNull();
        // Nobody else's data goes with it.
        expect(await adapter.getUser(other.id)).not.toBeNull();
        expect(await adapter.getSessionAndUser(otherSession)).not.toBeNull();
        expect(await adapter.getAccount(otherAccount.providerAccountId, otherAccount.provider)).not.toBeNull();
      });
    });

    /** Links a fresh account to `userId` and returns what was linked. */
    const linked = async (userId: string, overrides: Partial<AdapterAccount> = {}): Promise<AdapterAccount> => {
      const account = newAccount(userId, overrides);
      await adapter.linkAccount(account);
      return account;
    };

    describe('accounts', () => {
      test('linkAccount stores every token field (a long id_token too) and getAccount returns them', ['createUser', 'linkAccount', 'getAccount'], async () => {
        const user = await createUser();
        const account = await linked(user.id);
        const read = await adapter.getAccount(account.providerAccountId, account.provider);
        expect(read).toMatchObject(account);
        expect(typeof read?.expires_at).toBe('number');
        const row = await raw(db.account, account.provider, account.providerAccountId);
        if (row !== 'unchecked') expect(row).toMatchObject({ provider: account.provider, providerAccountId: account.providerAccountId, id_token: account.id_token });
      });

      test('linkAccount accepts an account with no tokens (email, webauthn)', ['createUser', 'linkAccount', 'getAccount'], async () => {
        const user = await createUser();
        const account: AdapterAccount = { userId: user.id, type: 'email', provider: 'email', providerAccountId: user.email };
        await adapter.linkAccount(account);
        expect(await adapter.getAccount(user.email, 'email')).toMatchObject(account);
      });

      test('linkAccount refuses a second account with the same (provider, providerAccountId)', ['createUser', 'linkAccount', 'getUserByAccount'], async () => {
        const user = await createUser();
        const other = await createUser();
        const account = await linked(user.id);
        await expect(Promise.resolve().then(() => adapter.linkAccount({ ...account, userId: other.id }))).rejects.toThrow();
        await expect(Promise.resolve().then(() => adapter.linkAccount({ ...account }))).rejects.toThrow();
        expect((await adapter.getUserByAccount(account))?.id).toBe(user.id);
      });

      test('the same providerAccountId at two providers is two accounts', ['createUser', 'linkAccount', 'getAccount'], async () => {
        const user = await createUser();
        const account = await linked(user.id);
        await adapter.linkAccount({ ...account, provider: 'another-provider' });
        expect(await adapter.getAccount(account.providerAccountId, 'another-provider')).not.toBeNull();
        expect(await adapter.getAccount(account.providerAccountId, account.provider)).not.toBeNull();
      });

      test(`concurrent linkAccount calls for one provider account: exactly one wins`, ['createUser', 'linkAccount', 'getUserByAccount'], async () => {
        const users = await Promise.all(Array.from({ length: 5 }, () => createUser()));
        const account = newAccount(users[0]!.id);
        const results = await Promise.allSettled(
          Array.from({ length: Math.min(concurrency, 20) }, (_, i) =>
            Promise.resolve().then(() => adapter.linkAccount({ ...account, userId: users[i % users.length]!.id }))),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const winner = results.findIndex((r) => r.status === 'fulfilled');
        expect((await adapter.getUserByAccount(account))?.id).toBe(users[winner % users.length]!.id);
      });

      test('getAccount returns null when provider or providerAccountId does not match', ['createUser', 'linkAccount', 'getAccount'], async () => {
        const user = await createUser();
        const account = await linked(user.id);
        expect(await adapter.getAccount('unknown-account-id', 'unknown-provider')).toBeNull();
        expect(await adapter.getAccount(account.providerAccountId, 'unknown-provider')).toBeNull();
        expect(await adapter.getAccount('unknown-account-id', account.provider)).toBeNull();
      });

      test('unlinkAccount removes that (provider, providerAccountId) only', ['createUser', 'linkAccount', 'unlinkAccount', 'getAccount', 'getUser'], async () => {
        const user = await createUser();
        const account = await linked(user.id);
        const kept = await linked(user.id, { provider: 'kept-provider' });
        await adapter.unlinkAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
        expect(await adapter.getAccount(account.providerAccountId, account.provider)).toBeNull();
        const row = await raw(db.account, account.provider, account.providerAccountId);
        if (row !== 'unchecked') expect(row).toBeNull();
        expect(await adapter.getAccount(kept.providerAccountId, kept.provider)).not.toBeNull();
        expect(await adapter.getUser(user.id)).not.toBeNull();
        // Unlinking again is harmless.
        await adapter.unlinkAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
      });
    });

    describe('sessions', () => {
      test('createSession stores the session; getSessionAndUser returns it with its user, expires as Date', ['createUser', 'createSession', 'getSessionAndUser'], async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        expect(await adapter.createSession(session)).toMatchObject(session);
        const found = await adapter.getSessionAndUser(session.sessionToken);
        expect(found).toMatchObject({ session, user: defined(user) });
        expect(found?.session.expires).toBeInstanceOf(Date);
        expect(found?.session.expires.getTime()).toBe(session.expires.getTime());
        expect(found?.user.emailVerified).toBeInstanceOf(Date);
        const row = await raw(db.session, session.sessionToken);
        if (row !== 'unchecked') expect(row).toMatchObject({ sessionToken: session.sessionToken, userId: user.id });
      });

      test('getSessionAndUser returns null for an unknown token', ['getSessionAndUser'], async () => {
        expect(await adapter.getSessionAndUser(randomUUID())).toBeNull();
      });

      test('createSession refuses a duplicate session token', ['createUser', 'createSession'], async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        await adapter.createSession(session);
        await expect(Promise.resolve().then(() => adapter.createSession(session))).rejects.toThrow();
      });

      test('updateSession changes the expiry', ['createUser', 'createSession', 'updateSession', 'getSessionAndUser'], async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(1) };
        await adapter.createSession(session);
        const expires = futureDate(60);
        const updated = await adapter.updateSession({ sessionToken: session.sessionToken, expires });
        if (updated) expect(updated).toMatchObject({ ...session, expires });
        const found = await adapter.getSessionAndUser(session.sessionToken);
        expect(found?.session.expires.getTime()).toBe(expires.getTime());
      });

      test('updateSession of an unknown token creates nothing', ['updateSession', 'getSessionAndUser'], async () => {
        const sessionToken = randomUUID();
        expect((await adapter.updateSession({ sessionToken, expires: futureDate(5) })) ?? null).toBeNull();
        expect(await adapter.getSessionAndUser(sessionToken)).toBeNull();
      });

      test('deleteSession removes the session; deleting an unknown token is harmless', ['createUser', 'createSession', 'deleteSession', 'getSessionAndUser'], async () => {
        const user = await createUser();
        const session = { sessionToken: randomUUID(), userId: user.id, expires: futureDate(30) };
        await adapter.createSession(session);
        await adapter.deleteSession(session.sessionToken);
        expect(await adapter.getSessionAndUser(session.sessionToken)).toBeNull();
        const row = await raw(db.session, session.sessionToken);
        if (row !== 'unchecked') expect(row).toBeNull();
        await adapter.deleteSession(randomUUID());
      });
    });

    describe('optional methods beyond the contract', () => {
      const extended = () => adapter as unknown as Required<SessionsByUserAdapter & VerificationTokensByIdentifierAdapter>;
      const optional = (name: string, extension: ConformanceExtension, needs: AdapterMethod[], fn: () => Promise<void>): void => {
        (extensions.has(extension) && needs.every((m) => supported.has(m)) ? it : it.skip)(name, fn);
      };

      optional('deleteSessionsByUserId deletes that user\'s sessions, no one else\'s, and says how many', 'deleteSessionsByUserId', ['createUser', 'createSession', 'getSessionAndUser'], async () => {
        const [mine, theirs] = [await createUser(), await createUser()];
        const tokens = [randomUUID(), randomUUID(), randomUUID()];
        await adapter.createSession({ sessionToken: tokens[0]!, userId: mine.id, expires: futureDate(30) });
        await adapter.createSession({ sessionToken: tokens[1]!, userId: mine.id, expires: futureDate(30) });
        await adapter.createSession({ sessionToken: tokens[2]!, userId: theirs.id, expires: futureDate(30) });
        expect(await extended().deleteSessionsByUserId(mine.id)).toBe(2);
        expect(await adapter.getSessionAndUser(tokens[0]!)).toBeNull();
        expect(await adapter.getSessionAndUser(tokens[1]!)).toBeNull();
        expect(await adapter.getSessionAndUser(tokens[2]!)).not.toBeNull();
        expect(await extended().deleteSessionsByUserId(mine.id)).toBe(0);
      });

      optional('deleteVerificationTokensByIdentifier deletes that exact identifier\'s tokens only', 'deleteVerificationTokensByIdentifier', ['createVerificationToken', 'useVerificationToken'], async () => {
        const tag = randomUUID().slice(0, 8);
        const mine = `mine-${tag}@example.com`;
        const other = `other-${tag}@example.com`;
        const expires = futureDate(1);
        for (const [identifier, token] of [[mine, `a-${tag}`], [mine, `b-${tag}`], [mine.toUpperCase(), `c-${tag}`], [other, `d-${tag}`]] as const) {
          await adapter.createVerificationToken({ identifier, token, expires });
        }
        expect(await extended().deleteVerificationTokensByIdentifier(mine)).toBe(2);
        expect(await adapter.useVerificationToken({ identifier: mine, token: `a-${tag}` })).toBeNull();
        // Identifiers compare exactly, as tokens do (no case folding).
        expect(await adapter.useVerificationToken({ identifier: mine.toUpperCase(), token: `c-${tag}` })).not.toBeNull();
        expect(await adapter.useVerificationToken({ identifier: other, token: `d-${tag}` })).not.toBeNull();
      });
    });

    describe('verification tokens', () => {
      const newToken = (): VerificationToken => ({ identifier: `vt-${randomUUID()}@example.com`, token: hashedToken(), expires: futureDate(1) });

      test('createVerificationToken stores the token, expires as Date', ['createVerificationToken', 'useVerificationToken'], async () => {
        const token = newToken();
        const created = await adapter.createVerificationToken(token);
        if (created) expect(created).toEqual(token);
        const row = await raw(db.verificationToken, token.identifier, token.token);
        if (row !== 'unchecked') expect(row).toMatchObject({ identifier: token.identifier, token: token.token });
        const used = await adapter.useVerificationToken(token);
        expect(used).toEqual(token);
        expect(used?.expires).toBeInstanceOf(Date);
      });

      test('useVerificationToken returns the token once and only once', ['createVerificationToken', 'useVerificationToken'], async () => {
        const token = newToken();
        await adapter.createVerificationToken(token);
        expect(await adapter.useVerificationToken({ identifier: token.identifier, token: token.token })).toEqual(token);
        expect(await adapter.useVerificationToken({ identifier: token.identifier, token: token.token })).toBeNull();
        const row = await raw(db.verificationToken, token.identifier, token.token);
        if (row !== 'unchecked') expect(row).toBeNull();
      });

      test('useVerificationToken needs identifier AND token to match, and a mismatch consumes nothing', ['createVerificationToken', 'useVerificationToken'], async () => {
        const token = newToken();
        const sameIdentifier = { ...newToken(), identifier: token.identifier };
        await adapter.createVerificationToken(token);
        await adapter.createVerificationToken(sameIdentifier);
        expect(await adapter.useVerificationToken({ identifier: `other-${randomUUID()}@example.com`, token: token.token })).toBeNull();
        expect(await adapter.useVerificationToken({ identifier: token.identifier, token: hashedToken() })).toBeNull();
        // A differently-cased token is another token (case-insensitive collations must not match it).
        expect(await adapter.useVerificationToken({ identifier: token.identifier, token: token.token.toUpperCase() })).toBeNull();
        expect(await adapter.useVerificationToken({ identifier: token.identifier, token: token.token })).toEqual(token);
        expect(await adapter.useVerificationToken({ identifier: token.identifier, token: sameIdentifier.token })).toEqual(sameIdentifier);
      });

      test(`useVerificationToken under ${concurrency} concurrent calls: exactly one gets the token`, ['createVerificationToken', 'useVerificationToken'], async () => {
        const token = newToken();
        await adapter.createVerificationToken(token);
        const results = await Promise.allSettled(
          Array.from({ length: concurrency }, () => Promise.resolve().then(() => adapter.useVerificationToken({ identifier: token.identifier, token: token.token }))),
        );
        // A losing call returns null; it must not fail.
        expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
        const winners = results.filter((r) => r.status === 'fulfilled' && r.value !== null);
        expect(winners).toHaveLength(1);
        expect((winners[0] as PromiseFulfilledResult<VerificationToken>).value).toEqual(token);
      });
    });

    describe('authenticators', () => {
      test('createAuthenticator stores it; getAuthenticator returns it', ['createUser', 'createAuthenticator', 'getAuthenticator'], async () => {
        const user = await createUser();
        const input = newAuthenticator(user.id);
        expect(await adapter.createAuthenticator(input)).toMatchObject(input);
        const read = await adapter.getAuthenticator(input.credentialID);
        expect(read).toMatchObject(input);
        expect(typeof read?.counter).toBe('number');
        expect(read?.credentialBackedUp).toBe(true);
        const row = await raw(db.authenticator, input.credentialID);
        if (row !== 'unchecked') expect(row).toMatchObject({ credentialID: input.credentialID, userId: user.id });
      });

      test('createAuthenticator keeps transports null and credentialBackedUp false', ['createUser', 'createAuthenticator', 'getAuthenticator'], async () => {
        const user = await createUser();
        const input = newAuthenticator(user.id, { transports: null, credentialBackedUp: false, counter: 0, credentialDeviceType: 'singleDevice' });
        await adapter.createAuthenticator(input);
        const read = await adapter.getAuthenticator(input.credentialID);
        expect(read).toMatchObject({ ...input, transports: null });
      });

      test('createAuthenticator throws for a credential id that exists', ['createUser', 'createAuthenticator', 'getAuthenticator'], async () => {
        const user = await createUser();
        const other = await createUser();
        const input = await adapter.createAuthenticator(newAuthenticator(user.id));
        await expect(Promise.resolve().then(() => adapter.createAuthenticator({ ...newAuthenticator(other.id), credentialID: input.credentialID }))).rejects.toThrow();
        expect((await adapter.getAuthenticator(input.credentialID))?.userId).toBe(user.id);
      });

      test('getAuthenticator returns null for an unknown credential', ['getAuthenticator'], async () => {
        expect(await adapter.getAuthenticator(randomBytes(16).toString('base64url'))).toBeNull();
      });

      test("listAuthenticatorsByUserId lists the user's authenticators, [] for an unknown user", ['createUser', 'createAuthenticator', 'listAuthenticatorsByUserId'], async () => {
        const user = await createUser();
        const other = await createUser();
        const a1 = await adapter.createAuthenticator(newAuthenticator(user.id));
        const a2 = await adapter.createAuthenticator(newAuthenticator(user.id, { transports: 'usb,nfc' }));
        await adapter.createAuthenticator(newAuthenticator(other.id));
        const list = await adapter.listAuthenticatorsByUserId(user.id);
        expect(list).toHaveLength(2);
        expect(list).toEqual(expect.arrayContaining([expect.objectContaining(defined(a1)), expect.objectContaining(defined(a2))]));
        expect(await adapter.listAuthenticatorsByUserId(randomUUID())).toEqual([]);
      });

      test('updateAuthenticatorCounter sets the counter and returns the authenticator', ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'], async () => {
        const user = await createUser();
        const input = await adapter.createAuthenticator(newAuthenticator(user.id, { counter: 10 }));
        const updated = await adapter.updateAuthenticatorCounter(input.credentialID, 11);
        expect(updated).toMatchObject({ ...defined(input), counter: 11 });
        expect((await adapter.getAuthenticator(input.credentialID))?.counter).toBe(11);
      });

      test('updateAuthenticatorCounter throws for an unknown credential', ['updateAuthenticatorCounter', 'getAuthenticator'], async () => {
        const credentialID = randomBytes(16).toString('base64url');
        await expect(Promise.resolve().then(() => adapter.updateAuthenticatorCounter(credentialID, 1))).rejects.toThrow();
        await expect(Promise.resolve().then(() => adapter.updateAuthenticatorCounter(credentialID, 1, 0))).rejects.toThrow();
        expect(await adapter.getAuthenticator(credentialID)).toBeNull();
      });

      test('updateAuthenticatorCounter with expectedCounter is a compare-and-set', ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'], async () => {
        const user = await createUser();
        const input = await adapter.createAuthenticator(newAuthenticator(user.id, { counter: 10 }));
        await expect(Promise.resolve().then(() => adapter.updateAuthenticatorCounter(input.credentialID, 12, 9))).rejects.toThrow();
        expect((await adapter.getAuthenticator(input.credentialID))?.counter).toBe(10);
        expect(await adapter.updateAuthenticatorCounter(input.credentialID, 12, 10)).toMatchObject({ counter: 12 });
        expect((await adapter.getAuthenticator(input.credentialID))?.counter).toBe(12);
      });

      test('concurrent compare-and-set counter updates from the same value: exactly one wins', ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'], async () => {
        const user = await createUser();
        const input = await adapter.createAuthenticator(newAuthenticator(user.id, { counter: 20 }));
        const results = await Promise.allSettled(
          Array.from({ length: Math.min(concurrency, 20) }, (_, i) =>
            Promise.resolve().then(() => adapter.updateAuthenticatorCounter(input.credentialID, 21 + i, 20))),
        );
        const winners = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        expect(winners).toHaveLength(1);
        expect((await adapter.getAuthenticator(input.credentialID))?.counter).toBe(winners[0]!.counter);
      });
    });
  });
}
