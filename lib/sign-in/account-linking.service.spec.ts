import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import { MemoryAdapter } from '../adapters/memory.adapter.js';
import { AUTH_SERVICES } from '../auth.providers.js';
import {
  AccountNotLinked,
  InvalidProvider,
  OAuthAccountNotLinked,
  ReauthenticationRequired,
} from '../errors/auth.errors.js';
import { Passkey } from '../methods/webauthn/webauthn.provider.js';
import type { Account, User } from '../types/common.types.js';
import { AccountLinkingService } from './account-linking.service.js';
import { createAuthTestbed, everyProvider, rejectionOf } from './fixtures/auth-testbed.fixture.js';
import type { SignInInput } from './sign-in.types.js';
import type { ActiveSession } from './ways-in.gate.js';

const GITHUB: Account = { provider: 'idp', providerAccountId: 'gh-42', type: 'oauth', access_token: 'at' };
const PASSKEY: Account = { provider: 'passkey', providerAccountId: 'cred-1', type: 'webauthn' };

describe('AccountLinkingService', () => {
  let linking: AccountLinkingService;
  let adapter: MemoryAdapter;
  let ada: AdapterUser;
  let updated: unknown[];

  async function setup(providers = everyProvider()) {
    updated = [];
    const bed = await createAuthTestbed(
      { providers, events: { updateUser: (m) => void updated.push(m.user) } },
      AUTH_SERVICES,
    );
    linking = bed.get(AccountLinkingService);
    adapter = bed.adapter!;
    ada = await adapter.createUser({ id: 'ada', email: 'ada@example.com', emailVerified: null, name: 'Ada' });
  }
  beforeEach(() => setup());

  const input = (account: Account, user: User = {}): SignInInput => ({ account, user });
  /** A cookie session of `id` that signed in `agoSeconds` ago (the default window is 600 s). */
  const signedIn = (id: string, user: User = {}, agoSeconds = 5): ActiveSession => ({
    status: 'active',
    user: { ...user, id },
    session: { user: { id }, expires: new Date(Date.now() + 3600_000).toISOString() },
    strategy: 'database',
    sessionToken: `token-of-${id}`,
    bearer: false,
    signedInAt: new Date(Date.now() - agoSeconds * 1000),
  });
  const stale = (id: string) => signedIn(id, {}, 601);
  const link = (account: Account, userId: string) => adapter.linkAccount({ ...account, userId } as never);

  describe('OAuth and WebAuthn accounts', () => {
    it('signs a known account in as its user', async () => {
      await link(GITHUB, 'ada');
      expect(await linking.resolve(input(GITHUB), ada, null)).toEqual({ user: ada, isNewUser: false });
    });

    it.each([
      ['an OAuth account', GITHUB, OAuthAccountNotLinked],
      ['a passkey', PASSKEY, AccountNotLinked],
    ])('refuses %s of another user while signed in', async (_label, account, error) => {
      await link(account, 'ada');
      expect(await rejectionOf(linking.resolve(input(account), ada, signedIn('someone-else')))).toBeInstanceOf(error);
    });

    it('links a new account to the signed-in user', async () => {
      const resolved = await linking.resolve(input(GITHUB, { email: 'other@example.com' }), null, signedIn('ada'));
      expect(resolved).toMatchObject({
        user: { id: 'ada', name: 'Ada' },
        isNewUser: false,
        linked: { provider: 'idp', providerAccountId: 'gh-42', userId: 'ada', access_token: 'at' },
      });
      expect(await adapter.getUserByAccount(GITHUB)).toMatchObject({ id: 'ada' });
    });

    it.each([
      ['an OAuth account', GITHUB],
      ['a passkey', PASSKEY],
    ])('refuses to link %s to a session older than recentSignInMaxAge, writing nothing', async (_label, account) => {
      expect(
        await rejectionOf(linking.resolve(input(account, { email: 'other@example.com' }), null, stale('ada'))),
      ).toBeInstanceOf(ReauthenticationRequired);
      expect(await adapter.getUserByAccount(account)).toBeNull();
      // A session whose sign-in time is unknown is not recent either.
      const unknown = { ...signedIn('ada'), signedInAt: null };
      expect(await rejectionOf(linking.resolve(input(account), null, unknown))).toBeInstanceOf(
        ReauthenticationRequired,
      );
      expect(await adapter.getUserByAccount(account)).toBeNull();
    });

    it.each([
      ['an OAuth account', GITHUB, OAuthAccountNotLinked],
      ['a passkey', PASSKEY, AccountNotLinked],
    ])(
      'refuses to link %s to a signed-in user storage does not hold (a JWT credentials session), writing nothing',
      async (_label, account, error) => {
        expect(
          await rejectionOf(linking.resolve(input(account), null, signedIn('u1', { name: 'password user' }))),
        ).toBeInstanceOf(error);
        expect(await adapter.getUserByAccount(account)).toBeNull();
      },
    );

    it('stores the storedAccount when one is given', async () => {
      await linking.resolve(
        { ...input(GITHUB), storedAccount: { ...GITHUB, access_token: undefined } },
        null,
        signedIn('ada'),
      );
      expect((await adapter.getAccount('gh-42', 'idp'))?.access_token).toBeUndefined();
    });

    it('refuses a new account whose email belongs to another user (no linking by email)', async () => {
      expect(
        await rejectionOf(linking.resolve(input(GITHUB, { email: 'ada@example.com' }), null, null)),
      ).toBeInstanceOf(OAuthAccountNotLinked);
      expect(await adapter.getUserByAccount(GITHUB)).toBeNull();
    });

    it('links by email with allowDangerousEmailAccountLinking, into a user whose address was proven', async () => {
      await setup(everyProvider([], { allowDangerousEmailAccountLinking: true }));
      await adapter.updateUser({ id: 'ada', emailVerified: new Date() });
      const resolved = await linking.resolve(input(GITHUB, { email: 'ada@example.com' }), null, null);
      expect(resolved).toMatchObject({ user: { id: 'ada' }, isNewUser: false, linked: { userId: 'ada' } });
    });

    it('never links by email into a user whose address nobody proved, even with allowDangerousEmailAccountLinking', async () => {
      await setup(everyProvider([], { allowDangerousEmailAccountLinking: true }));
      expect(
        await rejectionOf(linking.resolve(input(GITHUB, { email: 'ada@example.com' }), null, null)),
      ).toBeInstanceOf(OAuthAccountNotLinked);
      expect(await adapter.getUserByAccount(GITHUB)).toBeNull();
    });

    it('never links a passkey by email, whatever the provider says', async () => {
      await setup([...everyProvider().slice(0, 3), Passkey({ allowDangerousEmailAccountLinking: true } as never)]);
      expect(
        await rejectionOf(linking.resolve(input(PASSKEY, { id: 'new-id', email: 'ada@example.com' }), null, null)),
      ).toBeInstanceOf(AccountNotLinked);
    });

    it('finds the winner when a concurrent first sign-in links the account meanwhile', async () => {
      const pending = linking.resolve(input(GITHUB, { email: 'ada@example.com' }), null, null);
      await link(GITHUB, 'ada');
      expect(await pending).toEqual({ user: ada, isNewUser: false });
    });

    it('creates a new OAuth user with a server id and an unverified address, and links the account', async () => {
      const resolved = await linking.resolve(
        input(GITHUB, { id: 'chosen-by-idp', email: 'new@example.com', name: 'New' }),
        null,
        null,
      );
      expect(resolved).toMatchObject({
        isNewUser: true,
        created: true,
        user: { email: 'new@example.com', emailVerified: null },
      });
      expect(resolved.user.id).not.toBe('chosen-by-idp');
      expect(await adapter.getUserByAccount(GITHUB)).toMatchObject({ id: resolved.user.id });
    });

    it.each([
      ['email_verified: true for that address', { email: 'New@Example.com', email_verified: true }, true],
      ['email_verified: false', { email: 'new@example.com', email_verified: false }, false],
      ['the string "true"', { email: 'new@example.com', email_verified: 'true' }, false],
      ['email_verified for another address', { email: 'other@example.com', email_verified: true }, false],
      ['no email_verified', { email: 'new@example.com' }, false],
    ])(
      'a new OAuth user has a proven address only when the provider vouched for it: %s',
      async (_l, profile, proven) => {
        const resolved = await linking.resolve(
          { ...input(GITHUB, { email: 'new@example.com' }), profile: profile as never },
          null,
          null,
        );
        expect((resolved.user as AdapterUser).emailVerified instanceof Date).toBe(proven);
      },
    );

    it('creates a passkey user under the id sealed in the challenge', async () => {
      const resolved = await linking.resolve(input(PASSKEY, { id: 'sealed-id', email: 'new@example.com' }), null, null);
      expect(resolved.user.id).toBe('sealed-id');
    });
  });

  describe('email', () => {
    const EMAIL: Account = { provider: 'email', providerAccountId: 'ada@example.com', type: 'email' };

    it("gives the mailbox's owner a new user when the holder's address was never proven; the holder loses the address", async () => {
      await link(GITHUB, 'ada');
      const resolved = await linking.resolve(input(EMAIL, { email: 'ada@example.com' }), ada, null);
      expect(resolved).toMatchObject({ isNewUser: true, created: true, user: { email: 'ada@example.com' } });
      expect(resolved.user.id).not.toBe('ada');
      expect((resolved.user as AdapterUser).emailVerified).toBeInstanceOf(Date);
      // The unverified user keeps its other ways in, without the address.
      expect(await adapter.getUser('ada')).toMatchObject({ email: null, emailVerified: null });
      expect(await adapter.getUserByAccount(GITHUB)).toMatchObject({ id: 'ada' });
      expect(await adapter.getUserByEmail('ada@example.com')).toMatchObject({ id: resolved.user.id });
      await new Promise((resolve) => setImmediate(resolve));
      expect(updated).toMatchObject([{ id: 'ada', email: null }]);
    });

    it("puts the holder's address back when the new user cannot be created", async () => {
      // The adapter's methods are read once, when the module starts: spy before it does.
      const createUser = jest.spyOn(MemoryAdapter.prototype, 'createUser');
      try {
        await setup();
        createUser.mockRejectedValueOnce(new Error('database down'));
        expect(await rejectionOf(linking.resolve(input(EMAIL, { email: 'ada@example.com' }), ada, null))).toMatchObject(
          {
            type: 'AdapterError',
          },
        );
      } finally {
        createUser.mockRestore();
      }
      expect(await adapter.getUser('ada')).toMatchObject({ email: 'ada@example.com', emailVerified: null });
    });

    it('signs a confirmed user in unchanged', async () => {
      const verified = await adapter.updateUser({ id: 'ada', emailVerified: new Date(0) });
      expect(await linking.resolve(input(EMAIL, { email: 'ada@example.com' }), verified, null)).toEqual({
        user: verified,
        isNewUser: false,
      });
    });

    it('confirms the address of the signed-in user (a recent sign-in), with an updateUser event', async () => {
      const resolved = await linking.resolve(input(EMAIL, { email: 'ada@example.com' }), ada, signedIn('ada'));
      expect(resolved).toMatchObject({ isNewUser: false, user: { id: 'ada' } });
      expect((await adapter.getUser('ada'))?.emailVerified).toBeInstanceOf(Date);
      await new Promise((resolve) => setImmediate(resolve));
      expect(updated).toHaveLength(1);
    });

    it('refuses to confirm the address from a session older than recentSignInMaxAge, writing nothing', async () => {
      expect(
        await rejectionOf(linking.resolve(input(EMAIL, { email: 'ada@example.com' }), ada, stale('ada'))),
      ).toBeInstanceOf(ReauthenticationRequired);
      expect(await adapter.getUser('ada')).toMatchObject({ email: 'ada@example.com', emailVerified: null });
    });

    it('never lands in an unconfirmed passkey user unless signed in as that user', async () => {
      await link(PASSKEY, 'ada');
      await adapter.createAuthenticator({
        credentialID: 'cred-1',
        providerAccountId: 'cred-1',
        userId: 'ada',
        credentialPublicKey: 'k',
        counter: 0,
        credentialDeviceType: 'singleDevice',
        credentialBackedUp: false,
        transports: null,
      });
      const owner = await linking.resolve(input(EMAIL, { email: 'ada@example.com' }), ada, null);
      expect(owner.user.id).not.toBe('ada');
      expect(await adapter.getUserByAccount(PASSKEY)).toMatchObject({ id: 'ada', email: null });
    });

    it('creates a new user with a confirmed address', async () => {
      const resolved = await linking.resolve(
        input({ ...EMAIL, providerAccountId: 'bob@example.com' }, { email: 'bob@example.com' }),
        null,
        null,
      );
      expect(resolved).toMatchObject({ isNewUser: true, created: true, user: { email: 'bob@example.com' } });
      expect((resolved.user as AdapterUser).emailVerified).toBeInstanceOf(Date);
    });
  });

  describe('credentials', () => {
    const CREDS: Account = { provider: 'credentials', providerAccountId: 'ada', type: 'credentials' };

    it('links the credentials account to the stored user with the id authorize returned', async () => {
      const resolved = await linking.resolve(input(CREDS, { id: 'ada' }), null, null);
      expect(resolved).toMatchObject({
        user: { id: 'ada' },
        isNewUser: false,
        linked: { type: 'credentials', userId: 'ada' },
      });
    });

    it('creates the user under that id when none is stored', async () => {
      const resolved = await linking.resolve(
        input({ ...CREDS, providerAccountId: 'u7' }, { id: 'u7', name: 'Seven' }),
        null,
        null,
      );
      expect(resolved).toMatchObject({ user: { id: 'u7', name: 'Seven' }, isNewUser: true, created: true });
      expect(await adapter.getUserByAccount({ provider: 'credentials', providerAccountId: 'u7' })).toMatchObject({
        id: 'u7',
      });
    });
  });

  it('refuses an unknown account type', async () => {
    expect(await rejectionOf(linking.resolve(input({ ...GITHUB, type: 'saml' as never }), null, null))).toBeInstanceOf(
      InvalidProvider,
    );
  });
});
