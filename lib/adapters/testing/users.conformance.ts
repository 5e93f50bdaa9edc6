import { randomUUID } from 'node:crypto';
import { check } from './conformance-assert.js';
import type { AdapterUser, UserDeletionAdapter } from '../adapter.interface.js';
import type { ConformanceContext } from './conformance-context.js';
import { futureDate, newUser, newAccount, newAuthenticator } from './conformance-fixtures.js';

/** Users: create, read by id, email and account, update, delete with its cascade. */
export function describeUsers(ctx: ConformanceContext): void {
  const { test, raw, db, createUser, linked } = ctx;
  ctx.runner.describe('users', () => {
    test(
      'createUser stores the user and returns it, dates as Date with milliseconds',
      ['createUser', 'getUser'],
      async () => {
        const given = newUser();
        const created = await ctx.adapter.createUser(given);
        // The id is the one given, or one the store made (SERIAL, cuid): a non-empty string either way.
        check.is(typeof created.id, 'string');
        check.is(created.id.length > 0, true, 'the created user has an empty id');
        const input = { ...given, id: created.id };
        check.equals(created, input);
        check.instanceOf(created.emailVerified, Date);
        const read = await ctx.adapter.getUser(input.id);
        check.equals(read, input);
        check.instanceOf(read?.emailVerified, Date);
        check.is(read?.emailVerified?.getTime(), input.emailVerified?.getTime());
        const row = await raw(db.user, input.id);
        if (row !== 'unchecked') check.matches(row, { email: input.email });
      },
    );

    test(
      'createUser keeps emailVerified null and optional fields absent or null',
      ['createUser', 'getUser'],
      async () => {
        const given: AdapterUser = { id: randomUUID(), email: `bare-${randomUUID()}@example.com`, emailVerified: null };
        const created = await ctx.adapter.createUser(given);
        const input = { ...given, id: created.id };
        const read = await ctx.adapter.getUser(input.id);
        // name and image are `string | null` (SPEC 2.8): absent or null, and nothing else.
        for (const user of [created, read]) {
          check.isNull(user?.emailVerified);
          check.equals(user, { ...input, ...nullsOf(user, ['name', 'image']) });
        }
      },
    );

    ctx.testUnique(
      'createUser refuses a second user with the same email',
      ['createUser', 'getUserByEmail'],
      async () => {
        const first = await createUser();
        await check.rejects(Promise.resolve().then(() => ctx.adapter.createUser(newUser({ email: first.email }))));
        check.is((await ctx.adapter.getUserByEmail(first.email))?.id, first.id);
      },
    );

    test('getUser returns null (not undefined) for an unknown id', ['getUser'], async () => {
      check.isNull(await ctx.adapter.getUser(randomUUID()));
    });

    test(
      'getUserByEmail finds the user, and returns null for an unknown email',
      ['createUser', 'getUserByEmail'],
      async () => {
        const user = await createUser();
        check.equals(await ctx.adapter.getUserByEmail(user.email), user);
        check.isNull(await ctx.adapter.getUserByEmail(`nobody-${randomUUID()}@example.com`));
      },
    );

    test(
      'getUserByAccount finds the user by (provider, providerAccountId), null otherwise',
      ['createUser', 'linkAccount', 'getUserByAccount'],
      async () => {
        const user = await createUser();
        const account = newAccount(user.id);
        await ctx.adapter.linkAccount(account);
        check.equals(
          await ctx.adapter.getUserByAccount({
            provider: account.provider,
            providerAccountId: account.providerAccountId,
          }),
          user,
        );
        check.isNull(
          await ctx.adapter.getUserByAccount({
            provider: 'other-provider',
            providerAccountId: account.providerAccountId,
          }),
        );
        check.isNull(
          await ctx.adapter.getUserByAccount({ provider: account.provider, providerAccountId: randomUUID() }),
        );
      },
    );

    test(
      'updateUser changes the given fields only and returns the whole user',
      ['createUser', 'updateUser', 'getUser'],
      async () => {
        const user = await createUser({ emailVerified: null });
        const verifiedAt = futureDate(-1);
        const updated = await ctx.adapter.updateUser({ id: user.id, name: 'Grace Hopper', emailVerified: verifiedAt });
        check.equals(updated, { ...user, name: 'Grace Hopper', emailVerified: verifiedAt });
        const read = await ctx.adapter.getUser(user.id);
        check.equals(read, { ...user, name: 'Grace Hopper', emailVerified: verifiedAt });
        check.instanceOf(read?.emailVerified, Date);
        check.is(read?.emailVerified?.getTime(), verifiedAt.getTime());
      },
    );

    test('results are copies: mutating one does not change the store', ['createUser', 'getUser'], async () => {
      const user = await createUser();
      const read = await ctx.adapter.getUser(user.id);
      if (!read) throw new Error('user not found');
      read.name = 'mutated';
      read.emailVerified?.setTime(0);
      const again = await ctx.adapter.getUser(user.id);
      check.is(again?.name, user.name);
      check.is(again?.emailVerified?.getTime(), user.emailVerified?.getTime());
    });

    test(
      'deleteUser removes the user and cascades to sessions, accounts and authenticators',
      [
        'createUser',
        'deleteUser',
        'getUser',
        'linkAccount',
        'getAccount',
        'getUserByAccount',
        'createSession',
        'getSessionAndUser',
        'createAuthenticator',
        'getAuthenticator',
        'listAuthenticatorsByUserId',
      ],
      async () => {
        const user = await createUser();
        const other = await createUser();
        const account = await linked(user.id);
        const otherAccount = await linked(other.id);
        const sessionToken = randomUUID();
        await ctx.adapter.createSession({ sessionToken, userId: user.id, expires: futureDate(30) });
        const otherSession = randomUUID();
        await ctx.adapter.createSession({ sessionToken: otherSession, userId: other.id, expires: futureDate(30) });
        const authenticator = await ctx.adapter.createAuthenticator(newAuthenticator(user.id));

        const deleted = await ctx.adapter.deleteUser(user.id);
        if (deleted) check.equals(deleted, user);

        check.isNull(await ctx.adapter.getUser(user.id));
        check.isNull(await ctx.adapter.getSessionAndUser(sessionToken));
        check.isNull(await ctx.adapter.getAccount(account.providerAccountId, account.provider));
        check.isNull(await ctx.adapter.getUserByAccount(account));
        check.isNull(await ctx.adapter.getAuthenticator(authenticator.credentialID));
        check.equals(await ctx.adapter.listAuthenticatorsByUserId(user.id), []);
        for (const row of [
          await raw(db.user, user.id),
          await raw(db.session, sessionToken),
          await raw(db.account, account.provider, account.providerAccountId),
          await raw(db.authenticator, authenticator.credentialID),
        ])
          if (row !== 'unchecked') check.isNull(row);
        // Nobody else's data goes with it.
        check.notNull(await ctx.adapter.getUser(other.id));
        check.notNull(await ctx.adapter.getSessionAndUser(otherSession));
        check.notNull(await ctx.adapter.getAccount(otherAccount.providerAccountId, otherAccount.provider));
      },
    );

    ctx.testExtension(
      "deleteUserCascade removes the user, its sessions, accounts, authenticators and its address's tokens; no one else's",
      'deleteUserCascade',
      [
        'createUser',
        'getUser',
        'linkAccount',
        'getAccount',
        'createSession',
        'getSessionAndUser',
        'createVerificationToken',
        'useVerificationToken',
      ],
      async () => {
        const cascade = (id: string) => (ctx.adapter as unknown as UserDeletionAdapter).deleteUserCascade(id);
        const [user, other] = [await createUser(), await createUser()];
        const account = await linked(user.id);
        const otherAccount = await linked(other.id);
        const [mine, theirs] = [randomUUID(), randomUUID()];
        await ctx.adapter.createSession({ sessionToken: mine, userId: user.id, expires: futureDate(30) });
        await ctx.adapter.createSession({ sessionToken: theirs, userId: other.id, expires: futureDate(30) });
        for (const u of [user, other])
          await ctx.adapter.createVerificationToken({
            identifier: u.email,
            token: `t-${u.id}`,
            expires: futureDate(1),
          });
        const withAuthenticators = ctx.supported.has('createAuthenticator') && ctx.supported.has('getAuthenticator');
        const authenticator = withAuthenticators
          ? await ctx.adapter.createAuthenticator(newAuthenticator(user.id))
          : null;

        check.equals(await cascade(user.id), user);
        check.isNull(await ctx.adapter.getUser(user.id));
        check.isNull(await ctx.adapter.getSessionAndUser(mine));
        check.isNull(await ctx.adapter.getAccount(account.providerAccountId, account.provider));
        if (authenticator) check.isNull(await ctx.adapter.getAuthenticator(authenticator.credentialID));
        for (const row of [
          await raw(db.user, user.id),
          await raw(db.session, mine),
          await raw(db.account, account.provider, account.providerAccountId),
          await raw(db.verificationToken, user.email, `t-${user.id}`),
        ])
          if (row !== 'unchecked') check.isNull(row);
        check.isNull(await ctx.adapter.useVerificationToken({ identifier: user.email, token: `t-${user.id}` }));
        // Nobody else's data goes with it; an unknown user deletes nothing and answers null.
        check.notNull(await ctx.adapter.getUser(other.id));
        check.notNull(await ctx.adapter.getSessionAndUser(theirs));
        check.notNull(await ctx.adapter.getAccount(otherAccount.providerAccountId, otherAccount.provider));
        check.isNull(await cascade(user.id));
        check.isNull(await cascade(randomUUID()));
        check.notNull(await ctx.adapter.useVerificationToken({ identifier: other.email, token: `t-${other.id}` }));
      },
    );
  });
}

/** The given fields of `value` that are present and null (absent ones stay absent). */
function nullsOf(value: object | null | undefined, fields: string[]): Record<string, null> {
  return Object.fromEntries(fields.filter((f) => value && f in value).map((f) => [f, null]));
}
