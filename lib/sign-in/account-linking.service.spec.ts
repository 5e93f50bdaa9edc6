import { beforeEach, describe, expect, it } from '@jest/globals';
import type { AdapterUser } from '../adapters/adapter.interface.js';
import type { MemoryAdapter } from '../adapters/memory.adapter.js';
import { AUTH_SERVICES } from '../auth.providers.js';
import { AccountNotLinked, InvalidProvider, OAuthAccountNotLinked } from '../errors/auth.errors.js';
import { Passkey } from '../providers/webauthn.provider.js';
import type { Account, User } from '../types/common.types.js';
import { AccountLinkingService } from './account-linking.service.js';
import { createAuthTestbed, everyProvider, rejectionOf } from './fixtures/auth-testbed.fixture.js';
import type { SignInInput } from './sign-in.types.js';

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
      expect(await rejectionOf(linking.resolve(input(account), ada, { id: 'someone-else' }))).toBeInstanceOf(error);
    });

    it('links a new account to the signed-in user', async () => {
      const resolved = await linking.resolve(input(GITHUB, { email: 'other@example.com' }), null, { id: 'ada' });
      expect(resolved).toMatchObject({
        user: { id: 'ada', name: 'Ada' },
        isNewUser: false,
        linked: { provider: 'idp', providerAccountId: 'gh-42', userId: 'ada', access_token: 'at' },
      });
      expect(await adapter.getUserByAccount(GITHUB)).toMatchObject({ id: 'ada' });
    });

    it.each([
      ['an OAuth account', GITHUB, OAuthAccountNotLinked],
      ['a passkey', PASSKEY, AccountNotLinked],
    ])(
      'refuses to link %s to a signed-in user storage does not hold (a JWT credentials session), writing nothing',
      async (_label, account, error) => {
        expect(
          await rejectionOf(linking.resolve(input(account), null, { id: 'u1', name: 'password user' })),
        ).toBeInstanceOf(error);
        expect(await adapter.getUserByAccount(account)).toBeNull();
      },
    );

    it('stores the storedAccount when one is given', async () => {
      await linking.resolve({ ...input(GITHUB), storedAccount: { ...GITHUB, access_token: undefined } }, null, {
        id: 'ada',
      });
      expect((await adapter.getAccount('gh-42', 'idp'))?.access_token).toBeUndefined();
    });

    it('refuses a new account whose email belongs to another user (no linking by email)', async () => {
      expect(
        await rejectionOf(linking.resolve(input(GITHUB, { email: 'ada@example.com' }), null, null)),
      ).toBeInstanceOf(OAuthAccountNotLinked);
      expect(await adapter.getUserByAccount(GITHUB)).toBeNull();
    });

    it('links by email with allowDangerousEmailAccountLinking', async () => {
      await setup(everyProvider([], { allowDangerousEmailAccountLinking: true }));
      const resolved = await linking.resolve(input(GITHUB, { email: 'ada@example.com' }), null, null);
      expect(resolved).toMatchObject({ user: { id: 'ada' }, isNewUser: false, linked: { userId: 'ada' } });
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

    it('creates a passkey user under the id sealed in the challenge', async () => {
      const resolved = await linking.resolve(input(PASSKEY, { id: 'sealed-id', email: 'new@example.com' }), null, null);
      expect(resolved.user.id).toBe('sealed-id');
    });
  });

  describe('email', () => {
    const EMAIL: Account = { provider: 'email', providerAccountId: 'ada@example.com', type: 'email' };

    it('confirms the address of a known user on first use, with an updateUser event', async () => {
      const resolved = await linking.resolve(input(EMAIL, { email: 'ada@example.com' }), ada, null);
      expect((resolved.user as AdapterUser).emailVerified).toBeInstanceOf(Date);
      expect((await adapter.getUser('ada'))?.emailVerified).toBeInstanceOf(Date);
      await new Promise((resolve) => setImmediate(resolve));
      expect(updated).toHaveLength(1);
    });

    it('signs a confirmed user in unchanged', async () => {
      const verified = await adapter.updateUser({ id: 'ada', emailVerified: new Date(0) });
      expect(await linking.resolve(input(EMAIL, { email: 'ada@example.com' }), verified, null)).toEqual({
        user: verified,
        isNewUser: false,
      });
    });

    it('refuses an unconfirmed passkey account unless signed in as its user', async () => {
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
      expect(await rejectionOf(linking.resolve(input(EMAIL, { email: 'ada@example.com' }), ada, null))).toBeInstanceOf(
        AccountNotLinked,
      );
      expect((await adapter.getUser('ada'))?.emailVerified).toBeNull();
      expect(
        ((await linking.resolve(input(EMAIL, { email: 'ada@example.com' }), ada, { id: 'ada' })).user as AdapterUser)
          .emailVerified,
      ).toBeInstanceOf(Date);
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
