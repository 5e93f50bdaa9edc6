import { beforeEach, describe, expect, it } from '@jest/globals';
import type { MemoryAdapter } from '../adapters/memory.adapter.js';
import { AUTH_SERVICES } from '../auth.providers.js';
import type { AppProviders } from '../providers/provider.types.js';
import { AccountManagementService } from './account-management.service.js';
import { createAuthTestbed, everyProvider, rejectionOf } from './fixtures/auth-testbed.fixture.js';
import { UserWaysIn } from './user-ways-in.js';
import { SessionIssuer } from '../session/session-issuer.js';
import { SessionReader } from '../session/session-reader.js';

const GITHUB = { provider: 'idp', providerAccountId: 'gh-1', type: 'oauth' as const };
const GITHUB2 = { provider: 'idp', providerAccountId: 'gh-2', type: 'oauth' as const };
const typeOf = (error: unknown) => (error as { type?: string }).type;

describe('AccountManagementService', () => {
  let service: AccountManagementService;
  let adapter: MemoryAdapter;
  let waysIn: UserWaysIn;
  let events: string[];

  async function setup(providers: AppProviders = everyProvider()) {
    events = [];
    const bed = await createAuthTestbed(
      {
        providers,
        events: {
          unlinkAccount: (m) =>
            void events.push(`unlink ${m.user.id} ${m.account.provider}/${m.account.providerAccountId}`),
          deleteUser: (m) => void events.push(`delete ${m.user.id}`),
        },
      },
      AUTH_SERVICES,
    );
    service = bed.get(AccountManagementService);
    waysIn = bed.get(UserWaysIn);
    adapter = bed.adapter!;
    await adapter.createUser({ id: 'ada', email: 'ada@example.com', emailVerified: null, name: 'Ada' });
    await adapter.createUser({ id: 'bob', email: 'bob@example.com', emailVerified: new Date() });
  }
  beforeEach(() => setup());

  const link = (account: object, userId = 'ada') =>
    adapter.linkAccount({ ...account, userId, access_token: 'secret-at', refresh_token: 'secret-rt' } as never);

  describe('listAccounts', () => {
    it("lists the user's accounts with the provider's name, and never a token", async () => {
      await link(GITHUB);
      await link({ provider: 'gone', providerAccountId: 'x', type: 'oauth' });
      await link(GITHUB2, 'bob');
      const list = await service.listAccounts('ada');
      expect(list).toEqual([
        { provider: 'idp', providerAccountId: 'gh-1', type: 'oauth', name: 'IdP' },
        { provider: 'gone', providerAccountId: 'x', type: 'oauth', name: 'gone' },
      ]);
      expect(JSON.stringify(list)).not.toContain('secret');
    });
  });

  describe('unlinkAccount: never the last way to sign in', () => {
    it('refuses the only linked account of a user with no other way in (LastSignInMethod), changing nothing', async () => {
      await link(GITHUB);
      expect(typeOf(await rejectionOf(service.unlinkAccount('ada', GITHUB)))).toBe('LastSignInMethod');
      expect(await adapter.getUserByAccount(GITHUB)).toMatchObject({ id: 'ada' });
      expect(events).toEqual([]);
    });

    it('unlinks when another linked account remains, and fires unlinkAccount', async () => {
      await link(GITHUB);
      await link(GITHUB2);
      await service.unlinkAccount('ada', GITHUB);
      expect(await adapter.getUserByAccount(GITHUB)).toBeNull();
      expect(events).toEqual(['unlink ada idp/gh-1']);
      expect(typeOf(await rejectionOf(service.unlinkAccount('ada', GITHUB2)))).toBe('LastSignInMethod');
    });

    it('counts a verified address (email provider configured), not an unverified one', async () => {
      await link(GITHUB);
      expect(typeOf(await rejectionOf(service.unlinkAccount('ada', GITHUB)))).toBe('LastSignInMethod');
      await adapter.updateUser({ id: 'ada', emailVerified: new Date() });
      await service.unlinkAccount('ada', GITHUB);
      expect(await adapter.getUserByAccount(GITHUB)).toBeNull();
    });

    it('does not count the address when no email provider is configured', async () => {
      await setup(everyProvider().filter((p) => (p as { type?: string }).type !== 'email'));
      await adapter.updateUser({ id: 'ada', emailVerified: new Date() });
      await link(GITHUB);
      expect(typeOf(await rejectionOf(service.unlinkAccount('ada', GITHUB)))).toBe('LastSignInMethod');
    });

    it('counts a passkey, and a password (a credentials account or a stored passwordHash)', async () => {
      await link(GITHUB);
      await link({ provider: 'passkey', providerAccountId: 'cred-1', type: 'webauthn' });
      await adapter.createAuthenticator({
        credentialID: 'cred-1',
        credentialPublicKey: 'pk',
        providerAccountId: 'cred-1',
        counter: 0,
        credentialDeviceType: 'multiDevice',
        credentialBackedUp: true,
        userId: 'ada',
      });
      expect((await waysIn.list('ada')).map((m) => m.kind)).toEqual(['account', 'passkey']);
      await link({ provider: 'credentials', providerAccountId: 'ada', type: 'credentials' }, 'bob');
      await adapter.updateUser({ id: 'ada', passwordHash: '$scrypt$...' } as never);
      // In the registry's order: OAuth, email, credentials, passkeys.
      expect((await waysIn.list('ada')).map((m) => m.kind)).toEqual(['account', 'password', 'passkey']);
      expect((await waysIn.list('bob')).map((m) => m.kind)).toEqual(['email', 'password']);
      await service.unlinkAccount('ada', GITHUB);
    });

    it('ignores accounts of providers no longer configured (they sign nobody in)', async () => {
      await link({ provider: 'gone', providerAccountId: 'x', type: 'oauth' });
      await link(GITHUB);
      expect(typeOf(await rejectionOf(service.unlinkAccount('ada', GITHUB)))).toBe('LastSignInMethod');
      // ...and can themselves always be unlinked.
      await service.unlinkAccount('ada', { provider: 'gone', providerAccountId: 'x' });
    });

    it("refuses another user's account, or one that does not exist (InvalidRequest), changing nothing", async () => {
      await link(GITHUB, 'bob');
      await link(GITHUB2, 'bob');
      expect(typeOf(await rejectionOf(service.unlinkAccount('ada', GITHUB)))).toBe('InvalidRequest');
      expect(
        typeOf(await rejectionOf(service.unlinkAccount('ada', { provider: 'idp', providerAccountId: 'no' }))),
      ).toBe('InvalidRequest');
      expect(typeOf(await rejectionOf(service.unlinkAccount('ada', null as never)))).toBe('InvalidRequest');
      expect(await adapter.getUserByAccount(GITHUB)).toMatchObject({ id: 'bob' });
    });

    it('sends passkeys to deletePasskey (InvalidRequest)', async () => {
      await link({ provider: 'passkey', providerAccountId: 'cred-9', type: 'webauthn' });
      await link(GITHUB);
      const error = await rejectionOf(
        service.unlinkAccount('ada', { provider: 'passkey', providerAccountId: 'cred-9' }),
      );
      expect(typeOf(error)).toBe('InvalidRequest');
      expect(error.message).toMatch(/deletePasskey/);
    });

    it('of two concurrent unlinks of the last two accounts, exactly one succeeds', async () => {
      await link(GITHUB);
      await link(GITHUB2);
      const results = await Promise.allSettled([
        service.unlinkAccount('ada', GITHUB),
        service.unlinkAccount('ada', GITHUB2),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(await adapter.listAccountsByUserId('ada')).toHaveLength(1);
    });
  });

  describe('deleteAccount', () => {
    it('deletes the user, accounts, sessions, passkeys and the verification tokens of its address; fires deleteUser', async () => {
      await link(GITHUB);
      await adapter.createSession({ sessionToken: 's1', userId: 'ada', expires: new Date(Date.now() + 60_000) });
      await adapter.createSession({ sessionToken: 's2', userId: 'bob', expires: new Date(Date.now() + 60_000) });
      await adapter.createVerificationToken({
        identifier: 'ada@example.com',
        token: 't',
        expires: new Date(Date.now() + 60_000),
      });
      await adapter.createVerificationToken({
        identifier: 'bob@example.com',
        token: 't',
        expires: new Date(Date.now() + 60_000),
      });
      await adapter.createAuthenticator({
        credentialID: 'cred-d',
        credentialPublicKey: 'pk',
        providerAccountId: 'cred-d',
        counter: 0,
        credentialDeviceType: 'multiDevice',
        credentialBackedUp: true,
        userId: 'ada',
      });
      await service.deleteAccount('ada');
      expect(await adapter.getUser('ada')).toBeNull();
      expect(await adapter.getAuthenticator('cred-d')).toBeNull();
      expect(await adapter.getUserByAccount(GITHUB)).toBeNull();
      expect(await adapter.getSessionAndUser('s1')).toBeNull();
      expect(await adapter.useVerificationToken({ identifier: 'ada@example.com', token: 't' })).toBeNull();
      // Another user's rows stay.
      expect(await adapter.getSessionAndUser('s2')).not.toBeNull();
      expect(await adapter.useVerificationToken({ identifier: 'bob@example.com', token: 't' })).not.toBeNull();
      expect(events).toEqual(['delete ada']);
    });

    it('refuses a user that does not exist (InvalidRequest), firing nothing', async () => {
      expect(typeOf(await rejectionOf(service.deleteAccount('nobody')))).toBe('InvalidRequest');
      expect(typeOf(await rejectionOf(service.deleteAccount('')))).toBe('InvalidRequest');
      expect(events).toEqual([]);
    });
  });

  describe('deleteAccount with JWT sessions and jwtRevocation', () => {
    it("revokes every JWT session of the user (their cookies are refused at once), not other users'", async () => {
      const bed = await createAuthTestbed(
        { providers: everyProvider(), session: { strategy: 'jwt', jwtRevocation: true } },
        AUTH_SERVICES,
      );
      const store = bed.adapter!;
      const [issuer, reader] = [bed.get(SessionIssuer), bed.get(SessionReader)];
      for (const id of ['ada', 'bob']) await store.createUser({ id, email: `${id}@example.com`, emailVerified: null });
      const cookieOf = async (id: string) => {
        const ctx = bed.providerContext(bed.request('POST', '/callback/credentials'), 'credentials');
        const set = await issuer.create(ctx, { id }, {});
        return Object.fromEntries(set.filter((c) => c.value).map((c) => [c.name, c.value]));
      };
      const state = async (cookies: Record<string, string>) =>
        (await reader.read({ cookies, secure: false }, { fresh: true })).status;
      const [ada1, ada2, bob] = [await cookieOf('ada'), await cookieOf('ada'), await cookieOf('bob')];
      expect([await state(ada1), await state(ada2), await state(bob)]).toEqual(['active', 'active', 'active']);
      await bed.get(AccountManagementService).deleteAccount('ada');
      expect([await state(ada1), await state(ada2), await state(bob)]).toEqual(['invalid', 'invalid', 'active']);
    });
  });
});
